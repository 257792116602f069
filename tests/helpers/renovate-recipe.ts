// The regexes of examples/renovate.json (the Renovate recipe), applied to a
// config file's text the way its matchStringsStrategy "recursive" chains
// them: each regex runs over every match of the one before, and the last
// one's named groups are the dependency. This does not stand in for Renovate
// (docs/upgrade.md says how the recipe was run with Renovate itself); it
// checks that the regexes, as written, find what contractpin reads.
import { readFileSync } from "node:fs";

const RECIPE = new URL("../../examples/renovate.json", import.meta.url);

interface CustomManager {
  customType: string;
  managerFilePatterns: string[];
  matchStringsStrategy?: string;
  matchStrings: string[];
  datasourceTemplate: string;
  versioningTemplate?: string;
  depTypeTemplate?: string;
}

export interface RecipeDep {
  /** Where Renovate looks it up: npm, pypi or docker. */
  datasource: string;
  depName: string;
  currentValue: string;
}

interface Recipe {
  customManagers: CustomManager[];
  packageRules: Array<{ matchDepTypes?: string[]; postUpgradeTasks?: { commands: string[] } }>;
}

/** The recipe, as written. */
export function recipe(): Recipe {
  return JSON.parse(readFileSync(RECIPE, "utf8")) as Recipe;
}

/** The recipe's custom managers. */
export function customManagers(): CustomManager[] {
  return recipe().customManagers;
}

/** A managerFilePatterns entry (`/regex/`) as a RegExp; globs are not used by the recipe. */
function filePattern(pattern: string): RegExp {
  const m = /^\/(.*)\/$/s.exec(pattern);
  if (!m) throw new Error(`not a /regex/ file pattern: ${pattern}`);
  return new RegExp(m[1]!);
}

/** Whether a repository path is one the recipe reads. */
export function recipeReads(path: string): boolean {
  return customManagers().some((m) => m.managerFilePatterns.some((p) => filePattern(p).test(path)));
}

/** The dependencies the recipe's regexes find in `text` (the file at repository path `path`). */
export function recipeDeps(path: string, text: string): RecipeDep[] {
  const deps: RecipeDep[] = [];
  for (const m of customManagers()) {
    if (!m.managerFilePatterns.some((p) => filePattern(p).test(path))) continue;
    if (m.matchStringsStrategy !== "recursive") throw new Error("the recipe chains its regexes");
    let chunks: Array<{ text: string; groups: Record<string, string> }> = [{ text, groups: {} }];
    for (const source of m.matchStrings) {
      const re = new RegExp(source, "g");
      chunks = chunks.flatMap((c) =>
        [...c.text.matchAll(re)].map((match) => ({
          text: match[0],
          groups: { ...c.groups, ...match.groups },
        })),
      );
    }
    for (const { groups } of chunks) {
      deps.push({
        datasource: m.datasourceTemplate,
        depName: groups["depName"]!,
        currentValue: groups["currentValue"]!,
      });
    }
  }
  return deps;
}
