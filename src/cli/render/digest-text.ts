import type { ServerDigests } from "../../core/digest.js";
import { displayName, style } from "./style.js";

/** Human-readable digests of one tool list: the server digest, then one line per tool. */
export function renderServerDigests(digests: ServerDigests, color: boolean): string {
  const s = style(color);
  const names = Object.keys(digests.tools).sort();
  const count = `${digests.tool_count} tool${digests.tool_count === 1 ? "" : "s"}`;
  const lines = [`${s.bold("server")}  ${digests.digest}  ${s.dim(`(${count})`)}`];
  for (const name of names)
    lines.push(`  ${s.dim(digests.tools[name]!.digest)}  ${displayName(name)}`);
  return lines.join("\n") + "\n";
}
