// `npm pack` / `npm publish`: the published manifest has no `prepare` script.
// A clone (and a git URL install, and pre-commit's node language) needs it to
// build dist/; a tarball ships dist/ built, and npm 11 warns every consumer
// of a package with an install-time script. `prepack` builds dist/, then
// takes the pack scripts out of package.json (keeping the file's bytes to
// put back); npm reads the manifest again after `prepack`, so `prepare` does
// not run twice. `postpack` puts the file back as it was, byte for byte.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

const manifest = new URL("../package.json", import.meta.url);
const saved = new URL("../.package.json.prepack", import.meta.url);
const step = process.argv[2];

if (step === "strip") {
  const text = readFileSync(manifest, "utf8");
  if (!existsSync(saved)) writeFileSync(saved, text);
  const json = JSON.parse(text);
  json.scripts = Object.fromEntries(
    Object.entries(json.scripts).filter(
      ([name]) => !["prepare", "prepack", "postpack"].includes(name),
    ),
  );
  writeFileSync(manifest, JSON.stringify(json, null, 2) + "\n");
} else if (step === "restore") {
  if (existsSync(saved)) renameSync(saved, manifest);
} else {
  console.error("usage: node scripts/pack-manifest.mjs strip|restore");
  process.exit(2);
}
