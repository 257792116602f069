/**
 * A value made on first use, then kept. For the regular expressions with
 * Unicode property classes (`\p{L}`, `\p{N}`, ...) of the findings rules:
 * V8 builds each one's character sets when it is created, a millisecond or
 * more apiece, and a clean `verify` loads those modules (its reports can show
 * findings) without calling them. Pure.
 */
export function lazy<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
