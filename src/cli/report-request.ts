import { ContractpinError } from "../core/errors.js";

/**
 * The report options of the commands that report drift (verify, diff,
 * upgrade): their --help text, and the request they make, checked before any
 * server is read. report-output.ts writes what was asked for.
 */

/** The report formats, in the order --help lists them. */
export const FORMATS = ["text", "json", "sarif", "github", "markdown"] as const;
export type Format = (typeof FORMATS)[number];

/** The options of the commands that report drift (verify, diff, upgrade). */
export const REPORT_OPTIONS = {
  format: { type: "string" },
  json: { type: "boolean" },
  output: { type: "string" },
  sarif: { type: "string" },
  "json-file": { type: "string" },
} as const;

export const REPORT_HELP = `  --format FORMAT      the report: text (default), json (docs/reports.md), sarif,
                       github (annotations on the lock's lines), markdown (a PR comment)
  --json               the same as --format json
  --output FILE        write the report to FILE instead of stdout (a summary still shows)
  --sarif FILE         also write a SARIF report to FILE, whatever --format is
  --json-file FILE     also write the JSON report to FILE (files are replaced
                       atomically, never through a symbolic link)`;

/** What --format, --json, --output and --sarif asked for. */
export interface ReportRequest {
  /** The main report's format (default text). */
  format: Format;
  /** Where the main report goes (default stdout). */
  output?: string;
  /** A SARIF report's file, in addition to the main report. */
  sarif?: string;
  /** A JSON report's file, in addition to the main report. */
  jsonFile?: string;
}

/**
 * Checks the report options; a bad one is a USAGE error (exit 2), to raise
 * before any server is read.
 *
 * @param command the command, for the hint to its --help (default "verify").
 */
export function reportRequest(
  values: {
    format?: string | undefined;
    json?: boolean | undefined;
    output?: string | undefined;
    sarif?: string | undefined;
    "json-file"?: string | undefined;
  },
  command = "verify",
): ReportRequest {
  const usage = (message: string) =>
    new ContractpinError("USAGE", `${message} (see 'contractpin ${command} --help')`);
  const given = values.format;
  if (given !== undefined && !(FORMATS as readonly string[]).includes(given)) {
    throw usage(`--format takes one of ${FORMATS.join(", ")}, not '${given}'`);
  }
  if (values.json === true && given !== undefined && given !== "json") {
    throw usage(`--json means --format json; it cannot go with --format ${given}`);
  }
  for (const flag of ["output", "sarif", "json-file"] as const) {
    if (values[flag] === "") throw usage(`--${flag} needs a file name`);
  }
  const request: ReportRequest = {
    format: values.json === true ? "json" : ((given as Format | undefined) ?? "text"),
  };
  if (values.output !== undefined) request.output = values.output;
  if (values.sarif !== undefined) request.sarif = values.sarif;
  if (values["json-file"] !== undefined) request.jsonFile = values["json-file"];
  return request;
}
