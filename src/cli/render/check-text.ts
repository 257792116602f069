import type { CheckProblem } from "../../core/lock/lock-check.js";
import type { SurfacePart } from "../../core/surface/check-surface.js";
import { SURFACE_KINDS } from "../../core/contract/kinds.js";
import { visibleText } from "../../core/visible-text.js";
import type { CheckRun } from "../../engine/check.js";
import { lockWords, shellWord } from "./shell.js";
import { displayName, sanitizeLine, style } from "./style.js";
import { configFindingLine } from "./config-text.js";

/**
 * The report of `contractpin check`: one line per problem, each starting with
 * the file it is in, then a verdict line and what to do. Names are shown with
 * displayName, other text from the files with visibleText; no value that
 * looks like a credential is ever shown, only where it is.
 */
export function renderCheck(run: CheckRun, lockOption?: string): string {
  const { result } = run;
  const lock = sanitizeLine(run.lockPath);
  const snapshots = sanitizeLine(run.snapshotPath);
  const counts = `${plural(result.servers, "server")}, ${plural(result.tools, "pinned tool")}`;
  const configs = run.configs.findings;
  const files = plural(run.configs.files.length, "client config");
  if (result.problems.length === 0 && configs.length === 0) {
    const agrees = result.snapshot ? `; ${snapshots} agrees with it` : "";
    const matching =
      run.configs.files.length > 0
        ? `; ${files} ${run.configs.files.length === 1 ? "launches" : "launch"} only what it pins`
        : "";
    return `OK: ${lock} (${counts})${agrees}; no credential found${matching}\n`;
  }
  const lines = result.problems.map(
    (p) => `${p.kind.startsWith("lock-") ? lock : snapshots}: ${describe(p)}`,
  );
  for (const found of configs) lines.push(configFindingLine(found, style(false)));
  const problems = [
    ...(result.problems.length > 0 ? [plural(result.problems.length, "problem")] : []),
    ...(configs.length > 0 ? [`${plural(configs.length, "config finding")} in ${files}`] : []),
  ];
  lines.push(`FAIL: ${problems.join(", ")} (${lock}: ${counts})`);
  const repin = result.problems.filter((p) => !CREDENTIAL.has(p.kind));
  if (repin.length > 0) {
    // Pinning rewrites a server's entries, and drops the entries of servers not
    // pinned: the servers named by a problem, or all of them for one of the file.
    const pinned = new Set(
      repin.flatMap((p) =>
        "server" in p &&
        p.server !== undefined &&
        p.kind !== "snapshot-server-unpinned" &&
        p.kind !== "surface-server-unpinned"
          ? [shellWord(p.server)]
          : [],
      ),
    );
    // Words a shell reads back as the names (and the lock) this check was about.
    const args = lockWords(lockOption) + [...pinned].map((n) => ` ${n}`).join("");
    lines.push(
      `to rewrite the snapshots from the servers: contractpin verify${args}, and if it passes, contractpin update${args}`,
    );
  }
  if (result.problems.some((p) => CREDENTIAL.has(p.kind))) {
    lines.push(
      "a credential that was ever committed or pushed must be rotated: git history keeps it",
    );
  }
  return lines.join("\n") + "\n";
}

const CREDENTIAL = new Set<CheckProblem["kind"]>(["lock-credential", "snapshot-credential"]);

function describe(p: CheckProblem): string {
  switch (p.kind) {
    case "lock-credential":
      return `server ${displayName(p.server)}: ${visibleText(p.where)}; write it as a \${VAR} reference (as 'contractpin add' would) and set the variable when verifying`;
    case "lock-field-digest":
      return `${tool(p.server, p.tool)}: the digest of its ${p.field} does not follow from the pinned contract in the snapshots (was the lock edited by hand?)`;
    case "snapshot-corrupt":
      return `the contract snapshots are corrupt: ${sanitizeLine(p.reason)}`;
    case "snapshot-key":
      return `${visibleText(p.key)} is not a member of the contract snapshot format`;
    case "snapshot-server-unpinned":
      return `entries for server ${displayName(p.server)}, which the lock does not pin`;
    case "snapshot-server-invalid":
      return `the entries of server ${displayName(p.server)} are not an object of tools`;
    case "snapshot-server-missing":
      return `no entries for server ${displayName(p.server)} (${plural(p.tools, "pinned tool")}; pinned with --no-snapshot?)`;
    case "snapshot-tool-unpinned":
      return `an entry for ${tool(p.server, p.tool)}, which the lock does not pin`;
    case "snapshot-tool-missing":
      return `no entry for ${tool(p.server, p.tool)}`;
    case "snapshot-tool-stale":
      return `the entry for ${tool(p.server, p.tool)} is not the contract the lock pins (its digest differs: stale, or edited)`;
    case "lock-surface-field-digest":
      return `${part(p)}: the digest of its ${p.field} does not follow from the pinned contract in the snapshots (was the lock edited by hand?)`;
    case "surface-server-missing":
      return `no surface entry for server ${displayName(p.server)}, which pins its surface (pinned with --no-snapshot?)`;
    case "surface-server-unpinned":
      return `a surface entry for server ${displayName(p.server)}, whose surface the lock does not pin`;
    case "surface-invalid":
      return p.part === ""
        ? `the surface entry of server ${displayName(p.server)} is not an object`
        : `the entry for ${part(p)} is not an object`;
    case "surface-missing":
      return `no entry for ${part(p)}`;
    case "surface-unpinned":
      return `an entry for ${part(p)}, which the lock does not pin`;
    case "surface-stale":
      return `the entry for ${part(p)} is not the one the lock pins (its digest differs: stale, or edited)`;
    case "snapshot-credential": {
      const at = p.pointer === "" ? "the value" : `the string at ${visibleText(p.pointer)}`;
      const where =
        p.server === undefined
          ? ""
          : p.tool === undefined
            ? `server ${displayName(p.server)}: `
            : `${tool(p.server, p.tool)}: `;
      return `${where}${at} looks like a credential`;
    }
  }
}

/** `the instructions of server "s"`, `the prompts of ...`, `prompt "p" of ...`. */
function part(p: SurfacePart): string {
  const server = `of server ${displayName(p.server)}`;
  const kind = SURFACE_KINDS.find((k) => k.id === p.part);
  if (kind === undefined)
    return p.part === "instructions"
      ? `the instructions ${server}`
      : `member ${displayName(p.part)} ${server}`;
  return p.key === undefined
    ? `the ${kind.noun}s ${server}`
    : `${kind.noun} ${displayName(p.key)} ${server}`;
}

function tool(server: string, name: string): string {
  return `tool ${displayName(name)} of server ${displayName(server)}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
