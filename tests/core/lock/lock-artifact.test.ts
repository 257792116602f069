/* eslint-disable @typescript-eslint/no-explicit-any -- edits reach anywhere in a parsed lock */
// The lock's version 3 (SPEC.md 11.1): a server's `artifact`, validated as
// strictly as the rest, outside every digest, and the version saying exactly
// whether any server records one. Expected digests come from tests/vectors.json.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import {
  compareArtifacts,
  runsRecorded,
  type Artifact,
} from "../../../src/core/source/artifact.js";
import type { ServerDigests } from "../../../src/core/contract/digest.js";
import type { JsonValue } from "../../../src/core/json/json-value.js";
import { renderLock, validateLock } from "../../../src/core/lock/lock.js";
import { parseJson } from "../../../src/core/json/strict-json.js";
import { throwsCode } from "../../helpers/assert-code.js";

/** Asserts LOCK_CORRUPT with a message matching `message`. */
function corruptWith(fn: () => unknown, _code: "LOCK_CORRUPT", message: RegExp): void {
  assert.match(throwsCode(fn, "LOCK_CORRUPT"), message);
}

const file = parseJson(readFileSync(new URL("../../vectors.json", import.meta.url))) as unknown as {
  servers: { name: string; result: ServerDigests }[];
  surfaces: { name: string; result: ServerDigests }[];
};
const tools = file.servers.find((s) => s.name === "server-one-tool")!.result;
const surface = file.surfaces.find((s) => s.name === "surface-everything")!.result;

function lockOf(version: string, servers: Record<string, unknown>): JsonValue {
  return {
    contractpin: version,
    algorithm: "sha256",
    canonicalization: "contractpin-canonical-json/1",
    generated_at: "2026-01-01T00:00:00Z",
    servers,
  } as unknown as JsonValue;
}
const D1 = `sha256:${"1".repeat(64)}` as const;
const D2 = `sha256:${"2".repeat(64)}` as const;
const npx = { transport: "stdio", command: ["npx", "-y", "@acme/files@1.2.3"], ...tools };
const npmArtifact = {
  kind: "npm",
  package: "@acme/files",
  version: "1.2.3",
  integrity: "sha512-AAAA",
};
const docker = { transport: "stdio", command: ["docker", "run", "-i", "ghcr.io/acme/files:1.0"] };
const imageArtifact = { kind: "image", image: "ghcr.io/acme/files", tag: "1.0", digest: D1 };
const uvx = { transport: "stdio", command: ["uvx", "acme-files==2.0"] };
const pyArtifact = {
  kind: "python",
  package: "acme-files",
  version: "2.0",
  files: { "a.whl": D1 },
};

describe("lock version 3", () => {
  it("is written exactly when a server records its artifact, which leaves every digest as it was", () => {
    const v3 = validateLock(
      lockOf("3", {
        a: { ...npx, artifact: npmArtifact },
        b: { ...docker, ...surface, artifact: imageArtifact },
        c: { ...uvx, ...tools, artifact: pyArtifact },
        d: { ...npx },
      }),
    );
    const text = renderLock(v3);
    assert.match(text, /"contractpin": "3"/);
    assert.deepEqual(validateLock(parseJson(text)), v3);
    // The server digest is the one of its tools (section 3), artifact or not.
    assert.equal(v3.servers["a"]!.digest, tools.digest);
    assert.equal(v3.servers["b"]!.digest, surface.digest);
    const { artifact: _a, ...without } = v3.servers["a"]!;
    assert.match(renderLock({ ...v3, servers: { a: without } }), /"contractpin": "1"/);
  });

  it("refuses an artifact in a lock of version 1 or 2, and a version 3 that records none", () => {
    for (const version of ["1", "2"])
      corruptWith(
        () => validateLock(lockOf(version, { a: { ...npx, artifact: npmArtifact } })),
        "LOCK_CORRUPT",
        /servers\.a\.artifact is not a key this lock format has/,
      );
    corruptWith(
      () => validateLock(lockOf("3", { a: npx })),
      "LOCK_CORRUPT",
      /is "3" but the lock records no configs, no server records its artifact and no tool its visibility \(that lock is version "1"\)/,
    );
  });

  it("refuses an artifact that names another package or version than the command runs, or another kind", () => {
    const cases: [unknown, unknown, RegExp][] = [
      [
        npx,
        { ...npmArtifact, version: "1.2.2" },
        /records @acme\/files 1\.2\.2 \(npm\) but the command runs @acme\/files 1\.2\.3/,
      ],
      [npx, { ...npmArtifact, package: "@acme/file" }, /but the command runs @acme\/files 1\.2\.3/],
      [
        { ...npx, command: ["npx", "-y", "@acme/files"] },
        npmArtifact,
        /but the server runs no exactly pinned package/,
      ],
      [
        npx,
        { ...imageArtifact, image: "@acme/files", tag: "1.2.3" },
        /from another kind of registry/,
      ],
      [docker, { ...imageArtifact, tag: "1.1" }, /but the command runs ghcr\.io\/acme\/files 1\.0/],
    ];
    for (const [source, artifact, message] of cases)
      corruptWith(
        () => validateLock(lockOf("3", { a: { ...tools, ...(source as object), artifact } })),
        "LOCK_CORRUPT",
        message,
      );
  });

  it("checks each member's shape", () => {
    const bad: [unknown, RegExp][] = [
      [{ ...npmArtifact, integrity: "sha1-AAAA" }, /artifact\.integrity must be one SRI hash/],
      [{ ...npmArtifact, extra: 1 }, /artifact\.extra is not a key/],
      [{ ...npmArtifact, kind: "cargo" }, /artifact\.kind must be one of "npm", "python", "image"/],
      [{ ...imageArtifact, digest: "sha256:ABC" }, /artifact\.digest must be "sha256:"/],
    ];
    for (const [artifact, message] of bad)
      corruptWith(
        () => validateLock(lockOf("3", { a: { ...npx, artifact } })),
        "LOCK_CORRUPT",
        message,
      );
    corruptWith(
      () =>
        validateLock(
          lockOf("3", { a: { ...uvx, ...tools, artifact: { ...pyArtifact, files: {} } } }),
        ),
      "LOCK_CORRUPT",
      /artifact\.files must name at least one file/,
    );
    corruptWith(
      () =>
        validateLock(
          lockOf("3", {
            a: { ...uvx, ...tools, artifact: { ...pyArtifact, files: { "a.whl": "md5:x" } } },
          }),
        ),
      "LOCK_CORRUPT",
      /artifact\.files\["?a\.whl"?\]|artifact\.files\.a\.whl/,
    );
  });
});

describe("compareArtifacts", () => {
  it("names each file whose sha256 changed, was added or went, in name order; equal artifacts give none", () => {
    const recorded = { ...pyArtifact, files: { "a.whl": D1, "b.tar.gz": D1 } } as Artifact;
    assert.deepEqual(compareArtifacts(recorded, recorded), []);
    const served = { ...pyArtifact, files: { "a.whl": D2, "c.whl": D1 } } as Artifact;
    assert.deepEqual(compareArtifacts(recorded, served), [
      { pointer: "/artifact/files/a.whl", before: D1, after: D2 },
      { pointer: "/artifact/files/b.tar.gz", before: D1 },
      { pointer: "/artifact/files/c.whl", after: D1 },
    ]);
    assert.deepEqual(
      compareArtifacts(
        npmArtifact as Artifact,
        { ...npmArtifact, integrity: "sha512-BBBB" } as Artifact,
      ),
      [{ pointer: "/artifact/integrity", before: "sha512-AAAA", after: "sha512-BBBB" }],
    );
  });
});

describe("runsRecorded", () => {
  it("runs a recorded image by its digest, keeping every other argument; anything else as it is", () => {
    const server = {
      ...docker,
      command: [...docker.command, "--flag"],
      artifact: imageArtifact as Artifact,
    };
    assert.deepEqual(runsRecorded(server as any).command, [
      "docker",
      "run",
      "-i",
      `ghcr.io/acme/files@${D1}`,
      "--flag",
    ]);
    const plain = { ...npx, artifact: npmArtifact as Artifact };
    assert.equal(runsRecorded(plain as any), plain);
  });
});
