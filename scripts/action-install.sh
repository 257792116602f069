#!/usr/bin/env bash
# The Action's first step: install what the CLI needs at run time and build
# it, each from a lock file (exact versions and integrity hashes): the runtime
# dependencies from the action's own package-lock.json (npm ci --omit=dev),
# then the one build tool, esbuild, from scripts/action-build/package-lock.json,
# which builds dist/bin (build.mjs --cli: the CLI only, no library or types).
# Without install scripts: no runtime dependency has one, the project's
# `prepare` would build with tools left out, and esbuild runs its platform's
# binary from its optional dependency without its own (which only checks it). Not every development dependency:
# about 20 packages where `npm ci` installs over 700. Skipped when dist/ is
# already built (a checkout that has run it, or the tests, which run the
# action from the project they just built).
set -euo pipefail
cd "$GITHUB_ACTION_PATH"
if [ -f dist/bin/contractpin.cjs ] && [ -f dist/bin/cli.cjs ]; then
  echo "contractpin: already built in $GITHUB_ACTION_PATH"
  exit 0
fi
npm ci --omit=dev --ignore-scripts --no-audit --no-fund
npm ci --prefix scripts/action-build --ignore-scripts --no-audit --no-fund
node scripts/build.mjs --cli
