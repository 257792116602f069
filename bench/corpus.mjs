/**
 * Deterministic corpus for the digest benchmark: tools/list dumps that look
 * like what real MCP servers serve. Everything comes from a seeded PRNG, so a
 * given (toolCount, seed) always yields the same bytes.
 *
 * A dump is a JSON-RPC response `{"jsonrpc":"2.0","id":1,"result":{"tools":[...]}}`
 * serialized compactly (as it travels on the wire), as a UTF-8 Buffer. Each
 * tool is about 4 KB: name, title, a description of a few hundred characters
 * (some with non-ASCII, quotes and line breaks, so the escape paths are used),
 * an inputSchema with nested properties, enums, arrays and `required`, often
 * an outputSchema, usually annotations, and now and then a `_meta`.
 */
import { Buffer } from "node:buffer";

/** sfc32: small, fast, good-quality 32-bit PRNG. Returns floats in [0, 1). */
export function prng(seed) {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = seed >>> 0;
  const next = () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 15; i++) next();
  return next;
}

const DOMAINS = [
  "github",
  "gitlab",
  "jira",
  "slack",
  "postgres",
  "sqlite",
  "filesystem",
  "kubernetes",
  "calendar",
  "gmail",
  "notion",
  "linear",
  "stripe",
  "sentry",
  "s3",
  "browser",
  "weather",
  "maps",
  "memory",
  "search",
];
const VERBS = [
  "list",
  "get",
  "create",
  "update",
  "delete",
  "search",
  "query",
  "fetch",
  "sync",
  "archive",
  "export",
  "import",
  "move",
  "merge",
  "watch",
  "describe",
  "run",
  "cancel",
];
const NOUNS = [
  "issues",
  "pull_requests",
  "comments",
  "files",
  "directories",
  "pods",
  "deployments",
  "events",
  "messages",
  "channels",
  "tables",
  "rows",
  "pages",
  "databases",
  "customers",
  "invoices",
  "alerts",
  "buckets",
  "objects",
  "entities",
  "relations",
  "forecasts",
  "routes",
  "labels",
  "releases",
];
const SENTENCES = [
  "Returns at most `limit` results, ordered by relevance unless `sort` is given.",
  "Use this tool when the user asks about recent activity; prefer the search tool for open-ended questions.",
  "The operation is paginated: pass the `cursor` from the previous response to continue.",
  "Results include metadata such as the author, creation time (ISO 8601, UTC) and last modification.",
  "Fails with a permission error if the authenticated account cannot read the resource.",
  "Large payloads are truncated to 64 KiB; request specific fields to reduce the response size.",
  'Set "dryRun" to true to preview the changes without applying them.',
  "Rate limited to 30 requests per minute per workspace — back off on HTTP 429.",
  "Supports filtering by label, state (open | closed | all) and assignee.",
  "Identifiers are case-sensitive and must match the pattern shown in the schema.",
  "Non-ASCII text is preserved exactly: café, naïve, Zürich, Ærøskøbing, São Paulo.",
  "Handles CJK content (東京, 서울, 北京) and emoji such as 🚀 and ✅ without loss.",
  "Times are converted to the caller's time zone → see the `tz` parameter.",
  "Destructive: the deleted items cannot be recovered after 30 days…",
  "Only the first page is returned when `all` is false.",
  "Each item carries a stable `id` that can be passed to the other tools of this server.",
  "Use the «preview» mode to inspect the result before committing it.",
  "Errors are reported as a structured object with `code` and `message` fields.",
];
const PROP_NAMES = [
  "query",
  "limit",
  "cursor",
  "owner",
  "repo",
  "path",
  "branch",
  "state",
  "labels",
  "assignee",
  "since",
  "until",
  "sort",
  "direction",
  "includeArchived",
  "dryRun",
  "timeoutMs",
  "namespace",
  "selector",
  "fields",
  "format",
  "tz",
  "recursive",
  "encoding",
  "maxDepth",
  "filters",
  "options",
  "metadata",
  "title",
  "body",
  "priority",
  "tags",
  "region",
  "bucket",
  "prefix",
  "user_id",
  "workspace_id",
  "page_size",
  "include_deleted",
  "Content-Type",
];
const ENUMS = [
  ["open", "closed", "all"],
  ["asc", "desc"],
  ["created", "updated", "comments", "reactions"],
  ["json", "markdown", "text", "html"],
  ["low", "medium", "high", "urgent"],
  ["utf-8", "latin1", "base64"],
  ["us-east-1", "eu-west-1", "ap-northeast-1"],
];
const FORMATS = ["date-time", "uri", "email", "uuid", "date"];

/** Makes a generator of realistic MCP tool definitions driven by `rand`. */
function toolMaker(rand) {
  const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const chance = (p) => rand() < p;
  const pickSome = (list, n) => {
    const copy = list.slice();
    const out = [];
    while (out.length < n && copy.length > 0) out.push(copy.splice(int(0, copy.length - 1), 1)[0]);
    return out;
  };

  const text = (min) => {
    let s = "";
    while (s.length < min) s += (s ? (chance(0.15) ? "\n\n" : " ") : "") + pick(SENTENCES);
    return s;
  };

  const scalarSchema = (name) => {
    const kind = int(0, 5);
    const description = `${name} — ${pick(SENTENCES)}`;
    switch (kind) {
      case 0:
        return { type: "string", description, enum: pick(ENUMS) };
      case 1:
        return { type: "integer", description, minimum: 1, maximum: pick([50, 100, 1000]) };
      case 2:
        return { type: "number", description, minimum: 0, exclusiveMaximum: 1.5, default: 0.25 };
      case 3:
        return { type: "boolean", description, default: chance(0.5) };
      case 4:
        return { type: "string", description, format: pick(FORMATS) };
      default:
        return {
          type: "string",
          description,
          minLength: 1,
          maxLength: pick([64, 256, 4096]),
          pattern: "^[A-Za-z0-9_.-]+$",
        };
    }
  };

  const objectSchema = (count, depth) => {
    const properties = {};
    for (const name of pickSome(PROP_NAMES, count)) {
      const roll = rand();
      let schema;
      if (depth > 0 && roll < 0.18) {
        schema = {
          type: "object",
          description: `Nested ${name} settings.`,
          ...objectSchema(int(2, 4), depth - 1),
        };
      } else if (roll < 0.32) {
        const items = depth > 0 && chance(0.5) ? objectSchema(int(2, 3), 0) : scalarSchema(name);
        schema = {
          type: "array",
          description: `List of ${name}.`,
          items,
          maxItems: pick([10, 100]),
        };
        if (chance(0.3)) schema.uniqueItems = true;
      } else {
        schema = scalarSchema(name);
      }
      properties[name] = schema;
    }
    const names = Object.keys(properties);
    const out = { type: "object", properties };
    const required = names.filter(() => chance(0.35));
    if (required.length > 0) out.required = required;
    if (chance(0.6)) out.additionalProperties = false;
    return out;
  };

  const usedNames = new Set();
  return (index) => {
    const domain = pick(DOMAINS);
    const verb = pick(VERBS);
    const noun = pick(NOUNS);
    let name = `${domain}_${verb}_${noun}`;
    if (usedNames.has(name)) name = `${name}_${index}`;
    usedNames.add(name);

    const inputSchema = {
      ...(chance(0.4) ? { $schema: "http://json-schema.org/draft-07/schema#" } : {}),
      ...objectSchema(int(6, 10), 2),
    };
    const tool = {
      name,
      title: `${verb[0].toUpperCase()}${verb.slice(1)} ${noun.replaceAll("_", " ")} (${domain})`,
      description: text(int(250, 600)),
      inputSchema,
    };
    if (chance(0.3)) {
      tool.outputSchema = {
        type: "object",
        properties: {
          items: { type: "array", items: objectSchema(int(3, 5), 1) },
          nextCursor: { type: ["string", "null"] },
          total: { type: "integer", minimum: 0 },
        },
        required: ["items"],
      };
    }
    if (chance(0.85)) {
      const readOnly = verb === "list" || verb === "get" || verb === "search" || verb === "query";
      tool.annotations = {
        ...(chance(0.3) ? { title: tool.title } : {}),
        readOnlyHint: readOnly,
        destructiveHint: verb === "delete" || verb === "merge",
        idempotentHint: readOnly || chance(0.3),
        openWorldHint: chance(0.5),
      };
    } else if (chance(0.2)) {
      tool.annotations = null;
    }
    if (chance(0.1)) {
      tool._meta = {
        "com.example/category": domain,
        "com.example/rev": int(1, 40),
        "com.example/tags": pickSome(NOUNS, 3),
      };
    }
    return tool;
  };
}

/**
 * A tools/list JSON-RPC response of `toolCount` tools, as compact UTF-8 JSON.
 * Tool names are unique (a duplicate would make the dump invalid).
 */
export function makeDump(toolCount, seed = 0x5eed) {
  const makeTool = toolMaker(prng(seed));
  const tools = [];
  for (let i = 0; i < toolCount; i++) tools.push(makeTool(i));
  return Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 1, result: { tools } }), "utf8");
}
