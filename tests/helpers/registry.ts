import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { atEnd, killAtEnd, tempDir } from "./cleanup.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/npm-server/", import.meta.url));
const VERDACCIO = createRequire(import.meta.url).resolve("verdaccio");

/**
 * A real npm registry (verdaccio) on loopback, on an ephemeral port, with its
 * storage and config in a temporary folder and no uplinks: nothing it serves
 * comes from the public registry. Packages under `@private/` need a login.
 */
export interface LocalRegistry {
  url: string;
  /** A token of the registry's one user (for .npmrc files). */
  token: string;
  /** An .npmrc and a cache that send npm to this registry with the token, and nowhere else. */
  npmEnv: Record<string, string>;
  /** Publishes the fixture server as NAME@VERSION, serving tests/fixtures/npm-server/tools-TOOLS.json. */
  publish(name: string, version: string, tools: string): void;
  /**
   * Rewrites what the registry stores of a published package (its
   * storage/NAME/package.json, which verdaccio serves as it finds it): for
   * metadata npm's own commands refuse to make, such as a `latest` tag that
   * names no published version.
   */
  editMetadata(name: string, edit: (doc: StoredPackage) => void): void;
  stop(): void;
}

/** What verdaccio stores of a package: its tags and its versions' manifests. */
export interface StoredPackage {
  "dist-tags": Record<string, string>;
  versions: Record<string, Record<string, unknown>>;
}

export async function startRegistry(): Promise<LocalRegistry> {
  const dir = tempDir("contractpin-registry-");
  const config = join(dir, "config.yaml");
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(join(dir, "storage"))}`,
      "auth:",
      "  htpasswd:",
      `    file: ${JSON.stringify(join(dir, "htpasswd"))}`,
      "    max_users: 10",
      "uplinks: {}",
      "packages:",
      "  '@private/*':",
      "    access: $authenticated",
      "    publish: $authenticated",
      "  '**':",
      "    access: $all",
      "    publish: $authenticated",
      "log: { type: stdout, format: json, level: fatal }",
      "",
    ].join("\n"),
  );
  const script = `require(${JSON.stringify(VERDACCIO)}).runServer(${JSON.stringify(config)}).then((app) => {
    const server = app.listen(0, "127.0.0.1", () => console.log("PORT " + server.address().port));
  }, (e) => { console.error(e); process.exit(1); });`;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  killAtEnd(child);
  const port = await printedPort(child, "verdaccio");
  const url = `http://127.0.0.1:${port}/`;
  const user = await fetch(`${url}-/user/org.couchdb.user:tester`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "tester", password: "test-password-1", type: "user", roles: [] }),
  });
  const { token } = (await user.json()) as { token: string };
  const npmrc = join(dir, "npmrc");
  writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
  const cache = join(dir, "npm-cache");
  mkdirSync(cache);
  const npmEnv = {
    npm_config_userconfig: npmrc,
    npm_config_globalconfig: join(dir, "no-global-npmrc"),
    npm_config_cache: cache,
    npm_config_registry: url,
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
  };
  const stop = () => {
    if (child.exitCode === null) child.kill("SIGKILL");
  };
  atEnd(stop);
  return {
    url,
    token,
    npmEnv,
    stop,
    editMetadata(name, edit) {
      const file = join(dir, "storage", name, "package.json");
      const doc = JSON.parse(readFileSync(file, "utf8")) as StoredPackage;
      edit(doc);
      writeFileSync(file, JSON.stringify(doc));
    },
    publish(name, version, tools) {
      const pkg = join(dir, `pkg-${name.replace("/", "+")}-${version}`);
      cpSync(FIXTURE, pkg, { recursive: true });
      cpSync(join(FIXTURE, `tools-${tools}.json`), join(pkg, "tools.json"));
      const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
      writeFileSync(join(pkg, "package.json"), JSON.stringify({ ...manifest, name, version }));
      const r = spawnSync("npm", ["publish", "--registry", url, "--access", "public"], {
        cwd: pkg,
        env: { ...process.env, ...npmEnv },
        encoding: "utf8",
      });
      if (r.status !== 0) throw new Error(`npm publish ${name}@${version} failed: ${r.stderr}`);
    },
  };
}

/** The port a test server child prints on its stdout as `PORT n` once it listens. */
export function printedPort(child: ChildProcess, what: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /PORT (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on("exit", (code) => reject(new Error(`${what} exited (${code})`)));
  });
}

/** A loopback URL on which nothing listens (a port just freed), for an unreachable registry. */
export async function closedRegistry(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/`;
}
