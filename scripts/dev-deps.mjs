// The build needs the development dependencies (esbuild, TypeScript). In a
// clone where they are not installed, say so in one line instead of a stack
// trace from the first import that fails.
import { existsSync } from "node:fs";

export function requireDevDeps() {
  const root = new URL("..", import.meta.url);
  const missing = ["esbuild", "typescript"].filter(
    (name) => !existsSync(new URL(`node_modules/${name}/package.json`, root)),
  );
  if (missing.length > 0) {
    console.error(
      `contractpin: the build needs its development dependencies (${missing.join(", ")} missing): run 'npm ci' first`,
    );
    process.exit(1);
  }
}
