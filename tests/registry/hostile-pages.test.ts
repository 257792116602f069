// Every parser of registry data is linear in what the registry sent: its work
// is counted in steps (src/registry/pace.ts), and a hostile answer of 1 MiB
// (then 2 MiB) must cost a bounded number of steps per byte. A Budget stops a
// parse as soon as it passes its bound, so a quadratic parser fails here in
// well under a second instead of running for minutes; nothing here is timed.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ContractpinError } from "../../src/core/errors.js";
import { nextLink, readChallenge } from "../../src/registry/image-headers.js";
import { parseMetadata } from "../../src/registry/npm.js";
import { Pace, STEPS_PER_TURN } from "../../src/registry/pace.js";
import { latestPep440 } from "../../src/registry/pep440.js";
import { htmlPageVersions, jsonPageVersions } from "../../src/registry/simple-api.js";

const MIB = 1024 * 1024;
/** Steps per byte of input any parser may take: a small constant, whatever the input. */
const PER_BYTE = 8;

/** A Pace that throws once the parse takes more steps than `limit`. */
class Budget extends Pace {
  constructor(private readonly limit: number) {
    super();
  }
  override count(n: number): void {
    super.count(n);
    if (this.steps > this.limit) throw new Error(`over ${this.limit} steps`);
  }
}

type Parse = (size: number, pace: Pace) => Promise<unknown> | unknown;

/**
 * The parse of a hostile input of 1 MiB and of 2 MiB: each within PER_BYTE
 * steps a byte, at least one step a byte (the whole input was read), and the
 * larger no more than about twice the smaller.
 */
async function linear(what: string, parse: Parse): Promise<void> {
  const steps: number[] = [];
  for (const size of [MIB, 2 * MIB]) {
    const pace = new Budget(PER_BYTE * size);
    await assert.doesNotReject(async () => parse(size, pace), `${what}, ${size} bytes`);
    assert.ok(pace.steps >= size, `${what}: ${pace.steps} steps for ${size} bytes`);
    steps.push(pace.steps);
  }
  assert.ok(steps[1]! <= 2.2 * steps[0]!, `${what}: ${steps[0]} then ${steps[1]} steps`);
}

const fill = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length));
const json = (value: unknown) => Buffer.from(JSON.stringify(value));

test("PEP 503 HTML pages: unclosed '<a ' tags (the review's page), unclosed quotes, many anchors", async () => {
  await linear("unclosed <a", (size, pace) => htmlPageVersions(fill("<a ", size), "x", pace));
  await linear("unclosed <A/", (size, pace) => htmlPageVersions(fill("<A/", size), "x", pace));
  await linear("unclosed quotes", (size, pace) =>
    htmlPageVersions(fill("<a href='x ", size), "x", pace),
  );
  await linear("anchors", (size, pace) =>
    htmlPageVersions(fill('<a href="b-a-a-1.0.tar.gz" data-x=&amp;>x</a>', size), "b-a", pace),
  );
  await linear("entities", (size, pace) =>
    htmlPageVersions(`<a href="${fill("&#x0&a", size)}">`, "x", pace),
  );
});

test("PEP 691 JSON pages: a file name of many dashes, a version of many dots, many files", async () => {
  // The name never matches "x", so every dash was a candidate end of the name.
  await linear("dashes", (size, pace) =>
    jsonPageVersions(json({ files: [{ filename: `${fill("a-", size)}1.tar.gz` }] }), "x", pace),
  );
  await linear("dashes matching", (size, pace) =>
    jsonPageVersions(
      json({ files: [{ filename: `${fill("a-", size)}1.tar.gz` }] }),
      fill("a-", size / 2),
      pace,
    ),
  );
  await linear("dots", (size, pace) =>
    jsonPageVersions(json({ files: [{ filename: `x-1${fill(".1", size)}.zip` }] }), "x", pace),
  );
  await linear("files", (size, pace) => {
    const files = Array.from({ length: size / 32 }, (_, i) => ({ filename: `x-${i}.0.tar.gz` }));
    return jsonPageVersions(json({ files, versions: files.map((_, i) => `${i}.0`) }), "x", pace);
  });
  await linear("latest of many versions", (size, pace) => {
    const versions: string[] = [];
    for (let length = 0; length < size; length += versions.at(-1)!.length)
      versions.push(`${versions.length}.${versions.length % 7}.0rc1`);
    return latestPep440(versions, false, pace);
  });
});

test("npm metadata, WWW-Authenticate challenges and Link headers", async () => {
  const fail = (why: string) => new ContractpinError("REGISTRY_UNREACHABLE", why);
  await linear("npm versions", (size, pace) => {
    const versions = Object.fromEntries(
      Array.from({ length: size / 32 }, (_, i) => [`${i}.0.0-rc.${i}`, {}]),
    );
    return parseMetadata(json({ versions }), "pkg", fail, pace);
  });
  await linear("challenge of letters", (size, pace) =>
    readChallenge(`Bearer ${fill("a", size)}`, pace),
  );
  await linear("challenge of escapes", (size, pace) =>
    readChallenge(`Bearer ${fill('k="\\",', size)}`, pace),
  );
  await linear("link of '<'", (size, pace) =>
    nextLink(fill("<", size), new URL("http://h/"), pace),
  );
  await linear("link of links", (size, pace) =>
    nextLink(fill('<x>; rel="prev", ', size), new URL("http://h/"), pace),
  );
});

test("a paced parse stops with the signal's reason at its next turn (the deadline, Ctrl-C, SIGTERM)", async () => {
  const page = fill('<a href="x-1.0.tar.gz">', 8 * STEPS_PER_TURN);
  const controller = new AbortController();
  // Queued before the parse starts: it runs at the parse's first turn, as a signal's handler would.
  setImmediate(() => controller.abort(new Error("interrupted by SIGTERM")));
  const pace = new Pace(controller.signal);
  await assert.rejects(htmlPageVersions(page, "x", pace), /interrupted by SIGTERM/);
  assert.ok(pace.steps < 2 * STEPS_PER_TURN, `${pace.steps} steps before it stopped`);
});
