import { canonicalizeAt } from "./canonical-json.js";
import { sortKeys } from "./sort-keys.js";

/**
 * Writes canonical JSON (contractpin-canonical-json/1) straight into a
 * reusable byte buffer, for hashing. This is the digest pipeline's hot path:
 * it makes no intermediate strings, so a field's bytes can be hashed on their
 * own and again as part of the tool's bytes without being canonicalized twice.
 * Output is byte-identical to `canonicalize` (the vectors check both), and it
 * rejects the same non-JSON values: shallow values are checked here, and
 * anything nested deeper than RECURSION_LIMIT is handed to `canonicalize`,
 * which walks iteratively and checks everything.
 *
 * A process's first values (see {@link textPath}) are written by
 * `canonicalize` instead (the checked, iterative writer) and only encoded
 * here. Before V8 has compiled anything, as in a short `verify`, that is the
 * faster of the two: it leaves string escaping to JSON.stringify, so it runs
 * fewer bytecodes per value, and one function gets compiled rather than
 * several. The byte loop is faster once compiled.
 */
export class CanonicalWriter {
  private buf = Buffer.allocUnsafe(64 * 1024);
  /** Bytes written so far. */
  pos = 0;

  /** Starts a new document. */
  reset(): void {
    this.pos = 0;
  }

  /** The bytes from `start` to `end` (a view: valid until the next write). */
  bytes(start = 0, end = this.pos): Buffer {
    return this.buf.subarray(start, end);
  }

  /** Appends ASCII text that needs no escaping (punctuation, quoted field names). */
  raw(text: string): void {
    const n = text.length;
    this.ensure(n);
    const buf = this.buf;
    const pos = this.pos;
    for (let i = 0; i < n; i++) buf[pos + i] = text.charCodeAt(i);
    this.pos = pos + n;
  }

  /** Appends the canonical form of `value`, which sits `depth` levels inside the document. */
  value(value: unknown, depth = 0): void {
    if (textPath.valuesLeft > 0) {
      textPath.valuesLeft--;
      const text = canonicalizeAt(value, depth);
      this.ensure(text.length * 3);
      this.pos += utf8Write(this.buf, text, this.pos);
      return;
    }
    this.write(value, depth);
  }

  private write(v: unknown, depth: number): void {
    switch (typeof v) {
      case "string":
        this.string(v);
        return;
      case "number":
        if (!Number.isFinite(v)) this.slowPath(v);
        this.raw("" + v);
        return;
      case "boolean":
        this.raw(v ? "true" : "false");
        return;
      case "object":
        if (v === null) {
          this.raw("null");
          return;
        }
        if (depth >= RECURSION_LIMIT) {
          this.slowPath(v, depth);
          return;
        }
        if (Array.isArray(v)) {
          if (Object.getPrototypeOf(v) !== Array.prototype) this.slowPath(v, depth);
          this.byte(0x5b);
          for (let i = 0; i < v.length; i++) {
            if (i > 0) this.byte(0x2c);
            if (!(i in v)) this.slowPath(v, depth);
            this.write(v[i], depth + 1);
          }
          this.byte(0x5d);
          return;
        }
        this.object(v as Record<string, unknown>, depth);
        return;
      default:
        this.slowPath(v);
    }
  }

  private object(obj: Record<string, unknown>, depth: number): void {
    const proto: unknown = Object.getPrototypeOf(obj);
    if (proto !== Object.prototype && proto !== null) this.slowPath(obj, depth);
    // Symbol keys are not JSON: they must fail loudly rather than vanish.
    if (Object.getOwnPropertySymbols(obj).length > 0) this.slowPath(obj, depth);
    const keys = Object.keys(obj);
    sortKeys(keys);
    this.byte(0x7b);
    for (let i = 0; i < keys.length; i++) {
      if (i > 0) this.byte(0x2c);
      this.string(keys[i]!);
      this.byte(0x3a);
      this.write(obj[keys[i]!], depth + 1);
    }
    this.byte(0x7d);
  }

  private string(s: string): void {
    const n = s.length;
    this.ensure(n * 3 + 2);
    const buf = this.buf;
    let pos = this.pos;
    buf[pos++] = 0x22;
    if (n <= 32) {
      // Short strings (most keys and enum values): copy plain ASCII byte by byte,
      // which is cheaper than a call into the encoder.
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c < 0x20 || c >= 0x7f || c === 0x22 || c === 0x5c) break;
        buf[pos + i] = c;
      }
      if (i === n) {
        buf[pos + n] = 0x22;
        this.pos = pos + n + 1;
        return;
      }
    }
    if (NEEDS_ESCAPE.test(s) || !s.isWellFormed()) {
      // Rare: JSON.stringify escapes exactly as spec 3.5 for well-formed strings;
      // a lone surrogate goes to canonicalize, which rejects it.
      if (!s.isWellFormed()) this.slowPath(s);
      const quoted = JSON.stringify(s);
      this.ensure(quoted.length * 3);
      this.pos += utf8Write(this.buf, quoted, this.pos);
      return;
    }
    pos += utf8Write(buf, s, pos);
    buf[pos++] = 0x22;
    this.pos = pos;
  }

  private byte(b: number): void {
    if (this.pos >= this.buf.length) this.ensure(1);
    this.buf[this.pos++] = b;
  }

  /**
   * Too deep, or not obviously JSON: canonicalize it with the general
   * canonicalizer, which either returns its canonical text or throws the
   * precise CANON_* error with the value's path.
   */
  private slowPath(v: unknown, depth = 0): void {
    const text = canonicalizeAt(v, depth);
    this.ensure(text.length * 3);
    this.pos += utf8Write(this.buf, text, this.pos);
  }

  private ensure(extra: number): void {
    if (this.pos + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + extra) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
}

// Buffer#utf8Write skips Buffer#write's argument handling; the space is ensured first.
const utf8Write = (buf: Buffer, text: string, pos: number): number =>
  (buf as unknown as { utf8Write(s: string, offset: number): number }).utf8Write(text, pos);

// Characters a JSON string must escape: the quote, the backslash, and U+0000 to U+001F.
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;

const RECURSION_LIMIT = 200;

/**
 * How many more values, in this process, CanonicalWriter hands to
 * `canonicalize` before its byte loop takes over. It starts at about the
 * contract fields of a 100-tool server: a run that size ends before V8 has
 * compiled the byte loop. Both write the same bytes and reject the same
 * values; the tests set this to run vectors and random values through each.
 */
export const textPath = { valuesLeft: 1000 };
