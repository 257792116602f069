/**
 * A hint for a stdio server that failed naming an environment variable that
 * contractpin has but did not pass to it (servers get only a few variables
 * and the lock's `env`): the exact option that passes it, as a reference.
 * Only names set in contractpin's environment count, so an error code such
 * as ERR_MODULE_NOT_FOUND in a stack trace is never taken for one.
 */
export function withheldEnvHint(
  lines: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  passed: ReadonlySet<string>,
): string | undefined {
  const named = new Set<string>();
  for (const line of lines) {
    for (const [name] of line.matchAll(/\b[A-Za-z_][A-Za-z0-9_]*\b/g)) {
      if (!passed.has(name) && env[name] !== undefined && /[A-Z]/.test(name)) named.add(name);
    }
  }
  if (named.size === 0) return undefined;
  const names = [...named].sort();
  const options = names.map((n) => `--env '${n}=\${${n}}'`).join(" ");
  return `it names ${names.join(", ")}, which contractpin has but does not pass to servers: add ${options} to pass ${names.length === 1 ? "it" : "them"}`;
}
