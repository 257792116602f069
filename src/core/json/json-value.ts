/** A JSON value as contractpin holds it in memory: plain objects, arrays and primitives. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

/** A JSON object. `__proto__` and the like are ordinary own members. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** True for a JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Sets `obj[key] = value` as an own data property. Plain assignment of
 * `__proto__` would change the prototype instead and lose the member.
 */
export function setMember<T>(obj: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__") {
    Object.defineProperty(obj, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else {
    obj[key] = value;
  }
}

/** Own member lookup that never reads the prototype chain. */
export function getMember(obj: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** Appends a member name to a JSON path such as `$.tools[2].inputSchema`. */
export function pathKey(path: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)
    ? `${path}.${key}`
    : `${path}[${JSON.stringify(key)}]`;
}
