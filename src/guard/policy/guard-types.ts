import type { Digest } from "../../core/contract/digest.js";
import type { Severity } from "../../core/findings/rules.js";
import type { KindId } from "../../core/contract/kinds.js";
import type { LockState } from "./lock-state.js";
import type { ToClient } from "../wire/outbox.js";
import type { WithheldTool } from "./policy.js";

/**
 * What the guard does when a list holds a tool it withholds: withhold it,
 * refuse the list (block), or pass a drift whose findings are all below a
 * severity on (graded, graded.ts).
 */
export type OnDrift = "withhold" | "block" | { graded: Severity };

/** Where a message to the server goes: the raw bytes of one message, without a newline. */
export interface Upstream {
  sendRaw(bytes: Uint8Array): Promise<void>;
}

/**
 * A tool kept from the client, a call the guard answered itself, or (graded)
 * a drifted tool passed on: `findings` are its change's, all below the threshold.
 */
export interface ToolEvent {
  event: "withheld" | "refused" | "passed";
  server: string;
  tool: string;
  reason: WithheldTool["reason"] | "unlisted";
  pinned?: Digest;
  live?: Digest;
  /** For a drifted tool: the side pins that moved (`_meta.ui.visibility`, SPEC.md 13). */
  changed?: string[];
  findings?: string[];
}

/**
 * A part of the surface kept from the client (SPEC.md 10.7): the
 * instructions, or one prompt, resource template or resource (`key`); or a
 * prompts/get or resources/read the guard answered itself.
 */
export interface SurfaceEvent {
  event: "withheld" | "refused" | "passed";
  server: string;
  part: "instructions" | KindId;
  /** The item's key (a prompt's name, a template's uriTemplate, a resource's uri); absent for the instructions. */
  key?: string;
  reason: WithheldTool["reason"] | "unlisted";
  pinned?: Digest;
  live?: Digest;
  /** For a server whose lock entry pins only its tools. */
  toolsOnly?: true;
  /** For a drift passed on (graded): its findings, all below the threshold. */
  findings?: string[];
}

/** The event members that name one listed item: a tool's, or a surface item's. */
export type ItemEventFields = { tool: string } | { part: KindId; key: string };

/** A message the guard let go nowhere: `what` says what it was and why (it may hold server text). */
export interface DropEvent {
  event: "dropped";
  server: string;
  /** Who sent it. */
  from: "server" | "client";
  what: string;
}

/** One event the guard reports (a stderr line, a JSON log line). */
export type GuardEvent = ToolEvent | SurfaceEvent | DropEvent;

/** How a session is set up. */
export interface RelayOptions {
  server: string;
  lock: LockState;
  allowNew: boolean;
  onDrift: OnDrift;
  /** How long the guard waits for the server to answer one of its own tools/list requests. */
  timeoutMs: number;
  /**
   * Writes one message to the client (a newline is added by the caller);
   * `answers` is the client's id (its text) when the message answers one of
   * the client's requests.
   */
  toClient: ToClient;
  /** Reports one event (a stderr line, a JSON log line). */
  onEvent: (event: GuardEvent) => void;
  /** Reports a problem in one line (stderr). */
  warn: (message: string) => void;
  /** Hides expanded `${VAR}` values in what the client is told (guardSecrets). */
  redact?: (text: string) => string;
}
