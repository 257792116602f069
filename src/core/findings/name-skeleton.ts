import { getMember } from "../json/json-value.js";
import { SURFACE_KINDS } from "../contract/kinds.js";
import type { SurfaceContracts } from "../surface/surface.js";
import { confusableMap } from "./confusables.js";
import { lazy } from "../lazy.js";

const INVISIBLE = lazy(() => /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu);
const MARKS = lazy(() => /\p{M}/gu);

/**
 * A name reduced to what a reader tells apart, after Unicode TS #39's
 * skeleton: NFKC, lower case, invisible characters and combining marks
 * removed, and each character replaced by the prototype it looks like
 * (`а` Cyrillic and `a` read `a`; `1`, `l` and `I` read `l`; `m` reads
 * `rn`). Two names with one skeleton are confusable. Only the confusables
 * whose prototype is ASCII are known (confusables-data.ts); case is folded
 * first, so a capital `I` written for `l` is not caught.
 */
export function nameSkeleton(name: string): string {
  const map = confusableMap();
  const folded = name.normalize("NFKC").replace(INVISIBLE(), "").toLowerCase().normalize("NFD");
  let out = "";
  for (const ch of folded.replace(MARKS(), "")) out += map.get(ch.codePointAt(0)!) ?? ch;
  return out.toLowerCase();
}

/** A named member of a server's surface: a tool, a prompt, a resource template. */
export interface NamedPart {
  /** The kind's id (`tools`, `prompts`, `resource_templates`). */
  kind: "tools" | (typeof SURFACE_KINDS)[number]["id"];
  name: string;
}

/**
 * For one server's names across kinds, the look-alikes of each name: the
 * parts whose names differ from it but share its skeleton (so `reаd_file`,
 * with a Cyrillic `а`, is a look-alike of `read_file`, and `READ_FILE` too).
 * The same name under two kinds (a prompt named like a tool) is not one.
 * Linear in the number of names. Pure.
 *
 * @returns a function giving the look-alikes of a name, in the order given.
 */
export function lookAlikes(parts: readonly NamedPart[]): (name: string) => NamedPart[] {
  const bySkeleton = new Map<string, NamedPart[]>();
  for (const part of parts) {
    const key = nameSkeleton(part.name);
    const same = bySkeleton.get(key);
    if (same === undefined) bySkeleton.set(key, [part]);
    else same.push(part);
  }
  return (name) => (bySkeleton.get(nameSkeleton(name)) ?? []).filter((p) => p.name !== name);
}

/**
 * The named parts of a server's surface whose names are compared for
 * look-alikes (the kinds whose `lookAlike` is set: prompts, templates), with
 * its tools' names: every name a model calls or a user picks. A name that is
 * not a string names nothing a reader sees. Pure.
 */
export function namedParts(
  tools: readonly string[],
  surface: SurfaceContracts | undefined,
): NamedPart[] {
  const parts: NamedPart[] = tools.map((name) => ({ kind: "tools", name }));
  for (const kind of SURFACE_KINDS) {
    if (!kind.lookAlike) continue;
    for (const item of surface?.[kind.id] ?? []) {
      const name = getMember(item, "name");
      if (typeof name === "string") parts.push({ kind: kind.id, name });
    }
  }
  return parts;
}
