#!/bin/sh
# SPDX-License-Identifier: MIT
# The Steps export says what the view and the JSON report say (issue 40, item 6): on a
# training capture (ascprof-gen --shape train) every step's phase is "training" in all
# three, where the export wrote "unknown".
gen=${ASCPROF_GEN:-tools/ascprof-gen}
bin=${ASCPROF_BIN:-./ascprof-tui}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
[ -x "$gen" ] && [ -x "$bin" ] || { echo "SKIP: no generator or binary"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ascprof-export-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
"$gen" --out "$tmp/cap" --shape train --steps 4 >/dev/null || exit 1
printf '4\nColon "export %s/steps.csv" Enter\n' "$tmp" >"$tmp/keys"
(cd "$tmp" && "$bin" --script "$tmp/keys" --size 100x30 cap >/dev/null 2>"$tmp/err") || { cat "$tmp/err"; exit 1; }
json=$("$bin" --report --json "$tmp/cap" | grep -o '"phase": *"[a-z]*"' | sed 's/.*"\([a-z]*\)"$/\1/' | sort -u)
# the export's phase column (the third), every step's
csv=$(tail -n +2 "$tmp/steps.csv" | cut -d, -f3 | sort -u)
if [ "$json" != training ] || [ "$csv" != "$json" ]; then
  echo "FAIL: phases: JSON '$json', Steps export '$csv' (want training in both)"
  exit 1
fi
echo "export: the Steps export's phase is the view's and the JSON's ($csv)"
