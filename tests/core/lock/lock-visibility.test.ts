/* eslint-disable @typescript-eslint/no-explicit-any -- edits reach anywhere in a parsed lock */
// A tool's side pin `visibility` in the lock (SPEC.md 13): a digest like any
// other, a key of format "3" only, outside every digest, and the version
// saying exactly whether any tool records one. Expected digests come from
// tests/vectors.json (tests/make_vectors.py), never from this code.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import type { ServerDigests } from "../../../src/core/contract/digest.js";
import type { JsonValue } from "../../../src/core/json/json-value.js";
import { renderLock, validateLock } from "../../../src/core/lock/lock.js";
import { parseJson } from "../../../src/core/json/strict-json.js";
import { throwsCode } from "../../helpers/assert-code.js";

const file = parseJson(readFileSync(new URL("../../vectors.json", import.meta.url))) as unknown as {
  servers: { name: string; result: ServerDigests }[];
  side_pins: { name: string; visibility: string | null }[];
};
/** show_chart with `["app"]`, and `plain` with none (the server-visibility vector). */
const pinned = file.servers.find((s) => s.name === "server-visibility")!.result;
const APP = file.side_pins.find((v) => v.name === "visibility-app")!.visibility!;

function lockOf(version: string, server: unknown): JsonValue {
  return {
    contractpin: version,
    algorithm: "sha256",
    canonicalization: "contractpin-canonical-json/1",
    generated_at: "2026-01-01T00:00:00Z",
    servers: { charts: { transport: "file", path: "charts.json", ...(server as object) } },
  } as unknown as JsonValue;
}

function corrupt(value: JsonValue, message: RegExp): void {
  assert.match(
    throwsCode(() => validateLock(value), "LOCK_CORRUPT"),
    message,
  );
}

describe("a tool's visibility in the lock", () => {
  it("the vector's server records it for the tool that serves it only", () => {
    assert.equal(pinned.tools["show_chart"]!.visibility, APP);
    assert.ok(!Object.hasOwn(pinned.tools["plain"]!, "visibility"));
  });

  it("is read and written in format 3, and leaves the server digest as its tools' digests give it", () => {
    const lock = validateLock(lockOf("3", pinned));
    assert.equal(lock.servers["charts"]!.tools["show_chart"]!.visibility, APP);
    const text = renderLock(lock);
    assert.match(text, /"contractpin": "3"/);
    assert.match(text, new RegExp(`"visibility": "${APP}"`));
    assert.deepEqual(validateLock(parseJson(text)), lock);
    // Without the member, the same lock is a format 1 lock with the same digests.
    const { visibility: _v, ...without } = lock.servers["charts"]!.tools["show_chart"]!;
    const bare = {
      ...lock,
      servers: {
        charts: {
          ...lock.servers["charts"]!,
          tools: { ...lock.servers["charts"]!.tools, show_chart: without },
        },
      },
    };
    const v1 = renderLock(bare);
    assert.match(v1, /"contractpin": "1"/);
    assert.equal(validateLock(parseJson(v1)).servers["charts"]!.digest, pinned.digest);
  });

  it("is refused in a lock of format 1 or 2 (an unknown key)", () => {
    for (const version of ["1", "2"])
      corrupt(
        lockOf(version, pinned),
        /servers\.charts\.tools\.show_chart\.visibility is not a key this lock format has/,
      );
  });

  it("is refused when it is not a digest", () => {
    for (const bad of ["sha256:" + "A".repeat(64), "sha256:abc", 7, null, ["app"]]) {
      const server = structuredClone(pinned) as any;
      server.tools.show_chart.visibility = bad;
      corrupt(
        lockOf("3", server),
        /servers\.charts\.tools\.show_chart\.visibility must be "sha256:" followed by 64 lowercase hex digits/,
      );
    }
  });

  it("a format 3 lock with no visibility, configs or artifact is corrupt", () => {
    const server = structuredClone(pinned) as any;
    delete server.tools.show_chart.visibility;
    corrupt(
      lockOf("3", server),
      /is "3" but the lock records no configs, no server records its artifact and no tool its visibility/,
    );
  });

  it("only tools have it: another member of a tool is still unknown", () => {
    const server = structuredClone(pinned) as any;
    server.tools.show_chart.title = APP;
    corrupt(lockOf("3", server), /servers\.charts\.tools\.show_chart\.title is not a key/);
  });
});
