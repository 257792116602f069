// What is kept of a server's stderr: its first lines (the cause) and its last
// (how it ended), a count of what was left out between them, bounded memory.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { StderrTail } from "../../src/sources/live/stderr-tail.js";

const numbered = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}`);

function tailOf(text: string, chunkSize = 7): StderrTail {
  const tail = new StderrTail();
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += chunkSize) tail.push(bytes.subarray(i, i + chunkSize));
  return tail;
}

describe("StderrTail", () => {
  it("a few lines: all of them, in order, nothing skipped", () => {
    assert.deepEqual(tailOf("one\ntwo\n\nthree").lines(), ["one", "two", "three"]);
  });

  it("exactly head + tail lines: all of them", () => {
    assert.deepEqual(tailOf(numbered(1, 12).join("\n") + "\n").lines(), numbered(1, 12));
  });

  it("more lines than shown, all in memory: the first 4, a marker, the last 8", () => {
    assert.deepEqual(tailOf(numbered(1, 13).join("\n") + "\n").lines(), [
      ...numbered(1, 4),
      "... 1 line skipped ...",
      ...numbered(6, 13),
    ]);
  });

  it("a flood of 100,000 lines: the first and the last kept, the count exact", () => {
    const lines = tailOf(numbered(1, 100_000).join("\n") + "\n", 4096).lines();
    assert.deepEqual(lines, [
      ...numbered(1, 4),
      "... 99988 lines skipped ...",
      ...numbered(99_993, 100_000),
    ]);
  });

  it("memory stays bounded however much is written", () => {
    const tail = new StderrTail();
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    for (let i = 0; i < 20; i++) tail.push(chunk);
    tail.push(Buffer.from("\nfatal: out of memory\n"));
    const kept = tail as unknown as { head: Buffer; tail: Buffer };
    assert.ok(kept.head.length + kept.tail.length <= 2048 + 4096);
    // A line of 20 MiB, then a short one: the long one's start (cut to 200
    // characters), then the short one; the long one's end is not a line of its own.
    assert.deepEqual(tail.lines(), [`${"a".repeat(197)}...`, "fatal: out of memory"]);
  });

  it("terminal controls are removed and long lines cut", () => {
    assert.deepEqual(tailOf("\u001b[31mred\u001b[0m\u0007 alert\r\n" + "b".repeat(300)).lines(), [
      "red alert",
      `${"b".repeat(197)}...`,
    ]);
  });

  it("a first npx run: npm's EBADENGINE warnings give their place at the head to the error", () => {
    const warnings = Array.from({ length: 9 }, (_, i) => [
      "npm warn EBADENGINE Unsupported engine {",
      `npm warn EBADENGINE   package: 'dep-${i}@1.0.0',`,
      "npm warn EBADENGINE   required: { node: '>=22' },",
      "npm warn EBADENGINE }",
    ]).flat();
    const stack = Array.from(
      { length: 20 },
      (_, i) => `    at frame${i} (file:///srv/index.js:${i}:1)`,
    );
    const text = [
      ...warnings,
      "Error: No access token was provided.",
      ...stack,
      "Node.js v20.20.2",
    ];
    const lines = tailOf(text.join("\n") + "\n").lines();
    assert.ok(lines.includes("Error: No access token was provided."), lines.join("\n"));
    assert.equal(lines.filter((l) => l.startsWith("npm warn")).length, 0, lines.join("\n"));
    // The count of what was left out still adds up.
    const marker = lines.find((l) => l.startsWith("... "))!;
    const skipped = Number(/\.\.\. (\d+) lines skipped/.exec(marker)![1]);
    assert.equal(skipped + lines.length - 1, text.length);
    assert.deepEqual(lines.slice(-2), [
      "    at frame19 (file:///srv/index.js:19:1)",
      "Node.js v20.20.2",
    ]);
  });

  it("an error line in a flood that overflows memory is still shown", () => {
    const text = [
      ...numbered(1, 5000),
      "npm ERR! 404 Not Found - GET https://registry/x",
      ...numbered(5001, 10_000),
    ];
    const lines = tailOf(text.join("\n") + "\n", 4096).lines();
    assert.ok(lines.includes("npm ERR! 404 Not Found - GET https://registry/x"), lines.join("\n"));
    assert.deepEqual(lines.slice(-8), numbered(9993, 10_000));
  });

  it("an error already shown at the head is not repeated", () => {
    const text = ["Error: boom", ...numbered(1, 40)];
    const lines = tailOf(text.join("\n") + "\n").lines();
    assert.equal(lines.filter((l) => l === "Error: boom").length, 1);
    assert.deepEqual(lines.slice(0, 4), ["Error: boom", ...numbered(1, 3)]);
  });
});
