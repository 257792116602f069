import { statSync } from "node:fs";

/**
 * What identifies one version of a file: device, inode, size, modification
 * and change times (ns); "" when it cannot be read. A file replaced, written
 * or touched since has another stamp.
 */
export function fileStamp(path: string): string {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return "";
  }
}
