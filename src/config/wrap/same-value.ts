/**
 * Deep equality of parsed config values (JSON from the strict parser, TOML
 * from smol-toml): objects by their own keys in any order and whatever their
 * prototype, dates by their text, numbers with Object.is (TOML has nan).
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (a instanceof Date || b instanceof Date) return String(a) === String(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((v, i) => sameValue(v, b[i]))
    );
  }
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = Object.keys(ra);
  return (
    keys.length === Object.keys(rb).length &&
    keys.every((k) => Object.hasOwn(rb, k) && sameValue(ra[k], rb[k]))
  );
}

/** `value` with the member at `path` set to `replacement` (copied along the path, the rest shared). */
export function withMember(value: unknown, path: readonly string[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  const obj = value as Record<string, unknown>;
  const copy: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(obj)) copy[key] = obj[key];
  copy[head!] = withMember(Object.hasOwn(obj, head!) ? obj[head!] : undefined, rest, replacement);
  return copy;
}

/** The member at `path`, or undefined. */
export function memberAt(value: unknown, path: readonly string[]): unknown {
  let at = value;
  for (const key of path) {
    if (typeof at !== "object" || at === null || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}
