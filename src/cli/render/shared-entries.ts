import { entryKey, entryRank, type ChangeEntry } from "./change-entries.js";

/** One member of a server (a tool) as a report groups it. */
export interface MemberEntries {
  name: string;
  /** Its status word: only members of one status share an entry. */
  status: string;
  entries: readonly ChangeEntry[];
  /** False for a member whose block must stay its own (added whole, renamed). */
  groupable: boolean;
}

/** An entry two or more members hold identically, shown once with every member's name. */
export interface SharedEntry {
  status: string;
  /** The members, in report order. */
  names: string[];
  entry: ChangeEntry;
}

/** Entries split into the shared ones and each member's own. */
export interface SharedEntries {
  shared: SharedEntry[];
  /** Each member's entries that no other member holds identically. */
  own: Map<string, ChangeEntry[]>;
  /** How many shared entries each member is in. */
  sharedCount: Map<string, number>;
}

/**
 * Groups identical entries across members: two entries are identical when
 * the members have the same status and the entries the same findings (rule,
 * severity, JSON Pointer, before and after) and the same changes (JSON
 * Pointer, before and after), whatever the member's name (entryKey). An
 * entry held by two or more groupable members is shared; shared entries are
 * ordered by their most severe finding, then by where they first appear.
 * Presentation only: the findings themselves stay per member.
 */
export function shareEntries(members: readonly MemberEntries[]): SharedEntries {
  const holders = new Map<string, { entry: ChangeEntry; status: string; names: string[] }>();
  for (const member of members) {
    if (!member.groupable) continue;
    for (const entry of member.entries) {
      const key = entryKey(member.status, entry);
      const held = holders.get(key);
      if (held === undefined)
        holders.set(key, { entry, status: member.status, names: [member.name] });
      else if (held.names.at(-1) !== member.name) held.names.push(member.name);
    }
  }
  const shared: SharedEntry[] = [];
  const sharedKeys = new Set<string>();
  for (const [key, held] of holders) {
    if (held.names.length < 2) continue;
    sharedKeys.add(key);
    shared.push({ status: held.status, names: held.names, entry: held.entry });
  }
  shared.sort((a, b) => entryRank(a.entry) - entryRank(b.entry));
  const own = new Map<string, ChangeEntry[]>();
  const sharedCount = new Map<string, number>();
  for (const member of members) {
    const mine: ChangeEntry[] = [];
    let count = 0;
    for (const entry of member.entries) {
      if (member.groupable && sharedKeys.has(entryKey(member.status, entry))) count++;
      else mine.push(entry);
    }
    own.set(member.name, mine);
    sharedCount.set(member.name, count);
  }
  return { shared, own, sharedCount };
}
