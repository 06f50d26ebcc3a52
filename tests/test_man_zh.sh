#!/bin/sh
# SPDX-License-Identifier: MIT
# The Chinese man page (man/zh_CN/ascprof-tui.1.in): groff -k -man -Tutf8 -ww must find
# nothing to warn about, it must fit 80 columns (display width) as man(1) shows it, it has a
# section and a subsection for each of the English page's, in the same order, and the same
# entries: the tag of every option, script step, view list item and key entry of the
# English page, in the same order (a new option or key in English fails here until the
# Chinese page has it too). Skipped without groff.
srcdir=${ASCPROF_SRCDIR:-.}
en=$srcdir/man/ascprof-tui.1.in
zh=$srcdir/man/zh_CN/ascprof-tui.1.in
if ! command -v groff >/dev/null 2>&1 || ! command -v preconv >/dev/null 2>&1; then
  echo "SKIP: groff not found (Debian: apt-get install groff-base)"
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ascprof-manzh-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
export LC_ALL=C.UTF-8
fail=0
sed 's/@PACKAGE_VERSION@/test/g' "$zh" >"$tmp/page.1"

# 1. lint: every warning category, no output
groff -k -man -Tutf8 -ww -z "$tmp/page.1" >"$tmp/lint" 2>&1
if [ -s "$tmp/lint" ]; then
  echo "FAIL: groff -k -man -Tutf8 -ww -z $zh warns:"
  head -20 "$tmp/lint"
  fail=1
fi

# 2. 80 columns of display width (a Chinese character takes two)
groff -k -man -Tutf8 -P-c -P-b -P-u "$tmp/page.1" >"$tmp/render" 2>"$tmp/render.err"
widest=$(wc -L <"$tmp/render")
if [ -s "$tmp/render.err" ] || [ "$widest" -gt 80 ]; then
  echo "FAIL: the page does not render cleanly in 80 columns (widest line: $widest)"
  head -5 "$tmp/render.err"
  fail=1
fi

# 3. the same structure: .SH and .SS in the same number and order
for m in SH SS; do
  ne=$(grep -c "^\\.$m " "$en")
  nz=$(grep -c "^\\.$m " "$zh")
  if [ "$ne" != "$nz" ]; then
    echo "FAIL: the English page has $ne .$m headings, the Chinese one $nz"
    fail=1
  fi
done

# 4. the same entries: the line after each .TP in OPTIONS, VIEWS and KEYS of the English
# page, and every such line of the Chinese page
awk '/^\.SH / { on = ($0 ~ /^\.SH (OPTIONS|VIEWS|KEYS)$/) } on && tp { print } { tp = ($0 == ".TP") }' \
  "$en" >"$tmp/en_tags"
awk 'tp { print } { tp = ($0 == ".TP") }' "$zh" >"$tmp/zh_tags"
n=$(wc -l <"$tmp/en_tags")
if [ "$n" -lt 60 ]; then
  echo "FAIL: found only $n entries in the English page's OPTIONS, VIEWS and KEYS"
  fail=1
fi
if ! diff -u "$tmp/en_tags" "$tmp/zh_tags" >"$tmp/diff"; then
  echo "FAIL: the Chinese page's entries differ from the English page's (- English, + Chinese):"
  cat "$tmp/diff"
  fail=1
fi
# and every entry has a description in Chinese (non-ASCII) under its tag
awk 'tp2 { print tag "\t" $0 } { tp2 = tp; if (tp) tag = $0; tp = ($0 == ".TP") }' "$zh" |
  LC_ALL=C grep -v "$(printf '\t.*[\200-\377]')" >"$tmp/untranslated"
if [ -s "$tmp/untranslated" ]; then
  echo "FAIL: entries without a Chinese description:"
  cat "$tmp/untranslated"
  fail=1
fi

[ "$fail" -eq 0 ] && echo "man zh_CN: lint clean, ${widest} columns, $n entries as in English"
exit "$fail"
