import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "../helpers/cleanup.js";

/** The folder of client config fixtures (see its README.md). */
export const FIXTURES = fileURLToPath(new URL("../fixtures/configs/", import.meta.url));

/** What the fixtures' placeholders become in these unit tests. */
export const PLACEHOLDERS = {
  __SERVER_MEMORY__: "/opt/servers/memory.js",
  __HTTP_PORT__: "8931",
  __PROJECT_DIR__: "/work/project",
};

function fill(text: string, placeholders: Record<string, string>): string {
  let out = text;
  for (const [key, value] of Object.entries(placeholders)) out = out.replaceAll(key, value);
  return out;
}

/** A fixture's bytes with its placeholders filled in. */
export function fixture(rel: string, placeholders = PLACEHOLDERS): Uint8Array {
  return new TextEncoder().encode(
    fill(readFileSync(path.join(FIXTURES, rel), "utf8"), placeholders),
  );
}

/** A fixture's raw bytes, placeholders and all. */
export function rawFixture(rel: string): Uint8Array {
  return readFileSync(path.join(FIXTURES, rel));
}

/** Every fake secret in the fixtures: each run of token characters with FAKE in it. */
export function fakeSecrets(): string[] {
  const secrets = new Set<string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) walk(file);
      else {
        for (const m of readFileSync(file, "utf8").matchAll(/[A-Za-z0-9_-]*FAKE[A-Za-z0-9_-]*/g)) {
          secrets.add(m[0]);
        }
      }
    }
  };
  walk(path.join(FIXTURES, "home"));
  walk(path.join(FIXTURES, "project"));
  return [...secrets];
}

/** A temporary copy of the fixture tree with placeholders filled in; `__PROJECT_DIR__` becomes its project folder. */
export function fixtureTree(overrides: Partial<typeof PLACEHOLDERS> = {}): {
  root: string;
  home: string;
  project: string;
} {
  const root = tempDir("contractpin-configs-");
  cpSync(FIXTURES, root, { recursive: true });
  const project = path.join(root, "project");
  const placeholders = { ...PLACEHOLDERS, ...overrides, __PROJECT_DIR__: project };
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) walk(file);
      else writeFileSync(file, fill(readFileSync(file, "utf8"), placeholders));
    }
  };
  walk(path.join(root, "home"));
  walk(project);
  return { root, home: path.join(root, "home"), project };
}
