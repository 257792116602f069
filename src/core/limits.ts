/**
 * Bounds on what contractpin reads from a server or a dump, so that memory
 * stays bounded whatever a server sends. Each is enforced before the bytes
 * are parsed; SPEC.md and the README document them.
 */

/** The largest JSON-RPC message (a stdio line, an HTTP body, one SSE event, a batch) or dump file read by default: 64 MiB. `--max-message-mib` raises it. */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
