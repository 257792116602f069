import { resolve } from "node:path";
import { expandReferences, type StdioSource } from "../../core/server-source.js";
import type { ReadContext } from "../read-tools.js";
import type { SpawnSpec } from "./stdio-transport.js";

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
 * What a stdio server is started with: its argv, env and cwd with every
 * `${VAR}` expanded, and only INHERITED_ENV taken from contractpin's own
 * environment. verify and the guard start servers by these same rules.
 *
 * @throws ContractpinError ENV_UNSET for a reference to an unset or empty variable.
 */
export function stdioSpawnSpec(
  source: StdioSource,
  ctx: Pick<ReadContext, "env" | "lockDir">,
): SpawnSpec {
  const where = (what: string) => `${what} of the command`;
  const argv = source.command.map((arg, i) =>
    expandReferences(arg, ctx.env, where(`argument ${i}`)),
  );
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = ctx.env[name];
    if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(source.env ?? {}))
    env[name] = expandReferences(value, ctx.env, `env ${name}`);
  const cwd = resolve(ctx.lockDir, source.cwd ?? ".");
  return { command: argv[0]!, args: argv.slice(1), env, cwd };
}
