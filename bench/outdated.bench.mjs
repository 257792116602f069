/**
 * Wall time of `contractpin outdated` of a lock pinning 20 npm servers
 * (npx -y PKG@1.0.0, each with a newer 1.1.0) against 20 plain `npm view PKG
 * version` calls, one after another, both asking the same verdaccio registry
 * on loopback (started here on an ephemeral port, temporary storage, no
 * uplinks: nothing leaves the machine). Reports medians.
 * Usage: node bench/outdated.bench.mjs [--rounds N]   (after npm run build)
 */
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { medians } from "./timing.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const cli = join(root, "dist/bin/contractpin.cjs");
const fixture = join(root, "tests/fixtures/npm-server");
const roundsArg = process.argv.indexOf("--rounds");
const rounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 5;
const SERVERS = 20;
const dir = mkdtempSync(join(tmpdir(), "contractpin-bench-"));
const verdaccio = createRequire(import.meta.url).resolve("verdaccio");

writeFileSync(
  join(dir, "config.yaml"),
  `storage: ${JSON.stringify(join(dir, "storage"))}
auth: { htpasswd: { file: ${JSON.stringify(join(dir, "htpasswd"))}, max_users: 10 } }
uplinks: {}
packages: { "**": { access: $all, publish: $authenticated } }
log: { type: stdout, format: json, level: fatal }
`,
);
const script = `require(${JSON.stringify(verdaccio)}).runServer(${JSON.stringify(join(dir, "config.yaml"))}).then((app) => {
  const s = app.listen(0, "127.0.0.1", () => console.log("PORT " + s.address().port));
});`;
const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
try {
  const port = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = /PORT (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on("exit", (code) => reject(new Error(`verdaccio exited ${code}`)));
  });
  const url = `http://127.0.0.1:${port}/`;
  const user = await fetch(`${url}-/user/org.couchdb.user:bench`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "bench", password: "bench-password", type: "user", roles: [] }),
  });
  const { token } = await user.json();
  const home = join(dir, "home");
  mkdirSync(home);
  writeFileSync(
    join(home, ".npmrc"),
    `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\ncache=${join(dir, "cache")}\nupdate-notifier=false\n`,
  );
  const env = { HOME: home, npm_config_userconfig: join(home, ".npmrc") };
  const names = Array.from({ length: SERVERS }, (_, i) => `bench-server-${i}`);
  for (const name of names) {
    for (const version of ["1.0.0", "1.1.0"]) {
      const pkg = join(dir, `${name}-${version}`);
      cpSync(fixture, pkg, { recursive: true });
      cpSync(join(fixture, `tools-${version}.json`), join(pkg, "tools.json"));
      const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
      writeFileSync(join(pkg, "package.json"), JSON.stringify({ ...manifest, name, version }));
      const r = spawnSync("npm", ["publish"], { cwd: pkg, env: { ...process.env, ...env } });
      if (r.status !== 0) throw new Error(`npm publish ${name}@${version}: ${r.stderr}`);
    }
  }
  // A lock of 20 stdio servers: one file server pinned by add, its entry copied with each command.
  const project = join(dir, "project");
  mkdirSync(project);
  writeFileSync(join(project, "dump.json"), JSON.stringify({ tools: [] }));
  const add = spawnSync(
    process.execPath,
    [cli, "add", "x", "--file", "dump.json", "--no-snapshot"],
    {
      cwd: project,
    },
  );
  if (add.status !== 0) throw new Error(`contractpin add: ${add.stderr}`);
  const lock = JSON.parse(readFileSync(join(project, "contractpin.lock"), "utf8"));
  const { transport: _t, path: _p, ...digests } = lock.servers.x;
  lock.servers = Object.fromEntries(
    names.map((n, i) => [
      `s${i}`,
      { transport: "stdio", command: ["npx", "-y", `${n}@1.0.0`], ...digests },
    ]),
  );
  writeFileSync(join(project, "contractpin.lock"), JSON.stringify(lock, null, 2));
  const npmViews = join(dir, "npm-views.sh");
  writeFileSync(
    npmViews,
    names.map((n) => `npm view ${n} version >/dev/null`).join(" &&\n") + "\n",
  );
  const [outdated, views] = medians(
    [
      [process.execPath, cli, "outdated"],
      ["sh", npmViews],
    ],
    rounds,
    { cwd: project, env, okCodes: [1] },
  );
  console.log(
    `outdated of ${SERVERS} pinned npm servers: ${outdated.toFixed(0)} ms (median of ${rounds}); ` +
      `${SERVERS} npm view calls: ${views.toFixed(0)} ms; ${(views / outdated).toFixed(1)}x`,
  );
} finally {
  child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
}
