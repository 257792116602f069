// The TOML and YAML parsers, loaded the first time a config in that syntax is
// read. Most projects' configs are JSON, and `verify` reads the project's
// configs on every run (SPEC.md 12): loading both packages at start cost a
// clean verify more than its whole config check. `require` is the CLI
// bundle's own (CommonJS); the library build (ES modules) makes one.
import { createRequire } from "node:module";

type Toml = typeof import("smol-toml");
type Yaml = typeof import("js-yaml");

const load: NodeJS.Require =
  typeof require === "function" ? require : createRequire(import.meta.url);

let toml: Toml | undefined;
let yaml: Yaml | undefined;

/** smol-toml, loaded on first use. */
export function tomlParser(): Toml {
  return (toml ??= load("smol-toml") as Toml);
}

/** js-yaml, loaded on first use. */
export function yamlParser(): Yaml {
  return (yaml ??= load("js-yaml") as Yaml);
}
