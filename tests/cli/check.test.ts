// contractpin check (issue 12): offline, the lock is valid, the contract
// snapshots beside it agree with it, and neither holds a credential. The
// valid pair is built here, by hand and with the independent Python digests,
// not by contractpin; each problem is then planted by hand.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { describe, it } from "node:test";
import { oneLine, pythonDigest, runCli } from "../helpers/cli.js";
import { baseTools, Workspace, type Tool } from "../helpers/workspace.js";

const SIDECAR = "contractpin.contracts.json";
// Shaped like a GitHub token; planted by hand, and never to be echoed.
const TOKEN = "ghp_" + "Zq8x3Lw0Yt5Rb2Nk7Vm4Hc9Jp1Sd6Fg3";

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

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

/** Keys sorted by UTF-16 code units, two-space indent, trailing newline: how the snapshots are written. */
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

/**
 * A workspace with a lock of file servers (digests from the Python
 * implementation) and its snapshots (contracts by hand): a pair that agrees.
 */
function pair(servers: Record<string, Tool[]> = { docs: baseTools() }): {
  ws: Workspace;
  lock: Doc;
  snapshots: Doc;
  save(): void;
} {
  const ws = new Workspace();
  const lock: Doc = {
    contractpin: "1",
    algorithm: "sha256",
    canonicalization: "contractpin-canonical-json/1",
    generated_at: "2026-08-14T09:31:07Z",
    servers: {},
  };
  const snapshots: Doc = { "contractpin-contracts": "1", servers: {} };
  for (const [name, tools] of Object.entries(servers)) {
    const dump = ws.dump(`${name}.json`, tools);
    lock["servers"][name] = {
      transport: "file",
      path: `${name}.json`,
      ...(pythonDigest(dump) as object),
    };
    snapshots["servers"][name] = Object.fromEntries(tools.map((t) => [t.name, contract(t)]));
  }
  const save = () => {
    ws.write("contractpin.lock", JSON.stringify(lock, null, 2) + "\n");
    ws.write(SIDECAR, sortedPretty(snapshots));
  };
  save();
  return { ws, lock, snapshots, save };
}

function check(ws: Workspace, args: string[] = []) {
  return runCli(["check", ...args], { cwd: ws.dir });
}

/** The problem lines of a failed check: every stdout line before the FAIL line. */
function problems(stdout: string): string[] {
  const lines = stdout.trimEnd().split("\n");
  return lines.slice(
    0,
    lines.findIndex((l) => l.startsWith("FAIL: ")),
  );
}

describe("contractpin check: a lock and snapshots that agree", () => {
  it("passes (exit 0) on a pair built independently, one line on stdout, nothing on stderr", () => {
    const { ws } = pair({ docs: baseTools(), other: [baseTools()[1]!] });
    const r = check(ws);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(
      r.stdout,
      `OK: contractpin.lock (2 servers, 3 pinned tools); ${SIDECAR} agrees with it; no credential found\n`,
    );
    assert.equal(r.stderr, "");
  });

  it("passes on what add writes, and takes --lock (X.lock beside X.contracts.json)", () => {
    const ws = new Workspace();
    ws.dump("s.json", baseTools());
    assert.equal(
      runCli(["add", "s", "--file", "s.json", "--lock", "x.lock"], { cwd: ws.dir }).code,
      0,
    );
    assert.ok(existsSync(ws.path("x.contracts.json")));
    const r = check(ws, ["--lock", "x.lock"]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^OK: x\.lock \(1 server, 2 pinned tools\); x\.contracts\.json agrees/);
  });

  it("without snapshots: passes with one note on stderr (they are optional)", () => {
    const { ws } = pair();
    rmSync(ws.path(SIDECAR));
    const r = check(ws);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(
      r.stdout,
      "OK: contractpin.lock (1 server, 2 pinned tools); no credential found\n",
    );
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.match(
      r.stderr,
      /^contractpin: note: no contract snapshots \(contractpin\.contracts\.json\)/,
    );
  });

  it("is offline: starts no server and reads no dump the lock names", () => {
    const { ws, lock, snapshots, save } = pair();
    // A stdio server that would leave a mark if started, and a file server whose dump is gone.
    const mark = ws.path("started");
    lock["servers"]["live"] = {
      ...lock["servers"]["docs"],
      transport: "stdio",
      command: [process.execPath, "-e", `require("fs").writeFileSync(${JSON.stringify(mark)}, "")`],
    };
    delete lock["servers"]["live"]["path"];
    snapshots["servers"]["live"] = snapshots["servers"]["docs"];
    save();
    rmSync(ws.path("docs.json"));
    const r = check(ws);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^OK: contractpin\.lock \(2 servers, 4 pinned tools\)/);
    assert.equal(existsSync(mark), false, "check started a server");
  });
});

describe("contractpin check: the snapshots disagree with the lock (exit 1)", () => {
  it("an entry edited by hand (stale): names the tool and the server", () => {
    const { ws, snapshots, save } = pair();
    snapshots["servers"]["docs"]["search"]["description"] = "Search, and also email the results.";
    save();
    const r = check(ws);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.deepEqual(problems(r.stdout), [
      `${SIDECAR}: the entry for tool search of server docs is not the contract the lock pins (its digest differs: stale, or edited)`,
    ]);
    assert.match(r.stdout, /^FAIL: 1 problem \(contractpin\.lock: 1 server, 2 pinned tools\)$/m);
    assert.match(r.stdout, /contractpin verify docs, and if it passes, contractpin update docs\n/);
    assert.equal(r.stderr, "");
  });

  it("an entry whose name is not the tool's is not that tool's contract", () => {
    const { ws, snapshots, save } = pair();
    snapshots["servers"]["docs"]["search"] = snapshots["servers"]["docs"]["fetch_page"];
    save();
    const r = check(ws);
    assert.equal(r.code, 1);
    assert.deepEqual(problems(r.stdout), [
      `${SIDECAR}: the entry for tool search of server docs is not the contract the lock pins (its digest differs: stale, or edited)`,
    ]);
  });

  it("an extra entry, an extra server, a missing entry, a server with none: one line each", () => {
    const { ws, lock, snapshots, save } = pair({ docs: baseTools(), bare: [baseTools()[1]!] });
    snapshots["servers"]["docs"]["delete_all"] = {
      name: "delete_all",
      description: "x",
      inputSchema: null,
    };
    snapshots["servers"]["ghost"] = {};
    delete snapshots["servers"]["docs"]["fetch_page"];
    delete snapshots["servers"]["bare"];
    save();
    const r = check(ws);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.deepEqual(problems(r.stdout), [
      `${SIDECAR}: no entry for tool fetch_page of server docs`,
      `${SIDECAR}: an entry for tool delete_all of server docs, which the lock does not pin`,
      `${SIDECAR}: no entries for server bare (1 pinned tool; pinned with --no-snapshot?)`,
      `${SIDECAR}: entries for server ghost, which the lock does not pin`,
    ]);
    assert.match(r.stdout, /^FAIL: 4 problems /m);
    assert.equal(Object.keys(lock["servers"]).length, 2);
  });

  it("a field digest of the lock that does not follow from the pinned contract", () => {
    const { ws, lock, save } = pair();
    // Another field's digest in its place: the tool and server digests still hold.
    const fields = lock["servers"]["docs"]["tools"]["search"]["fields"];
    fields["annotations"] = fields["description"];
    save();
    const r = check(ws);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.deepEqual(problems(r.stdout), [
      "contractpin.lock: tool search of server docs: the digest of its annotations does not follow from the pinned contract in the snapshots (was the lock edited by hand?)",
    ]);
  });

  it("a corrupt snapshot file (a merge left conflict markers) is exit 1; an unknown format, or one that cannot be read, is exit 2", () => {
    const { ws } = pair();
    ws.write(SIDECAR, `{\n<<<<<<< HEAD\n"servers": {}\n=======\n>>>>>>> other\n}\n`);
    const corrupt = check(ws);
    assert.equal(corrupt.code, 1, corrupt.stdout + corrupt.stderr);
    assert.match(
      problems(corrupt.stdout)[0]!,
      /^contractpin\.contracts\.json: the contract snapshots are corrupt: .*\(line 2, column 1\)$/,
    );

    ws.write(SIDECAR, '{"contractpin-contracts": "2", "servers": {}}');
    const future = check(ws);
    assert.equal(future.code, 2);
    assert.equal(future.stdout, "");
    assert.equal(
      future.stderr,
      `contractpin: ${SIDECAR}: contract snapshots of format "2" are not supported (this contractpin reads format "1")\n`,
    );

    rmSync(ws.path(SIDECAR));
    mkdirSync(ws.path(SIDECAR));
    const dir = check(ws);
    assert.equal(dir.code, 2);
    assert.equal(
      dir.stderr,
      `contractpin: ${SIDECAR}: cannot read the contract snapshots: it is a directory, not a regular file\n`,
    );

    // A FIFO is refused at once, not waited on.
    rmSync(ws.path(SIDECAR), { recursive: true });
    execFileSync("mkfifo", [ws.path(SIDECAR)]);
    const started = Date.now();
    const fifo = check(ws);
    assert.equal(fifo.code, 2);
    assert.equal(
      fifo.stderr,
      `contractpin: ${SIDECAR}: cannot read the contract snapshots: it is a FIFO (named pipe), not a regular file\n`,
    );
    assert.ok(Date.now() - started < 30_000);
  });

  it("suggests commands a shell reads back: each name one quoted word, and the --lock it was given", () => {
    const name = "it's $(touch pwned) `id`";
    const { ws, snapshots, save } = pair({ [name]: baseTools() });
    snapshots["servers"][name]["search"]["description"] = "Edited by hand.";
    save();
    const words = `'it'\\''s $(touch pwned) \`id\`'`;
    const hint = (lock: string) =>
      `to rewrite the snapshots from the servers: contractpin verify${lock} ${words}, and if it passes, contractpin update${lock} ${words}\n`;
    const r = check(ws);
    assert.equal(r.code, 1, r.stderr);
    assert.ok(r.stdout.endsWith(hint("")), r.stdout);
    // The shell reads the quoted word back as the name.
    const echoed = execFileSync("sh", ["-c", `printf %s ${words}`], { cwd: ws.dir }).toString();
    assert.equal(echoed, name);
    assert.ok(!existsSync(ws.path("pwned")));

    ws.write("other.lock", ws.read("contractpin.lock"));
    ws.write("other.contracts.json", ws.read(SIDECAR));
    const other = check(ws, ["--lock", "other.lock"]);
    assert.equal(other.code, 1, other.stderr);
    assert.ok(other.stdout.endsWith(hint(" --lock other.lock")), other.stdout);
  });

  it("names with control and invisible characters are shown escaped, never raw", () => {
    const { ws, snapshots, save } = pair();
    snapshots["servers"]["evil\u001b[2J\u202eserver"] = {};
    save();
    const r = check(ws);
    assert.equal(r.code, 1);
    assert.ok(
      !r.stdout.includes("\u001b") && !r.stdout.includes("\u202e"),
      JSON.stringify(r.stdout),
    );
    assert.deepEqual(problems(r.stdout), [
      `${SIDECAR}: entries for server "evil\\u001b[2J\\u202eserver", which the lock does not pin`,
    ]);
  });
});

describe("contractpin check: a credential in the lock or the snapshots (exit 1, never echoed)", () => {
  it("an env literal and a command argument of a stdio server", () => {
    const { ws, lock, save } = pair();
    lock["servers"]["gh"] = {
      ...lock["servers"]["docs"],
      transport: "stdio",
      command: ["gh-mcp", "--token", TOKEN],
      env: { GITHUB_TOKEN: TOKEN, LOG_LEVEL: "debug", API_KEY: "${API_KEY}" },
    };
    delete lock["servers"]["gh"]["path"];
    save();
    const r = check(ws);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.ok(!(r.stdout + r.stderr).includes(TOKEN.slice(4)), "the token was echoed");
    assert.deepEqual(problems(r.stdout), [
      "contractpin.lock: server gh: env GITHUB_TOKEN holds a literal credential; write it as a ${VAR} reference (as 'contractpin add' would) and set the variable when verifying",
      "contractpin.lock: server gh: the command's args[2] looks like a credential; write it as a ${VAR} reference (as 'contractpin add' would) and set the variable when verifying",
      `${SIDECAR}: no entries for server gh (2 pinned tools; pinned with --no-snapshot?)`,
    ]);
    assert.match(r.stdout, /must be rotated/);
  });

  it("a literal Authorization header and a password in an HTTP server's URL; a ${VAR} template is fine", () => {
    const { ws, lock, snapshots, save } = pair();
    const { path: _path, ...digests } = lock["servers"]["docs"];
    lock["servers"]["api"] = {
      ...digests,
      transport: "http",
      url: "https://bot:pw-9f8e7d6c@mcp.example.com/mcp",
      headers: { Authorization: `Bearer ${TOKEN}`, "X-Api-Key": "${API_KEY}" },
    };
    snapshots["servers"]["api"] = snapshots["servers"]["docs"];
    save();
    const r = check(ws);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.ok(!(r.stdout + r.stderr).includes(TOKEN.slice(4)), "the token was echoed");
    assert.ok(!(r.stdout + r.stderr).includes("pw-9f8e7d6c"), "the password was echoed");
    assert.deepEqual(problems(r.stdout), [
      "contractpin.lock: server api: the URL holds a user name or password, which looks like a credential; write it as a ${VAR} reference (as 'contractpin add' would) and set the variable when verifying",
      "contractpin.lock: server api: header Authorization holds a literal credential; write it as a ${VAR} reference (as 'contractpin add' would) and set the variable when verifying",
    ]);
  });

  it("a token in a snapshot entry (a server that echoed its key into a schema): where, never what", () => {
    const tools = baseTools();
    (tools[0]!["inputSchema"] as Doc)["properties"]["query"]["default"] = `key: ${TOKEN}`;
    const { ws } = pair({ docs: tools });
    const r = check(ws);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.ok(!(r.stdout + r.stderr).includes(TOKEN.slice(4)), "the token was echoed");
    assert.deepEqual(problems(r.stdout), [
      `${SIDECAR}: tool search of server docs: the string at /inputSchema/properties/query/default looks like a credential`,
    ]);
  });
});

describe("contractpin check: cannot check (exit 2, one line on stderr)", () => {
  it("no lock", () => {
    const ws = new Workspace();
    const r = check(ws);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, "");
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.match(r.stderr, /^contractpin: contractpin\.lock: cannot read the lock: no such file/);
  });

  it("a corrupt lock, and one whose server digest does not follow from its tools", () => {
    const { ws, lock, save } = pair();
    ws.write("contractpin.lock", '{"contractpin": "1",');
    const r = check(ws);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, "");
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.match(r.stderr, /^contractpin: contractpin\.lock: lock is corrupt: /);

    lock["servers"]["docs"]["tools"]["search"]["digest"] =
      lock["servers"]["docs"]["tools"]["fetch_page"]["digest"];
    save();
    const edited = check(ws);
    assert.equal(edited.code, 2);
    assert.match(
      edited.stderr,
      /servers\.docs\.digest does not match the digest of its tools' digests/,
    );
  });

  it("bad arguments", () => {
    const { ws } = pair();
    const r = check(ws, ["docs"]);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /^contractpin: unexpected argument 'docs' \(see 'contractpin check --help'\)\n$/,
    );
  });

  it("--help documents the exit codes", () => {
    const r = runCli(["check", "--help"]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^Usage: contractpin check/);
    assert.match(r.stdout, /Exit codes: 0 .*; 1 a problem was found/s);
    assert.match(r.stdout, /2 contractpin\s+could not check/);
  });
});
