import { visibleText } from "../core/visible-text.js";

let depth = 0;
let original: typeof console.warn | undefined;
let dropping = 0;
// "[mcp-sdk] OAuth "invalid_client" — retrying authorization ...": the error that follows says it.
const RETRY_NOTE = /^\[mcp-sdk\] OAuth "/;

/**
 * Runs `work` with the MCP library's console warnings (which may quote an
 * authorization server's `error_description`) sanitised by visibleText,
 * each as one line on stderr. With `dropRetryNotes` (a non-interactive flow,
 * whose failure is reported anyway), the library's note that it retries after
 * an OAuth error is left out.
 */
export async function quietLibraryWarnings<T>(
  work: () => Promise<T>,
  dropRetryNotes = false,
): Promise<T> {
  if (dropRetryNotes) dropping++;
  if (depth++ === 0) {
    original = console.warn;
    console.warn = (...args: unknown[]) => {
      const text = args.map(String).join(" ");
      if (dropping > 0 && RETRY_NOTE.test(text)) return;
      process.stderr.write(`contractpin: ${visibleText(text)}\n`);
    };
  }
  try {
    return await work();
  } finally {
    if (dropRetryNotes) dropping--;
    if (--depth === 0 && original !== undefined) console.warn = original;
  }
}
