import { visibleText } from "../core/visible-text.js";

let depth = 0;
let original: typeof console.warn | undefined;

/**
 * Runs `work` with the MCP library's console warnings (which may quote an
 * authorization server's `error_description`) sanitised by visibleText,
 * each as one line on stderr.
 */
export async function quietLibraryWarnings<T>(work: () => Promise<T>): Promise<T> {
  if (depth++ === 0) {
    original = console.warn;
    console.warn = (...args: unknown[]) => {
      process.stderr.write(`contractpin: ${visibleText(args.map(String).join(" "))}\n`);
    };
  }
  try {
    return await work();
  } finally {
    if (--depth === 0 && original !== undefined) console.warn = original;
  }
}
