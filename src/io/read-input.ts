import { readFileSync } from "node:fs";
import { ContractpinError } from "../core/errors.js";

/**
 * Reads a file, or standard input for `-`, as raw bytes (decoding is the
 * strict parser's job). Files are read synchronously: a CLI has nothing else
 * to do meanwhile, and it saves the thread-pool round trip at start-up.
 */
export async function readInput(path: string): Promise<Uint8Array> {
  if (path === "-") return readStdin();
  try {
    return readFileSync(path);
  } catch (cause) {
    throw new ContractpinError("INPUT_UNREADABLE", `cannot read ${path}: ${reason(cause)}`, {
      cause,
    });
  }
}

async function readStdin(): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A short reason for a filesystem error: "no such file" rather than a stack. */
export function reason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOENT":
      return "no such file";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EISDIR":
      return "is a directory";
    default:
      return err instanceof Error ? err.message : String(err);
  }
}
