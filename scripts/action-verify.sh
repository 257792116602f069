#!/usr/bin/env bash
# The Action's verify step. Inputs arrive as CONTRACTPIN_* variables (never
# expanded into this script's text); outputs go to $GITHUB_OUTPUT; the step's
# exit code is verify's, so the job fails exactly when verify does.
set -uo pipefail

bool() {
  case "$2" in
    true | TRUE | True) return 0 ;;
    false | FALSE | False | "") return 1 ;;
    *)
      echo "::error title=contractpin::the $1 input takes true or false"
      exit 2
      ;;
  esac
}

# Creates the SARIF log's folder one folder at a time, never through a
# symbolic link (mkdir -p follows them): a pull request can commit one where
# the folder should be. As the CLI checks a report's path, the folders checked
# are those below the working directory, or below the workspace for an
# absolute path in it; the runner's own folders above them are not.
make_folder() {
  local dir="$1" workspace="${GITHUB_WORKSPACE:-}" path rest part shown
  if [ -n "$workspace" ] && [ "${dir#"$workspace"/}" != "$dir" ]; then
    path="$workspace" rest="${dir#"$workspace"/}"
  elif [ "${dir#"$PWD"/}" != "$dir" ]; then
    path="$PWD" rest="${dir#"$PWD"/}"
  elif [ "${dir#/}" != "$dir" ]; then
    mkdir -p -- "$dir"
    return
  else
    path="." rest="$dir"
  fi
  while [ -n "$rest" ]; do
    part="${rest%%/*}"
    if [ "$part" = "$rest" ]; then rest=""; else rest="${rest#*/}"; fi
    if [ -z "$part" ] || [ "$part" = "." ]; then continue; fi
    path="$path/$part"
    if [ -L "$path" ]; then
      # Escaped as the runner reads a workflow command's message.
      shown="${path//%/%25}" shown="${shown//$'\r'/%0D}" shown="${shown//$'\n'/%0A}"
      echo "::error title=contractpin::the sarif input's folder $shown is a symbolic link; contractpin does not write through one"
      exit 2
    fi
    if [ ! -d "$path" ]; then mkdir -- "$path" || exit 2; fi
  done
}

report_dir="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
json="$report_dir/contractpin-$$.json"
args=(verify --lock "$CONTRACTPIN_LOCK" --timeout "$CONTRACTPIN_TIMEOUT"
  --concurrency "$CONTRACTPIN_CONCURRENCY" --format github --json-file "$json")
if bool allow-new "$CONTRACTPIN_ALLOW_NEW"; then args+=(--allow-new); fi
# Checked by contractpin itself: a value that names no severity is exit 2.
if [ -n "${CONTRACTPIN_FAIL_ON:-}" ]; then args+=(--fail-on "$CONTRACTPIN_FAIL_ON"); fi
sarif=""
if [ -n "$CONTRACTPIN_SARIF" ]; then
  sarif="$CONTRACTPIN_SARIF"
  # upload-sarif is usually given a path under a folder of its own.
  make_folder "$(dirname -- "$sarif")"
  args+=(--sarif "$sarif")
fi
# Server names: separated by spaces, commas or newlines; each one a --server.
IFS=$' ,\n\t' read -r -d '' -a names <<<"$CONTRACTPIN_SERVERS" || true
for name in "${names[@]}"; do
  if [ -n "$name" ]; then args+=(--server "$name"); fi
done

if bool summary "$CONTRACTPIN_SUMMARY"; then
  node "$GITHUB_ACTION_PATH/dist/bin/contractpin.cjs" "${args[@]}"
else
  env -u GITHUB_STEP_SUMMARY node "$GITHUB_ACTION_PATH/dist/bin/contractpin.cjs" "${args[@]}"
fi
code=$?

# Each output in the multi-line form, with a delimiter no path can hold, so a
# newline in the sarif input cannot add an output of its own.
delimiter="contractpin_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
output() { printf '%s<<%s\n%s\n%s\n' "$1" "$delimiter" "$2" "$delimiter" >>"$GITHUB_OUTPUT"; }
output exit-code "$code"
if [ "$code" -eq 1 ]; then output drift true; else output drift false; fi
# The SARIF path as an absolute one: upload-sarif resolves a relative path from
# the workspace, not from working-directory.
if [ -n "$sarif" ] && [ -f "$sarif" ]; then
  case "$sarif" in
    /*) output sarif "$sarif" ;;
    *) output sarif "$PWD/$sarif" ;;
  esac
else
  output sarif ""
fi
if [ -f "$json" ]; then output json "$json"; else output json ""; fi
exit "$code"
