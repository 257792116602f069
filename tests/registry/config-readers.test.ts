// The readers of pip.conf and .npmrc lost three patterns that cost the square
// of a line's length (a lazy key before blanks, a run of backslashes tried
// from each of them, an .npmrc key built for every path segment of a registry
// URL). They must read every input exactly as the patterns did: each case
// here is checked against the old pattern, kept as the reference.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import "../helpers/fc-seed.js";
import { ContractpinError } from "../../src/core/errors.js";
import { parsePipConf } from "../../src/registry/pip-index.js";
import { authorizationFor, parseNpmrc, type NpmConfig } from "../../src/registry/npmrc.js";

const runs = { numRuns: 5_000 };
const text = (pieces: string[], maxLength = 12) =>
  fc.array(fc.constantFrom(...pieces), { maxLength }).map((p) => p.join(""));

/** pip.conf's `key = value` line as the old pattern read it, in a [global] section. */
function oldPipLine(line: string): Map<string, string> | "refused" | "skipped" {
  if (/^\s*([#;]|$)/.test(line)) return "skipped";
  const kv = /^([^=:\s][^=:]*?)\s*[=:]\s*(.*)$/.exec(line);
  if (kv === null) return "refused";
  return new Map([[kv[1]!.toLowerCase().replace(/_/g, "-"), kv[2]!.trim()]]);
}

test("pip.conf: a key = value line reads as the old pattern read it", () => {
  const pieces = ["a", "B", "_", "=", ":", " ", "\t", "\u00a0", "\r", "\u2028", "x y"];
  fc.assert(
    fc.property(text(pieces), (line) => {
      const want = oldPipLine(line);
      let got: Map<string, string> | "refused" | "skipped";
      try {
        const global = parsePipConf(`[global]\n${line}`, "pip.conf").get("global")!;
        got = global.size === 0 ? "skipped" : global;
      } catch (err) {
        assert.ok(err instanceof ContractpinError, String(err));
        got = "refused";
      }
      assert.deepEqual(got, want, JSON.stringify(line));
    }),
    runs,
  );
});

test(".npmrc: ${VAR} after any run of backslashes expands as the old pattern did", () => {
  const env = { A: "va", B: "vb" };
  const old = (value: string) =>
    value.replace(/(\\*)\$\{([^${}]+)\}/g, (whole, escapes: string, name: string) =>
      escapes.length % 2 === 1 ? whole.slice(1) : `${escapes}${env[name as "A"] ?? ""}`,
    );
  fc.assert(
    fc.property(text(["\\", "\\\\", "$", "${", "{", "}", "A", "B", "x"]), (value) => {
      const trimmed = value.trim();
      assert.equal(parseNpmrc(`k=${value}`, env).get("k"), old(trimmed), JSON.stringify(value));
    }),
    runs,
  );
});

test(".npmrc: the credential of the longest //host/path/ key the registry starts with, as the old walk found it", () => {
  const nerfs = ["//h/", "//h/a/", "//h/a/b/", "//h/ab/", "//h:8/", "//h:8/a/", "//x/", "//h/a/b"];
  const fields = [":_authToken", ":_auth", ":username", ":_password", ":other"];
  const registries = [
    "https://h/",
    "https://h/a/b/c",
    "https://h/ab",
    "https://h:8/a/",
    "https://x/y/",
  ];
  const entry = fc.tuple(
    fc.constantFrom(...nerfs),
    fc.constantFrom(...fields),
    fc.constantFrom("", "dA==", "t"),
  );
  fc.assert(
    fc.property(
      fc.array(entry, { maxLength: 8 }),
      fc.constantFrom(...registries),
      (entries, registry) => {
        const map = new Map(entries.map(([nerf, field, value]) => [`${nerf}${field}`, value]));
        const config: NpmConfig = { get: (key) => map.get(key), keys: () => map.keys() };
        assert.equal(authorizationFor(config, registry), oldWalk(config, registry));
      },
    ),
    runs,
  );
});

/** The old authorizationFor: a key built for every segment of the path, from the longest. */
function oldWalk(config: NpmConfig, registry: string): string | undefined {
  const url = new URL(registry);
  let path = url.pathname.endsWith("/") ? url.pathname : `${url.pathname}/`;
  for (;;) {
    const nerf = `//${url.host}${path}`;
    const token = config.get(`${nerf}:_authToken`);
    if (token) return `Bearer ${token}`;
    const auth = config.get(`${nerf}:_auth`);
    if (auth) return `Basic ${auth}`;
    const user = config.get(`${nerf}:username`);
    const password = config.get(`${nerf}:_password`);
    if (user && password) {
      const plain = Buffer.from(password, "base64").toString("utf8");
      return `Basic ${Buffer.from(`${user}:${plain}`).toString("base64")}`;
    }
    if (path === "/") return undefined;
    path = path.replace(/[^/]*\/$/, "");
  }
}
