import { lstatSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { isContractpinError } from "../core/errors.js";
import { MAX_LOCK_BYTES } from "../core/limits.js";
import { lockLines, type LockLines } from "../core/lock/lock-lines.js";
import { writeReportAtomic } from "../io/atomic-write.js";
import { checkoutBases } from "../io/write-target.js";
import { packageVersion } from "../io/version.js";
import { reason } from "../io/read-input.js";
import type { Io } from "./io.js";
import { renderAnnotations } from "./render/github.js";
import { COMMENT_LIMIT, renderMarkdown, STEP_SUMMARY_LIMIT } from "./render/markdown.js";
import {
  inertJson,
  reportItems,
  reportSubject,
  type DriftReport,
  type ReportItem,
} from "./render/report-model.js";
import { renderSarif } from "./render/sarif.js";
import { style } from "./render/style.js";
import { renderVerifyJson } from "./render/verify-json.js";
import { renderVerifyText, summaryLine } from "./render/verify-text.js";
import type { Format, ReportRequest } from "./report-request.js";

export type { DriftReport } from "./render/report-model.js";

/**
 * Writes every report asked for, from one reading of the servers: the main
 * report to stdout, or to --output FILE with a short summary on stdout; a
 * SARIF report to --sarif FILE; and, whenever GITHUB_STEP_SUMMARY names a
 * file, the Markdown summary appended to it. Each file is written atomically
 * and never through a symbolic link (writeReportAtomic). Never changes the
 * exit code; a report file that cannot be written is REPORT_WRITE_FAILED (exit 2).
 *
 * @param env the environment (GITHUB_STEP_SUMMARY, GITHUB_WORKSPACE).
 */
export async function writeReports(
  report: DriftReport,
  request: ReportRequest,
  io: Io,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<void> {
  const located = new Located(report, env);
  const writeReport = (path: string, content: string) =>
    writeReportAtomic(path, content, "the report", checkoutBases(env));
  const main = renderMain(
    report,
    request.format,
    located,
    request.output === undefined && io.color,
  );
  if (request.output === undefined) {
    if (main.data !== undefined) await (io.data ?? io.out)(main.data);
    if (main.text !== undefined) await io.out(main.text);
    if (main.commands !== undefined) await (io.commands ?? io.out)(main.commands);
  } else {
    await writeReport(
      request.output,
      (main.data ?? "") + (main.text ?? "") + (main.commands ?? ""),
    );
    const lines = [
      summaryLine(report.findings, style(io.color), reportSubject(report), report.configs),
      `report written to ${request.output}`,
    ];
    if (report.accept !== undefined) lines.push(report.accept);
    await io.out(lines.join("\n") + "\n");
  }
  if (
    request.sarif !== undefined &&
    !(request.format === "sarif" && request.output === request.sarif)
  ) {
    await writeReport(request.sarif, located.sarif());
  }
  if (
    request.jsonFile !== undefined &&
    !(request.format === "json" && request.output === request.jsonFile)
  ) {
    await writeReport(request.jsonFile, renderMain(report, "json", located, false).data!);
  }
  const summary = env["GITHUB_STEP_SUMMARY"];
  if (summary !== undefined && summary !== "") await appendStepSummary(summary, located, io);
}

interface MainReport {
  /** Machine-readable output, written outside any stop-commands block. */
  data?: string;
  /** Text for people. */
  text?: string;
  /** Workflow commands, written after the stop-commands block ends. */
  commands?: string;
}

function renderMain(
  report: DriftReport,
  format: Format,
  located: Located,
  color: boolean,
): MainReport {
  switch (format) {
    case "text":
      return { text: textReport(report, color) };
    case "json":
      return {
        data: inertJson(
          renderVerifyJson(report.lockFile, report.findings, {
            allowNew: report.allowNew,
            exitCode: report.exitCode,
            ...(report.written === true ? { written: true } : {}),
            ...(report.explained === undefined ? {} : { explained: report.explained }),
            ...(report.configs === undefined ? {} : { configs: report.configs }),
            ...(report.old === undefined
              ? {}
              : { old: report.old, new: report.new ?? report.lockFile }),
          }),
        ),
      };
    case "sarif":
      return { data: located.sarif() };
    case "github":
      return {
        text: textReport(report, false),
        commands: renderAnnotations(located.items(), {
          file: located.path,
          configPath: (file) => located.locate(file).path,
        }),
      };
    case "markdown":
      return { text: renderMarkdown(report, located.items(), COMMENT_LIMIT) };
  }
}

function textReport(report: DriftReport, color: boolean): string {
  return renderVerifyText(report.findings, color, {
    verbose: report.verbose,
    ...(report.explained === undefined ? {} : { explained: report.explained }),
    ...(report.accept === undefined ? {} : { accept: report.accept }),
    ...(report.configs === undefined ? {} : { configs: report.configs }),
    subject: reportSubject(report),
  });
}

/** The report's findings located in the lock, computed once, when a format needs them. */
class Located {
  /** The lock's path relative to the repository (GITHUB_WORKSPACE, else the current directory). */
  readonly path: string;
  /** The lock as a SARIF URI reference. */
  readonly uri: string;
  #items: ReportItem[] | undefined;

  readonly #workspace: string | undefined;

  constructor(
    readonly report: DriftReport,
    env: Readonly<Record<string, string | undefined>>,
  ) {
    const workspace = env["GITHUB_WORKSPACE"];
    this.#workspace = workspace === "" ? undefined : workspace;
    ({ path: this.path, uri: this.uri } = this.locate(report.lockFile));
  }

  /** A file's path relative to the repository (GITHUB_WORKSPACE, else the current directory) and its URI reference. */
  locate(file: string): { path: string; uri: string } {
    const absolute = resolve(file);
    const workspace = this.#workspace;
    const base =
      workspace !== undefined && inside(resolve(workspace), absolute)
        ? resolve(workspace)
        : process.cwd();
    if (inside(base, absolute)) {
      const path = relative(base, absolute).split(sep).join("/");
      return { path, uri: path.split("/").map(encodeURIComponent).join("/") };
    }
    return { path: absolute, uri: pathToFileURL(absolute).href };
  }

  items(): ReportItem[] {
    this.#items ??= reportItems(this.report, this.lines());
    return this.#items;
  }

  sarif(): string {
    return renderSarif(this.items(), {
      lockUri: this.uri,
      automationId: `contractpin/${this.path}/`,
      version: packageVersion(),
      exitCode: this.report.exitCode,
      fileUri: (file) => this.locate(file).uri,
    });
  }

  private lines(): LockLines {
    if (this.report.lockText !== undefined) return lockLines(this.report.lockText);
    try {
      // Read again for its line numbers only: a lock that cannot be read gives line 1.
      if (statSync(this.report.lockFile).size > MAX_LOCK_BYTES) return lockLines("");
      return lockLines(readFileSync(this.report.lockFile, "utf8"));
    } catch {
      return lockLines("");
    }
  }
}

function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

/**
 * Appends the Markdown summary to the job summary file, keeping the file
 * under GitHub's 1 MiB limit: the file as it is plus the summary, written
 * atomically (a crash leaves the file as it was), never through a symbolic
 * link. A file that cannot be written gives a warning (the summary is an
 * extra; the verdict and the other reports stand).
 */
async function appendStepSummary(path: string, located: Located, io: Io): Promise<void> {
  try {
    let before: Uint8Array = new Uint8Array(0);
    // Not there yet: it is created. A link is refused by the write below, unread.
    if (existsNotLink(path)) {
      if (statSync(path).size > STEP_SUMMARY_LIMIT) throw new Error(LIMIT_REACHED);
      before = readFileSync(path);
    }
    // A little under the limit, for what later steps append.
    const budget = STEP_SUMMARY_LIMIT - 1024 - before.byteLength;
    if (budget < 1024) throw new Error(LIMIT_REACHED);
    const summary = renderMarkdown(located.report, located.items(), budget) + "\n";
    await writeReportAtomic(
      path,
      Buffer.concat([before, Buffer.from(summary)]),
      "the job summary",
      [],
    );
  } catch (cause) {
    const why = isContractpinError(cause)
      ? cause.message
      : `${path}: the job summary was not written: ${reason(cause)}`;
    await io.err(`contractpin: warning: ${why}\n`);
  }
}

const LIMIT_REACHED = "it is already close to GitHub's 1 MiB limit";

function existsNotLink(path: string): boolean {
  try {
    return !lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
