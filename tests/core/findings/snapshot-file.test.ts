import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { canonicalize } from "../../../src/core/json/canonical-json.js";
import { contractOf, type Contract } from "../../../src/core/contract/contract.js";
import type { ServerDigests } from "../../../src/core/contract/digest.js";
import { isContractpinError } from "../../../src/core/errors.js";
import { MAX_LOCK_BYTES } from "../../../src/core/limits.js";
import { parseJson } from "../../../src/core/json/strict-json.js";
import {
  readSnapshot,
  renderSnapshot,
  snapshotEntry,
  snapshotPath,
  writeSnapshot,
} from "../../../src/io/snapshot-file.js";
import {
  MAX_SNAPSHOT_DEPTH,
  pruneSnapshot,
  withoutServer,
  withServer,
} from "../../../src/io/snapshot-record.js";
import { readSnapshotEntries } from "../../../src/io/snapshot-entries.js";
import { pythonDigest } from "../../helpers/cli.js";
import { baseTools } from "../../helpers/workspace.js";

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "contractpin-snapshot-"));
  dirs.push(dir);
  return dir;
}

/** The tools of the shared fixture, with a -0 and a __proto__ member to carry through. */
function tools(): unknown[] {
  const list = baseTools() as Record<string, unknown>[];
  list[1]!.inputSchema = parseJson(
    '{"type":"object","properties":{"__proto__":{"type":"string","minimum":-0}},"required":["id"]}',
  );
  return list;
}

/** The contracts and, from the independent Python implementation, the lock's digests. */
function pinnedServer(dir: string): { contracts: Contract[]; digests: ServerDigests } {
  const dump = join(dir, "dump.json");
  // Written by hand so that -0 and __proto__ reach the file as text.
  writeFileSync(dump, JSON.stringify({ tools: tools() }).replace('"minimum":0', '"minimum":-0'));
  const list = (parseJson(readFileSync(dump)) as { tools: never[] }).tools;
  return {
    contracts: list.map((t) => contractOf(t)),
    digests: pythonDigest(dump) as ServerDigests,
  };
}

describe("snapshotPath", () => {
  it("puts the sidecar beside the lock, named after it", () => {
    assert.equal(snapshotPath("contractpin.lock"), "contractpin.contracts.json");
    assert.equal(snapshotPath("/repo/ci/mcp.lock"), "/repo/ci/mcp.contracts.json");
    assert.equal(snapshotPath("pins.json"), "pins.json.contracts.json");
    assert.equal(snapshotPath("/x/.lock"), "/x/.lock.contracts.json");
  });
});

describe("snapshot file", () => {
  it("round-trips: each entry read back is the pinned contract, checked against the lock", async () => {
    const dir = tempDir();
    const { contracts, digests } = pinnedServer(dir);
    const path = join(dir, "contractpin.contracts.json");
    assert.equal(await writeSnapshot(path, withServer(undefined, "docs", contracts)), true);
    const { snapshot, warning } = await readSnapshot(path);
    assert.equal(warning, undefined);
    for (const contract of contracts) {
      const entry = snapshotEntry(
        snapshot,
        "docs",
        contract.name,
        digests.tools[contract.name]!.digest,
      );
      assert.equal(entry.warning, undefined);
      // Values as canonicalized: -0 comes back as 0.
      assert.equal(canonicalize(entry.contract), canonicalize(contract));
    }
    const fetchSchema = snapshotEntry(
      snapshot,
      "docs",
      "fetch_page",
      digests.tools["fetch_page"]!.digest,
    ).contract!.inputSchema as Record<string, Record<string, unknown>>;
    assert.ok(Object.hasOwn(fetchSchema.properties!, "__proto__"));
  });

  it("is written like the lock: sorted keys, two-space indent, LF, trailing newline", async () => {
    const dir = tempDir();
    const path = join(dir, "contractpin.contracts.json");
    const contract: Contract = { name: "b", description: "d", inputSchema: { z: 1, a: -0 } };
    await writeSnapshot(path, withServer(undefined, "s", [contract]));
    assert.equal(
      readFileSync(path, "utf8"),
      [
        "{",
        '  "contractpin-contracts": "1",',
        '  "servers": {',
        '    "s": {',
        '      "b": {',
        '        "description": "d",',
        '        "inputSchema": {',
        '          "a": 0,',
        '          "z": 1',
        "        },",
        '        "name": "b"',
        "      }",
        "    }",
        "  }",
        "}",
        "",
      ].join("\n"),
    );
  });

  it("does not rewrite an unchanged file", async () => {
    const dir = tempDir();
    const path = join(dir, "contractpin.contracts.json");
    const snapshot = withServer(undefined, "s", [
      { name: "t", description: null, inputSchema: null },
    ]);
    assert.equal(await writeSnapshot(path, snapshot), true);
    const past = new Date("2020-01-01T00:00:00Z");
    const { utimesSync } = await import("node:fs");
    utimesSync(path, past, past);
    assert.equal(await writeSnapshot(path, snapshot), false);
    assert.equal(statSync(path).mtimeMs, past.getTime());
    assert.equal(await writeSnapshot(path, withServer(snapshot, "s", [])), true);
  });

  it("takes a stale entry (another pin's contract) for no snapshot, with a warning", async () => {
    const dir = tempDir();
    const { contracts, digests } = pinnedServer(dir);
    const path = join(dir, "contractpin.contracts.json");
    const stale = contracts.map((c) => ({ ...c, description: `${String(c.description)} (old)` }));
    await writeSnapshot(path, withServer(undefined, "docs", stale));
    const { snapshot } = await readSnapshot(path);
    const entry = snapshotEntry(snapshot, "docs", "search", digests.tools["search"]!.digest, path);
    assert.equal(entry.contract, undefined);
    assert.equal(
      entry.warning,
      `${path}: no snapshot of tool "search" of server "docs" matches the lock (stale or edited); the changed fields are unknown`,
    );
  });

  it("takes a hand-edited entry for no snapshot, even when its contract projection matches", async () => {
    const dir = tempDir();
    const { contracts, digests } = pinnedServer(dir);
    const path = join(dir, "contractpin.contracts.json");
    await writeSnapshot(path, withServer(undefined, "docs", contracts));
    // An extra member that contractOf would drop: the entry is no longer exactly the contract.
    writeFileSync(
      path,
      readFileSync(path, "utf8").replace('"name": "search"', '"name": "search", "title": "x"'),
    );
    const { snapshot } = await readSnapshot(path);
    const edited = snapshotEntry(snapshot, "docs", "search", digests.tools["search"]!.digest, path);
    assert.equal(edited.contract, undefined);
    assert.match(edited.warning!, /no snapshot of tool "search" of server "docs" matches the lock/);
    // An entry filed under another tool's name.
    const moved = snapshotEntry(snapshot, "docs", "fetch_page", digests.tools["search"]!.digest);
    assert.equal(moved.contract, undefined);
    // The untouched entry is still used.
    assert.ok(
      snapshotEntry(snapshot, "docs", "fetch_page", digests.tools["fetch_page"]!.digest).contract,
    );
  });

  it("reads a missing file as no snapshot, silently; a missing entry warns", async () => {
    const dir = tempDir();
    const read = await readSnapshot(join(dir, "none.contracts.json"));
    assert.deepEqual(read, {});
    const entry = snapshotEntry(
      read.snapshot,
      "docs",
      "__proto__",
      `sha256:${"0".repeat(64)}`,
      "f",
    );
    assert.equal(
      entry.warning,
      'f: no snapshot of tool "__proto__" of server "docs"; the changed fields are unknown',
    );
  });

  it("reads a corrupt or foreign file as no snapshot, with one warning line", async () => {
    const dir = tempDir();
    const cases: [string, RegExp][] = [
      ['{"contractpin-contracts": "1", "servers": {}, "servers": {}}', /corrupt: .*duplicate/i],
      ["{", /corrupt/],
      ['{"contractpin-contracts": "2", "servers": {}}', /has format "2", not "1"/],
      ["[]", /is not a contract snapshot file/],
      ['{"contractpin": "1"}', /is not a contract snapshot file/],
    ];
    for (const [text, pattern] of cases) {
      const path = join(dir, "c.contracts.json");
      writeFileSync(path, text);
      const { snapshot, warning } = await readSnapshot(path);
      assert.equal(snapshot, undefined, text);
      assert.match(warning!, pattern);
      assert.ok(warning!.startsWith(path) && !warning!.includes("\n"));
    }
  });

  it("reads a directory, a FIFO or an over-limit file as no snapshot, with a warning, at once", async () => {
    const dir = tempDir();
    const cases: [string, (path: string) => void, string][] = [
      ["a directory", (path) => mkdirSync(path), "it is a directory, not a regular file"],
      // A FIFO with no writer: reading it would wait forever.
      [
        "a FIFO",
        (path) => execFileSync("mkfifo", [path]),
        "it is a FIFO (named pipe), not a regular file",
      ],
      [
        "a sparse file over the limit",
        (path) => truncateSync((writeFileSync(path, ""), path), MAX_LOCK_BYTES + 1),
        "it is larger than the limit of 256 MiB",
      ],
    ];
    for (const [what, make, why] of cases) {
      const path = join(dir, `${what.replaceAll(" ", "-")}.contracts.json`);
      make(path);
      const { snapshot, warning } = await readSnapshot(path);
      assert.equal(snapshot, undefined, what);
      assert.equal(
        warning,
        `${path}: cannot read the contract snapshots: ${why}; the changed fields are unknown`,
        what,
      );
      const wanted = [{ server: "s", tool: "t", pinned: `sha256:${"0".repeat(64)}` as const }];
      const entries = await readSnapshotEntries(path, wanted);
      assert.equal(entries.file, true, what);
      assert.equal(entries.warning, warning, what);
      // A pin never replaces what contractpin did not write (a directory cannot be replaced).
      if (what === "a directory") continue;
      const size = statSync(path).size;
      await assert.rejects(writeSnapshot(path, withServer(undefined, "s", [])), (err) => {
        assert.ok(isContractpinError(err, "WRITE_REFUSED"), what);
        assert.equal(
          err.message,
          `${path}: cannot write the contract snapshots: the file there is not a contract snapshot file (it cannot be read: ${why}), and contractpin replaces only its own; nothing was written; move it aside or delete it, then run the command again`,
        );
        return true;
      });
      assert.equal(statSync(path).size, size, what);
    }
  });

  it("leaves out a contract nested too deep to pretty-print, and still writes the rest", async () => {
    const dir = tempDir();
    const path = join(dir, "c.contracts.json");
    const deep = parseJson("[".repeat(9_000) + "]".repeat(9_000));
    const limit = parseJson(
      "[".repeat(MAX_SNAPSHOT_DEPTH - 1) + "]".repeat(MAX_SNAPSHOT_DEPTH - 1),
    );
    const contracts: Contract[] = [
      { name: "deep", description: null, inputSchema: deep },
      { name: "limit", description: null, inputSchema: limit },
    ];
    await writeSnapshot(path, withServer(undefined, "s", contracts));
    const { snapshot } = await readSnapshot(path);
    assert.deepEqual(Object.keys(snapshot!.servers["s"]!), ["limit"]);
  });

  it("prunes entries the lock does not vouch for, and drops a removed server", () => {
    const dir = tempDir();
    const { contracts, digests } = pinnedServer(dir);
    const stale = { ...contracts[0]!, description: "old" };
    let snapshot = withServer(undefined, "docs", [stale, contracts[1]!]);
    snapshot = withServer(snapshot, "gone", contracts);
    const pruned = pruneSnapshot(snapshot, { servers: { docs: digests } });
    assert.deepEqual(Object.keys(pruned.servers), ["docs"]);
    assert.deepEqual(Object.keys(pruned.servers["docs"]!), ["fetch_page"]);
    assert.deepEqual(Object.keys(withoutServer(snapshot, "docs").servers), ["gone"]);
    assert.ok(renderSnapshot(pruned).endsWith("}\n"));
  });
});

describe("readSnapshotEntries: the wanted entries, without parsing the whole file when it is as written", () => {
  /** A sidecar of two servers (docs, and other with a tool named like one of docs's), and the wanted entries of docs. */
  async function written(dir: string) {
    const { contracts, digests } = pinnedServer(dir);
    const path = join(dir, "contractpin.contracts.json");
    const other = contracts.map((c) => ({ ...c, description: `other: ${String(c.description)}` }));
    await writeSnapshot(path, withServer(withServer(undefined, "docs", contracts), "other", other));
    const wanted = contracts.map((c) => ({
      server: "docs",
      tool: c.name,
      pinned: digests.tools[c.name]!.digest,
    }));
    return { path, contracts, wanted };
  }

  it("gives each wanted entry's pinned contract, from the right server", async () => {
    const dir = tempDir();
    const { path, contracts, wanted } = await written(dir);
    const read = await readSnapshotEntries(path, [...wanted].reverse());
    assert.equal(read.file, true);
    assert.equal(read.warning, undefined);
    assert.deepEqual(
      read.entries.map((e) => canonicalize(e.contract)),
      [...contracts].reverse().map((c) => canonicalize(c)),
    );
  });

  it("parses only the entries it needs: a bad value elsewhere does not spoil them", async () => {
    const dir = tempDir();
    const { path, contracts, wanted } = await written(dir);
    // 1e400 in the other server's entries: the whole file no longer parses strictly.
    const text = readFileSync(path, "utf8").replace(
      '"other: ',
      '"other: x", "minimum": 1e400, "z": "',
    );
    writeFileSync(path, text);
    assert.match((await readSnapshot(path)).warning ?? "", /corrupt/);
    const read = await readSnapshotEntries(path, wanted);
    assert.equal(read.warning, undefined);
    assert.deepEqual(
      read.entries.map((e) => canonicalize(e.contract)),
      contracts.map((c) => canonicalize(c)),
    );
  });

  it("writes hidden and bidirectional characters as \\u escapes, and still finds their entries by key", async () => {
    const dir = tempDir();
    const dump = join(dir, "hidden.json");
    // Written as JSON escapes, so that the test's own text holds none raw either.
    writeFileSync(
      dump,
      '{"tools": [{"name": "read\\u202efile", "description": "a\\u200bb\\u0085c\\u2028d\\ud83d\\ude00", "inputSchema": {"type": "object"}}, {"name": "plain", "inputSchema": {}}]}',
    );
    const list = (parseJson(readFileSync(dump)) as { tools: never[] }).tools;
    const contracts = list.map((t) => contractOf(t));
    const digests = pythonDigest(dump) as ServerDigests;
    const path = join(dir, "c.contracts.json");
    const server = "s\u200d";
    await writeSnapshot(path, withServer(withServer(undefined, server, contracts), "z", contracts));
    const text = readFileSync(path, "utf8");
    assert.doesNotMatch(text, /[\u0080-\u009f\u200b\u202e\u2028]|\u200d/u);
    assert.ok(text.includes('"read\\u202efile": {') && text.includes('"s\\u200d": {'), text);
    assert.ok(text.includes("\u{1F600}"), "a visible emoji stays as it is");
    // The fast path finds them (a bad value elsewhere would spoil a whole-file parse).
    writeFileSync(
      path,
      text.replace('"z": {\n      "plain": {', '"z": {\n      "plain": {\n        "x": 1e400,'),
    );
    assert.match((await readSnapshot(path)).warning ?? "", /corrupt/);
    const name = contracts[0]!.name;
    const read = await readSnapshotEntries(path, [
      { server, tool: name, pinned: digests.tools[name]!.digest },
    ]);
    assert.equal(read.warning, undefined);
    assert.deepEqual(read.entries[0]!.contract, contracts[0]);
  });

  it("falls back to the whole file, with the same warnings, when an entry is edited, missing, or the layout differs", async () => {
    const dir = tempDir();
    const { path, contracts, wanted } = await written(dir);
    const full = async () => {
      const { snapshot, warning } = await readSnapshot(path);
      return {
        warning,
        // An unusable file is one warning, not one per entry.
        entries: wanted.map((w) =>
          snapshot === undefined ? {} : snapshotEntry(snapshot, w.server, w.tool, w.pinned, path),
        ),
      };
    };
    const same = async () => {
      const read = await readSnapshotEntries(path, wanted);
      const expected = await full();
      assert.equal(read.warning, expected.warning);
      assert.deepEqual(
        read.entries.map((e) => [canonicalize(e.contract ?? null), e.warning]),
        expected.entries.map((e) => [canonicalize(e.contract ?? null), e.warning]),
      );
      return read;
    };
    // An edited entry: its digest no longer matches.
    writeFileSync(path, readFileSync(path, "utf8").replace("Fetch one page", "Fetch ONE page"));
    const edited = await same();
    assert.match(edited.entries[1]!.warning ?? "", /matches the lock \(stale or edited\)/);
    assert.ok(edited.entries[0]!.contract !== undefined);
    // Reformatted by hand (compact): read whole, every entry found.
    await writeSnapshot(path, withServer(undefined, "docs", contracts));
    writeFileSync(path, JSON.stringify(JSON.parse(readFileSync(path, "utf8"))));
    const compact = await same();
    assert.ok(compact.entries.every((e) => e.contract !== undefined));
    // Truncated: corrupt, one warning, no entries.
    await writeSnapshot(path, withServer(undefined, "docs", contracts));
    writeFileSync(path, readFileSync(path, "utf8").slice(0, -40));
    const truncated = await same();
    assert.match(truncated.warning ?? "", /corrupt/);
    // A wanted server that is not there.
    const missing = await readSnapshotEntries(path.replace(".json", ".none.json"), wanted);
    assert.equal(missing.file, false);
    assert.deepEqual(missing.entries, [{}, {}]);
  });
});
