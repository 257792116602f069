import { Buffer, isUtf8 } from "node:buffer";
import { ContractpinError, type JsonErrorCode } from "../errors.js";
import { pathKey, type JsonObject, type JsonValue } from "./json-value.js";
import {
  abbreviate,
  firstInvalidUtf8,
  hex4,
  loneSurrogateInString,
  parseHex4,
} from "./json-text.js";
import { parseNative } from "./native-json.js";

const WHITESPACE = /[ \t\n\r]*/y;
// A run of string content that needs no decoding: no quote, backslash or control character.
// eslint-disable-next-line no-control-regex
const PLAIN_RUN = /[^"\\\u0000-\u001f]*/y;

/** The deepest nesting of arrays and objects accepted. Deeper input is JSON_TOO_DEEP. */
export const MAX_DEPTH = 10_000;

/** Options for {@link parseJson}. */
export interface ParseOptions {
  /** Deepest nesting accepted (default {@link MAX_DEPTH}). */
  maxDepth?: number;
  /**
   * Skip the native fast path and parse character by character (default
   * false). The result is the same either way; this is for comparing them.
   */
  characterLevel?: boolean;
}

/**
 * Parses JSON text strictly: RFC 8259 grammar plus the rejections of spec 3.3
 * and 3.8. Rejects duplicate member names (compared after unescaping), lone
 * surrogates in strings and names, numbers that overflow to ±Infinity,
 * invalid UTF-8 and trailing content. `__proto__` is kept as an own member.
 * One leading byte order mark is ignored. Never recurses, so nesting up to
 * `maxDepth` cannot overflow the stack.
 *
 * Most text is parsed by V8's JSON.parse, with the rest of these rules proved
 * on its result (native-json.ts); text it cannot prove clean, including all
 * invalid text, goes through the character-level parser here, which also
 * names the error and where it is.
 *
 * @param input JSON text, as UTF-8 bytes or as a string.
 * @throws ContractpinError with a JSON_* code naming what is wrong and where.
 */
export function parseJson(input: Uint8Array | string, options: ParseOptions = {}): JsonValue {
  let text: string;
  if (typeof input === "string") {
    if (!input.isWellFormed()) throw loneSurrogateInString(input);
    text = input;
  } else {
    // isUtf8 validates strictly (no overlong forms, no encoded surrogates, no
    // truncation) at memory speed; only then is decoding lossless.
    if (!isUtf8(input)) {
      throw new ContractpinError(
        "JSON_INVALID_UTF8",
        `invalid UTF-8 at byte ${firstInvalidUtf8(input)}`,
      );
    }
    text = Buffer.from(input.buffer, input.byteOffset, input.byteLength).toString("utf8");
  }
  const maxDepth = options.maxDepth ?? MAX_DEPTH;
  if (options.characterLevel !== true) {
    const value = parseNative(text, maxDepth);
    if (value !== undefined) return value;
  }
  return new Parser(text, maxDepth).parse();
}

class Parser {
  private i: number;
  // The open containers, innermost last; `keys[d]` is the member being read in
  // containers[d] when that is an object ("" for arrays).
  private readonly containers: (JsonValue[] | JsonObject)[] = [];
  private readonly keys: string[] = [];

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {
    this.i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  }

  parse(): JsonValue {
    const text = this.text;
    const containers = this.containers;
    const keys = this.keys;
    let value: JsonValue;
    this.skipWs();
    for (;;) {
      // Read one value, or open a container and loop to read its first element.
      const c = text.charCodeAt(this.i);
      if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
        if (containers.length >= this.maxDepth) {
          this.fail("JSON_TOO_DEEP", `nesting deeper than ${this.maxDepth} levels`);
        }
        this.i++;
        this.skipWs();
        if (c === 0x7b) {
          const obj: JsonObject = {};
          if (text.charCodeAt(this.i) === 0x7d /* } */) {
            this.i++;
            value = obj;
          } else {
            containers.push(obj);
            keys.push(this.readKey(obj));
            continue;
          }
        } else {
          const arr: JsonValue[] = [];
          if (text.charCodeAt(this.i) === 0x5d /* ] */) {
            this.i++;
            value = arr;
          } else {
            containers.push(arr);
            keys.push("");
            continue;
          }
        }
      } else if (c === 0x22 /* " */) {
        value = this.readString();
      } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
        value = this.readNumber();
      } else if (c === 0x74 /* t */) {
        value = this.readLiteral("true", true);
      } else if (c === 0x66 /* f */) {
        value = this.readLiteral("false", false);
      } else if (c === 0x6e /* n */) {
        value = this.readLiteral("null", null);
      } else {
        this.fail(
          "JSON_SYNTAX",
          this.i >= text.length ? "unexpected end of input" : `unexpected ${this.describeChar()}`,
        );
      }

      // A value is complete: store it in its container, then close finished containers.
      for (;;) {
        const depth = containers.length;
        if (depth === 0) {
          this.skipWs();
          if (this.i < text.length)
            this.fail("JSON_TRAILING_CONTENT", "unexpected content after the JSON value");
          return value;
        }
        const top = containers[depth - 1]!;
        this.skipWs();
        const c2 = text.charCodeAt(this.i);
        if (Array.isArray(top)) {
          top.push(value);
          if (c2 === 0x2c /* , */) {
            this.i++;
            this.skipWs();
            break;
          }
          if (c2 !== 0x5d /* ] */)
            this.fail("JSON_SYNTAX", `expected ',' or ']' but found ${this.describeChar()}`);
        } else {
          const key = keys[depth - 1]!;
          if (key === "__proto__") {
            Object.defineProperty(top, key, {
              value,
              writable: true,
              enumerable: true,
              configurable: true,
            });
          } else {
            top[key] = value;
          }
          if (c2 === 0x2c /* , */) {
            this.i++;
            this.skipWs();
            keys[depth - 1] = this.readKey(top);
            break;
          }
          if (c2 !== 0x7d /* } */)
            this.fail("JSON_SYNTAX", `expected ',' or '}' but found ${this.describeChar()}`);
        }
        this.i++;
        keys.pop();
        value = containers.pop()!;
      }
    }
  }

  /**
   * Reads `"name"` and the `:` after it, leaving the position at the member's
   * value. A name that `obj` already has is a duplicate, reported where it starts.
   */
  private readKey(obj: JsonObject): string {
    const start = this.i;
    if (this.text.charCodeAt(start) !== 0x22) {
      this.fail(
        "JSON_SYNTAX",
        `expected a member name in double quotes but found ${this.describeChar()}`,
      );
    }
    const key = this.readString();
    // A parsed value is never undefined, so an own member reads as defined;
    // the hasOwn check only runs for names inherited from Object.prototype.
    if (obj[key] !== undefined && Object.hasOwn(obj, key)) {
      this.keys[this.containers.length - 1] = key;
      this.failAt(start, "JSON_DUPLICATE_KEY", `duplicate member name ${JSON.stringify(key)}`);
    }
    this.skipWs();
    if (this.text.charCodeAt(this.i) !== 0x3a /* : */) {
      this.fail("JSON_SYNTAX", `expected ':' after member name but found ${this.describeChar()}`);
    }
    this.i++;
    this.skipWs();
    return key;
  }

  private skipWs(): void {
    const text = this.text;
    const i = this.i;
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
    // A run of whitespace (a pretty-printed lock's indentation) is skipped by
    // the regex engine: far faster than a loop in a short-lived process.
    const next = text.charCodeAt(i + 1);
    if (next !== 0x20 && next !== 0x0a && next !== 0x0d && next !== 0x09) {
      this.i = i + 1;
      return;
    }
    WHITESPACE.lastIndex = i;
    WHITESPACE.test(text);
    this.i = WHITESPACE.lastIndex;
  }

  private readString(): string {
    const text = this.text;
    const start = this.i + 1;
    // Short strings (most names) are scanned here; the rest of a longer one by
    // the regex engine, which is much faster in a short-lived process.
    const limit = start + 16;
    let j = start;
    for (; j < limit; j++) {
      const c = text.charCodeAt(j);
      if (c === 0x22) {
        this.i = j + 1;
        return text.slice(start, j);
      }
      if (c === 0x5c || c < 0x20 || c !== c) return this.readEscapedString(start, j);
    }
    PLAIN_RUN.lastIndex = j;
    PLAIN_RUN.test(text);
    j = PLAIN_RUN.lastIndex;
    if (text.charCodeAt(j) === 0x22) {
      this.i = j + 1;
      return text.slice(start, j);
    }
    return this.readEscapedString(start, j);
  }

  /** The slow path: a string with escapes (or an error), continuing from `j`. */
  private readEscapedString(start: number, j: number): string {
    const text = this.text;
    let out = text.slice(start, j);
    let sawSurrogateEscape = false;
    for (;;) {
      const c = text.charCodeAt(j);
      if (c === 0x22) break;
      if (c !== c) {
        this.i = j;
        this.fail("JSON_SYNTAX", "unterminated string");
      }
      if (c < 0x20) {
        this.i = j;
        this.fail("JSON_SYNTAX", `unescaped control character U+${hex4(c)} in string`);
      }
      if (c !== 0x5c) {
        let k = j + 1;
        let d = text.charCodeAt(k);
        while (d !== 0x22 && d !== 0x5c && d >= 0x20) d = text.charCodeAt(++k);
        out += text.slice(j, k);
        j = k;
        continue;
      }
      const e = text.charCodeAt(j + 1);
      j += 2;
      switch (e) {
        case 0x22:
          out += '"';
          break;
        case 0x5c:
          out += "\\";
          break;
        case 0x2f:
          out += "/";
          break;
        case 0x62:
          out += "\b";
          break;
        case 0x66:
          out += "\f";
          break;
        case 0x6e:
          out += "\n";
          break;
        case 0x72:
          out += "\r";
          break;
        case 0x74:
          out += "\t";
          break;
        case 0x75: {
          const code = parseHex4(text, j);
          if (code < 0) {
            this.i = j - 2;
            this.fail("JSON_SYNTAX", "invalid \\u escape: expected four hex digits");
          }
          if (code >= 0xd800 && code <= 0xdfff) sawSurrogateEscape = true;
          out += String.fromCharCode(code);
          j += 4;
          break;
        }
        default:
          this.i = j - 2;
          this.fail("JSON_SYNTAX", "invalid escape sequence in string");
      }
    }
    if (sawSurrogateEscape && !out.isWellFormed()) {
      this.i = start - 1;
      this.fail(
        "JSON_LONE_SURROGATE",
        "string contains a lone surrogate escape (not valid Unicode)",
      );
    }
    this.i = j + 1;
    return out;
  }

  private readNumber(): number {
    const text = this.text;
    const start = this.i;
    let j = start;
    let c = text.charCodeAt(j);
    if (c === 0x2d) c = text.charCodeAt(++j);
    if (c === 0x30) {
      c = text.charCodeAt(++j);
      if (c >= 0x30 && c <= 0x39)
        this.failAt(j, "JSON_SYNTAX", "leading zeros are not allowed in numbers");
    } else if (c >= 0x31 && c <= 0x39) {
      do c = text.charCodeAt(++j);
      while (c >= 0x30 && c <= 0x39);
    } else {
      this.failAt(j, "JSON_SYNTAX", "expected a digit");
    }
    let simple = true;
    if (c === 0x2e /* . */) {
      simple = false;
      c = text.charCodeAt(++j);
      if (!(c >= 0x30 && c <= 0x39))
        this.failAt(j, "JSON_SYNTAX", "expected a digit after the decimal point");
      do c = text.charCodeAt(++j);
      while (c >= 0x30 && c <= 0x39);
    }
    if (c === 0x65 || c === 0x45 /* e E */) {
      simple = false;
      c = text.charCodeAt(++j);
      if (c === 0x2b || c === 0x2d) c = text.charCodeAt(++j);
      if (!(c >= 0x30 && c <= 0x39))
        this.failAt(j, "JSON_SYNTAX", "expected a digit in the exponent");
      do c = text.charCodeAt(++j);
      while (c >= 0x30 && c <= 0x39);
    }
    this.i = j;
    // Short integers are exact in a double; everything else goes through Number(),
    // which rounds a valid JSON number text correctly.
    if (simple && j - start <= 15) {
      let k = start;
      const negative = text.charCodeAt(k) === 0x2d;
      if (negative) k++;
      let n = 0;
      for (; k < j; k++) n = n * 10 + (text.charCodeAt(k) - 0x30);
      return negative ? -n : n;
    }
    const n = Number(text.slice(start, j));
    if (n === Infinity || n === -Infinity) {
      this.failAt(
        start,
        "JSON_NUMBER_OVERFLOW",
        `number ${abbreviate(text.slice(start, j))} is too large for a double`,
      );
    }
    return n;
  }

  private readLiteral<T extends JsonValue>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.i))
      this.fail("JSON_SYNTAX", `unexpected ${this.describeChar()}`);
    this.i += word.length;
    return value;
  }

  private describeChar(): string {
    if (this.i >= this.text.length) return "end of input";
    const cp = this.text.codePointAt(this.i)!;
    return cp >= 0x21 && cp <= 0x7e ? `'${String.fromCodePoint(cp)}'` : `U+${hex4(cp)}`;
  }

  private failAt(i: number, code: JsonErrorCode, message: string): never {
    this.i = i;
    return this.fail(code, message);
  }

  /** Throws with the byte offset of the current position and the JSON path being read. */
  private fail(code: JsonErrorCode, message: string): never {
    const byte = new TextEncoder().encode(this.text.slice(0, this.i)).length;
    throw new ContractpinError(
      code,
      `${message} at byte ${byte} (${abbreviate(this.path(), 120)})`,
    );
  }

  /** The JSON path of the value being read, from the open containers. */
  private path(): string {
    let path = "$";
    this.containers.forEach((c, d) => {
      if (Array.isArray(c)) path += `[${c.length}]`;
      else if (d < this.keys.length) path = pathKey(path, this.keys[d]!);
    });
    return path;
  }
}
