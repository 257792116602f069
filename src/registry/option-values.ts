/**
 * The values a runner's options give (`--opt V`, `--opt=V`, `-o V`, `-oV`),
 * in the order given, for the options named.
 */
export function optionValues(args: readonly string[], ...names: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.indexOf("=");
    const short = names.find((n) => /^-[A-Za-z]$/.test(n) && arg.startsWith(n) && arg.length > 2);
    if (names.includes(arg)) {
      if (i + 1 < args.length) out.push(args[++i]!);
    } else if (arg.startsWith("--") && eq > 0 && names.includes(arg.slice(0, eq))) {
      out.push(arg.slice(eq + 1));
    } else if (short !== undefined) {
      out.push(arg.slice(2));
    }
  }
  return out;
}

/** A boolean setting's variable as pip and uv read it (`1`, `true`, `yes`, `on`). */
export function truthy(value: string | undefined): boolean {
  return value !== undefined && /^(1|true|yes|on)$/i.test(value);
}
