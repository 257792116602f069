import { ContractpinError } from "../core/errors.js";
import { severityNamed } from "../core/findings/rules.js";
import type { Severity } from "../core/findings/rules.js";

/** The options of a command that takes a severity threshold. */
export const FAIL_ON_OPTIONS = { "fail-on": { type: "string" } } as const;

/** The severity of a --fail-on option, undefined when absent; USAGE (exit 2) when it names none. */
export function failOn(value: string | undefined, command: string): Severity | undefined {
  if (value === undefined) return undefined;
  const severity = severityNamed(value);
  if (severity === undefined) {
    throw new ContractpinError(
      "USAGE",
      `--fail-on takes critical, high, medium or low, not ${JSON.stringify(value)} (see 'contractpin ${command} --help')`,
    );
  }
  return severity;
}
