import { getMember, isJsonObject, type JsonObject } from "../../core/json/json-value.js";
import { SURFACE_KINDS } from "../../core/contract/kinds.js";
import type { PinnedServer } from "../../core/lock/lock.js";
import { isPinnedInstructions } from "../../core/surface/pinned.js";
import { instructionsDigest } from "../../core/surface/surface.js";
import type { LockState } from "./lock-state.js";
import type { MethodPolicy, PolicySession } from "./policy-session.js";
import { reason } from "../wire/own-requests.js";
import { instructionsNote, noticeMessage } from "../notice.js";
import type { Answer } from "../wire/outbox.js";
import { advertiseListChanged, replaceResultMember } from "../wire/rewrite.js";

/** The locks whose tools-only note was said: once per guard, not per session. */
const noted = new WeakSet<LockState>();

/**
 * The policy of the handshake's answer (initialize, or server/discover in
 * protocol 2026-07-28): it advertises tools' listChanged, so that the
 * client hears the guard's notifications, and it removes `instructions`
 * that are not what the lock pins (SPEC.md 10.7), so that the model never
 * reads unpinned instructions: one event (stderr, --log) says so. A lock
 * that cannot be read removes them too. Their place holds contractpin's
 * note of why (never the server's text), and a notice before the answer
 * tells the client (notice.ts).
 */
export function handshakePolicy(session: PolicySession): MethodPolicy {
  return { answer: (answer, raw) => checkHandshake(session, answer, raw) };
}

async function checkHandshake(
  session: PolicySession,
  message: JsonObject,
  raw: string,
): Promise<Answer> {
  const { lock, server, warn, onEvent } = session.options;
  const replaced = (why: Parameters<typeof instructionsNote>[1]): Answer => {
    // A server that serves none has nothing to replace (and nothing the model reads).
    if (instructions === undefined) return text;
    const note = instructionsNote(server, why);
    const answer = replaceResultMember(text, "instructions", note);
    return session.hearsNotices() ? [noticeMessage(note), answer] : answer;
  };
  const result = getMember(message, "result");
  const instructions = isJsonObject(result) ? getMember(result, "instructions") : undefined;
  const text = advertiseListChanged(message, raw);
  let pinned: PinnedServer;
  try {
    pinned = await lock.current();
  } catch (err) {
    if (instructions === undefined) return text;
    warn(`server ${server}: removed its instructions: cannot check them: ${reason(err)}`);
    return replaced("unreadable");
  }
  if (isPinnedInstructions(pinned, instructions)) {
    if (isJsonObject(result) && pinned.surface === undefined) noteToolsOnly(session, result);
    return text;
  }
  // A tools-only pin: this event's line says how to pin the rest.
  if (pinned.surface === undefined) noted.add(lock);
  const pin = pinned.surface?.instructions ?? null;
  const live = instructionsDigest(instructions) ?? undefined;
  const { onDrift } = session.options;
  if (typeof onDrift === "object" && pin !== null && live !== undefined) {
    // Graded: reworded instructions below the threshold pass; a directive gained never does.
    // Loaded only in graded mode (see list-policy.ts).
    const { findingsText, gradeSurface } = await import("./graded.js");
    const grading = { lockPath: lock.path, server, threshold: onDrift.graded };
    const findings = await gradeSurface(grading, "instructions", [
      { name: "instructions", pinned: pin, live, item: instructions! },
    ]).then(
      (passed) => passed.get("instructions"),
      // Not known to be below anything: removed, as without grading.
      () => undefined,
    );
    if (findings !== undefined) {
      onEvent({
        event: "passed",
        server,
        part: "instructions",
        reason: "drifted",
        pinned: pin,
        live,
        findings: findingsText(findings),
      });
      return text;
    }
  }
  onEvent({
    event: "withheld",
    server,
    part: "instructions",
    ...(pin === null
      ? { reason: "unpinned" as const }
      : { reason: "drifted" as const, pinned: pin }),
    ...(live === undefined ? {} : { live }),
    ...(pinned.surface === undefined ? { toolsOnly: true as const } : {}),
  });
  return replaced(
    pinned.surface === undefined ? "tools-only" : pin === null ? "unpinned" : "drifted",
  );
}

/**
 * A lock entry that pins only tools (a version 1 lock, `--tools-only`)
 * of a server that serves more: the guard withholds what it cannot check,
 * and says once how to pin it.
 */
function noteToolsOnly(session: PolicySession, result: JsonObject): void {
  const { lock, server, warn } = session.options;
  const capabilities = getMember(result, "capabilities");
  const serves = (name: string) =>
    isJsonObject(capabilities) &&
    getMember(capabilities, name) !== undefined &&
    getMember(capabilities, name) !== null;
  const instructions = getMember(result, "instructions");
  if (instructions === undefined && !SURFACE_KINDS.some((k) => serves(k.capability))) return;
  if (noted.has(lock)) return;
  noted.add(lock);
  warn(
    `server ${server}: the lock pins only its tools, so the guard withholds its instructions, ` +
      "prompts and resource templates, which it cannot check; `contractpin update` pins them",
  );
}
