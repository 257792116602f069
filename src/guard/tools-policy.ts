import { shellWord } from "../core/shell-word.js";
import { ContractpinError } from "../core/errors.js";
import { getMember, isJsonObject, type JsonObject, type JsonValue } from "../core/json-value.js";
import type { PinnedServer } from "../core/lock.js";
import { pageOf } from "../core/tools-list.js";
import type { ToolEvent } from "./guard-types.js";
import type { PolicySession } from "./method-policy.js";
import { reason } from "./own-requests.js";
import { checkTools, type WithheldTool } from "./policy.js";
import { spliceTools } from "./rewrite.js";
import { INTERNAL_ERROR, INVALID_PARAMS } from "./rpc-errors.js";

/** More pages than any real server serves: a longer list is a loop. */
const MAX_PAGES = 1000;

/** What the guard knows about one tool the server listed. */
type Known = { admitted: true } | { admitted: false; withheld: WithheldTool };

/**
 * The guard's tools policy for one session: every tools/list page the
 * client gets is checked against the lock (withheld tools cut out of the
 * served bytes), every tools/call is checked against what the guard
 * admitted (listing every page itself first when the tool was not seen),
 * and list_changed makes it list and check again before the client hears
 * of it.
 */
export class ToolsPolicy {
  /** Tools by name from the lists seen since the last change; undefined when nothing is known. */
  private known: Map<string, Known> | undefined;
  /** True when `known` came from a full list (all pages), so a name missing from it is not served. */
  private complete = false;
  private refreshing: Promise<void> | undefined;
  /** The names on the pages of the client's current tools/list, so far. */
  private clientListNames = new Set<string>();

  constructor(private readonly session: PolicySession) {}

  /** Forgets what the lists said. */
  invalidate(): void {
    this.known = undefined;
    this.complete = false;
  }

  /**
   * Checks one tools/call: undefined when the tool is admitted (the call is
   * forwarded), else the error the client gets in its place.
   */
  checkCall(message: JsonObject, rawId: string): string | undefined | Promise<string | undefined> {
    const params = getMember(message, "params");
    const name = isJsonObject(params) ? getMember(params, "name") : undefined;
    if (typeof name !== "string")
      return this.error(rawId, INVALID_PARAMS, "Invalid params: tools/call needs a tool name");
    if (this.session.options.lock.changed()) this.invalidate();
    const known = this.known?.get(name);
    if (known === undefined && !(this.complete && this.known !== undefined))
      return this.listThenCheck(name, rawId);
    return this.verdict(name, rawId, known);
  }

  /** A tool not seen listed (or nothing is known): every page is listed first. */
  private async listThenCheck(name: string, rawId: string): Promise<string | undefined> {
    try {
      await this.refresh();
    } catch (err) {
      const why = reason(err);
      this.session.options.warn(
        `server ${this.session.options.server}: refused tools/call "${name}": cannot check it: ${why}`,
      );
      return this.error(
        rawId,
        INTERNAL_ERROR,
        `contractpin guard: cannot check tool ${name}: ${why}`,
      );
    }
    const failure = this.session.failure();
    if (failure !== undefined)
      return this.error(rawId, INTERNAL_ERROR, `contractpin guard: ${failure}`);
    return this.verdict(name, rawId, this.known?.get(name));
  }

  private verdict(name: string, rawId: string, known: Known | undefined): string | undefined {
    if (known?.admitted === true) return undefined;
    const withheld: Omit<ToolEvent, "event" | "server"> =
      known === undefined ? { tool: name, reason: "unlisted" } : { ...known.withheld, tool: name };
    delete (withheld as { name?: string }).name;
    const { server, onEvent } = this.session.options;
    onEvent({ event: "refused", server, ...withheld });
    const data: Record<string, string> = { tool: name, reason: withheld.reason };
    if (withheld.pinned !== undefined) data["pinned"] = withheld.pinned;
    if (withheld.live !== undefined) data["live"] = withheld.live;
    data["by"] = "contractpin guard";
    // A withheld tool's refusal names the command that explains it, not only digests.
    const why =
      known === undefined
        ? ""
        : `; contractpin guard withholds it (${withheld.reason}): run 'contractpin verify ${shellWord(server)}' to see why`;
    return this.error(rawId, INVALID_PARAMS, `Unknown tool: ${name}${why}`, data);
  }

  /**
   * Checks one page the client asked for: the text to pass on is the page
   * with only the admitted tools' bytes, or an error in its place.
   */
  async checkPage(message: JsonObject, raw: string, rawId: string, first: boolean) {
    const { lock, allowNew, onDrift, server, warn } = this.session.options;
    try {
      // What was decided under another lock no longer holds, on any page.
      if (lock.changed()) this.invalidate();
      const pinned = await lock.current();
      const page = pageOf(message, "the tools/list result", "a tools/list result");
      const verdict = checkTools(pinned, page.tools, { allowNew });
      if (first) this.clientListNames = new Set();
      for (const name of verdict.live.keys()) {
        if (this.clientListNames.has(name))
          throw new ContractpinError(
            "TOOLS_DUPLICATE_NAME",
            `two tools are named ${JSON.stringify(name)} (on different pages)`,
          );
        this.clientListNames.add(name);
      }
      this.learn(verdict.live.keys(), verdict.withheld, false);
      this.report(verdict.withheld);
      if (verdict.withheld.length === 0) return raw;
      if (onDrift === "block") {
        const names = verdict.withheld.map((w) => `${w.name} (${w.reason})`).join(", ");
        return this.error(
          rawId,
          INTERNAL_ERROR,
          `contractpin guard: the server's tools do not match the lock: ${names}`,
          { withheld: verdict.withheld.map((w) => ({ ...w })) as unknown as JsonValue },
        );
      }
      return spliceTools(raw, page.tools, verdict.admitted);
    } catch (err) {
      this.invalidate();
      const why = reason(err);
      warn(`server ${server}: refused its tools/list result: ${why}`);
      return this.error(
        rawId,
        INTERNAL_ERROR,
        `contractpin guard: cannot check the tools/list result: ${why}`,
      );
    }
  }

  /** A change: list and check again, then let the client hear of it. */
  async listChanged(raw: string): Promise<string> {
    this.invalidate();
    if (this.session.begun() && this.session.failure() === undefined) {
      try {
        await this.refresh();
      } catch (err) {
        // A session that failed meanwhile has said why, once.
        if (this.session.failure() === undefined)
          this.session.options.warn(
            `server ${this.session.options.server}: could not list its tools after list_changed: ${reason(err)}`,
          );
      }
    }
    return raw;
  }

  /** Records what a list said; `full` when it held every page. */
  private learn(names: Iterable<string>, withheld: readonly WithheldTool[], full: boolean): void {
    const known = full || this.known === undefined ? new Map<string, Known>() : this.known;
    for (const name of names) known.set(name, { admitted: true });
    for (const w of withheld) known.set(w.name, { admitted: false, withheld: w });
    this.known = known;
    if (full) this.complete = true;
  }

  private report(withheld: readonly WithheldTool[]): void {
    const { server, onEvent } = this.session.options;
    for (const w of withheld) {
      const { name, ...rest } = w;
      onEvent({ event: "withheld", server, tool: name, ...rest });
    }
  }

  /** Lists every page, checks them all against the lock; one refresh at a time. */
  private refresh(): Promise<void> {
    this.refreshing ??= this.listAll().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async listAll(): Promise<void> {
    if (!this.session.begun())
      throw new Error(
        "the client has not begun the session yet (initialize, or a 2026-07-28 request)",
      );
    this.invalidate();
    const server: PinnedServer = await this.session.options.lock.current();
    const tools: JsonValue[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 1; ; page++) {
      if (page > MAX_PAGES)
        throw new ContractpinError(
          "SERVER_UNREADABLE",
          `the server's tools/list ran past ${MAX_PAGES} pages`,
        );
      const params: JsonObject = cursor === undefined ? {} : { cursor };
      const response = await this.session.ownRequest("tools/list", params);
      const result = pageOf(response, `tools/list page ${page}`, "a tools/list result");
      for (const tool of result.tools) tools.push(tool);
      if (result.nextCursor === undefined) break;
      if (seen.has(result.nextCursor))
        throw new ContractpinError(
          "SERVER_UNREADABLE",
          `the server repeated a cursor on tools/list page ${page}: its pagination never ends`,
        );
      seen.add(result.nextCursor);
      cursor = result.nextCursor;
    }
    const verdict = checkTools(server, tools, { allowNew: this.session.options.allowNew });
    this.learn(verdict.live.keys(), verdict.withheld, true);
    this.report(verdict.withheld);
  }

  private error(rawId: string, code: number, message: string, data?: JsonValue): string {
    return this.session.errorText(rawId, code, message, data);
  }
}
