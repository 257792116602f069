import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { codePointLabel, hiddenCodePoints, visibleText } from "../../../src/core/visible-text.js";

const ESC = "\u001b";
const BEL = "\u0007";

/** True when `text` holds no character a terminal acts on or a reader cannot see. */
function inert(text: string): boolean {
  // eslint-disable-next-line no-control-regex
  return !/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\u{e0000}-\u{e007f}]/u.test(
    text,
  );
}

describe("visibleText", () => {
  it("shows an OSC title sequence and a screen clear instead of running them", () => {
    const text = `a${ESC}]0;title${BEL}b${ESC}[2Jc`;
    assert.equal(visibleText(text), "a<U+001B>]0;title<U+0007>b<U+001B>[2Jc");
  });

  it("shows bidi controls, zero-width characters and tag characters", () => {
    assert.equal(visibleText("abc\u202Eexe.txt"), "abc<U+202E>exe.txt");
    assert.equal(visibleText("re\u200Bad"), "re<U+200B>ad");
    assert.equal(visibleText("x\u{E0041}\u{E007F}"), "x<U+E0041><U+E007F>");
    for (const cp of [
      0x061c, 0xfff9, 0x0600, 0x200e, 0x200f, 0x202a, 0x2066, 0x2069, 0xfeff, 0x00ad, 0x2028,
    ]) {
      const label = `<${codePointLabel(cp)}>`;
      assert.equal(visibleText(`a${String.fromCodePoint(cp)}b`), `a${label}b`);
    }
  });

  it("shows C0, DEL and C1 controls, carriage returns, and lone surrogates", () => {
    assert.equal(visibleText("a\rb"), "a<U+000D>b");
    assert.equal(visibleText("\u0000\u007f\u0085\u009b"), "<U+0000><U+007F><U+0085><U+009B>");
    assert.equal(visibleText("x\uD800y\uDFFF"), "x<U+D800>y<U+DFFF>");
    assert.equal(visibleText("\t"), "<U+0009>");
  });

  it("keeps line feeds only in multi-line mode; a carriage return is always shown", () => {
    assert.equal(visibleText("one\ntwo"), "one<U+000A>two");
    assert.equal(visibleText("one\r\ntwo", { multiline: true }), "one<U+000D>\ntwo");
  });

  it("keeps one emoji presentation selector, shows runs and supplement selectors", () => {
    assert.equal(visibleText("\u26A0\uFE0F ok"), "\u26A0\uFE0F ok");
    assert.equal(visibleText("a\uFE0F\uFE01"), "a\uFE0F<U+FE01>");
    assert.equal(visibleText(" \uFE0F"), " <U+FE0F>");
    assert.equal(visibleText("\uFE0F"), "<U+FE0F>");
    assert.equal(visibleText("a\u{E0100}"), "a<U+E0100>");
  });

  it("leaves ordinary text, accents, CJK and emoji alone", () => {
    const text = "Résumé 日本語 👍🏽 “quotes” — <U+0041> stays as typed";
    assert.equal(visibleText(text), text);
  });

  it("never lets a raw control or invisible character through", () => {
    let all = "";
    for (let cp = 0; cp < 0x3000; cp++) all += String.fromCodePoint(cp);
    for (let cp = 0xe0000; cp <= 0xe01ef; cp++) all += String.fromCodePoint(cp);
    all += "\uFEFF\uFFF9\uFFFA\uFFFB";
    assert.ok(inert(visibleText(all)));
    assert.ok(inert(visibleText(all, { multiline: true })));
  });
});

describe("hiddenCodePoints", () => {
  it("lists what visibleText would show, in order", () => {
    assert.deepEqual(hiddenCodePoints(`a\u200B\n${ESC}`), [0x200b, 0x0a, 0x1b]);
    assert.deepEqual(hiddenCodePoints(`a\u200B\n${ESC}`, { multiline: true }), [0x200b, 0x1b]);
    assert.deepEqual(hiddenCodePoints("plain"), []);
  });
});
