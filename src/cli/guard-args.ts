import { ContractpinError } from "../core/errors.js";
import { severityNamed, type Severity } from "../core/findings/rules.js";
import type { OnDrift } from "../guard/policy/guard-types.js";
import { parseCommandArgs } from "./args.js";
import { LOCK_OPTIONS, READ_OPTIONS, readLimits } from "./common.js";

/** What `contractpin guard` takes on its command line. */
const OPTIONS = {
  ...LOCK_OPTIONS,
  timeout: { type: "string", default: "30" },
  "max-message-mib": { type: "string" },
  "oauth-state-out": READ_OPTIONS["oauth-state-out"],
  "allow-new": { type: "boolean" },
  "on-drift": { type: "string", default: "withhold" },
  "withhold-at": { type: "string" },
  log: { type: "string" },
  listen: { type: "string" },
  "listen-any": { type: "boolean" },
} as const;

/** The guard's command line, checked. */
export interface GuardArgs {
  name: string;
  onDrift: OnDrift;
  values: ReturnType<typeof parseCommandArgs<typeof OPTIONS>>["values"];
}

/**
 * The guard's arguments (after `guard`), checked as far as they can be
 * without the lock or the environment: the same checks for the command and
 * for the launcher's early start (src/cli/early-start.ts).
 *
 * @throws ContractpinError USAGE
 */
export function guardArgs(args: string[]): GuardArgs {
  const { values, positionals } = parseCommandArgs("guard", args, OPTIONS, 1);
  const name = positionals[0];
  if (name === undefined) {
    throw new ContractpinError(
      "USAGE",
      "guard needs the name of a server in the lock (see 'contractpin guard --help')",
    );
  }
  const mode = values["on-drift"];
  if (mode !== "withhold" && mode !== "block" && mode !== "graded") {
    throw new ContractpinError(
      "USAGE",
      `--on-drift takes withhold, block or graded, not '${mode}' (see 'contractpin guard --help')`,
    );
  }
  if (values["withhold-at"] !== undefined && mode !== "graded") {
    throw new ContractpinError(
      "USAGE",
      "--withhold-at needs --on-drift=graded (see 'contractpin guard --help')",
    );
  }
  const onDrift: OnDrift = mode === "graded" ? { graded: withholdAt(values["withhold-at"]) } : mode;
  if (values["listen-any"] === true && values.listen === undefined) {
    throw new ContractpinError(
      "USAGE",
      "--listen-any needs --listen HOST:PORT (see 'contractpin guard --help')",
    );
  }
  readLimits(values); // --timeout, --max-message-mib, --oauth-state-out
  return { name, onDrift, values };
}

/** The threshold of --on-drift=graded: --withhold-at's severity, high when absent. */
function withholdAt(value: string | undefined): Severity {
  if (value === undefined) return "high";
  const severity = severityNamed(value);
  if (severity === undefined)
    throw new ContractpinError(
      "USAGE",
      `--withhold-at takes critical, high, medium or low, not ${JSON.stringify(value)} (see 'contractpin guard --help')`,
    );
  return severity;
}
