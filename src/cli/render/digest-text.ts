import type { ServerDigests } from "../../core/contract/digest.js";
import { SURFACE_KINDS } from "../../core/contract/kinds.js";
import { displayName, style } from "./style.js";

/** Human-readable digests of one tool list: the server digest, then one line per tool. */
export function renderServerDigests(digests: ServerDigests, color: boolean): string {
  const s = style(color);
  const names = Object.keys(digests.tools).sort();
  const count = `${digests.tool_count} tool${digests.tool_count === 1 ? "" : "s"}`;
  const lines = [`${s.bold("server")}  ${digests.digest}  ${s.dim(`(${count})`)}`];
  for (const name of names)
    lines.push(`  ${s.dim(digests.tools[name]!.digest)}  ${displayName(name)}`);
  // SPEC.md 10: the surface's digests, after the tools.
  const surface = digests.surface;
  if (surface !== undefined) {
    lines.push(`${s.bold("instructions")}  ${surface.instructions ?? s.dim("(none)")}`);
    for (const kind of SURFACE_KINDS) {
      const list = surface[kind.id];
      if (list === undefined) continue;
      if (list === null) {
        lines.push(`${s.bold(kind.method)}  ${s.dim(`(not advertised)`)}`);
        continue;
      }
      lines.push(`${s.bold(kind.method)}  ${list.digest}  ${s.dim(`(${list.count})`)}`);
      for (const key of Object.keys(list.items).sort())
        lines.push(`  ${s.dim(list.items[key]!.digest)}  ${displayName(key)}`);
    }
  }
  return lines.join("\n") + "\n";
}
