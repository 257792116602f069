import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { atEnd, killAtEnd, tempDir } from "./cleanup.js";
import { printedPort } from "./registry.js";

const BUILD = fileURLToPath(new URL("../fixtures/python-server/build_dists.py", import.meta.url));
const TOOLS = fileURLToPath(new URL("../fixtures/npm-server/", import.meta.url));

/** The fixture's project name on the index (its files spell it `contractpin_fixture_py`). */
export const PY_PKG = "contractpin-fixture-py";

/** One release on the index: its version, the tools it serves (tools-TOOLS.json), whether it is yanked. */
export interface Release {
  version: string;
  tools: string;
  yanked?: boolean;
}

/**
 * A static Simple API tree in a temporary folder: real wheels and sdists of
 * the fixture server (built by build_dists.py with Python's standard
 * library), `simple/index.html` and `simple/contractpin-fixture-py/index.html`
 * as PEP 503 HTML, or, with `json`, as PEP 691 JSON (served with the JSON
 * media type by serveTree). Yanked releases are marked (PEP 592).
 */
export function buildTree(releases: readonly Release[], json = false): string {
  const root = tempDir("contractpin-pyindex-");
  const files = join(root, "files");
  const entries: { filename: string; sha256: string; yanked: boolean }[] = [];
  for (const r of releases) {
    const built = spawnSync(
      "python3",
      [BUILD, files, r.version, join(TOOLS, `tools-${r.tools}.json`)],
      {
        encoding: "utf8",
      },
    );
    if (built.status !== 0) throw new Error(`build_dists.py failed: ${built.stderr}`);
    for (const filename of built.stdout.trim().split("\n")) {
      const sha256 = createHash("sha256")
        .update(readFileSync(join(files, filename)))
        .digest("hex");
      entries.push({ filename, sha256, yanked: r.yanked === true });
    }
  }
  const project = join(root, "simple", PY_PKG);
  mkdirSync(project, { recursive: true });
  if (json) {
    const page = {
      meta: { "api-version": "1.1" },
      name: PY_PKG,
      versions: releases.map((r) => r.version),
      files: entries.map((e) => ({
        filename: e.filename,
        url: `../../files/${e.filename}`,
        hashes: { sha256: e.sha256 },
        ...(e.yanked ? { yanked: "broken release" } : {}),
      })),
    };
    writeFileSync(join(project, "index.html"), JSON.stringify(page));
    const list = { meta: { "api-version": "1.1" }, projects: [{ name: PY_PKG }] };
    writeFileSync(join(root, "simple", "index.html"), JSON.stringify(list));
  } else {
    const anchors = entries.map(
      (e) =>
        `    <a href="../../files/${e.filename}#sha256=${e.sha256}"${e.yanked ? ' data-yanked="broken release"' : ""}>${e.filename}</a><br/>`,
    );
    writeFileSync(
      join(project, "index.html"),
      `<!DOCTYPE html>\n<html>\n  <body>\n${anchors.join("\n")}\n  </body>\n</html>\n`,
    );
    writeFileSync(
      join(root, "simple", "index.html"),
      `<!DOCTYPE html>\n<html><body><a href="${PY_PKG}/">${PY_PKG}</a></body></html>\n`,
    );
  }
  return root;
}

// Python's own http.server, serving the tree; for a JSON tree its index.html
// files go out with the PEP 691 media type.
const SERVE = `
import functools, http.server, sys
handler = http.server.SimpleHTTPRequestHandler
if sys.argv[2] == "json":
    handler.extensions_map = {**handler.extensions_map, ".html": "application/vnd.pypi.simple.v1+json"}
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=sys.argv[1]))
print("PORT", server.server_address[1], flush=True)
server.serve_forever()
`;

/** Serves a tree with python3's http.server on loopback; the URL is its Simple API root (`…/simple/`). */
export async function serveTree(
  root: string,
  json = false,
): Promise<{ url: string; stop(): void }> {
  const child = spawn("python3", ["-u", "-c", SERVE, root, json ? "json" : "html"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  killAtEnd(child);
  const port = await printedPort(child, "http.server");
  const stop = () => {
    if (child.exitCode === null) child.kill("SIGKILL");
  };
  atEnd(stop);
  return { url: `http://127.0.0.1:${port}/simple/`, stop };
}

/** What the real pip says of the fixture on an index: `pip index versions [--pre]` (pip 23.2), its versions and its latest. */
export function pipIndexVersions(
  indexUrl: string,
  pre = false,
): { latest: string; versions: string[] } {
  const r = spawnSync(
    "python3",
    [
      "-m",
      "pip",
      "index",
      "versions",
      "--index-url",
      indexUrl,
      "--no-cache-dir",
      "--disable-pip-version-check",
      ...(pre ? ["--pre"] : []),
      PY_PKG,
    ],
    { encoding: "utf8", env: { ...process.env, PIP_CONFIG_FILE: "/dev/null", PIP_NO_INPUT: "1" } },
  );
  if (r.status !== 0) throw new Error(`pip index versions failed: ${r.stderr}`);
  const latest = /\(([^)]+)\)/.exec(r.stdout.split("\n")[0]!)![1]!;
  const versions = /Available versions: (.*)/.exec(r.stdout)![1]!.split(", ");
  return { latest, versions };
}
