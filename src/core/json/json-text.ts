// Small helpers of the strict parser: hex escapes, and the precise location
// of an error, computed only once something is wrong.
import { ContractpinError } from "../errors.js";

/** The value of four hex digits at `j`, or -1 when they are not hex. */
export function parseHex4(text: string, j: number): number {
  let code = 0;
  for (let k = j; k < j + 4; k++) {
    const h = text.charCodeAt(k);
    const v =
      h >= 0x30 && h <= 0x39
        ? h - 0x30
        : h >= 0x61 && h <= 0x66
          ? h - 0x57
          : h >= 0x41 && h <= 0x46
            ? h - 0x37
            : -1;
    if (v < 0) return -1;
    code = code * 16 + v;
  }
  return code;
}

/** A code unit as four uppercase hex digits, for messages. */
export function hex4(code: number): string {
  return code.toString(16).toUpperCase().padStart(4, "0");
}

/** `s`, cut in the middle when longer than `max`, for messages. */
export function abbreviate(s: string, max = 40): string {
  return s.length > max ? `${s.slice(0, max / 2 - 2)}...${s.slice(-(max / 2 - 1))}` : s;
}

/** The error for a JavaScript string with an unpaired surrogate, naming where it is. */
export function loneSurrogateInString(text: string): ContractpinError {
  let i = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) break;
  }
  return new ContractpinError(
    "JSON_LONE_SURROGATE",
    `text contains a lone surrogate at UTF-16 index ${i}`,
  );
}

/** Byte offset of the first malformed UTF-8 sequence (error path only). */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let lo = 0;
  let hi = bytes.length;
  // The longest valid prefix, found by bisection with the fatal decoder; it
  // can stop inside a valid sequence, so step back to that sequence's start.
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, mid), { stream: true });
      lo = mid;
    } catch {
      hi = mid - 1;
    }
  }
  return lo;
}
