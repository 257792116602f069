// The surface read off the wire (SPEC.md 10.1): every page of each list, the
// same cursor rule as tools/list, strict JSON, lists read only when
// advertised. Expected digests come from the independent Python
// implementation over a one-page dump of the same data.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { pythonDigest, runCli } from "../helpers/cli.js";
import { Workspace } from "../helpers/workspace.js";

const DATA = JSON.parse(
  readFileSync(new URL("../fixtures/servers/surface-pages-data.json", import.meta.url), "utf8"),
) as { instructions: string; tools: unknown[]; prompts: unknown[]; templates: unknown[] };
const { instructions: INSTRUCTIONS, tools: TOOLS, prompts: PROMPTS, templates: TEMPLATES } = DATA;

const SERVER = new URL("../fixtures/servers/surface-pages-server.mjs", import.meta.url).pathname;
const add = (ws: Workspace, mode: string) =>
  runCli(["add", "s", "--", process.execPath, SERVER, mode], { cwd: ws.dir });

describe("the surface off the wire", () => {
  it('every page of prompts/list and resources/templates/list (a first cursor of "" included); the digests of one page', () => {
    const ws = new Workspace();
    const r = add(ws, "paged");
    assert.equal(r.code, 0, r.stderr);
    ws.write(
      "one-page.json",
      JSON.stringify({
        "contractpin-dump": "2",
        initialize: {
          capabilities: { tools: {}, prompts: {}, resources: {} },
          instructions: INSTRUCTIONS,
        },
        "tools/list": [{ tools: TOOLS }],
        "prompts/list": [{ prompts: PROMPTS }],
        "resources/templates/list": [{ resourceTemplates: TEMPLATES }],
      }),
    );
    const { transport: _t, command: _c, ...pinned } = ws.lockJson().servers["s"]!;
    assert.deepEqual(pinned, pythonDigest(ws.path("one-page.json")));
  });

  it("a prompts/list cursor seen before: exit 1, nothing written", () => {
    const ws = new Workspace();
    const r = add(ws, "prompt-cycle");
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /repeated the cursor "b" on prompts\/list page 3: its pagination never ends/,
    );
    assert.equal(existsSync(ws.path("contractpin.lock")), false);
  });

  it("a prompts/list response that is not strict JSON (a member twice): exit 1", () => {
    const ws = new Workspace();
    const r = add(ws, "dup-key");
    assert.equal(r.code, 1);
    assert.match(r.stderr, /not strict JSON/);
  });

  it("an advertised list answered with an error other than -32601: exit 1, never pinned as empty", () => {
    const ws = new Workspace();
    const r = add(ws, "prompts-error");
    assert.equal(r.code, 1);
    assert.match(r.stderr, /prompts are broken/);
  });

  it("lists the server does not advertise are never asked for, and pinned as null", () => {
    const ws = new Workspace();
    const r = add(ws, "no-capability");
    assert.equal(r.code, 0, r.stderr);
    const surface = ws.lockJson().servers["s"]!["surface"] as Record<string, unknown>;
    assert.equal(surface["prompts"], null);
    assert.equal(surface["resource_templates"], null);
    assert.match(surface["instructions"] as string, /^sha256:/);
    // --resources asks for resources only where the server advertises them.
    const ws2 = new Workspace();
    const r2 = runCli(
      ["add", "s", "--resources", "--", process.execPath, SERVER, "no-capability"],
      {
        cwd: ws2.dir,
      },
    );
    assert.equal(r2.code, 0, r2.stderr);
    assert.equal(
      (ws2.lockJson().servers["s"]!["surface"] as Record<string, unknown>)["resources"],
      null,
    );
  });

  it("--repeat: instructions that differ between reads are not pinned (exit 1, named)", () => {
    const ws = new Workspace();
    const r = runCli(["add", "s", "--repeat", "2", "--", process.execPath, SERVER, "unstable"], {
      cwd: ws.dir,
    });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /server s: unstable between 2 reads: instructions$/m);
    assert.equal(existsSync(ws.path("contractpin.lock")), false);
  });
});
