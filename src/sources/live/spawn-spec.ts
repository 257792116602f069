import { resolve } from "node:path";
import { expandReferences, type StdioSource } from "../../core/source/server-source.js";
import type { ReadContext } from "../read-context.js";
import { RUNNER_ENV, withheldBecause } from "./runner-env.js";
import type { SpawnSpec } from "./spawn-server.js";

// What a stdio server inherits from contractpin's environment, as the MCP
// library does: enough to run, and none of CI's other secrets.
export const INHERITED_ENV = [
  "HOME",
  "LOGNAME",
  "PATH",
  "SHELL",
  "TERM",
  "USER",
  "TMPDIR",
  "LANG",
  "SYSTEMROOT",
];

/**
 * The variables a stdio server takes from contractpin's environment, as they
 * are there: INHERITED_ENV, and each RUNNER_ENV variable whose value is what
 * that variable holds and carries no credential (runner-env.ts). Each runner
 * variable withheld is told to `withheld` with the reason (never its value).
 */
export function inheritedEnv(
  env: Readonly<Record<string, string | undefined>>,
  withheld: (name: string, why: string) => void = () => undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  for (const name of RUNNER_ENV) {
    const value = env[name];
    if (value === undefined || value === "") continue;
    const why = withheldBecause(name, value);
    if (why === undefined) out[name] = value;
    else withheld(name, why);
  }
  return out;
}

// The environments whose withheld variables were told already: once per run, not per server.
const told = new WeakMap<object, Set<string>>();

/**
 * What a stdio server is started with: its argv, env and cwd with every
 * `${VAR}` expanded, and only INHERITED_ENV and RUNNER_ENV taken from
 * contractpin's own environment. verify and the guard start servers by these same rules.
 * A runner variable withheld is said once per run through `ctx.warn`, when
 * given, unless the server's own env sets that variable.
 *
 * @throws ContractpinError ENV_UNSET for a reference to an unset or empty variable.
 */
export function stdioSpawnSpec(
  source: StdioSource,
  ctx: Pick<ReadContext, "env" | "lockDir"> & { warn?: ReadContext["warn"] },
): SpawnSpec {
  const where = (what: string) => `${what} of the command`;
  const argv = source.command.map((arg, i) =>
    expandReferences(arg, ctx.env, where(`argument ${i}`)),
  );
  const env = inheritedEnv(ctx.env, (name, why) => {
    const seen = told.get(ctx.env) ?? new Set<string>();
    told.set(ctx.env, seen);
    if (ctx.warn === undefined || seen.has(name) || source.env?.[name] !== undefined) return;
    seen.add(name);
    ctx.warn(
      `${name} is not passed to stdio servers: ${why}; to pass it anyway, add --env '${name}=\${${name}}'`,
    );
  });
  for (const [name, value] of Object.entries(source.env ?? {}))
    env[name] = expandReferences(value, ctx.env, `env ${name}`);
  const cwd = resolve(ctx.lockDir, source.cwd ?? ".");
  return { command: argv[0]!, args: argv.slice(1), env, cwd };
}
