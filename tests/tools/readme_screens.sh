#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's screens come from the screen tests, so that they cannot drift: a block
#   <!-- screen: NAME.txt [FIRST-LAST] -->
#   ```text
#   ...
#   ```
# shows tests/screens/NAME.txt (lines FIRST to LAST of it when given).
#   readme_screens.sh --check README SCREENS   exit 1 (with the diff) when a block differs
#   readme_screens.sh --update README SCREENS  rewrite the blocks (make readme-screens)
mode=$1 readme=$2 screens=$3
case $mode in --check | --update) ;; *) echo "usage: $0 --check|--update README SCREENS" >&2; exit 2 ;; esac
[ -f "$readme" ] && [ -d "$screens" ] || { echo "$0: no $readme or $screens" >&2; exit 2; }
tmp=$(mktemp "${TMPDIR:-/tmp}/ascprof-readme-XXXXXX") || exit 1
trap 'rm -f "$tmp"' EXIT INT TERM
awk -v dir="$screens" '
  function fail(msg) { print FILENAME ":" FNR ": " msg > "/dev/stderr"; bad = 1; exit 1 }
  skip && /^```$/ { skip = 0; print; next }
  skip { next }
  /^<!-- screen: [^ ]+( [0-9]+-[0-9]+)? -->$/ {
    print
    name = $3; first = 1; last = 1000000
    if (NF == 5) { split($4, r, "-"); first = r[1] + 0; last = r[2] + 0 }
    if ((getline line) <= 0 || line != "```text") fail("a screen marker wants a ```text block after it")
    print line
    file = dir "/" name; n = 0
    while ((getline l < file) > 0) { n++; if (n >= first && n <= last) print l }
    close(file)
    if (n == 0) fail("no screen " file)
    skip = 1
    next
  }
  { print }
  END { if (skip && !bad) fail("a screen block is not closed") }
' "$readme" >"$tmp" || exit 1
if cmp -s "$readme" "$tmp"; then
  [ "$mode" = --check ] && echo "README screens: as the screen tests draw them"
  exit 0
fi
if [ "$mode" = --update ]; then
  cat "$tmp" >"$readme" && echo "README screens: updated from $screens"
  exit 0
fi
echo "FAIL: $readme shows screens that differ from $screens (make readme-screens updates it):"
diff -u "$readme" "$tmp"
exit 1
