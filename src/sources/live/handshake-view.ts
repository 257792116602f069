import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { getMember, isJsonObject, setMember, type JsonObject } from "../../core/json/json-value.js";

/** The requests whose result the library checks against its schema before a read can start. */
const HANDSHAKES = new Set(["initialize", "server/discover"]);

/**
 * Lets the MCP library accept every initialize (or server/discover) result
 * that SPEC.md 10.1 pins as served: `instructions` of any JSON type,
 * `capabilities` absent or null, a capability of any value. The library's
 * schema refuses those, and would end the read before anything is pinned;
 * so the library is handed a copy it accepts (instructions that are not a
 * string left out, capabilities an object, a null capability left out, any
 * other value that is not an object as `{}`), while what is pinned is read
 * from the raw response the RawLog kept, as every byte of a read is. The
 * copy decides nothing: the client asks no capability of the library.
 * Returns the same transport, its `send` and `onmessage` wrapped.
 */
export function acceptAnyHandshake<T extends Transport>(transport: T): T {
  const handshakes = new Set<string>();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    for (const m of Array.isArray(message) ? message : [message]) {
      const r = m as { method?: unknown; id?: unknown };
      if (typeof r.method === "string" && HANDSHAKES.has(r.method) && r.id !== undefined)
        handshakes.add(key(r.id));
    }
    return send(message, options);
  };
  let handler: Transport["onmessage"];
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    enumerable: true,
    get: () => handler,
    set: (next: Transport["onmessage"]) => {
      handler =
        next === undefined
          ? undefined
          : (message, extra) => next(libraryCopy(message, handshakes), extra);
    },
  });
  return transport;
}

function libraryCopy(message: JSONRPCMessage, handshakes: Set<string>): JSONRPCMessage {
  if (Array.isArray(message))
    return message.map((m) => libraryCopy(m as JSONRPCMessage, handshakes)) as never;
  const m = message as unknown as JsonObject;
  const id = getMember(m, "id");
  const result = getMember(m, "result");
  if (id === undefined || !handshakes.has(key(id)) || !isJsonObject(result)) return message;
  // A copy: the object may be the very one the RawLog keeps for the pin.
  const copy: JsonObject = { ...result };
  const instructions = getMember(result, "instructions");
  if (instructions !== undefined && typeof instructions !== "string") delete copy["instructions"];
  const capabilities: JsonObject = {};
  const served = getMember(result, "capabilities");
  if (isJsonObject(served)) {
    for (const [name, value] of Object.entries(served)) {
      if (value !== null) setMember(capabilities, name, isJsonObject(value) ? value : {});
    }
  }
  setMember(copy, "capabilities", capabilities);
  return { ...m, result: copy } as unknown as JSONRPCMessage;
}

function key(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}
