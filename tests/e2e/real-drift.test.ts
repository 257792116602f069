// Real drift between published releases of real MCP servers (issue 11). An old
// release, a devDependency under an alias, is pinned over stdio with `add`
// (contract snapshots written beside the lock); then the lock's `command` is
// pointed at the current release (the unaliased devDependency) while the tool
// digests stay those of the old release, as when a server is upgraded under a
// lock. `verify` must name the changes the upstream releases really made.
// The expectations below were read from the packages' sources, not from
// contractpin; each block says what changed and where.
//
// Neither pair touches the network to start and list its tools; each server is
// spawned by contractpin, which ends it, and every folder is a temporary one.
import assert from "node:assert/strict";
import { copyFileSync, readFileSync } from "node:fs";
import { before, describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { tempDir } from "../helpers/cleanup.js";
import { pythonDigest, runCli, type CliResult } from "../helpers/cli.js";
import { SERVERS, writeRawDump } from "../helpers/servers.js";
import { Workspace } from "../helpers/workspace.js";

const SIDECAR = "contractpin.contracts.json";

const entryOf = (alias: string): string =>
  fileURLToPath(new URL(`../../node_modules/${alias}/dist/index.js`, import.meta.url));

const versionOf = (entry: string): string =>
  (
    JSON.parse(readFileSync(new URL("../package.json", pathToFileURL(entry)), "utf8")) as {
      version: string;
    }
  ).version;

type Entries = Map<string, { status: string; rules: string[] }>;

/**
 * The text report's tool entries: the status word, the name, and its
 * `[severity] rule` lines; the findings under a group of tools
 * (`  DRIFTED    13 tools: a, b, ...`) count for each tool it names.
 */
function textEntries(stdout: string): Entries {
  const m: Entries = new Map();
  const own = new Set<string>();
  let current: { status: string; rules: string[] }[] = [];
  const entry = (name: string, status: string) => {
    let e = m.get(name);
    if (e === undefined) m.set(name, (e = { status, rules: [] }));
    assert.equal(e.status, status, `${name} has two statuses`);
    return e;
  };
  for (const line of stdout.split("\n")) {
    const group = /^ {2}([A-Z]+) +(\d+) tools: (.+)$/.exec(line);
    if (group) {
      const names = group[3]!.split(", ");
      assert.equal(names.length, Number(group[2]), line);
      current = names.map((n) => entry(n, group[1]!.toLowerCase()));
      continue;
    }
    const head = /^ {2}([A-Z]+) +(\S+)/.exec(line);
    if (head) {
      assert.ok(!own.has(head[2]!), `${head[2]} has two blocks`);
      own.add(head[2]!);
      current = [entry(head[2]!, head[1]!.toLowerCase())];
      continue;
    }
    const finding = /^ {4}\[(critical|high|medium|low)\] ([a-z-]+)/.exec(line);
    if (finding) {
      assert.ok(current.length > 0, `a finding outside a tool: ${line}`);
      for (const e of current) e.rules.push(`${finding[2]}/${finding[1]}`);
    }
  }
  for (const e of m.values()) e.rules.sort();
  return m;
}

/** `entries` with each tool's rules sorted: the text report orders them by its groups. */
const sorted = (entries: Entries): Entries =>
  new Map([...entries].map(([k, v]) => [k, { status: v.status, rules: [...v.rules].sort() }]));

interface JsonFinding {
  rule: string;
  severity: string;
  pointer?: string;
  before?: unknown;
  after?: unknown;
}
interface JsonTool {
  name: string;
  status: string;
  pinned?: string;
  changed_fields?: string[];
  snapshot?: boolean;
  findings?: JsonFinding[];
}
interface JsonReport {
  exit_code: number;
  summary: unknown;
  servers: { name: string; status: string; pinned_digest: string; tools: JsonTool[] }[];
}

/** The --json report's tool entries, in the shape of textEntries. */
const jsonEntries = (tools: JsonTool[]): Entries =>
  new Map(
    tools.map((t) => [
      t.name,
      { status: t.status, rules: (t.findings ?? []).map((f) => `${f.rule}/${f.severity}`) },
    ]),
  );

const lines = (r: CliResult) => r.stdout.split("\n");

/**
 * Pins `oldArgv` as server `name` in one workspace, and in another writes the
 * same lock and snapshots with the command replaced by `newArgv`.
 */
function pinAndUpgrade(
  name: string,
  oldArgv: string[],
  newArgv: string[],
): { pinned: Workspace; upgraded: Workspace } {
  const pinned = new Workspace();
  const upgraded = new Workspace();
  // Tools only: the subject is the tools' drift between releases (their surface has its own tests).
  const add = runCli(["add", name, "--tools-only", "--", ...oldArgv], { cwd: pinned.dir });
  assert.equal(add.code, 0, add.stderr);
  const lock = pinned.lockJson();
  assert.deepEqual(lock.servers[name]!["command"], oldArgv);
  lock.servers[name]!["command"] = newArgv;
  upgraded.write("contractpin.lock", `${JSON.stringify(lock, null, 2)}\n`);
  copyFileSync(pinned.path(SIDECAR), upgraded.path(SIDECAR));
  return { pinned, upgraded };
}

/** The old release's pin: its tools, its digests by Python, its snapshots; verify against it is 0. */
function assertPinnedOld(ws: Workspace, name: string, argv: string[], tools: string[]): void {
  const server = ws.lockJson().servers[name]!;
  assert.equal(server["tool_count"], tools.length);
  assert.deepEqual(Object.keys(server["tools"] as object).sort(), [...tools].sort());
  // The pin is the old release's tools/list, by the independent Python implementation.
  const dump = writeRawDump(ws.path("old-release.json"), argv);
  assert.deepEqual(
    { tool_count: server["tool_count"], digest: server["digest"], tools: server["tools"] },
    pythonDigest(dump),
  );
  const sidecar = JSON.parse(ws.read(SIDECAR)) as {
    servers: Record<string, Record<string, unknown>>;
  };
  assert.deepEqual(Object.keys(sidecar.servers[name]!).sort(), [...tools].sort());

  const verify = runCli(["verify"], { cwd: ws.dir });
  assert.equal(verify.code, 0, verify.stdout + verify.stderr);
  assert.equal(
    verify.stdout,
    `${name}  ok  (${tools.length} pinned tools)\n\nOK: 1 server matches the lock\n`,
  );
}

/** verify --json in `ws`: exit 1, one drifted server whose pinned digests are the old pin's. */
function jsonDrift(ws: Workspace, pinned: Workspace, name: string): Map<string, JsonTool> {
  const r = runCli(["verify", "--json"], { cwd: ws.dir });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const report = JSON.parse(r.stdout) as JsonReport;
  assert.equal(report.exit_code, 1);
  const [server] = report.servers;
  assert.equal(report.servers.length, 1);
  assert.equal(server!.name, name);
  assert.equal(server!.status, "drift");
  const oldPin = pinned.lockJson().servers[name]!;
  assert.equal(server!.pinned_digest, oldPin["digest"]);
  const oldTools = oldPin["tools"] as Record<string, { digest: string }>;
  for (const t of server!.tools)
    if (t.status !== "added") {
      assert.equal(t.pinned, oldTools[t.name]!.digest, t.name);
      assert.equal(t.snapshot, true, t.name);
    }
  return new Map(server!.tools.map((t) => [t.name, t]));
}

// @modelcontextprotocol/server-everything 2025.11.25 -> 2026.8.31
//
// 2025.11.25, node_modules/server-everything-2025.11.25/dist/everything.js: the
// tools/list handler (`setRequestHandler(ListToolsRequestSchema, ...)`) lists 11
// tools, camelCase: echo, add, longRunningOperation, printEnv, sampleLLM,
// getTinyImage, annotatedMessage, getResourceReference, getResourceLinks,
// structuredContent, zip; listRoots and startElicitation only when the client
// declares roots or elicitation, which contractpin does not. Schemas are zod 3
// objects (the package's own nested zod) converted by zod-to-json-schema, which
// writes `additionalProperties: false` for every z.object. No annotations.
//   echo: description "Echoes back the input", EchoSchema = { message: string }.
//
// 2026.8.31, node_modules/@modelcontextprotocol/server-everything/dist/tools/:
// index.js `registerTools` registers 12 tools with McpServer.registerTool, all
// kebab-case and each with annotations: echo, get-annotated-message, get-env,
// get-resource-links, get-resource-reference, get-structured-content, get-sum,
// get-tiny-image, gzip-file-as-resource, toggle-simulated-logging,
// toggle-subscriber-updates, trigger-long-running-operation; of
// `registerConditionalTools` only simulate-research-query (registered through
// experimental tasks, no capability check) is listed for a client without
// roots, sampling or elicitation. The SDK converts the zod 4 schemas with zod's
// toJSONSchema (sdk/dist/esm/server/zod-json-schema-compat.js), which leaves
// `additionalProperties` out.
//   echo.js: description "Echoes back the input string", the same EchoSchema,
//   annotations { readOnlyHint: true, destructiveHint: false,
//   idempotentHint: true, openWorldHint: false } (and a title, which is not part
//   of a contract, SPEC.md section 1).
//   gzip-file-as-resource.js: the `data` input defaults to the URL
//   https://raw.githubusercontent.com/modelcontextprotocol/servers/refs/heads/main/README.md
//
// So, against the old pin:
// - echo drifted in three fields: the description gained the word "string"
//   (description-changed, low: no pattern matches " string"); its input schema
//   lost `additionalProperties: false` (input-additional-properties-opened,
//   high); it gained annotations that are each the strict side of their hint
//   (the MCP defaults are the permissive side), so no specific annotation rule:
//   annotation-changed, low.
// - the 10 other old tools are gone (tool-removed, low). None is a rename: the
//   new kebab-case tools differ from them in more than the name (they all gained
//   annotations, and e.g. add "Adds two numbers" became get-sum "Returns the sum
//   of two numbers"), so tool-renamed must not appear.
// - the 12 new tools are added (tool-added, medium); gzip-file-as-resource's
//   schema also gains the README URL (description-url, medium, at
//   /inputSchema). No other new tool's text names another tool, holds a URL or
//   a directive.
describe("real drift: server-everything 2025.11.25 pinned, 2026.8.31 served", () => {
  const OLD = entryOf("server-everything-2025.11.25");
  const OLD_ARGV = [process.execPath, OLD, "stdio"];
  const NEW_ARGV = [process.execPath, SERVERS.everything, "stdio"];
  const REMOVED = [
    "add",
    "annotatedMessage",
    "getResourceLinks",
    "getResourceReference",
    "getTinyImage",
    "longRunningOperation",
    "printEnv",
    "sampleLLM",
    "structuredContent",
    "zip",
  ];
  const ADDED = [
    "get-annotated-message",
    "get-env",
    "get-resource-links",
    "get-resource-reference",
    "get-structured-content",
    "get-sum",
    "get-tiny-image",
    "gzip-file-as-resource",
    "simulate-research-query",
    "toggle-simulated-logging",
    "toggle-subscriber-updates",
    "trigger-long-running-operation",
  ];
  const README_URL =
    "https://raw.githubusercontent.com/modelcontextprotocol/servers/refs/heads/main/README.md";

  const expected = (): Entries => {
    const m: Entries = new Map();
    for (const name of REMOVED) m.set(name, { status: "removed", rules: ["tool-removed/low"] });
    for (const name of ADDED) m.set(name, { status: "added", rules: ["tool-added/medium"] });
    m.get("gzip-file-as-resource")!.rules.push("description-url/medium");
    m.set("echo", {
      status: "drifted",
      rules: [
        "input-additional-properties-opened/high",
        "description-changed/low",
        "annotation-changed/low",
      ],
    });
    return m;
  };

  let ws: { pinned: Workspace; upgraded: Workspace };
  before(() => {
    // The releases the expectations were read from; a lock file that moved
    // either one would make them wrong.
    assert.equal(versionOf(OLD), "2025.11.25");
    assert.equal(versionOf(SERVERS.everything), "2026.8.31");
    ws = pinAndUpgrade("everything", OLD_ARGV, NEW_ARGV);
  });

  it("add pins the old release's 11 tools with snapshots, and it verifies against its own pin (exit 0)", () => {
    assertPinnedOld(ws.pinned, "everything", OLD_ARGV, [...REMOVED, "echo"]);
    const sidecar = JSON.parse(ws.pinned.read(SIDECAR));
    assert.equal(sidecar.servers.everything.echo.description, "Echoes back the input");
  });

  it("verify against the new release: exit 1, the removed, added and drifted tools with their rules and lines", () => {
    const r = runCli(["verify"], { cwd: ws.upgraded.dir });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    // The snapshots were used: no "no snapshot" warning.
    assert.doesNotMatch(r.stderr, /warning/);

    const out = lines(r);
    assert.equal(out[0], "everything  DRIFT  (11 pinned tools)");
    assert.deepEqual(textEntries(r.stdout), sorted(expected()));
    assert.doesNotMatch(r.stdout, /tool-renamed|RENAMED/);

    // echo, shown from its snapshot: each finding, most severe first, with
    // the changes it is about under it: the word diff of the real description
    // change, and each annotation the added object holds on a line of its own
    // (idempotentHint among them, not cut out of the middle of one line). The
    // opened additionalProperties is stated whole by its finding's line.
    const at = out.findIndex((l) => /^ {2}DRIFTED {4}echo +changed: /.test(l));
    assert.ok(at > 0, r.stdout);
    assert.match(out[at]!, / changed: annotations, description, inputSchema$/);
    assert.deepEqual(out.slice(at + 1, at + 10), [
      "    [high] input-additional-properties-opened at inputSchema/additionalProperties: false -> (absent)",
      "    [low] description-changed at description",
      "      description:",
      "        Echoes back the input{+ string+}",
      "    [low] annotation-changed at annotations",
      "      annotations/destructiveHint: (absent) -> false",
      "      annotations/idempotentHint: (absent) -> true",
      "      annotations/openWorldHint: (absent) -> false",
      "      annotations/readOnlyHint: (absent) -> true",
    ]);

    // An added tool is shown whole, never cut: gzip-file-as-resource's URL default.
    assert.ok(out.includes(`    inputSchema/properties/data/default: "${README_URL}"`), r.stdout);
    assert.ok(
      out.some((l) =>
        l.startsWith(
          `    [medium] description-url at inputSchema: contains "https://raw.githubusercontent.com/`,
        ),
      ),
      r.stdout,
    );

    assert.deepEqual(out.slice(-4), [
      "",
      "FAIL: 1 drifted of 1 server (tools: 1 drifted, 12 added, 10 removed)",
      "to accept the change after reviewing it: contractpin update everything",
      "",
    ]);
  });

  it("verify --json against the new release: exit 1, the same tools and findings", () => {
    const tools = jsonDrift(ws.upgraded, ws.pinned, "everything");
    assert.deepEqual(jsonEntries([...tools.values()]), expected());

    const echo = tools.get("echo")!;
    assert.deepEqual(echo.changed_fields, ["annotations", "description", "inputSchema"]);
    assert.deepEqual(echo.findings, [
      {
        rule: "input-additional-properties-opened",
        severity: "high",
        pointer: "/inputSchema/additionalProperties",
        before: false,
      },
      { rule: "description-changed", severity: "low", pointer: "/description" },
      { rule: "annotation-changed", severity: "low", pointer: "/annotations" },
    ]);

    const url = tools.get("gzip-file-as-resource")!.findings![1]!;
    assert.equal(url.pointer, "/inputSchema");
    assert.ok(Array.isArray(url.after) && url.after.length === 1, JSON.stringify(url));
    // The gained URL, possibly shortened at its end.
    const gained = String(url.after[0]).replace(/…$/, "");
    assert.ok(README_URL.startsWith(gained) && gained.length >= 40, gained);
  });
});

// @modelcontextprotocol/server-filesystem 2025.11.25 -> 2026.8.31
//
// Both register the same 14 tools with McpServer.registerTool (old:
// node_modules/server-filesystem-2025.11.25/dist/index.js; new:
// node_modules/@modelcontextprotocol/server-filesystem/dist/index.js), with the
// same input schemas. (The old release imports zod without declaring it; it
// gets the project's hoisted zod, which only its schemas' conversion depends on,
// and which the same SDK converts for both.) What differs:
// - move_file: annotations { readOnlyHint: false, idempotentHint: false,
//   destructiveHint: false } became { ..., destructiveHint: true,
//   openWorldHint: false }: destructiveHint false -> true is
//   annotation-destructive-added, medium: it declares more danger (the added openWorldHint: false is the
//   strict side, no rule; a specific rule covers the field, so no catch-all).
// - every other tool's annotations gained openWorldHint: false (the MCP
//   default is true, so stricter): annotation-changed, low, and nothing else,
//   except for
// - read_media_file: description "Read an image or audio file. Returns the
//   base64 encoded data and MIME type. Only works within allowed directories."
//   became "Read a file and return it as a base64-encoded content block with
//   its MIME type. Image and audio files are returned as image/audio content;
//   any other file type is returned as an embedded resource. Only works within
//   allowed directories." (description-changed, low: no directive, URL or tool
//   name gained); its output schema's `content` items went from one object
//   { type: enum image|audio|blob, data, mimeType } to a union (anyOf) of that
//   object (without blob) and a { type: "resource", resource } object
//   (output-schema-changed, medium); plus openWorldHint (annotation-changed).
// - read_file's old description already says "Use read_text_file instead", so
//   no description-tool-mention: nothing was gained there.
describe("real drift: server-filesystem 2025.11.25 pinned, 2026.8.31 served", () => {
  const OLD = entryOf("server-filesystem-2025.11.25");
  const TOOLS = [
    "create_directory",
    "directory_tree",
    "edit_file",
    "get_file_info",
    "list_allowed_directories",
    "list_directory",
    "list_directory_with_sizes",
    "move_file",
    "read_file",
    "read_media_file",
    "read_multiple_files",
    "read_text_file",
    "search_files",
    "write_file",
  ];
  const OLD_DESCRIPTION =
    "Read an image or audio file. Returns the base64 encoded data and MIME type. " +
    "Only works within allowed directories.";
  const NEW_DESCRIPTION =
    "Read a file and return it as a base64-encoded content block with its MIME type. " +
    "Image and audio files are returned as image/audio content; any other file type is " +
    "returned as an embedded resource. Only works within allowed directories.";

  const expected = (): Entries => {
    const m: Entries = new Map();
    for (const name of TOOLS) m.set(name, { status: "drifted", rules: ["annotation-changed/low"] });
    m.set("move_file", { status: "drifted", rules: ["annotation-destructive-added/medium"] });
    m.set("read_media_file", {
      status: "drifted",
      rules: ["output-schema-changed/medium", "description-changed/low", "annotation-changed/low"],
    });
    return m;
  };

  let ws: { pinned: Workspace; upgraded: Workspace };
  let oldArgv: string[];
  before(() => {
    assert.equal(versionOf(OLD), "2025.11.25");
    assert.equal(versionOf(SERVERS.filesystem), "2026.8.31");
    // The one directory both releases may serve: empty, temporary.
    const root = tempDir("contractpin-fs-root-");
    oldArgv = [process.execPath, OLD, root];
    ws = pinAndUpgrade("filesystem", oldArgv, [process.execPath, SERVERS.filesystem, root]);
  });

  it("add pins the old release's 14 tools with snapshots, and it verifies against its own pin (exit 0)", () => {
    assertPinnedOld(ws.pinned, "filesystem", oldArgv, TOOLS);
  });

  it("verify against the new release: exit 1, move_file turned destructive, read_media_file rewritten", () => {
    const r = runCli(["verify"], { cwd: ws.upgraded.dir });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.doesNotMatch(r.stderr, /warning/);

    const out = lines(r);
    assert.equal(out[0], "filesystem  DRIFT  (14 pinned tools)");
    assert.deepEqual(textEntries(r.stdout), sorted(expected()));

    const move = out.findIndex((l) => /^ {2}DRIFTED {4}move_file +changed: annotations$/.test(l));
    assert.ok(move > 0, r.stdout);
    assert.deepEqual(out.slice(move + 1, move + 3), [
      "    [medium] annotation-destructive-added at annotations/destructiveHint: false -> true",
      "    annotations/openWorldHint: (absent) -> false",
    ]);

    // The 13 other tools gained openWorldHint: false and nothing else the same
    // way: one group that names each, once.
    const group = out.findIndex((l) => /^ {2}DRIFTED {4}13 tools: /.test(l));
    assert.ok(group > 0, r.stdout);
    assert.deepEqual(out.slice(group, group + 3), [
      `  DRIFTED    13 tools: ${TOOLS.filter((t) => t !== "move_file").join(", ")}`,
      "    [low] annotation-changed at annotations",
      "      annotations/openWorldHint: (absent) -> false",
    ]);

    const media = out.findIndex((l) =>
      /^ {2}DRIFTED {4}read_media_file +changed: annotations, description, outputSchema$/.test(l),
    );
    assert.ok(media > 0, r.stdout);
    const block = out.slice(
      media + 1,
      out.findIndex((l, i) => i > media && !/^ {4}/.test(l)),
    );
    const d = block.indexOf("      description:");
    assert.equal(block[d - 1], "    [low] description-changed at description");
    // A word diff of the real change: without the added runs it is the old
    // description, without the removed runs the new one.
    const diff = block[d + 1]!;
    assert.match(diff, /^ {8}Read \[-an image or audio file\. /);
    assert.equal(
      diff
        .trim()
        .replace(/\{\+.*?\+\}/g, "")
        .replace(/\[-(.*?)-\]/g, "$1"),
      OLD_DESCRIPTION,
    );
    assert.equal(
      diff
        .trim()
        .replace(/\[-.*?-\]/g, "")
        .replace(/\{\+(.*?)\+\}/g, "$1"),
      NEW_DESCRIPTION,
    );
    // The new anyOf is shown by its members, not cut in the middle: the
    // image/audio branch and the embedded resource branch.
    for (const line of [
      "    [medium] output-schema-changed at outputSchema",
      `      outputSchema/properties/content/items/required: ["type","data","mimeType"] -> (absent)`,
      `      outputSchema/properties/content/items/type: "object" -> (absent)`,
      `      outputSchema/properties/content/items/anyOf/0/properties/type: (absent) -> {"enum":["image","audio"],"type":"string"}`,
      `      outputSchema/properties/content/items/anyOf/1/properties/type: (absent) -> {"const":"resource","type":"string"}`,
      `      outputSchema/properties/content/items/anyOf/1/properties/resource/required: (absent) -> ["uri","blob"]`,
      "    and 1 change shared with other tools, above",
    ])
      assert.ok(block.includes(line), `${line}\n${block.join("\n")}`);
    assert.doesNotMatch(r.stdout, /…/);

    assert.deepEqual(out.slice(-4), [
      "",
      "FAIL: 1 drifted of 1 server (tools: 14 drifted)",
      "to accept the change after reviewing it: contractpin update filesystem",
      "",
    ]);
  });

  it("verify --json against the new release: exit 1, the same tools and findings", () => {
    const tools = jsonDrift(ws.upgraded, ws.pinned, "filesystem");
    assert.deepEqual(jsonEntries([...tools.values()]), expected());
    assert.deepEqual(tools.get("move_file")!.findings, [
      {
        rule: "annotation-destructive-added",
        severity: "medium",
        pointer: "/annotations/destructiveHint",
        before: false,
        after: true,
      },
    ]);
    const media = tools.get("read_media_file")!;
    assert.deepEqual(media.changed_fields, ["annotations", "description", "outputSchema"]);
    assert.deepEqual(
      media.findings!.map((f) => f.pointer),
      ["/outputSchema", "/description", "/annotations"],
    );
  });
});
