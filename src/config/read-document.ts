import { positionOf } from "../core/json/text-position.js";
import { isContractpinError } from "../core/errors.js";
import type { JsonValue } from "../core/json/json-value.js";
import { parseJson } from "../core/json/strict-json.js";
import { configInvalid } from "./config-error.js";
import { stripJsonc } from "./jsonc.js";
import { tomlParser } from "./parsers.js";
import { readYaml } from "./yaml.js";

/** A config file's parsed content, and which syntax it was written in. */
export type ConfigDocument =
  | { syntax: "json"; value: JsonValue }
  | { syntax: "toml"; value: Record<string, unknown> }
  | { syntax: "yaml"; value: unknown };

/**
 * Parses a client config file: YAML when its name ends in `.yaml` or `.yml`
 * (Continue; see yaml.ts), else JSON or TOML told apart by content (a JSON
 * config opens with `{`, or with a comment in JSONC; Codex's TOML never does).
 *
 * JSON goes through the strict parser. Only when that fails with a syntax
 * error and the text has comments or trailing commas is it read again as
 * JSONC, through the same strict parser, so a duplicate key is still refused.
 *
 * @param file the file's name, for messages.
 * @throws ContractpinError CONFIG_INVALID naming the file and the error's
 *   position (byte offset, line and column). The message never quotes the
 *   file's text, which may hold secrets.
 */
export function readConfigDocument(bytes: Uint8Array, file: string): ConfigDocument {
  // YAML (Continue) is told by its name: a YAML file may look like TOML or JSON.
  if (/\.ya?ml$/i.test(file)) return { syntax: "yaml", value: readYaml(bytes, file) };
  return looksLikeJson(bytes)
    ? { syntax: "json", value: readJson(bytes, file) }
    : { syntax: "toml", value: readToml(bytes, file) };
}

function looksLikeJson(bytes: Uint8Array): boolean {
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < bytes.length && [0x20, 0x09, 0x0a, 0x0d].includes(bytes[i]!)) i++;
  return bytes[i] === 0x7b /* { */ || bytes[i] === 0x2f; /* / */
}

function readJson(bytes: Uint8Array, file: string): JsonValue {
  try {
    return parseJson(bytes);
  } catch (err) {
    if (!isContractpinError(err, "JSON_SYNTAX")) throw jsonError(err, bytes, file);
    const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
    const plain = stripJsonc(text);
    if (plain === text) throw jsonError(err, bytes, file);
    try {
      return parseJson(plain);
    } catch (again) {
      throw jsonError(again, bytes, file);
    }
  }
}

function jsonError(err: unknown, bytes: Uint8Array, file: string): Error {
  if (!isContractpinError(err)) return err as Error;
  return configInvalid(
    `${file}: not valid JSON: ${err.message}${positionOf(err.message, bytes)}`,
    err,
  );
}

function readToml(bytes: Uint8Array, file: string): Record<string, unknown> {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (err) {
    throw configInvalid(`${file}: not valid TOML: the file is not UTF-8`, err);
  }
  try {
    return tomlParser().parse(text);
  } catch (err) {
    if (!(err instanceof tomlParser().TomlError)) throw err;
    // The message's later lines quote the file around the error, and so may hold a
    // secret: keep only its first line, and do not keep the error as the cause.
    const reason = err.message.split("\n")[0]!.replace(/^Invalid TOML document:\s*/, "");
    throw configInvalid(
      `${file}: not valid TOML: ${reason} at line ${err.line}, column ${err.column}`,
    );
  }
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * A config file's document and its text, as wrap and the version bump of
 * upgrade both edit it: the text is kept byte for byte around each edit.
 *
 * @throws ContractpinError CONFIG_INVALID for a file that does not parse or is not UTF-8.
 */
export function readConfigText(
  bytes: Uint8Array,
  file: string,
): { doc: ConfigDocument; text: string } {
  const doc = readConfigDocument(bytes, file);
  try {
    return { doc, text: decoder.decode(bytes) };
  } catch (err) {
    throw configInvalid(`${file}: the file is not UTF-8`, err);
  }
}
