import { digestEachTool, type Digest } from "../../core/contract/digest.js";
import type { SidePinDigests } from "../../core/contract/digest-types.js";
import { TOOLS } from "../../core/contract/kinds.js";
import { movedSidePins } from "../../core/contract/side-pins.js";
import type { JsonValue } from "../../core/json/json-value.js";

/** Why a tool is kept from the model: its contract moved, or the lock does not pin it. */
export type WithheldReason = "drifted" | "unpinned";

/** One tool the guard keeps from the client. */
export interface WithheldTool {
  name: string;
  reason: WithheldReason;
  /** The digest in the lock (absent for an unpinned tool). */
  pinned?: Digest;
  /** The digest of the tool as served. */
  live: Digest;
  /**
   * For a drifted tool: the side pins that moved (SPEC.md 13), by field
   * (`_meta.ui.visibility`); its digests may then be equal.
   */
  changed?: string[];
}

/** Options of {@link checkTools}. */
export interface CheckOptions {
  /** Admit tools the lock does not pin (default false: they are withheld as "unpinned"). */
  allowNew?: boolean;
}

/** The verdict on a list of tools: which may reach the model, which may not and why. */
export interface CheckResult {
  /** The admitted tools: the very values given, in the order given. */
  admitted: JsonValue[];
  /** The withheld tools, in the order given. */
  withheld: WithheldTool[];
  /** The live digest of every tool, by name (admitted and withheld alike). */
  live: Map<string, Digest>;
}

/**
 * Checks tools as served (all pages of a tools/list, or one page) against a
 * server's entry in the lock: a tool whose contract digest and side pins
 * (`_meta.ui.visibility`, SPEC.md 13) equal the pinned ones is admitted; one
 * pinned with another digest, or whose side pin moved, is withheld as "drifted";
 * one the lock does not name is withheld as "unpinned" unless `allowNew`.
 * The digests are verify's (spec 2-4): the same projection and
 * canonicalization, so a tool the guard admits is one verify passes.
 * Pure: no IO.
 *
 * @param lockServer the server's entry in the lock (only the `digest` and side
 *   pins of each of its `tools` are read): a `PinnedServer` of a lock, or `digestTools` output.
 * @param tools the tool objects as the strict parser read them.
 * @throws ContractpinError TOOLS_DUPLICATE_NAME when two tools share a name,
 *   or TOOL_NOT_OBJECT / TOOL_NAME_INVALID for a tool that has no contract:
 *   the whole list is refused, as verify refuses it, never partly trusted.
 */
export function checkTools(
  lockServer: {
    readonly tools: Readonly<Record<string, { readonly digest: string } & SidePinDigests>>;
  },
  tools: readonly JsonValue[],
  options: CheckOptions = {},
): CheckResult {
  // Only each tool's digest decides; its field digests would be five more
  // hashes a tool, and the server digest one more canonicalization of every
  // name, on the path of every client's first tools/list.
  const { byName, contracts } = digestEachTool(tools, () => false);
  const admitted: JsonValue[] = [];
  const withheld: WithheldTool[] = [];
  const live = new Map<string, Digest>();
  contracts.forEach((contract, index) => {
    const name = contract.name;
    const served = byName.get(name)!;
    const digest = served.digest;
    live.set(name, digest);
    const pinned = Object.hasOwn(lockServer.tools, name) ? lockServer.tools[name] : undefined;
    if (pinned === undefined) {
      if (options.allowNew === true) admitted.push(tools[index]!);
      else withheld.push({ name, reason: "unpinned", live: digest });
      return;
    }
    const changed = movedSidePins(TOOLS.sidePins, pinned, served).map((p) => p.field);
    if (pinned.digest === digest && changed.length === 0) {
      admitted.push(tools[index]!);
    } else {
      const drifted: WithheldTool = {
        name,
        reason: "drifted",
        pinned: pinned.digest as Digest,
        live: digest,
      };
      if (changed.length > 0) drifted.changed = changed;
      withheld.push(drifted);
    }
  });
  return { admitted, withheld, live };
}
