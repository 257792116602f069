// The contract snapshots beside the lock (issue 11): init, add and update write
// the pinned contracts to contractpin.contracts.json, --no-snapshot opts out,
// remove drops a server's entries, nothing is rewritten when unchanged, and the
// file never feeds a digest or a verdict.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, utimesSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { runCli } from "../helpers/cli.js";
import { SERVERS, rawStdioDump } from "../helpers/servers.js";
import { baseTools, Workspace, type Tool } from "../helpers/workspace.js";

const SIDECAR = "contractpin.contracts.json";
const CRASH_HOOK = fileURLToPath(new URL("../fixtures/crash-before-snapshot.cjs", import.meta.url));

/** Keys sorted by UTF-16 code units, two-space indent, LF, trailing newline: written here, not by contractpin. */
function sortedPretty(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v !== null && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) out[k] = sort((v as Record<string, unknown>)[k]);
      return out;
    }
    return v;
  };
  return JSON.stringify(sort(value), null, 2) + "\n";
}

/** Spec 2 by hand: name, description and inputSchema (null when absent), outputSchema and annotations when set. */
function contract(tool: Tool): Record<string, unknown> {
  const c: Record<string, unknown> = {
    name: tool.name,
    description: tool["description"] ?? null,
    inputSchema: tool["inputSchema"] ?? null,
  };
  if (tool["outputSchema"] != null) c["outputSchema"] = tool["outputSchema"];
  if (tool["annotations"] != null) c["annotations"] = tool["annotations"];
  return c;
}

function expected(servers: Record<string, Tool[]>): string {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, tools] of Object.entries(servers)) {
    out[name] = Object.fromEntries(tools.map((t) => [t.name, contract(t)]));
  }
  return sortedPretty({ "contractpin-contracts": "1", servers: out });
}

describe("contract snapshots", () => {
  it("add writes the pinned contracts beside the lock, exactly as canonicalized, title and vendor keys left out", () => {
    const ws = new Workspace();
    const tools = baseTools();
    ws.dump("s.json", tools);
    const add = runCli(["add", "s", "--file", "s.json"], { cwd: ws.dir });
    assert.equal(add.code, 0, add.stderr);
    assert.equal(add.stderr, "");
    assert.equal(ws.read(SIDECAR), expected({ s: tools }));
    assert.ok(!ws.read(SIDECAR).includes('"title"'));
  });

  it("a second add keeps the first server's entries; update rewrites only what changed; an unchanged update rewrites nothing", () => {
    const ws = new Workspace();
    const a = baseTools();
    const b: Tool[] = [{ name: "only", description: "One tool.", inputSchema: { type: "object" } }];
    ws.dump("a.json", a);
    ws.dump("b.json", b);
    assert.equal(runCli(["add", "a", "--file", "a.json"], { cwd: ws.dir }).code, 0);
    assert.equal(runCli(["add", "b", "--file", "b.json"], { cwd: ws.dir }).code, 0);
    assert.equal(ws.read(SIDECAR), expected({ a, b }));

    const old = new Date("2020-01-01T00:00:00Z");
    utimesSync(ws.path(SIDECAR), old, old);
    const same = runCli(["update"], { cwd: ws.dir });
    assert.equal(same.code, 0, same.stderr);
    assert.equal(statSync(ws.path(SIDECAR)).mtimeMs, old.getTime(), "not rewritten");

    a[1]!["description"] = "Fetch one page by its id, faster.";
    ws.dump("a.json", a);
    const update = runCli(["update", "a"], { cwd: ws.dir });
    assert.equal(update.code, 0, update.stderr);
    assert.equal(ws.read(SIDECAR), expected({ a, b }));
  });

  it("--no-snapshot pins without writing the file (add, init, update)", () => {
    const ws = new Workspace();
    ws.dump("s.json", baseTools());
    const add = runCli(["add", "s", "--file", "s.json", "--no-snapshot"], { cwd: ws.dir });
    assert.equal(add.code, 0, add.stderr);
    assert.ok(existsSync(ws.path("contractpin.lock")));
    assert.ok(!existsSync(ws.path(SIDECAR)));
    assert.equal(runCli(["update", "--no-snapshot"], { cwd: ws.dir }).code, 0);
    assert.equal(runCli(["init", "--force", "--no-snapshot"], { cwd: ws.dir }).code, 0);
    assert.ok(!existsSync(ws.path(SIDECAR)));
    // Without the flag, update writes it.
    assert.equal(runCli(["update"], { cwd: ws.dir }).code, 0);
    assert.equal(ws.read(SIDECAR), expected({ s: baseTools() }));
  });

  it("init --force writes the snapshots of every server; --lock X.lock gives X.contracts.json", () => {
    const ws = new Workspace();
    ws.dump("s.json", baseTools());
    assert.equal(
      runCli(["add", "s", "--file", "s.json", "--lock", "ci.lock", "--no-snapshot"], {
        cwd: ws.dir,
      }).code,
      0,
    );
    const init = runCli(["init", "--force", "--lock", "ci.lock"], { cwd: ws.dir });
    assert.equal(init.code, 0, init.stderr);
    assert.equal(ws.read("ci.contracts.json"), expected({ s: baseTools() }));
    assert.ok(!existsSync(ws.path(SIDECAR)));
  });

  it("remove drops the server's entries, and creates no file when there is none", () => {
    const ws = new Workspace();
    ws.dump("s.json", baseTools());
    ws.dump("t.json", [{ name: "x", inputSchema: { type: "object" } }]);
    assert.equal(runCli(["add", "s", "--file", "s.json"], { cwd: ws.dir }).code, 0);
    assert.equal(runCli(["add", "t", "--file", "t.json"], { cwd: ws.dir }).code, 0);
    const remove = runCli(["remove", "s"], { cwd: ws.dir });
    assert.equal(remove.code, 0, remove.stderr);
    assert.equal(
      ws.read(SIDECAR),
      expected({ t: [{ name: "x", inputSchema: { type: "object" } }] }),
    );

    const bare = new Workspace();
    bare.dump("s.json", baseTools());
    assert.equal(
      runCli(["add", "s", "--file", "s.json", "--no-snapshot"], { cwd: bare.dir }).code,
      0,
    );
    assert.equal(runCli(["remove", "s"], { cwd: bare.dir }).code, 0);
    assert.ok(!existsSync(bare.path(SIDECAR)));
  });

  it("never feeds a verdict: a hand-edited or corrupt sidecar changes nothing for a clean lock, and is not even read", () => {
    const ws = new Workspace();
    ws.dump("s.json", baseTools());
    assert.equal(runCli(["add", "s", "--file", "s.json"], { cwd: ws.dir }).code, 0);
    const lock = ws.read();
    ws.write(SIDECAR, ws.read(SIDECAR).replace("Search the index", "Something else"));
    let verify = runCli(["verify"], { cwd: ws.dir });
    assert.equal(verify.code, 0, verify.stderr);
    assert.equal(verify.stderr, "");
    ws.write(SIDECAR, "{ not json");
    verify = runCli(["verify"], { cwd: ws.dir });
    assert.equal(verify.code, 0);
    assert.equal(verify.stderr, "", "a clean verify does not read the sidecar");
    assert.equal(verify.stdout, "s  ok  (2 pinned tools)\n\nOK: 1 server matches the lock\n");
    // A re-pin never replaces a file it cannot tell is its own: exit 2, nothing written.
    const refused = runCli(["update"], { cwd: ws.dir });
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /is not a contract snapshot file \(it is not JSON\)/);
    assert.equal(ws.read(SIDECAR), "{ not json");
    // Once it is deleted, the re-pin writes the snapshots; the lock is the same.
    rmSync(ws.path(SIDECAR));
    assert.equal(runCli(["update"], { cwd: ws.dir }).code, 0);
    assert.equal(ws.read(), lock);
    assert.equal(ws.read(SIDECAR), expected({ s: baseTools() }));
  });
  it("a sidecar that cannot be written is one warning: the pin stands, exit 0", () => {
    const ws = new Workspace();
    ws.dump("s.json", baseTools());
    mkdirSync(ws.path(SIDECAR));
    const warning = `contractpin: warning: ${SIDECAR}: cannot write the contract snapshots: is a directory; the pin in contractpin.lock stands without them\n`;
    const add = runCli(["add", "s", "--file", "s.json"], { cwd: ws.dir });
    assert.equal(add.code, 0, add.stderr);
    assert.equal(add.stderr, warning);
    assert.match(add.stdout, /^pinned s /);
    assert.equal(runCli(["verify"], { cwd: ws.dir }).code, 0);
    const update = runCli(["update"], { cwd: ws.dir });
    assert.equal(update.code, 0);
    assert.equal(update.stderr, warning);
    // Once the way is clear, the next pin writes them.
    rmSync(ws.path(SIDECAR), { recursive: true });
    assert.equal(runCli(["update"], { cwd: ws.dir }).code, 0);
    assert.equal(ws.read(SIDECAR), expected({ s: baseTools() }));
  });

  it("a crash between the lock's write and the snapshots': verify ignores the stale entries, update mends them", () => {
    const ws = new Workspace();
    const v1 = baseTools();
    ws.dump("s.json", v1);
    assert.equal(runCli(["add", "s", "--file", "s.json"], { cwd: ws.dir }).code, 0);
    const v1Lock = ws.read();
    const v1Sidecar = ws.read(SIDECAR);

    const v2 = baseTools();
    v2[0]!["description"] = "Search the catalogue for documents matching a query.";
    ws.dump("s.json", v2);
    const crashed = runCli(["update"], {
      cwd: ws.dir,
      env: { NODE_OPTIONS: `--require ${CRASH_HOOK}` },
    });
    assert.equal(crashed.code, null, "killed while writing the snapshots");
    assert.notEqual(ws.read(), v1Lock, "the lock is v2");
    assert.equal(ws.read(SIDECAR), v1Sidecar, "the snapshots are still v1");

    // The lock decides: v2 is clean, and the stale file is not even read.
    const clean = runCli(["verify"], { cwd: ws.dir });
    assert.equal(clean.code, 0, clean.stderr);
    assert.equal(clean.stderr, "");

    // A drift from v2, even back to v1 (which the stale entry holds): one
    // warning, the changed fields unknown (the lock's field digests alone
    // confirm nothing), and no word diff against v1 taken for the pin.
    for (const text of [v1[0]!["description"], "Other words."]) {
      ws.dump("s.json", [{ ...v1[0]!, description: text }, v1[1]!]);
      const r = runCli(["verify"], { cwd: ws.dir });
      assert.equal(r.code, 1, r.stderr);
      assert.equal(
        r.stderr,
        `contractpin: warning: ${SIDECAR}: no snapshot of tool "search" of server "s" matches the lock (stale or edited); the changed fields are unknown\n`,
      );
      assert.ok(
        r.stdout.includes(
          "  DRIFTED    search  changed: fields unknown (unconfirmed by any snapshot: description)\n\n",
        ),
        r.stdout,
      );
      assert.ok(!r.stdout.includes("description:"), r.stdout);
    }

    // The next pin brings the snapshots in line with the lock.
    ws.dump("s.json", v2);
    assert.equal(runCli(["update"], { cwd: ws.dir }).code, 0);
    assert.equal(ws.read(SIDECAR), expected({ s: v2 }));
    ws.dump("s.json", v1);
    const shown = runCli(["verify"], { cwd: ws.dir });
    assert.equal(shown.code, 1);
    assert.equal(shown.stderr, "");
    assert.ok(shown.stdout.includes("Search the [-catalogue-]{+index+} for"), shown.stdout);
  });
});

describe("contract snapshots of real servers", () => {
  const cases = [
    {
      name: "memory",
      argv: () => [process.execPath, SERVERS.memory],
      env: (ws: Workspace) => ({ MEMORY_FILE_PATH: ws.path("memory.jsonl") }),
    },
    { name: "everything", argv: () => [process.execPath, SERVERS.everything, "stdio"] },
    { name: "filesystem", argv: (ws: Workspace) => [process.execPath, SERVERS.filesystem, ws.dir] },
  ];
  for (const c of cases) {
    it(`${c.name}: the sidecar is at most 2x the compact tools/list result, and holds every tool`, () => {
      const ws = new Workspace();
      const env = c.env?.(ws) ?? {};
      const envArgs = Object.entries(env).flatMap(([k, v]) => ["--env", `${k}=${v}`]);
      const add = runCli(["add", c.name, ...envArgs, "--", ...c.argv(ws)], { cwd: ws.dir });
      assert.equal(add.code, 0, add.stderr);
      const raw = JSON.parse(rawStdioDump(c.argv(ws), env).toString()) as {
        result: { tools: Tool[] };
      };
      const compact = Buffer.byteLength(JSON.stringify(raw.result));
      const sidecar = readFileSync(ws.path(SIDECAR));
      assert.ok(
        sidecar.length <= 2 * compact,
        `${c.name}: sidecar ${sidecar.length} bytes, compact tools/list ${compact} bytes`,
      );
      const stored = JSON.parse(sidecar.toString()).servers[c.name];
      assert.deepEqual(Object.keys(stored).sort(), raw.result.tools.map((t) => t.name).sort());
      for (const tool of raw.result.tools) assert.deepEqual(stored[tool.name], contract(tool));
    });
  }
});
