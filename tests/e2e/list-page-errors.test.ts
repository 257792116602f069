// Every failure of a list read names the method and the page (SPEC.md 8),
// whatever failed: the server ending while a later page is asked, a page
// that fails the strict parser, the deadline. Over stdio and HTTP, through
// the built CLI, with fake servers whose first page is fine and whose
// second is not. One line on stderr, exit 1, nothing written.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { oneLine, runCli } from "../helpers/cli.js";
import { SERVERS, startFakeHttp, type Running } from "../helpers/servers.js";
import { Workspace } from "../helpers/workspace.js";

const SURFACE = fileURLToPath(
  new URL("../fixtures/servers/surface-pages-server.mjs", import.meta.url),
);

const running: Running[] = [];
after(async () => {
  await Promise.all(running.map((s) => s.stop()));
});

function addStdio(ws: Workspace, mode: string, ...extra: string[]) {
  return runCli(
    ["add", "fake", "--tools-only", ...extra, "--", process.execPath, SERVERS.fakeStdio, mode],
    { cwd: ws.dir },
  );
}

async function addHttp(ws: Workspace, mode: string, ...extra: string[]) {
  const server = await startFakeHttp(mode);
  running.push(server);
  return runCli(["add", "remote", "--tools-only", "--url", server.url, ...extra], {
    cwd: ws.dir,
  });
}

/** Exit 1, one line for `name` that is exactly `line` (a stdio server's stderr tail may follow), no lock. */
// The byte offset is counted by hand: page 2 is request id 2 (initialize 0, page 1 1).
function failsWith(
  ws: Workspace,
  r: { code: number | null; stderr: string },
  name: string,
  line: string | RegExp,
) {
  assert.equal(r.code, 1, r.stderr);
  const first = r.stderr.split("\n")[0]!;
  if (typeof line === "string") assert.equal(first, `contractpin: server ${name}: ${line}`);
  else assert.match(first, new RegExp(`^contractpin: server ${name}: ${line.source}$`));
  assert.equal(existsSync(ws.path("contractpin.lock")), false, "nothing written");
}

describe("a failure on page 2 of tools/list names the method and the page", () => {
  it("stdio: the server exits while page 2 is asked", () => {
    const ws = new Workspace();
    const r = addStdio(ws, "page2-exit");
    failsWith(
      ws,
      r,
      "fake",
      "tools/list page 2: the server closed the connection: it exited with code 5",
    );
    assert.match(r.stderr, /\n {2}\| exiting on tools\/list\n/);
  });

  it("HTTP: the server exits while page 2 is asked", async () => {
    const ws = new Workspace();
    const r = await addHttp(ws, "page2-exit");
    failsWith(ws, r, "remote", /tools\/list page 2: .+/);
    assert.ok(oneLine(r.stderr), r.stderr);
  });

  it("stdio: page 2 is not strict JSON (a member twice)", () => {
    const ws = new Workspace();
    const r = addStdio(ws, "page2-dup-key");
    failsWith(
      ws,
      r,
      "fake",
      'tools/list page 2: the server sent a message that is not strict JSON: duplicate member name "description" at byte 80 ($.result.tools[0].description)',
    );
  });

  it("HTTP: page 2 is not strict JSON (a member twice)", async () => {
    const ws = new Workspace();
    const r = await addHttp(ws, "page2-dup-key");
    failsWith(
      ws,
      r,
      "remote",
      'tools/list page 2: the server sent a message that is not strict JSON: duplicate member name "description" at byte 80 ($.result.tools[0].description)',
    );
    assert.ok(oneLine(r.stderr), r.stderr);
  });

  it("stdio: page 2 is never answered: the deadline", () => {
    const ws = new Workspace();
    const r = addStdio(ws, "page2-hang", "--timeout", "1");
    failsWith(ws, r, "fake", "tools/list page 2: timed out after 1 s");
  });

  it("HTTP: page 2 is never answered: the deadline", async () => {
    const ws = new Workspace();
    const r = await addHttp(ws, "page2-hang", "--timeout", "1");
    failsWith(ws, r, "remote", "tools/list page 2: timed out after 1 s");
    assert.ok(oneLine(r.stderr), r.stderr);
  });
});

describe("the surface's lists are named the same way", () => {
  it("stdio: the server exits while prompts/list page 2 is asked", () => {
    const ws = new Workspace();
    const r = runCli(["add", "s", "--", process.execPath, SURFACE, "prompts-page2-exit"], {
      cwd: ws.dir,
    });
    failsWith(
      ws,
      r,
      "s",
      "prompts/list page 2: the server closed the connection: it exited with code 5",
    );
  });

  it("a failure before any list is read names none (the handshake)", () => {
    const ws = new Workspace();
    const r = addStdio(ws, "hang-initialize", "--timeout", "1");
    failsWith(ws, r, "fake", /timed out after 1 s(; .*)?/);
  });
});
