#!/usr/bin/env bash
# The Action's first step: install contractpin's dependencies from the action's
# own package-lock.json (exact versions and integrity hashes), which builds
# dist/ through the `prepare` script. Skipped when dist/ is already built (a
# checkout that has run it, or the tests, which run the action from the project
# they just built).
set -euo pipefail
cd "$GITHUB_ACTION_PATH"
if [ -f dist/bin/contractpin.cjs ] && [ -f dist/bin/cli.cjs ]; then
  echo "contractpin: already built in $GITHUB_ACTION_PATH"
  exit 0
fi
npm ci --no-audit --no-fund
