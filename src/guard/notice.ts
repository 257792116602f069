// What the person using a client learns from the guard, through the protocol
// (issue 36): clients hide a server's stderr, where the guard's lines go. A
// log notification (notifications/message) says which server's items were
// withheld and the command that explains it, and a short note stands in the
// place of removed instructions, which the model reads and can pass on. Both
// are contractpin's own words: counts, reasons and the server's name as the
// lock names it, never a name, description or other text of the server.
import { shellWord } from "../core/source/shell-word.js";
import { visibleText } from "../core/visible-text.js";
import type { WithheldTool } from "./policy/policy.js";

/** The logger the guard's notifications name. */
export const NOTICE_LOGGER = "contractpin";

/** MCP's log levels, least severe first (RFC 5424 as MCP orders them). */
const LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/** The level of the guard's notices. */
const NOTICE_LEVEL = "warning";

/** Whether a client that set `level` (logging/setLevel; undefined: never set) hears a warning. */
export function hears(level: string | undefined): boolean {
  const at = level === undefined ? -1 : LEVELS.indexOf(level);
  return at <= LEVELS.indexOf(NOTICE_LEVEL);
}

/** The command that shows why, for a server the lock names. */
function explain(server: string): string {
  return `run 'contractpin verify ${shellWord(server)}' to see why`;
}

/** One log notification from contractpin (its text is contractpin's own). */
export function noticeMessage(text: string): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    method: "notifications/message",
    params: { level: NOTICE_LEVEL, logger: NOTICE_LOGGER, data: text },
  });
}

/** "2 tools", "1 prompt". */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** Why items were withheld, in counts by reason: "2 drifted, 1 not in the lock". */
function reasons(withheld: readonly WithheldTool[]): string {
  const drifted = withheld.filter((w) => w.reason === "drifted").length;
  const unpinned = withheld.length - drifted;
  return [
    ...(drifted > 0 ? [`${drifted} changed since pinned`] : []),
    ...(unpinned > 0 ? [`${unpinned} not in the lock`] : []),
  ].join(", ");
}

/** The notice of items of one kind withheld from one list. */
export function withheldNotice(
  server: string,
  noun: string,
  withheld: readonly WithheldTool[],
): string {
  return (
    `contractpin guard withheld ${count(withheld.length, noun)} of MCP server ` +
    `${visibleText(server)} (${reasons(withheld)}): ${explain(server)}`
  );
}

/** The notice of a whole list refused (--on-drift=block). */
export function blockedNotice(
  server: string,
  noun: string,
  withheld: readonly WithheldTool[],
): string {
  return (
    `contractpin guard refused the ${noun} list of MCP server ${visibleText(server)}: ` +
    `${count(withheld.length, noun)} ${withheld.length === 1 ? "does" : "do"} not match the lock ` +
    `(${reasons(withheld)}): ${explain(server)}`
  );
}

/**
 * The note that stands in the place of removed instructions, and the notice
 * that says so: why, in contractpin's words.
 */
export function instructionsNote(
  server: string,
  why: "drifted" | "unpinned" | "tools-only" | "unreadable",
): string {
  const because = {
    drifted: "they changed since they were pinned",
    unpinned: "the lock pins none",
    "tools-only": "the lock pins only its tools ('contractpin update' pins them)",
    unreadable: "the lock could not be read",
  }[why];
  return (
    `contractpin guard removed the instructions of MCP server ${visibleText(server)}: ` +
    `${because}; ${explain(server)}`
  );
}
