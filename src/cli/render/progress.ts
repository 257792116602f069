import type { ServerFinding } from "../../core/compare.js";
import { displayName } from "./style.js";

/** Reports servers as they are read: on stderr, so stdout stays the report. */
export interface Progress {
  done(finding: ServerFinding, seconds: number): void;
}

const STATUS: Record<ServerFinding["status"], string> = {
  ok: "ok",
  drift: "DRIFT",
  unreachable: "UNREACHABLE",
};

/**
 * Live progress for reading servers. On a terminal, one line per server,
 * redrawn in place as each completes; otherwise (CI logs) one plain line per
 * server as it completes.
 */
export function progress(
  names: readonly string[],
  interactive: boolean,
  write: (text: string) => void,
): Progress {
  const total = names.length;
  let completed = 0;
  if (!interactive) {
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
