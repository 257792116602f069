import { summarize, type ServerFinding, type ToolFinding } from "../../core/compare.js";
import { displayName, sanitizeLine, style, type Style } from "./style.js";

const TOOL_LABEL: Record<ToolFinding["status"], string> = {
  unchanged: "unchanged",
  drifted: "DRIFTED",
  added: "ADDED",
  removed: "REMOVED",
};

/** Verify findings for a terminal or a CI log: each server and tool with its status, then a summary line. */
export function renderVerifyText(findings: readonly ServerFinding[], color: boolean): string {
  const s = style(color);
  const lines: string[] = [];
  // One push per line: spreading a server's lines into one call would pass
  // every tool as an argument, which overflows the stack at ~100,000 tools.
  for (const server of findings) for (const line of serverLines(server, s)) lines.push(line);
  lines.push("", summaryLine(findings, s));
  return lines.join("\n") + "\n";
}

function serverLines(server: ServerFinding, s: Style): string[] {
  const name = s.bold(displayName(server.name));
  if (server.status === "unreachable") {
    const lines = [`${name}  ${s.red("UNREACHABLE")}  ${sanitizeLine(server.error ?? "")}`];
    for (const line of server.detail ?? []) lines.push(s.dim(`  | ${sanitizeLine(line)}`));
    return lines;
  }
  const count = server.tools.filter((t) => t.status !== "added").length;
  const head = server.status === "ok" ? s.green("ok") : s.red("DRIFT");
  const lines = [`${name}  ${head}  ${s.dim(`(${count} pinned tool${count === 1 ? "" : "s"})`)}`];
  let width = 0;
  for (const tool of server.tools) width = Math.max(width, displayName(tool.name).length);
  for (const tool of server.tools) {
    const label = TOOL_LABEL[tool.status].padEnd(9);
    const painted =
      tool.status === "unchanged"
        ? s.dim(label)
        : tool.status === "added" && server.status === "ok"
          ? s.yellow(label)
          : s.red(label);
    let line = `  ${painted}  ${displayName(tool.name)}`;
    if (tool.status === "drifted") {
      const fields =
        tool.fields && tool.fields.length > 0 ? tool.fields.join(", ") : "fields unknown";
      line = `${line.padEnd(line.length + width - displayName(tool.name).length)}  changed: ${fields}`;
    }
    if (tool.status === "added" && server.status === "ok")
      line += s.dim("  (allowed by --allow-new)");
    lines.push(line);
  }
  return lines;
}

function summaryLine(findings: readonly ServerFinding[], s: Style): string {
  const { servers, tools } = summarize(findings);
  const total = findings.length;
  if (total === 0) return s.yellow("no servers to verify: the lock pins none");
  const toolParts = (["drifted", "added", "removed"] as const)
    .filter((k) => tools[k] > 0)
    .map((k) => `${tools[k]} ${k}`);
  if (servers.ok === total) {
    const extra = tools.added > 0 ? `, ${tools.added} new tool(s) allowed` : "";
    return s.green(
      `OK: ${total === 1 ? "1 server matches" : `${total} servers match`} the lock${extra}`,
    );
  }
  const parts = [
    servers.drift > 0 ? `${servers.drift} drifted` : "",
    servers.unreachable > 0 ? `${servers.unreachable} unreachable` : "",
    servers.ok > 0 ? `${servers.ok} ok` : "",
  ].filter((p) => p !== "");
  const detail = toolParts.length > 0 ? ` (tools: ${toolParts.join(", ")})` : "";
  return s.red(`FAIL: ${parts.join(", ")} of ${total} server${total === 1 ? "" : "s"}${detail}`);
}
