// Every command's --help ends with two or three examples of that command, as
// a user would type them.
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { it } from "node:test";
import { ROOT, runCli } from "../helpers/cli.js";

const commands = readdirSync(join(ROOT, "src/cli/commands"))
  .filter((f) => f.endsWith(".ts"))
  .map((f) => f.slice(0, -3));

it("every command's --help ends with 2 or 3 examples of it", () => {
  assert.ok(commands.length >= 18, commands.join(", "));
  for (const command of commands) {
    const r = runCli([command, "--help"]);
    assert.equal(r.code, 0, `${command}: ${r.stderr}`);
    const lines = r.stdout.trimEnd().split("\n");
    const at = lines.lastIndexOf("Examples:");
    assert.ok(at !== -1, `${command} --help has no Examples:`);
    const examples = lines.slice(at + 1);
    assert.ok(examples.length >= 2 && examples.length <= 3, `${command}: ${examples.join(" | ")}`);
    for (const example of examples)
      assert.match(
        example,
        new RegExp(`^ {2}.*\\bcontractpin ${command}\\b`),
        `${command}: ${example}`,
      );
  }
});
