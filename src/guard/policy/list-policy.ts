import { shellWord } from "../../core/source/shell-word.js";
import { ContractpinError } from "../../core/errors.js";
import {
  getMember,
  isJsonObject,
  type JsonObject,
  type JsonValue,
} from "../../core/json/json-value.js";
import type { Digest } from "../../core/contract/digest.js";
import type { PinnedServer } from "../../core/lock/lock.js";
import { itemsPage } from "../../core/contract/tools-list.js";
import type { PolicySession } from "./policy-session.js";
import { reason } from "../wire/own-requests.js";
import type { WithheldTool } from "./policy.js";
import { spliceItems } from "../wire/rewrite.js";
import { INTERNAL_ERROR, INVALID_PARAMS } from "../wire/rpc-errors.js";
import type { GuardKind } from "./guard-kinds.js";
import type { Passed } from "./graded.js";
import { blockedNotice, noticeMessage, withheldNotice } from "../notice.js";
import type { CheckResult } from "./policy.js";
import { kindById } from "../../core/contract/kinds.js";
import type { Answer } from "../wire/outbox.js";

/** More pages than any real server serves: a longer list is a loop. */
const MAX_PAGES = 1000;

/** What the guard knows about one item the server listed. */
type Known = { admitted: true } | { admitted: false; withheld: WithheldTool };

/**
 * The guard's policy for one kind in one session: every list page the
 * client gets is checked against the lock (withheld items cut out of the
 * served bytes, a key on two pages refused), every use (tools/call,
 * prompts/get, resources/read) is checked against what the guard admitted
 * (listing every page itself first when the item was not seen), and
 * list_changed makes it list and check again before the client hears of it.
 */
export class ListPolicy {
  /** Items by key from the lists seen since the last change; undefined when nothing is known. */
  private known: Map<string, Known> | undefined;
  /** True when `known` came from a full list (all pages), so a key missing from it is not served. */
  private complete = false;
  private refreshing: Promise<void> | undefined;
  /** The keys on the pages of the client's current list, so far. */
  private clientListKeys = new Set<string>();

  constructor(
    private readonly session: PolicySession,
    private readonly kind: GuardKind,
  ) {}

  /** Forgets what the lists said. */
  invalidate(): void {
    this.known = undefined;
    this.complete = false;
  }

  /**
   * Checks one use of an item: undefined when it is admitted (the request is
   * forwarded), else the error the client gets in its place.
   */
  checkUse(message: JsonObject, rawId: string): string | undefined | Promise<string | undefined> {
    const use = this.kind.use!;
    const params = getMember(message, "params");
    const key = isJsonObject(params) ? getMember(params, use.param) : undefined;
    if (typeof key !== "string")
      return this.error(
        rawId,
        INVALID_PARAMS,
        `Invalid params: ${use.method} needs a ${use.param}`,
      );
    if (this.session.options.lock.changed()) this.invalidate();
    const known = this.known?.get(key);
    if (known === undefined && !(this.complete && this.known !== undefined))
      return this.listThenCheck(key, rawId);
    return this.verdict(key, rawId, known);
  }

  /** An item not seen listed (or nothing is known): every page is listed first. */
  private async listThenCheck(key: string, rawId: string): Promise<string | undefined> {
    const { options } = this.session;
    const { noun } = this.kind;
    const use = this.kind.use!;
    try {
      if (!this.kind.checked(await options.lock.current())) return undefined;
      await this.refresh();
    } catch (err) {
      const why = reason(err);
      options.warn(
        `server ${options.server}: refused ${use.method} "${key}": cannot check it: ${why}`,
      );
      return this.error(
        rawId,
        INTERNAL_ERROR,
        `contractpin guard: cannot check ${noun} ${key}: ${why}`,
      );
    }
    const failure = this.session.failure();
    if (failure !== undefined)
      return this.error(rawId, INTERNAL_ERROR, `contractpin guard: ${failure}`);
    return this.verdict(key, rawId, this.known?.get(key));
  }

  private verdict(key: string, rawId: string, known: Known | undefined): string | undefined {
    if (known?.admitted === true) return undefined;
    const use = this.kind.use!;
    if (known === undefined && use.unlisted === "pass") return undefined;
    const { server, onEvent } = this.session.options;
    const why: { reason: WithheldTool["reason"] | "unlisted"; pinned?: Digest; live?: Digest } =
      known === undefined ? { reason: "unlisted" } : withoutName(known.withheld);
    onEvent({ event: "refused", server, ...this.kind.names(key), ...why });
    const data: Record<string, string> = { [use.refusal.data]: key, reason: why.reason };
    if (why.pinned !== undefined) data["pinned"] = why.pinned;
    if (why.live !== undefined) data["live"] = why.live;
    data["by"] = "contractpin guard";
    const { code, message } = use.refusal;
    // A withheld item's refusal names the command that explains it, not only digests.
    const explain =
      known === undefined
        ? ""
        : `; contractpin guard withholds it (${why.reason}): run 'contractpin verify ${shellWord(server)}' to see why`;
    return this.error(rawId, code, message(key) + explain, data);
  }

  /**
   * Checks one page the client asked for: the text to pass on is the page
   * with only the admitted items' bytes, or an error in its place.
   */
  async checkPage(
    message: JsonObject,
    raw: string,
    rawId: string,
    first: boolean,
  ): Promise<Answer> {
    const { lock, allowNew, onDrift, server, warn } = this.session.options;
    const { method, member, noun } = this.kind;
    try {
      // What was decided under another lock no longer holds, on any page.
      if (lock.changed()) this.invalidate();
      const pinned = await lock.current();
      const page = itemsPage(message, member, `the ${method} result`, `a ${method} result`);
      if (!this.kind.checked(pinned)) return raw;
      const verdict = await this.graded(
        pinned,
        page.items,
        this.kind.check(pinned, page.items, allowNew),
      );
      if (first) this.clientListKeys = new Set();
      for (const key of verdict.live.keys()) {
        if (this.clientListKeys.has(key))
          throw new ContractpinError(
            this.kind.codes.duplicate,
            `two ${noun}s are named ${JSON.stringify(key)} (on different pages)`,
          );
        this.clientListKeys.add(key);
      }
      this.learn(verdict.live.keys(), verdict.withheld, false);
      this.report(verdict.withheld);
      if (verdict.withheld.length === 0) return raw;
      if (onDrift === "block") {
        const names = verdict.withheld.map((w) => `${w.name} (${w.reason})`).join(", ");
        return this.withNotice(
          blockedNotice(server, noun, verdict.withheld),
          this.error(
            rawId,
            INTERNAL_ERROR,
            `contractpin guard: the server's ${noun}s do not match the lock: ${names}`,
            { withheld: verdict.withheld.map((w) => ({ ...w })) as unknown as JsonValue },
          ),
        );
      }
      return this.withNotice(
        withheldNotice(server, noun, verdict.withheld),
        spliceItems(raw, member, page.items, verdict.admitted, method),
      );
    } catch (err) {
      this.invalidate();
      const why = reason(err);
      warn(`server ${server}: refused its ${method} result: ${why}`);
      return this.error(
        rawId,
        INTERNAL_ERROR,
        `contractpin guard: cannot check the ${method} result: ${why}`,
      );
    }
  }

  /** A change: list and check again, then let the client hear of it. */
  async listChanged(raw: string): Promise<string> {
    await this.relist();
    return raw;
  }

  /** Forgets what was listed and lists again (when the lock checks this kind and the session allows). */
  async relist(): Promise<void> {
    this.invalidate();
    if (!this.session.begun() || this.session.failure() !== undefined) return;
    try {
      if (!this.kind.checked(await this.session.options.lock.current())) return;
      await this.refresh();
    } catch (err) {
      // A session that failed meanwhile has said why, once.
      if (this.session.failure() === undefined)
        this.session.options.warn(
          `server ${this.session.options.server}: could not list its ${this.kind.noun}s after list_changed: ${reason(err)}`,
        );
    }
  }

  /** Records what a list said; `full` when it held every page. */
  private learn(keys: Iterable<string>, withheld: readonly WithheldTool[], full: boolean): void {
    const known = full || this.known === undefined ? new Map<string, Known>() : this.known;
    for (const key of keys) known.set(key, { admitted: true });
    for (const w of withheld) known.set(w.name, { admitted: false, withheld: w });
    this.known = known;
    if (full) this.complete = true;
  }

  private report(withheld: readonly WithheldTool[]): void {
    const { server, onEvent } = this.session.options;
    for (const w of withheld)
      onEvent({ event: "withheld", server, ...this.kind.names(w.name), ...withoutName(w) });
  }

  /** Lists every page, checks them all against the lock; one refresh at a time. */
  private refresh(): Promise<void> {
    this.refreshing ??= this.listAll().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async listAll(): Promise<void> {
    const { method, member } = this.kind;
    if (!this.session.begun())
      throw new Error(
        "the client has not begun the session yet (initialize, or a 2026-07-28 request)",
      );
    this.invalidate();
    const server: PinnedServer = await this.session.options.lock.current();
    const items: JsonValue[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 1; ; page++) {
      if (page > MAX_PAGES)
        throw new ContractpinError(
          "SERVER_UNREADABLE",
          `the server's ${method} ran past ${MAX_PAGES} pages`,
        );
      const params: JsonObject = cursor === undefined ? {} : { cursor };
      const response = await this.session.ownRequest(method, params);
      const result = itemsPage(response, member, `${method} page ${page}`, `a ${method} result`);
      for (const item of result.items) items.push(item);
      if (result.nextCursor === undefined) break;
      if (seen.has(result.nextCursor))
        throw new ContractpinError(
          "SERVER_UNREADABLE",
          `the server repeated a cursor on ${method} page ${page}: its pagination never ends`,
        );
      seen.add(result.nextCursor);
      cursor = result.nextCursor;
    }
    const verdict = await this.graded(
      server,
      items,
      this.kind.check(server, items, this.session.options.allowNew),
    );
    this.learn(verdict.live.keys(), verdict.withheld, true);
    this.report(verdict.withheld);
  }

  /**
   * Under --on-drift=graded: the verdict with each drifted item whose change
   * is below the threshold admitted (graded.ts), one event each; else as it is.
   */
  private async graded(
    pinned: PinnedServer,
    items: readonly JsonValue[],
    verdict: CheckResult,
  ): Promise<CheckResult> {
    const { onDrift, server, lock, onEvent } = this.session.options;
    if (typeof onDrift !== "object") return verdict;
    // A side pin that moved (what the model may see) is never graded: it stays withheld.
    const drifted = verdict.withheld.filter(
      (w) => w.reason === "drifted" && w.changed === undefined,
    );
    if (drifted.length === 0) return verdict;
    const names = this.kind.names("");
    const part = "tool" in names ? undefined : names.part;
    const keyMember = part === undefined ? "name" : kindById(part).key;
    const byKey = new Map<string, JsonValue>();
    for (const item of items) {
      const key = isJsonObject(item) ? getMember(item, keyMember) : undefined;
      if (typeof key === "string") byKey.set(key, item);
    }
    // Loaded only in graded mode, with verify's rules: not on a plain guard's start.
    const { findingsText, gradeSurface, gradeTools } = await import("./graded.js");
    const grading = { lockPath: lock.path, server, threshold: onDrift.graded };
    const asked = drifted.map((w) => ({
      name: w.name,
      pinned: w.pinned!,
      live: w.live,
      item: byKey.get(w.name)!,
    }));
    const passed: Passed =
      part === undefined
        ? await gradeTools(grading, pinned, asked)
        : await gradeSurface(grading, part, asked);
    if (passed.size === 0) return verdict;
    const admitted = [...verdict.admitted];
    const withheld = verdict.withheld.filter((w) => !passed.has(w.name));
    for (const w of verdict.withheld) {
      const findings = passed.get(w.name);
      if (findings === undefined) continue;
      admitted.push(byKey.get(w.name)!);
      const { name: _name, ...digests } = w;
      onEvent({
        event: "passed",
        server,
        ...this.kind.names(w.name),
        ...digests,
        findings: findingsText(findings),
      });
    }
    return { admitted, withheld, live: verdict.live };
  }

  /** The answer, after a notice to the client when it hears them. */
  private withNotice(notice: string, text: string): Answer {
    return this.session.hearsNotices() ? [noticeMessage(notice), text] : text;
  }

  private error(rawId: string, code: number, message: string, data?: JsonValue): string {
    return this.session.errorText(rawId, code, message, data);
  }
}

function withoutName(w: WithheldTool): Omit<WithheldTool, "name"> {
  const { name: _name, ...rest } = w;
  return rest;
}
