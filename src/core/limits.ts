/**
 * Bounds on what contractpin reads from a server or a dump, so that memory
 * stays bounded whatever a server sends. Each is enforced before the bytes
 * are parsed; SPEC.md and the README document them.
 */

/** The largest JSON-RPC message (a stdio line, an HTTP body, one SSE event, a batch) or dump file read by default: 64 MiB. `--max-message-mib` raises it. */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * The largest canonical form CanonicalWriter writes for one digest (a tool's
 * contract, or a server's map of tool names to digests): 1 GiB. Far above
 * what a 64 MiB message can canonicalize to, and well below the 2 GiB at
 * which Node's string writes stop working.
 */
export const MAX_CANONICAL_BYTES = 1024 * 1024 * 1024;

/**
 * The longest tool name accepted, in Unicode characters (code points): 1,024.
 * The MCP specification recommends 1 to 128; eight times that refuses no
 * real server while keeping a name (at most 4 KiB of UTF-8) fit for a lock
 * entry and a terminal line.
 */
export const MAX_TOOL_NAME_CHARS = 1024;

/**
 * The largest lock file read: 256 MiB. A lock holds about 460 bytes per tool,
 * so this is over half a million tools; a lock pointed at /dev/zero or a huge
 * file fails at once instead of filling memory.
 */
export const MAX_LOCK_BYTES = 256 * 1024 * 1024;

/** A size for messages: "64 MiB" when it is a whole number of MiB, else "1,000 bytes". */
export function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib)
    ? `${mib} MiB`
    : `${String(bytes).replace(/\B(?=(\d{3})+(?!\d))/g, ",")} bytes`;
}
