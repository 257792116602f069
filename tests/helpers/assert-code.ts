import assert from "node:assert/strict";
import { isContractpinError } from "../../src/core/errors.js";

/** Asserts that `fn` throws a ContractpinError with `code`, and returns its message. */
export function throwsCode(fn: () => unknown, code: string): string {
  let message = "";
  assert.throws(fn, (err: unknown) => {
    assert.ok(isContractpinError(err), `expected a ContractpinError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    message = err.message;
    return true;
  });
  return message;
}
