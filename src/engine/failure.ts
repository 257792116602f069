import { isContractpinError } from "../core/errors.js";

/** An error that carries extra lines for people, such as a server's last stderr lines. */
export interface WithDetail {
  detail?: string[];
}

/** One line (and any detail lines) that say why a server could not be read or pinned. */
export function failureLines(err: unknown): { message: string; detail: string[] } {
  const detail = (err as WithDetail | undefined)?.detail ?? [];
  if (isContractpinError(err)) return { message: err.message, detail };
  const message = err instanceof Error ? err.message : String(err);
  return { message: `internal error: ${message}`, detail };
}
