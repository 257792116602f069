// The package as a user gets it: `npm pack` of the source (which must build
// dist/ itself, through `prepack`), installed into an empty project, and the
// installed `contractpin` command run through npx.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ROOT } from "../helpers/cli.js";

const work = mkdtempSync(join(tmpdir(), "contractpin-package-"));
after(() => rmSync(work, { recursive: true, force: true }));

// npm's own variables from the outer `npm test` must not steer the inner npm.
const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)),
) as Record<string, string>;

function npm(args: string[], cwd: string): string {
  return execFileSync("npm", [...args, "--no-audit", "--no-fund", "--prefer-offline"], {
    cwd,
    env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 240_000,
  });
}

let project = "";
let sourceManifest = "";
let source = "";

before(() => {
  // The source as a clean checkout has it: tracked and new files, no dist/.
  source = join(work, "source");
  mkdirSync(source);
  const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard", "-z"], {
    cwd: ROOT,
    encoding: "utf8",
  })
    .split("\0")
    .filter((f) => f !== "");
  for (const file of files) {
    mkdirSync(join(source, file, ".."), { recursive: true });
    try {
      copyFileSync(join(ROOT, file), join(source, file));
    } catch (err) {
      // A file deleted in the working tree but still tracked is not part of the source.
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  }
  sourceManifest = readFileSync(join(source, "package.json"), "utf8");
  symlinkSync(join(ROOT, "node_modules"), join(source, "node_modules"), "dir");
  npm(["pack", "--pack-destination", work], source);
  const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"));
  assert.ok(tarball, "npm pack wrote no tarball");

  project = join(work, "project");
  mkdirSync(project);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "uses-contractpin", version: "1.0.0", private: true }),
  );
  npm(["install", join(work, tarball)], project);
});

function npx(args: string[]) {
  return spawnSync("npx", ["--no-install", "contractpin", ...args], {
    cwd: project,
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
}

test("the packed tarball installs a contractpin command that runs", () => {
  const r = npx(["--version"]);
  assert.equal(r.status, 0, r.stderr);
  const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    version: string;
  };
  assert.equal(r.stdout, `${version}\n`);
});

test("the installed command pins and verifies a file lock", () => {
  copyFileSync(join(ROOT, "examples/server-memory.tools.json"), join(project, "tools.json"));
  const add = npx(["add", "memory", "--file", "tools.json"]);
  assert.equal(add.status, 0, add.stderr);
  assert.match(add.stdout, /pinned memory \(file tools\.json\): 9 tools/);
  const verify = npx(["verify"]);
  assert.equal(verify.status, 0, verify.stderr);
  assert.match(verify.stdout, /OK: 1 server matches the lock/);
});

test("the installed manifest has no install-time script, and the clone's package.json is as it was", () => {
  const installed = JSON.parse(
    readFileSync(join(project, "node_modules/contractpin/package.json"), "utf8"),
  ) as { scripts?: Record<string, string> };
  for (const name of ["prepare", "prepack", "postpack", "install", "postinstall", "preinstall"])
    assert.equal(installed.scripts?.[name], undefined, name);
  assert.equal(readFileSync(join(source, "package.json"), "utf8"), sourceManifest);
});

test("npm pack before npm ci: one line that says to run npm ci, package.json untouched", () => {
  const bare = join(work, "bare");
  mkdirSync(join(bare, "scripts"), { recursive: true });
  for (const file of [
    "package.json",
    "scripts/pack-manifest.mjs",
    "scripts/dev-deps.mjs",
    "scripts/build.mjs",
  ])
    copyFileSync(join(source, file), join(bare, file));
  const r = spawnSync("npm", ["pack", "--pack-destination", bare], {
    cwd: bare,
    env,
    encoding: "utf8",
  });
  assert.notEqual(r.status, 0);
  assert.match(
    r.stderr,
    /contractpin: the build needs its development dependencies \(esbuild, typescript missing\): run 'npm ci' first/,
  );
  assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
  assert.equal(readFileSync(join(bare, "package.json"), "utf8"), sourceManifest);
});
