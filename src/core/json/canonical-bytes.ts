import { canonicalizeAt } from "./canonical-json.js";
import { ContractpinError } from "../errors.js";
import { formatBytes, MAX_CANONICAL_BYTES } from "../limits.js";
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
  private buf: Buffer;
  /** Bytes written so far. */
  pos = 0;

  /**
   * Every write passes Buffer#utf8Write its exact length and checks the count
   * written: given no length, utf8Write writes nothing at all once the space
   * after the offset passes 2^31 - 1 bytes, which made every later digest in
   * the process sha256(""). The buffer never grows past `maxBytes`, and after
   * a value that would not fit it starts afresh at its initial size.
   *
   * @param maxBytes the largest document written (default {@link MAX_CANONICAL_BYTES});
   *   a larger one is CANON_TOO_LARGE. At most 2^31 - 1, the most utf8Write takes.
   * @param initialBytes the buffer's first size (default 64 KiB, or `maxBytes` if smaller).
   */
  constructor(
    private readonly maxBytes = MAX_CANONICAL_BYTES,
    private readonly initialBytes = Math.min(64 * 1024, maxBytes),
  ) {
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1 || maxBytes > 2 ** 31 - 1)
      throw new RangeError(`maxBytes must be from 1 to 2^31 - 1, not ${maxBytes}`);
    if (!Number.isSafeInteger(initialBytes) || initialBytes < 1 || initialBytes > maxBytes)
      throw new RangeError(`initialBytes must be from 1 to maxBytes, not ${initialBytes}`);
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  /** The buffer's current size in bytes: never more than the maximum. */
  get capacity(): number {
    return this.buf.length;
  }

  /**
   * Starts a new document. A buffer grown past RETAINED_BYTES for one large
   * value is let go, so that one huge tool does not pin its memory for the
   * rest of the process.
   */
  reset(): void {
    this.pos = 0;
    if (this.buf.length > RETAINED_BYTES) this.buf = Buffer.allocUnsafe(this.initialBytes);
  }

  /** The bytes from `start` to `end` (a view: valid until the next write). */
  bytes(start = 0, end = this.pos): Buffer {
    return this.buf.subarray(start, end);
  }

  /** Appends ASCII text that needs no escaping (punctuation, quoted field names). */
  raw(text: string): void {
    const n = text.length;
    if (this.pos + n > this.buf.length) this.grow(n);
    const buf = this.buf;
    const pos = this.pos;
    for (let i = 0; i < n; i++) buf[pos + i] = text.charCodeAt(i);
    this.pos = pos + n;
  }

  /** Appends the canonical form of `value`, which sits `depth` levels inside the document. */
  value(value: unknown, depth = 0): void {
    if (textPath.valuesLeft > 0) {
      textPath.valuesLeft--;
      this.text(canonicalizeAt(value, depth));
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
    if (n <= 32 && this.pos + n + 2 <= this.buf.length) {
      // Short strings (most keys and enum values): copy plain ASCII byte by byte,
      // which is cheaper than a call into the encoder. n + 2 bytes are enough
      // for that; anything else takes the general path below.
      const buf = this.buf;
      const pos = this.pos;
      buf[pos] = 0x22;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c < 0x20 || c >= 0x7f || c === 0x22 || c === 0x5c) break;
        buf[pos + 1 + i] = c;
      }
      if (i === n) {
        buf[pos + 1 + n] = 0x22;
        this.pos = pos + n + 2;
        return;
      }
    }
    if (NEEDS_ESCAPE.test(s) || !s.isWellFormed()) {
      // Rare: JSON.stringify escapes exactly as spec 3.5 for well-formed strings;
      // a lone surrogate goes to canonicalize, which rejects it.
      if (!s.isWellFormed()) this.slowPath(s);
      this.text(JSON.stringify(s));
      return;
    }
    const length = Buffer.byteLength(s, "utf8");
    if (this.pos + length + 2 > this.buf.length) this.grow(length + 2);
    this.buf[this.pos++] = 0x22;
    this.encode(s, length);
    this.buf[this.pos++] = 0x22;
  }

  private byte(b: number): void {
    if (this.pos >= this.buf.length) this.grow(1);
    this.buf[this.pos++] = b;
  }

  /** Appends text that is already canonical JSON. */
  private text(text: string): void {
    const length = Buffer.byteLength(text, "utf8");
    if (this.pos + length > this.buf.length) this.grow(length);
    this.encode(text, length);
  }

  /**
   * Encodes `s` as UTF-8 at the current position, exactly `length` bytes
   * (Buffer.byteLength of `s`; the space is there). The count written must be
   * that length: anything else is a write that went wrong, never a digest.
   */
  private encode(s: string, length: number): void {
    const written = utf8Write(this.buf, s, this.pos, length);
    if (written !== length) {
      this.startAfresh();
      throw new ContractpinError(
        "CANON_WRITE_FAILED",
        `cannot canonicalize: wrote ${written} of ${length} bytes of a string`,
      );
    }
    this.pos += length;
  }

  /**
   * Too deep, or not obviously JSON: canonicalize it with the general
   * canonicalizer, which either returns its canonical text or throws the
   * precise CANON_* error with the value's path.
   */
  private slowPath(v: unknown, depth = 0): void {
    this.text(canonicalizeAt(v, depth));
  }

  /**
   * Makes room for `extra` more bytes: doubles the buffer, up to the maximum.
   * A document that would pass the maximum is refused, and the writer starts
   * afresh, so that no later document inherits its state.
   */
  private grow(extra: number): void {
    const needed = this.pos + extra;
    if (needed > this.maxBytes) {
      this.startAfresh();
      throw new ContractpinError(
        "CANON_TOO_LARGE",
        `cannot canonicalize: the canonical form is larger than ${formatBytes(this.maxBytes)}`,
      );
    }
    let size = this.buf.length * 2;
    while (size < needed) size *= 2;
    const next = Buffer.allocUnsafe(Math.min(size, this.maxBytes));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  private startAfresh(): void {
    this.pos = 0;
    this.buf = Buffer.allocUnsafe(this.initialBytes);
  }
}

// Buffer#utf8Write skips Buffer#write's argument handling. The length is
// always given: without it, utf8Write takes the space left after the offset,
// and writes nothing when that is 2^31 bytes or more.
const utf8Write = (buf: Buffer, text: string, pos: number, length: number): number =>
  (buf as unknown as { utf8Write(s: string, offset: number, length: number): number }).utf8Write(
    text,
    pos,
    length,
  );

// A buffer larger than this is let go at the next reset (see reset).
const RETAINED_BYTES = 16 * 1024 * 1024;

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
