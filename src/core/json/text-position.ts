/**
 * Where in a file a parse error is, for people: the strict parser reports a
 * byte offset ("at byte N"); editors want a line and a column.
 */

/** "line L, column C" (both 1-based, the column in characters) of a byte offset. */
export function lineColumn(bytes: Uint8Array, offset: number): string {
  // The default decoder drops a byte order mark, which is no column of the first line.
  const before = new TextDecoder("utf-8").decode(bytes.subarray(0, offset));
  const lines = before.split(/\r\n|\r|\n/);
  return `line ${lines.length}, column ${[...lines[lines.length - 1]!].length + 1}`;
}

/** " (line L, column C)" for a strict-parser message that names a byte offset, else "". */
export function positionOf(message: string, bytes: Uint8Array): string {
  const at = /at byte (\d+)/.exec(message);
  return at ? ` (${lineColumn(bytes, Number(at[1]))})` : "";
}
