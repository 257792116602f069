import { closeSync, constants, openSync, writeSync } from "node:fs";
import { ContractpinError } from "../core/errors.js";
import type { Redact } from "../core/source/redact.js";
import { visibleText } from "../core/visible-text.js";
import { kindById } from "../core/contract/kinds.js";
import { checkoutBases, refuseLinks } from "../io/write-target.js";
import type { GuardEvent, SurfaceEvent, ToolEvent } from "./policy/guard-types.js";

/** Where a guard's lines go: stderr, and with `--log FILE` one JSON line per event. */
export interface Reporter {
  /** One line on stderr, `${VAR}` values hidden and server text made visible. */
  say(message: string): void;
  /** One server stderr line, indented with `|`, redacted and made visible. */
  tail(line: string): void;
  /** One withheld tool, refused call or dropped message: a stderr line and a log line. */
  event(event: GuardEvent): void;
  /** The text with the server's expanded `${VAR}` values hidden. */
  redact(message: string): string;
  /** The text as stderr shows it: redacted and made visible. */
  shown(message: string): string;
  /** Sets the redaction of the server's expanded values, once known. */
  setRedact(redact: Redact): void;
  /** Closes the log file. */
  close(): void;
}

/**
 * The guard's reporter writing lines with `err`.
 *
 * @throws ContractpinError USAGE when the --log file cannot be opened.
 */
export function makeReporter(err: (line: string) => void, logFile?: string): Reporter {
  let redact: Redact = (text) => text;
  const log = logFile === undefined ? undefined : openLog(logFile);
  const shown = (message: string) => visibleText(redact(message));
  const say = (message: string) => err(`contractpin: guard: ${shown(message)}\n`);
  return {
    say,
    tail: (line) => err(`  | ${shown(line)}\n`),
    redact: (text) => redact(text),
    shown,
    setRedact: (r) => (redact = r),
    event(event) {
      // The log line first: once its stderr line is seen, the event is in the file.
      if (log !== undefined) {
        // What a drop says may hold server text: logged as stderr shows it.
        const logged = event.event === "dropped" ? { ...event, what: shown(event.what) } : event;
        const line = JSON.stringify({ time: new Date().toISOString(), ...logged });
        try {
          writeSync(log, `${line}\n`);
        } catch (e) {
          say(`could not write to ${logFile}: ${String(e)}`);
        }
      }
      say(
        event.event === "dropped"
          ? `server ${event.server}: dropped ${event.what}`
          : eventLine(event),
      );
    },
    close: () => {
      if (log !== undefined) closeSync(log);
    },
  };
}

/**
 * Opens the --log file for appending, never through a symbolic link (the one
 * rule of src/io/write-target.ts): its lines hold a server's text, and a
 * checkout could commit the file as a link to a shell profile. O_NOFOLLOW
 * closes the gap between that check and the open (where the system has it).
 * O_NONBLOCK: a FIFO nobody reads is refused (ENXIO) rather than waited on
 * with the whole process blocked, deaf to Ctrl-C.
 */
function openLog(path: string): number {
  refuseLinks(path, checkoutBases(), "the guard's log");
  try {
    return openSync(
      path,
      constants.O_WRONLY |
        constants.O_APPEND |
        constants.O_CREAT |
        (constants.O_NOFOLLOW ?? 0) |
        (constants.O_NONBLOCK ?? 0),
      0o644,
    );
  } catch (err) {
    throw new ContractpinError(
      "USAGE",
      `--log ${path}: cannot open the file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

function eventLine(e: ToolEvent | SurfaceEvent): string {
  if ("part" in e) return surfaceLine(e);
  const tool = `"${visibleText(e.tool)}"`;
  const what =
    e.event === "passed"
      ? `passed tool ${tool} (graded)`
      : e.event === "withheld"
        ? `withheld tool ${tool}`
        : `refused tools/call ${tool}`;
  return `server ${e.server}: ${what}: ${e.reason}${digestsOf(e)}${findingsOf(e)}`;
}

/** The uses of a surface kind the guard refuses (resource templates have none). */
const USES: Record<string, string> = { prompts: "prompts/get", resources: "resources/read" };

function surfaceLine(e: SurfaceEvent): string {
  if (e.part === "instructions" && e.event === "passed") {
    return `server ${e.server}: passed its instructions (graded): ${e.reason}${digestsOf(e)}${findingsOf(e)}`;
  }
  if (e.part === "instructions") {
    const why =
      e.toolsOnly === true
        ? "the lock pins only its tools, so the guard withholds its instructions, prompts and " +
          "resource templates, which it cannot check; `contractpin update` pins them"
        : undefined;
    return (
      `server ${e.server}: removed its instructions from the handshake's result: ${e.reason}` +
      (why === undefined ? digestsOf(e) : ` (${why})`)
    );
  }
  const key = `"${visibleText(e.key ?? "")}"`;
  const what =
    e.event === "passed"
      ? `passed ${kindById(e.part).noun} ${key} (graded)`
      : e.event === "withheld"
        ? `withheld ${kindById(e.part).noun} ${key}`
        : `refused ${USES[e.part] ?? e.part} ${key}`;
  return `server ${e.server}: ${what}: ${e.reason}${digestsOf(e)}${findingsOf(e)}`;
}

/** A passed drift's findings, as the line names them. */
function findingsOf(e: ToolEvent | SurfaceEvent): string {
  return e.findings === undefined ? "" : `; below the threshold: ${e.findings.join(", ")}`;
}

function digestsOf(e: ToolEvent | SurfaceEvent): string {
  // A side pin that moved (SPEC.md 13) is named: the digests may be equal.
  const changed =
    "changed" in e && e.changed !== undefined ? `; changed ${e.changed.join(", ")}` : "";
  return e.reason === "drifted"
    ? ` (pinned ${shortDigest(e.pinned)}, live ${shortDigest(e.live)}${changed})`
    : e.reason === "unpinned"
      ? ` (not in the lock; live ${shortDigest(e.live)})`
      : " (the server does not list it)";
}

/**
 * A digest on a stderr line: its algorithm and first 12 hex digits, enough to
 * tell two apart by eye; the --log event keeps it whole.
 */
export function shortDigest(digest: string | undefined): string | undefined {
  if (digest === undefined) return undefined;
  const colon = digest.indexOf(":");
  return digest.length > colon + 13 ? `${digest.slice(0, colon + 13)}...` : digest;
}
