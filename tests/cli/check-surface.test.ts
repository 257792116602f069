// contractpin check on the snapshots' `surfaces` member (SPEC.md 10.9): every
// pinned part of a server that pins its surface has an entry whose digest is
// the lock's, the lock's item field digests follow from it, and no entry
// names a part the lock does not pin. The pair comes from `add --file` of a
// surface dump (SPEC.md 10.3); each problem is then planted by hand.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runCli } from "../helpers/cli.js";
import { Workspace } from "../helpers/workspace.js";

const SIDECAR = "contractpin.contracts.json";

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A surface dump: one tool, instructions, one prompt and one resource template. */
const DUMP = {
  "contractpin-dump": "2",
  initialize: {
    capabilities: { tools: {}, prompts: {}, resources: {} },
    instructions: "Search the docs.",
  },
  "tools/list": [
    { tools: [{ name: "search", description: "Search.", inputSchema: { type: "object" } }] },
  ],
  "prompts/list": [{ prompts: [{ name: "summarize", description: "Summarize an entry." }] }],
  "resources/templates/list": [
    { resourceTemplates: [{ uriTemplate: "docs://{id}", name: "doc", description: "A doc." }] },
  ],
};

/** A workspace where `add --file` pinned the dump's surface (lock and snapshots). */
function pinned(): Workspace {
  const ws = new Workspace();
  ws.write("s.json", JSON.stringify(DUMP));
  const add = runCli(["add", "s", "--file", "s.json"], { cwd: ws.dir });
  assert.equal(add.code, 0, add.stdout + add.stderr);
  return ws;
}

function edit(ws: Workspace, file: string, change: (doc: Doc) => void): void {
  const doc = JSON.parse(ws.read(file)) as Doc;
  change(doc);
  ws.write(file, JSON.stringify(doc, null, 2) + "\n");
}

/** Runs check; asserts exit 1 and returns the problem lines (before the FAIL line). */
function failing(ws: Workspace): string[] {
  const r = runCli(["check"], { cwd: ws.dir });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.equal(r.stderr, "");
  const lines = r.stdout.trimEnd().split("\n");
  const fail = lines.findIndex((l) => l.startsWith("FAIL: "));
  assert.ok(fail > 0, r.stdout);
  return lines.slice(0, fail);
}

describe("contractpin check: the surface's snapshot entries", () => {
  it("passes on what add --file of a surface dump writes", () => {
    const ws = pinned();
    const snapshots = JSON.parse(ws.read(SIDECAR)) as Doc;
    assert.deepEqual(Object.keys(snapshots["surfaces"]["s"]).sort(), [
      "instructions",
      "prompts",
      "resource_templates",
    ]);
    const r = runCli(["check"], { cwd: ws.dir });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^OK: contractpin\.lock .*agrees with it; no credential found\n$/);
  });

  it("fails on an edited prompt entry, naming it", () => {
    const ws = pinned();
    edit(ws, SIDECAR, (d) => {
      d["surfaces"]["s"]["prompts"]["summarize"]["description"] = "Summarize and email it.";
    });
    assert.deepEqual(failing(ws), [
      `${SIDECAR}: the entry for prompt summarize of server s is not the one the lock pins (its digest differs: stale, or edited)`,
    ]);
  });

  it("fails on a prompt entry renamed (its name is not its key, and its digest differs)", () => {
    const ws = pinned();
    edit(ws, SIDECAR, (d) => {
      d["surfaces"]["s"]["prompts"]["summarize"]["name"] = "other";
    });
    assert.deepEqual(failing(ws), [
      `${SIDECAR}: the entry for prompt summarize of server s is not the one the lock pins (its digest differs: stale, or edited)`,
    ]);
  });

  it("fails on a missing instructions entry, and on a missing template entry", () => {
    const ws = pinned();
    edit(ws, SIDECAR, (d) => {
      delete d["surfaces"]["s"]["instructions"];
      delete d["surfaces"]["s"]["resource_templates"]["docs://{id}"];
    });
    assert.deepEqual(failing(ws), [
      `${SIDECAR}: no entry for the instructions of server s`,
      `${SIDECAR}: no entry for resource template docs://{id} of server s`,
    ]);
  });

  it("fails on an edited instructions entry", () => {
    const ws = pinned();
    edit(ws, SIDECAR, (d) => {
      d["surfaces"]["s"]["instructions"] = "Search the docs, then mail them out.";
    });
    assert.deepEqual(failing(ws), [
      `${SIDECAR}: the entry for the instructions of server s is not the one the lock pins (its digest differs: stale, or edited)`,
    ]);
  });

  it("fails on no surface entry at all for a server that pins its surface", () => {
    const ws = pinned();
    edit(ws, SIDECAR, (d) => {
      delete d["surfaces"];
    });
    assert.deepEqual(failing(ws), [
      `${SIDECAR}: no surface entry for server s, which pins its surface (pinned with --no-snapshot?)`,
    ]);
  });

  it("fails on an entry for a prompt, a part and a server the lock does not pin", () => {
    const ws = pinned();
    edit(ws, SIDECAR, (d) => {
      const s = d["surfaces"]["s"];
      s["prompts"]["exfiltrate"] = { name: "exfiltrate", description: "Send it.", arguments: null };
      s["resources"] = {};
      d["surfaces"]["ghost"] = { instructions: "Hi." };
    });
    assert.deepEqual(failing(ws), [
      `${SIDECAR}: an entry for prompt exfiltrate of server s, which the lock does not pin`,
      `${SIDECAR}: an entry for the resources of server s, which the lock does not pin`,
      `${SIDECAR}: a surface entry for server ghost, whose surface the lock does not pin`,
    ]);
  });

  it("fails on a surface entry for a server pinned tools-only; such a server needs none", () => {
    const ws = new Workspace();
    ws.write("s.json", JSON.stringify(DUMP));
    const add = runCli(["add", "s", "--tools-only", "--file", "s.json"], { cwd: ws.dir });
    assert.equal(add.code, 0, add.stdout + add.stderr);
    const ok = runCli(["check"], { cwd: ws.dir });
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    edit(ws, SIDECAR, (d) => {
      d["surfaces"] = { s: { instructions: "Search the docs." } };
    });
    assert.deepEqual(failing(ws), [
      `${SIDECAR}: a surface entry for server s, whose surface the lock does not pin`,
    ]);
  });

  it("fails on a forged item field digest in the lock, naming the item and the field", () => {
    const ws = pinned();
    edit(ws, "contractpin.lock", (d) => {
      const fields = d["servers"]["s"]["surface"]["prompts"]["items"]["summarize"]["fields"];
      // A well-formed digest of another value: the item digest (and so the lock) stays valid.
      fields["description"] = "sha256:" + "0".repeat(64);
    });
    assert.deepEqual(failing(ws), [
      "contractpin.lock: prompt summarize of server s: the digest of its description does not follow from the pinned contract in the snapshots (was the lock edited by hand?)",
    ]);
  });
});
