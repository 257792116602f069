/**
 * The peer pipeline: the same digests as contractpin's `digestTools`, built
 * the way one would without contractpin, from `JSON.parse`, the npm package
 * `canonicalize` (RFC 8785) and node:crypto.
 *
 * It does the same work and produces the same output shape: the contract of
 * each tool (spec 2: name, description and inputSchema, null when absent;
 * outputSchema and annotations only when present and not null; everything
 * else ignored), a digest of each contract field (spec 4.2), the tool digest
 * of the canonical contract (4.1), a duplicate-name check (4.4) and the
 * server digest of {name: tool digest} (4.3). Each field is canonicalized for
 * its field digest and again inside the whole contract, which is how the npm
 * package is naturally used (it has no way to reuse a canonical sub-value).
 *
 * It accepts only the single-page JSON-RPC shape the benchmark generates.
 */
import canonicalize from "canonicalize";
import * as crypto from "node:crypto";

const sha256 = (text) => `sha256:${crypto.createHash("sha256").update(text, "utf8").digest("hex")}`;

/** The contract fields in canonical key order (the order the field digests are listed in). */
const FIELDS = ["annotations", "description", "inputSchema", "name", "outputSchema"];

function contractOf(tool) {
  if (typeof tool !== "object" || tool === null || Array.isArray(tool)) {
    throw new Error("tool is not an object");
  }
  if (typeof tool.name !== "string") throw new Error("tool has no string name");
  const contract = {
    name: tool.name,
    description: Object.hasOwn(tool, "description") ? (tool.description ?? null) : null,
    inputSchema: Object.hasOwn(tool, "inputSchema") ? (tool.inputSchema ?? null) : null,
  };
  if (Object.hasOwn(tool, "outputSchema") && tool.outputSchema != null) {
    contract.outputSchema = tool.outputSchema;
  }
  if (Object.hasOwn(tool, "annotations") && tool.annotations != null) {
    contract.annotations = tool.annotations;
  }
  return contract;
}

/** Digests the tools of a parsed JSON-RPC tools/list response. */
export function peerDigestTools(tools) {
  const out = {};
  const names = {};
  let count = 0;
  for (const tool of tools) {
    const contract = contractOf(tool);
    if (Object.hasOwn(out, contract.name)) throw new Error(`duplicate tool ${contract.name}`);
    const fields = {};
    for (const field of FIELDS) {
      if (Object.hasOwn(contract, field)) fields[field] = sha256(canonicalize(contract[field]));
    }
    const digest = sha256(canonicalize(contract));
    out[contract.name] = { digest, fields };
    names[contract.name] = digest;
    count++;
  }
  return { tool_count: count, digest: sha256(canonicalize(names)), tools: out };
}

/** The whole peer pipeline, from the dump's UTF-8 bytes. */
export function peerPipeline(buffer) {
  const dump = JSON.parse(buffer.toString("utf8"));
  const tools = dump?.result?.tools;
  if (!Array.isArray(tools)) throw new Error("not a tools/list response");
  return peerDigestTools(tools);
}
