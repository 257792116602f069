// RFC 6901 JSON Pointers, as reports and findings name a place in a contract.

/** One reference token appended to a JSON Pointer, escaped by RFC 6901 (`~` as `~0`, `/` as `~1`). */
export function appendPointer(pointer: string, token: string | number): string {
  return `${pointer}/${String(token).replaceAll("~", "~0").replaceAll("/", "~1")}`;
}

/** The reference tokens of a JSON Pointer, unescaped (`~1` before `~0`, as RFC 6901 says). */
export function pointerTokens(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
}
