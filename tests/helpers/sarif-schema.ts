// The published SARIF 2.1.0 JSON schema (OASIS, errata 01; vendored with its
// origin and licence in tests/fixtures/sarif/), compiled by a real validator:
// Ajv for JSON Schema draft-04, with the formats (uri, uri-reference, ...).
import { readFileSync } from "node:fs";
import AjvDraft04 from "ajv-draft-04";
import ajvFormats from "ajv-formats";

const SCHEMA = JSON.parse(
  readFileSync(new URL("../fixtures/sarif/sarif-schema-2.1.0.json", import.meta.url), "utf8"),
);
// CommonJS packages: their `default` export is the class and the plugin.
const ajv = new AjvDraft04.default({ allErrors: true, strict: false });
ajvFormats.default(ajv);

const compiled = ajv.compile(SCHEMA);

/** Whether a parsed SARIF log is valid SARIF 2.1.0; {@link sarifErrors} says why not. */
export function validateSarif(log: unknown): boolean {
  return compiled(log);
}

/** The last validation's errors, as text for an assertion message. */
export function sarifErrors(): string {
  return JSON.stringify(compiled.errors, null, 2);
}
