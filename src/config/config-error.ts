import { ContractpinError } from "../core/errors.js";

/** A client config file that cannot be read, parsed or understood. */
export function configInvalid(message: string, cause?: unknown): ContractpinError {
  return new ContractpinError("CONFIG_INVALID", message, { cause });
}

/** One server name defined by two config files. */
export function configConflict(message: string): ContractpinError {
  return new ContractpinError("CONFIG_CONFLICT", message);
}
