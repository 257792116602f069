import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import { closeSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { atEnd, killAtEnd, tempDir } from "./cleanup.js";
import { closedRegistry } from "./registry.js";
import type { TokenService } from "./token-service.js";

/**
 * A real image registry on loopback: the CNCF distribution registry that
 * Debian packages as `docker-registry`, run from its binary with a config
 * written here (storage in a temporary folder, an ephemeral port), never the
 * system service. With `login`, it wants that user's password (htpasswd,
 * bcrypt, made by apache2-utils' htpasswd), as `docker login` would give it;
 * with `token`, a Bearer token from that token service.
 */
export interface ImageRegistry {
  /** `127.0.0.1:PORT`: how an image reference names it. */
  host: string;
  /** `http://127.0.0.1:PORT/`: how contractpin reports it. */
  url: string;
  /**
   * Pushes one small image to `repository` under each of `tags`, as plain
   * HTTP calls; another `variant` makes another layer, so a push of it
   * re-points the tags at other contents (a re-pushed tag).
   */
  push(repository: string, tags: readonly string[], variant?: string): Promise<void>;
  stop(): void;
}

export async function startImageRegistry(
  options: { login?: { user: string; password: string }; token?: TokenService } = {},
): Promise<ImageRegistry> {
  const { login, token } = options;
  const dir = tempDir("contractpin-image-registry-");
  // A port just freed; the registry takes it at once (it cannot be told to pick one).
  const host = new URL(await closedRegistry()).host;
  const config = [
    "version: 0.1",
    "log: { level: error, accesslog: { disabled: true } }",
    `storage: { filesystem: { rootdirectory: ${JSON.stringify(join(dir, "data"))} } }`,
    `http: { addr: ${JSON.stringify(host)} }`,
  ];
  if (login !== undefined) {
    const made = spawnSync("htpasswd", ["-Bbn", login.user, login.password], { encoding: "utf8" });
    if (made.status !== 0) throw new Error(`htpasswd failed: ${made.stderr}`);
    writeFileSync(join(dir, "htpasswd"), made.stdout);
    config.push(
      `auth: { htpasswd: { realm: test-realm, path: ${JSON.stringify(join(dir, "htpasswd"))} } }`,
    );
  }
  if (token !== undefined) {
    const { realm, service, issuer, bundle } = token;
    const fields = { realm, service, issuer, rootcertbundle: bundle };
    config.push(`auth: { token: ${JSON.stringify(fields)} }`);
  }
  writeFileSync(join(dir, "config.yml"), `${config.join("\n")}\n`);
  // Its log (which names each 404 and refused login as an error) goes to a file, shown if it fails to start.
  const log = openSync(join(dir, "registry.log"), "w");
  const child = spawn("docker-registry", ["serve", join(dir, "config.yml")], {
    stdio: ["ignore", log, log],
  });
  closeSync(log);
  killAtEnd(child);
  const stop = () => {
    if (child.exitCode === null) child.kill("SIGKILL");
  };
  atEnd(stop);
  const url = `http://${host}/`;
  // The test's own pushes: as the registry's one user, or with a push token minted for them.
  const basic = (repository: string): Record<string, string> =>
    login !== undefined
      ? {
          authorization: `Basic ${Buffer.from(`${login.user}:${login.password}`).toString("base64")}`,
        }
      : token !== undefined
        ? { authorization: `Bearer ${token.mint(repository, ["pull", "push"])}` }
        : {};
  for (let i = 0; ; i++) {
    if (child.exitCode !== null)
      throw new Error(
        `docker-registry exited (${child.exitCode}): ${readFileSync(join(dir, "registry.log"), "utf8")}`,
      );
    const up = await fetch(`${url}v2/`).then(
      (r) => r.status,
      () => 0,
    );
    if (up === 200 || up === 401) break;
    if (i > 200) throw new Error("docker-registry did not start");
    await new Promise((r) => setTimeout(r, 50));
  }

  async function upload(repository: string, bytes: Buffer): Promise<string> {
    const digest = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
    const start = await fetch(`${url}v2/${repository}/blobs/uploads/`, {
      method: "POST",
      headers: basic(repository),
    });
    if (start.status !== 202) throw new Error(`blob upload start: HTTP ${start.status}`);
    const location = new URL(start.headers.get("location")!, url);
    location.searchParams.set("digest", digest);
    const put = await fetch(location, {
      method: "PUT",
      headers: { ...basic(repository), "content-type": "application/octet-stream" },
      body: bytes,
    });
    if (put.status !== 201) throw new Error(`blob upload: HTTP ${put.status}`);
    return digest;
  }

  return {
    host,
    url,
    stop,
    async push(repository, tags, variant = "") {
      const configBlob = Buffer.from(
        JSON.stringify({
          architecture: "amd64",
          os: "linux",
          rootfs: { type: "layers", diff_ids: [] },
        }),
      );
      const layer = Buffer.from(`a layer of ${repository}${variant}\n`);
      const manifest = JSON.stringify({
        schemaVersion: 2,
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        config: {
          mediaType: "application/vnd.oci.image.config.v1+json",
          digest: await upload(repository, configBlob),
          size: configBlob.length,
        },
        layers: [
          {
            mediaType: "application/vnd.oci.image.layer.v1.tar",
            digest: await upload(repository, layer),
            size: layer.length,
          },
        ],
      });
      for (const tag of tags) {
        const put = await fetch(`${url}v2/${repository}/manifests/${tag}`, {
          method: "PUT",
          headers: {
            ...basic(repository),
            "content-type": "application/vnd.oci.image.manifest.v1+json",
          },
          body: manifest,
        });
        if (put.status !== 201) throw new Error(`manifest ${tag}: HTTP ${put.status}`);
      }
    },
  };
}

/**
 * distribution 2.8 sends every tag in one answer whatever `n` asks (tag
 * pagination came in 3.0), so this pass-through proxy on loopback pages a
 * registry's tag lists as the OCI distribution spec says (lexical order, at
 * most `n`, a relative `Link: <…?n=N&last=T>; rel="next"` while more remain);
 * everything else it forwards unchanged, credentials included.
 */
export async function pagingProxy(
  upstream: ImageRegistry,
): Promise<{ host: string; url: string; pages(): number }> {
  let pages = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", upstream.url);
      const n = Number(url.searchParams.get("n") ?? "0");
      const last = url.searchParams.get("last");
      url.searchParams.delete("n");
      url.searchParams.delete("last");
      const headers: Record<string, string> = {};
      if (req.headers.authorization !== undefined)
        headers["authorization"] = req.headers.authorization;
      const answer = await fetch(url, { headers });
      const text = await answer.text();
      const out: Record<string, string> = {};
      for (const name of ["content-type", "www-authenticate"]) {
        const value = answer.headers.get(name);
        if (value !== null) out[name] = value;
      }
      if (!url.pathname.endsWith("/tags/list") || answer.status !== 200 || n <= 0) {
        res.writeHead(answer.status, out).end(text);
        return;
      }
      const doc = JSON.parse(text) as { name: string; tags: string[] };
      const after = doc.tags.sort().filter((t) => last === null || t > last);
      const page = after.slice(0, n);
      if (after.length > n)
        out["link"] =
          `<${url.pathname}?n=${n}&last=${encodeURIComponent(page.at(-1)!)}>; rel="next"`;
      pages++;
      res.writeHead(200, out).end(JSON.stringify({ name: doc.name, tags: page }));
    })().catch((err: unknown) => res.writeHead(502).end(String(err)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  atEnd(() => server.close());
  const { port } = server.address() as { port: number };
  return { host: `127.0.0.1:${port}`, url: `http://127.0.0.1:${port}/`, pages: () => pages };
}
