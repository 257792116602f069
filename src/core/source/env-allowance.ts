import { ContractpinError } from "../errors.js";
import { expandReferences, referencedVariables, type ServerSource } from "./server-source.js";

/**
 * What `verify --allow-env` allows: each variable the lock may refer to, mapped
 * to the origins it may be sent to, or to `undefined` when it may be used
 * anywhere (an entry without `=ORIGIN`).
 */
export type AllowedVariables = ReadonlyMap<string, ReadonlySet<string> | undefined>;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Parses `--allow-env` entries (each a comma-separated list; `where` names the
 * option or variable they came from, for errors): `NAME` allows a variable
 * anywhere, `NAME=ORIGIN` (for example `LINEAR_KEY=https://mcp.linear.app`)
 * only in the URL or headers of an HTTP server at that origin; several
 * `NAME=ORIGIN` entries for one name allow each origin. An entry that is not
 * one of these is not echoed (a value put there by mistake may be a secret).
 *
 * @throws ContractpinError USAGE naming the entry by its position.
 */
export function parseAllowedVariables(lists: readonly string[], where: string): AllowedVariables {
  const allowed = new Map<string, Set<string> | undefined>();
  const bare = new Set<string>();
  const entries = lists
    .flatMap((list) => list.split(","))
    .map((n) => n.trim())
    .filter((n) => n !== "");
  entries.forEach((entry, i) => {
    const eq = entry.indexOf("=");
    const name = eq === -1 ? entry : entry.slice(0, eq);
    const origin = eq === -1 ? undefined : originOf(entry.slice(eq + 1));
    if (!NAME.test(name) || (eq !== -1 && origin === undefined)) {
      throw new ContractpinError(
        "USAGE",
        `${where} takes variable names (letters, digits, _), each optionally bound to an ` +
          `origin as NAME=https://host[:port], separated by commas; entry ${i + 1} is not one ` +
          "(see 'contractpin verify --help')",
      );
    }
    if (origin === undefined) bare.add(name);
    const origins = allowed.get(name) ?? new Set<string>();
    if (origin !== undefined) origins.add(origin);
    allowed.set(name, origins);
  });
  for (const name of bare) {
    if (allowed.get(name)!.size > 0) {
      throw new ContractpinError(
        "USAGE",
        `${where} allows ${name} anywhere and also binds it to an origin: give one or the other`,
      );
    }
    allowed.set(name, undefined);
  }
  return allowed;
}

/** `text` as an origin (`https://host[:port]`, an optional `/` after it), or undefined. */
function originOf(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  if (text !== url.origin && text !== `${url.origin}/`) return undefined;
  return url.origin;
}

/**
 * Checks a definition against the variables it may refer to (`verify
 * --allow-env`), before anything of the server is started or contacted. A
 * variable bound to origins may appear only in an HTTP server's URL and
 * headers, and only when the URL (its references expanded from `env`) is at
 * one of those origins: a stdio server could send it anywhere.
 *
 * @throws ContractpinError ENV_NOT_ALLOWED naming the server and the first
 *   variable not allowed there (never its value).
 */
export function checkAllowedVariables(
  server: string,
  source: ServerSource,
  allowed: AllowedVariables,
  env: Readonly<Record<string, string | undefined>>,
): void {
  const names = referencedVariables(source);
  const denied = names.find((name) => !allowed.has(name));
  if (denied !== undefined) {
    const list = allowed.size > 0 ? [...allowed.keys()].join(",") : "none";
    throw new ContractpinError(
      "ENV_NOT_ALLOWED",
      `server ${server} refers to \${${denied}}, which the allowed variables (--allow-env or ` +
        `CONTRACTPIN_ALLOW_ENV: ${list}) do not include; it was not started`,
    );
  }
  for (const name of names) {
    const origins = allowed.get(name);
    if (origins === undefined) continue;
    const bound = [...origins].join(", ");
    if (source.transport !== "http") {
      throw new ContractpinError(
        "ENV_NOT_ALLOWED",
        `server ${server} is a ${source.transport} server and refers to \${${name}}, which ` +
          `--allow-env (or CONTRACTPIN_ALLOW_ENV) binds to ${bound}; it was not started`,
      );
    }
    const origin = urlOrigin(source.url, env);
    if (origin === undefined || !origins.has(origin)) {
      throw new ContractpinError(
        "ENV_NOT_ALLOWED",
        `server ${server} would send \${${name}} to ${origin ?? "a URL that cannot be expanded and parsed"}, but ` +
          `--allow-env (or CONTRACTPIN_ALLOW_ENV) binds it to ${bound}; it was not contacted`,
      );
    }
  }
}

/** The origin of a URL template once expanded, or undefined when it cannot be expanded or parsed. */
function urlOrigin(
  template: string,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  try {
    return new URL(expandReferences(template, env, "the URL")).origin;
  } catch {
    return undefined;
  }
}
