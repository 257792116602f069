import { configInvalid } from "./config-error.js";
import { yamlParser } from "./parsers.js";

/**
 * Parses a YAML config (Continue's `config.yaml`, `.continue/mcpServers/*.yaml`)
 * with the YAML 1.2 core schema: strings, numbers, booleans, null, lists and
 * maps only (no timestamps, no `<<` merge keys). A duplicate key is refused,
 * as in JSON: js-yaml throws on one unless told otherwise.
 *
 * @throws ContractpinError CONFIG_INVALID naming the file, the reason and the
 *   line and column, never quoting the file's text (which may hold secrets).
 */
export function readYaml(bytes: Uint8Array, file: string): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (err) {
    throw configInvalid(`${file}: not valid YAML: the file is not UTF-8`, err);
  }
  const { CORE_SCHEMA, load, YAMLException } = yamlParser();
  try {
    return load(text, { schema: CORE_SCHEMA, filename: file });
  } catch (err) {
    if (!(err instanceof YAMLException)) throw err;
    // The message quotes the file around the error: keep only the reason and the position.
    const at =
      err.mark === undefined ? "" : ` at line ${err.mark.line + 1}, column ${err.mark.column + 1}`;
    throw configInvalid(`${file}: not valid YAML: ${err.reason}${at}`);
  }
}
