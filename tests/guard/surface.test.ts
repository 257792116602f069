// The guard and the rest of a server's surface (issue 22, SPEC.md 10.7),
// with the official client over stdio and over --listen: an SDK server
// (tests/fixtures/servers/guard-surface-server.mjs) pinned whole, then
// changed as a hostile update would. What moved never reaches the client;
// what did not is relayed as before.
import { describe, it } from "node:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "../helpers/cleanup.js";
import { runCli } from "../helpers/cli.js";
import {
  assert,
  eventually,
  listPages,
  rawRequest,
  stderrShows,
  type Loose,
} from "./guard-harness.js";
import { FACES, closedAfterFile, logEvents, refusal, type Guarded } from "./surface-faces.js";

const SERVER = fileURLToPath(
  new URL("../fixtures/servers/guard-surface-server.mjs", import.meta.url),
);

/** A lock pinning the fixture (with `flags`), its variant file (empty: the original) and a log path. */
function pinned(flags: string[] = ["--resources"], snapshots = false) {
  const dir = tempDir("contractpin-guard-surface-");
  const lock = join(dir, "contractpin.lock");
  const variant = join(dir, "variant.txt");
  writeFileSync(variant, "");
  const add = runCli([
    "add",
    "s",
    "--lock",
    lock,
    ...(snapshots ? [] : ["--no-snapshot"]),
    ...flags,
    "--env",
    `SURFACE_VARIANT_FILE=${variant}`,
    "--",
    process.execPath,
    SERVER,
  ]);
  assert.equal(add.code, 0, add.stderr);
  return { lock, variant, log: join(dir, "guard.log") };
}

/** The keys of every item of a list, through the client. */
async function keys(client: Guarded["client"], method: string, member: string, key: string) {
  const pages = (await listPages(client, method)) as Loose[];
  return pages.flatMap((p) => (p[member] as Loose[]).map((item) => item[key] as string));
}

const connect = closedAfterFile();

for (const face of FACES) {
  describe(`the guard (${face}) and a server whose surface changed after it was pinned`, () => {
    it("removes changed instructions, withholds changed and unpinned prompts, templates and resources, refuses their use, relays the rest", async () => {
      const { lock, variant, log } = pinned();
      writeFileSync(
        variant,
        "instructions\nprompt\nnew-prompt\ntemplate\nresource\nnew-resource\n",
      );
      const notices: Loose[] = [];
      const { client, stderr } = await connect(face, ["s", "--lock", lock, "--log", log], (c) =>
        c.setNotificationHandler("notifications/message", (n) => void notices.push(n.params)),
      );
      // contractpin's note in their place, and a notice: never the server's text.
      const note =
        "contractpin guard removed the instructions of MCP server s: they changed since " +
        "they were pinned; run 'contractpin verify s' to see why";
      assert.equal(client.getInstructions(), note);

      assert.deepEqual(await keys(client, "prompts/list", "prompts", "name"), ["greet"]);
      const greeted = await rawRequest(client, "prompts/get", { name: "greet" });
      assert.equal(greeted.messages[0].content.text, "hello");
      for (const [name, reason] of [
        ["summarize", "drifted"],
        ["exfiltrate", "unpinned"],
      ] as const) {
        const err = await refusal(
          rawRequest(client, "prompts/get", { name, arguments: { entry: "1" } }),
        );
        assert.equal(err.code, -32602, String(err));
        assert.equal(err.data?.reason, reason);
        assert.equal(err.data?.by, "contractpin guard");
      }

      assert.deepEqual(
        await keys(client, "resources/templates/list", "resourceTemplates", "uriTemplate"),
        ["catalogue://authors/{id}"],
      );
      assert.deepEqual(await keys(client, "resources/list", "resources", "uri"), [
        "catalogue://about",
      ]);
      for (const uri of ["catalogue://news", "catalogue://secret"]) {
        const err = await refusal(rawRequest(client, "resources/read", { uri }));
        // -32602: the 2026-07-28 answer to a miss (the official client maps -32002 to it too).
        assert.equal(err.code, -32602, String(err));
        assert.equal(err.data?.by, "contractpin guard");
      }
      // A URI the server does not list (one a template makes) is read: its contents are an output.
      for (const uri of ["catalogue://about", "catalogue://entries/7"]) {
        const read = await rawRequest(client, "resources/read", { uri });
        assert.equal(read.contents[0].uri, uri);
      }
      const called = await rawRequest(client, "tools/call", {
        name: "lookup",
        arguments: { q: "still here" },
      });
      assert.equal(called.content[0].text, "still here");

      const expected = [
        /removed its instructions from the handshake's result: drifted \(pinned sha256:[0-9a-f]{12}\.\.\., live sha256:[0-9a-f]{12}\.\.\.\)/,
        /withheld prompt "summarize": drifted/,
        /withheld prompt "exfiltrate": unpinned/,
        /refused prompts\/get "summarize": drifted/,
        /refused prompts\/get "exfiltrate": unpinned/,
        /withheld resource template "catalogue:\/\/entries\/\{id\}": drifted/,
        /withheld resource "catalogue:\/\/news": drifted/,
        /withheld resource "catalogue:\/\/secret": unpinned/,
        /refused resources\/read "catalogue:\/\/news": drifted/,
      ];
      await stderrShows(stderr, ...expected);
      assert.doesNotMatch(stderr(), /greet|authors|about|lookup|IMPORTANT/);
      // Each list that withheld something came with one notice, before its answer.
      const explain = "run 'contractpin verify s' to see why";
      assert.deepEqual(notices, [
        { level: "warning", logger: "contractpin", data: note },
        {
          level: "warning",
          logger: "contractpin",
          data: `contractpin guard withheld 2 prompts of MCP server s (1 changed since pinned, 1 not in the lock): ${explain}`,
        },
        {
          level: "warning",
          logger: "contractpin",
          data: `contractpin guard withheld 1 resource template of MCP server s (1 changed since pinned): ${explain}`,
        },
        {
          level: "warning",
          logger: "contractpin",
          data: `contractpin guard withheld 2 resources of MCP server s (1 changed since pinned, 1 not in the lock): ${explain}`,
        },
      ]);
      const events = logEvents(log);
      assert.ok(
        events.some(
          (e) => e.event === "withheld" && e.part === "instructions" && e.reason === "drifted",
        ),
        JSON.stringify(events),
      );
      assert.ok(
        events.some((e) => e.event === "refused" && e.part === "prompts" && e.key === "summarize"),
      );
    });

    it("relays an unchanged surface as the server serves it, and says nothing", async () => {
      const { lock } = pinned();
      const { client, stderr } = await connect(face, ["s", "--lock", lock]);
      assert.equal(client.getInstructions(), "Use lookup to search the catalogue.");
      assert.deepEqual(await keys(client, "prompts/list", "prompts", "name"), [
        "summarize",
        "greet",
      ]);
      const got = await rawRequest(client, "prompts/get", {
        name: "summarize",
        arguments: { entry: "1" },
      });
      assert.equal(got.messages[0].content.text, "summarize 1");
      assert.deepEqual(
        await keys(client, "resources/templates/list", "resourceTemplates", "uriTemplate"),
        ["catalogue://entries/{id}", "catalogue://authors/{id}"],
      );
      assert.deepEqual(await keys(client, "resources/list", "resources", "uri"), [
        "catalogue://about",
        "catalogue://news",
      ]);
      assert.equal(stderr(), "");
    });

    it("refuses prompts/get of a prompt the server never lists, without passing it on", async () => {
      const { lock, log } = pinned();
      const { client, stderr } = await connect(face, ["s", "--lock", lock, "--log", log]);
      // Asked before any list, and after one: the guard lists every page itself, then refuses.
      for (let round = 0; round < 2; round++) {
        const err = await refusal(rawRequest(client, "prompts/get", { name: "never-listed" }));
        assert.equal(err.code, -32602, String(err));
        assert.equal(err.data?.reason, "unlisted", JSON.stringify(err.data));
        assert.equal(err.data?.by, "contractpin guard");
        assert.equal(err.data?.prompt, "never-listed");
        if (round === 0) await keys(client, "prompts/list", "prompts", "name");
      }
      await eventually(
        () => (stderr().match(/refused prompts\/get "never-listed"/g) ?? []).length >= 2,
        "two refusals on stderr",
      );
      assert.equal(
        (stderr().match(/refused prompts\/get "never-listed": unlisted/g) ?? []).length,
        2,
        stderr(),
      );
      assert.ok(
        logEvents(log).some(
          (e) => e.event === "refused" && e.part === "prompts" && e.key === "never-listed",
        ),
      );
    });

    it("--allow-new admits an unpinned prompt, never a drifted prompt or template", async () => {
      const { lock, variant } = pinned();
      writeFileSync(variant, "prompt\ntemplate\nnew-prompt\n");
      const { client } = await connect(face, ["s", "--lock", lock, "--allow-new"]);
      assert.deepEqual(await keys(client, "prompts/list", "prompts", "name"), [
        "greet",
        "exfiltrate",
      ]);
      assert.deepEqual(
        await keys(client, "resources/templates/list", "resourceTemplates", "uriTemplate"),
        ["catalogue://authors/{id}"],
      );
      const added = await rawRequest(client, "prompts/get", { name: "exfiltrate" });
      assert.equal(added.messages[0].content.text, "x");
      const err = await refusal(
        rawRequest(client, "prompts/get", { name: "summarize", arguments: { entry: "1" } }),
      );
      assert.equal(err.data?.reason, "drifted", JSON.stringify(err.data));
      assert.equal(err.data?.by, "contractpin guard");
    });

    it("re-checks after prompts' and resources' list_changed: a prompt or resource that changed in the session is refused", async () => {
      const { lock } = pinned();
      const { client, stderr } = await connect(face, ["s", "--lock", lock]);
      // Listed and admitted first.
      assert.deepEqual(await keys(client, "prompts/list", "prompts", "name"), [
        "summarize",
        "greet",
      ]);
      await keys(client, "resources/list", "resources", "uri");
      await rawRequest(client, "tools/call", { name: "flip", arguments: {} });
      await rawRequest(client, "tools/call", { name: "flip-resource", arguments: {} });
      // The guard hears each list_changed, lists again, and knows the change.
      await stderrShows(stderr, /withheld resource "catalogue:\/\/news"/);
      const err = await refusal(
        rawRequest(client, "prompts/get", { name: "summarize", arguments: { entry: "1" } }),
      );
      assert.equal(err.data?.reason, "drifted", `${String(err)} ${JSON.stringify(err.data)}`);
      const read = await refusal(rawRequest(client, "resources/read", { uri: "catalogue://news" }));
      assert.equal(read.data?.reason, "drifted");
      await stderrShows(stderr, /withheld prompt "summarize": drifted/);
    });

    it("a lock that pins only tools: instructions removed, prompts and templates withheld, resources relayed, one line says contractpin update pins them", async () => {
      const { lock } = pinned(["--tools-only"]);
      const { client, stderr } = await connect(face, ["s", "--lock", lock]);
      assert.equal(
        client.getInstructions(),
        "contractpin guard removed the instructions of MCP server s: the lock pins only its " +
          "tools ('contractpin update' pins them); run 'contractpin verify s' to see why",
      );
      assert.deepEqual(await keys(client, "prompts/list", "prompts", "name"), []);
      assert.equal(
        (await refusal(rawRequest(client, "prompts/get", { name: "greet" }))).data?.reason,
        "unpinned",
      );
      assert.deepEqual(
        await keys(client, "resources/templates/list", "resourceTemplates", "uriTemplate"),
        [],
      );
      // Resources are pinned only when asked: not checked.
      assert.deepEqual(await keys(client, "resources/list", "resources", "uri"), [
        "catalogue://about",
        "catalogue://news",
      ]);
      const called = await rawRequest(client, "tools/call", {
        name: "lookup",
        arguments: { q: "v1" },
      });
      assert.equal(called.content[0].text, "v1");
      await stderrShows(stderr, /withheld prompt "greet"/);
      const lines = stderr().split("\n");
      assert.equal(lines.filter((l) => l.includes("contractpin update")).length, 1, stderr());
      assert.match(
        stderr(),
        /removed its instructions from the handshake's result: unpinned \(the lock pins only its tools, .*`contractpin update` pins them\)/,
      );
    });
  });
}

/** The fixture pinned with its contract snapshots (what graded mode reads), `flags` added. */
function pinnedWithSnapshots(flags: string[] = []) {
  return pinned(flags, true);
}

for (const face of FACES) {
  describe(`the guard (${face}) with --on-drift=graded`, () => {
    it("passes a reworded tool, prompt and instructions (one line each), withholds an added prompt", async () => {
      const { lock, variant, log } = pinnedWithSnapshots();
      writeFileSync(variant, "reword\nnew-prompt\n");
      const { client, stderr } = await connect(face, [
        "s",
        "--lock",
        lock,
        "--log",
        log,
        "--on-drift=graded",
      ]);
      assert.equal(client.getInstructions(), "Use lookup to search the whole catalogue.");
      const tools = (await listPages(client, "tools/list")) as Loose[];
      const lookup = tools.flatMap((p) => p.tools as Loose[]).find((t) => t.name === "lookup");
      assert.equal(lookup?.description, "Search the whole catalogue.");
      const called = await rawRequest(client, "tools/call", {
        name: "lookup",
        arguments: { q: "passed" },
      });
      assert.equal(called.content[0].text, "passed");
      assert.deepEqual(await keys(client, "prompts/list", "prompts", "name"), [
        "summarize",
        "greet",
      ]);
      const err = await refusal(rawRequest(client, "prompts/get", { name: "exfiltrate" }));
      assert.equal(err.data?.reason, "unpinned");
      const expected = [
        /passed its instructions \(graded\): drifted \(pinned sha256:\w+(?:\.\.\.)?, live sha256:\w+(?:\.\.\.)?\); below the threshold: surface-changed \(low\)/,
        /passed tool "lookup" \(graded\): drifted .*; below the threshold: description-changed \(low\)/,
        /passed prompt "summarize" \(graded\): drifted .*; below the threshold: surface-changed \(low\)/,
        /withheld prompt "exfiltrate": unpinned/,
      ];
      await stderrShows(stderr, ...expected);
      const passed = logEvents(log).filter((e) => e.event === "passed");
      assert.deepEqual(
        passed.map((e) => [e.tool ?? e.part, e.key, e.findings]),
        [
          ["instructions", undefined, ["surface-changed (low)"]],
          ["lookup", undefined, ["description-changed (low)"]],
          ["prompts", "summarize", ["surface-changed (low)"]],
        ],
      );
    });

    it("withholds instructions that gain a directive whatever the threshold; a finding below --withhold-at passes", async () => {
      const { lock, variant } = pinnedWithSnapshots();
      writeFileSync(variant, "instructions\nprompt\nreword\n");
      const { client, stderr } = await connect(face, [
        "s",
        "--lock",
        lock,
        "--on-drift=graded",
        "--withhold-at",
        "critical",
      ]);
      assert.match(client.getInstructions() ?? "", /^contractpin guard removed the instructions/);
      assert.deepEqual(await keys(client, "prompts/list", "prompts", "name"), [
        "summarize",
        "greet",
      ]);
      await stderrShows(
        stderr,
        /removed its instructions from the handshake's result: drifted/,
        /passed prompt "summarize" \(graded\): drifted .*\(high\)/,
      );
      // At the default threshold (high), that finding withholds it.
      const high = await connect(face, ["s", "--lock", lock, "--on-drift=graded"]);
      assert.deepEqual(await keys(high.client, "prompts/list", "prompts", "name"), ["greet"]);
      await stderrShows(high.stderr, /withheld prompt "summarize": drifted/);
      assert.doesNotMatch(high.stderr(), /passed prompt/);
    });

    it("withholds what the snapshots cannot explain", async () => {
      const { lock, variant } = pinned(["--resources"]);
      writeFileSync(variant, "reword\n");
      const graded = await connect(face, ["s", "--lock", lock, "--on-drift=graded"]);
      assert.match(graded.client.getInstructions() ?? "", /^contractpin guard removed/);
      assert.deepEqual(await keys(graded.client, "tools/list", "tools", "name"), [
        "flip",
        "flip-resource",
      ]);
      await stderrShows(graded.stderr, /withheld tool "lookup": drifted/);
      assert.doesNotMatch(graded.stderr(), /passed/);
    });
  });
}
