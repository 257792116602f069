import type { ServerFinding } from "../../core/contract/compare.js";
import { displayName } from "./style.js";

/** Reports servers as they are read: on stderr, so stdout stays the report. */
export interface Progress {
  done(finding: Pick<ServerFinding, "name" | "status">, seconds: number): void;
}

const STATUS: Record<ServerFinding["status"], string> = {
  ok: "ok",
  drift: "DRIFT",
  unreachable: "UNREACHABLE",
};

/**
 * Live progress for reading servers. On a terminal tall enough for the list,
 * one line per server, redrawn in place as each completes; otherwise (CI
 * logs, a short terminal) one plain line per server as it completes.
 */
export function progress(
  names: readonly string[],
  terminal: { interactive: boolean; rows?: number },
  write: (text: string) => void,
): Progress {
  const total = names.length;
  let completed = 0;
  // Lines that scrolled off the screen cannot be redrawn: moving the cursor up
  // past the top would leave a copy of the list in the scrollback each time.
  if (!terminal.interactive || total >= (terminal.rows ?? Infinity)) {
    return {
      done(finding, seconds) {
        completed++;
        write(
          `[${completed}/${total}] ${displayName(finding.name)}: ${STATUS[finding.status]} (${seconds.toFixed(2)} s)\n`,
        );
      },
    };
  }
  const lines = names.map((name) => `  reading  ${displayName(name)}`);
  write(lines.join("\n") + "\n");
  return {
    done(finding, seconds) {
      const index = names.indexOf(finding.name);
      lines[index] =
        `  ${STATUS[finding.status].padEnd(7)}  ${displayName(finding.name)} (${seconds.toFixed(2)} s)`;
      // Move up to the first line, then rewrite every line in place.
      write(`\u001b[${lines.length}A` + lines.map((l) => `\u001b[2K${l}\n`).join(""));
    },
  };
}
