import {
  getMember,
  isJsonObject,
  type JsonObject,
  type JsonValue,
} from "../../core/json/json-value.js";

// Protocol revision 2026-07-28 is stateless: there is no initialize, and each
// request carries in `params._meta` the protocol version, the client's
// identity and its capabilities. These are the reserved keys of that envelope.
const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
/** The key that ties a notification to the subscriptions/listen request it belongs to. */
export const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

/** The members of the envelope the guard copies into its own requests (never a log level or progress token). */
const ENVELOPE_KEYS = [PROTOCOL_VERSION, CLIENT_INFO, CLIENT_CAPABILITIES];

/**
 * The protocol envelope a request carries under 2026-07-28 (the reserved
 * members of `params._meta`), or undefined when it carries no protocol
 * version (a 2025-era message). The guard sends its own requests with the
 * client's envelope, so that the server lists for the same client
 * capabilities as it does for the client.
 */
export function envelopeOf(message: JsonObject): JsonObject | undefined {
  const meta = metaOf(message);
  if (meta === undefined || typeof getMember(meta, PROTOCOL_VERSION) !== "string") return undefined;
  const envelope: JsonObject = {};
  for (const key of ENVELOPE_KEYS) {
    const value = getMember(meta, key);
    if (value !== undefined) envelope[key] = value;
  }
  return envelope;
}

/** The subscription a server message belongs to (`params._meta[SUBSCRIPTION_ID]`), if any. */
export function subscriptionOf(message: JsonObject): string | number | undefined {
  const meta = metaOf(message);
  const id = meta === undefined ? undefined : getMember(meta, SUBSCRIPTION_ID);
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

function metaOf(message: JsonObject): JsonObject | undefined {
  const params = getMember(message, "params");
  const meta = isJsonObject(params) ? getMember(params, "_meta") : undefined;
  return isJsonObject(meta) ? meta : undefined;
}

// The methods whose target the `Mcp-Name` header mirrors, and the member of
// `params` that holds it (SEP-2243, as the official client's table has it).
const NAME_SOURCE: Readonly<Record<string, string>> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

/**
 * The HTTP headers a message must be POSTed with under 2026-07-28, derived
 * from the message itself as the official client derives them:
 * `MCP-Protocol-Version` from the envelope, `Mcp-Method` from `method`, and
 * `Mcp-Name` for the methods that name a target (tools/call's `params.name`
 * among them). Empty for a message without an envelope (2025-era traffic is
 * sent as before) and for anything that is not one request or notification.
 */
export function standardHeaders(message: JsonValue): Record<string, string> {
  if (!isJsonObject(message)) return {};
  const method = getMember(message, "method");
  const meta = metaOf(message);
  const version = meta === undefined ? undefined : getMember(meta, PROTOCOL_VERSION);
  if (typeof method !== "string" || typeof version !== "string") return {};
  const headers: Record<string, string> = {
    "mcp-protocol-version": headerValue(version),
    "mcp-method": headerValue(method),
  };
  const field = Object.hasOwn(NAME_SOURCE, method) ? NAME_SOURCE[method] : undefined;
  const params = getMember(message, "params");
  const target = field !== undefined && isJsonObject(params) ? getMember(params, field) : undefined;
  if (typeof target === "string") headers["mcp-name"] = headerValue(target);
  return headers;
}

const SENTINEL_PREFIX = "=?base64?";
const SENTINEL_SUFFIX = "?=";

/**
 * A string as an HTTP field value (SEP-2243): as it is when it is plain
 * visible ASCII without surrounding space, otherwise `=?base64?...?=` of its
 * UTF-8 bytes (also when it already looks like that, to keep it unambiguous).
 */
export function headerValue(value: string): string {
  const plain =
    value.length > 0 &&
    value === value.trim() &&
    /^[\t\x20-\x7e]*$/.test(value) &&
    !(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX));
  if (plain) return value;
  return `${SENTINEL_PREFIX}${Buffer.from(value, "utf8").toString("base64")}${SENTINEL_SUFFIX}`;
}
