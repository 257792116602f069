// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "tests/fixtures/", ".conformance/", ".bench/"] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: {
      globals: globals.node,
    },
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      "no-console": "off",
      // noUncheckedIndexedAccess is on; in the parser's and canonicalizer's hot
      // loops an index is known in range, and `!` says so without a runtime check.
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
  {
    // The launcher and a build step are CommonJS by design (see src/cli/launch.cts).
    files: ["**/*.cjs", "**/*.cts"],
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);
