#!/bin/sh
# SPDX-License-Identifier: MIT
# The Chinese catalog is complete and well formed: msgfmt --check is clean, and every
# string marked in the sources listed in po/POTFILES.in (extracted afresh with po/Makevars'
# keywords) has a translation in po/zh_CN.po that is neither empty nor fuzzy; a row of
# column titles (marked "TRANSLATORS: column titles" in the source) translates to the same
# display width; the METRICS and ATTR_BUCKETS rows mark every text argument N_(). Skipped
# without gettext's tools (Debian: apt-get install gettext).
srcdir=${ASCPROF_SRCDIR:-.}
for t in xgettext msgmerge msgattrib msgfmt msgexec; do
  if ! command -v "$t" >/dev/null 2>&1; then
    echo "SKIP: $t not found (Debian: apt-get install gettext)"
    exit 77
  fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ascprof-po-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0

if ! msgfmt --check -o /dev/null "$srcdir/po/zh_CN.po" 2>"$tmp/check"; then
  echo "FAIL: msgfmt --check po/zh_CN.po:"
  cat "$tmp/check"
  fail=1
fi

# the keywords of po/Makevars' XGETTEXT_OPTIONS
opts=$(sed -n '/^XGETTEXT_OPTIONS *=/,/[^\\]$/p' "$srcdir/po/Makevars" | sed 's/^XGETTEXT_OPTIONS *=//; s/\\$//' | tr '\n' ' ')
files=$(grep -v '^#' "$srcdir/po/POTFILES.in" | grep .)
# shellcheck disable=SC2086 # words
if ! (cd "$srcdir" && xgettext $opts -o "$tmp/all.pot" $files) 2>"$tmp/xg"; then
  echo "FAIL: xgettext:"
  cat "$tmp/xg"
  exit 1
fi
n=$(grep -c '^msgid ' "$tmp/all.pot")
msgmerge -q --no-wrap "$srcdir/po/zh_CN.po" "$tmp/all.pot" -o "$tmp/merged.po" || exit 1
# every entry but the header (the first paragraph), also a msgid that starts with "\n"
msgattrib --no-wrap --untranslated --no-obsolete "$tmp/merged.po" | awk 'BEGIN { RS = "" } NR > 1 { print; print "" }' >"$tmp/untranslated"
msgattrib --no-wrap --only-fuzzy --no-obsolete "$tmp/merged.po" | awk 'BEGIN { RS = "" } NR > 1 { print; print "" }' >"$tmp/fuzzy"
if [ -s "$tmp/untranslated" ]; then
  echo "FAIL: strings without a zh_CN translation (add them to po/zh_CN.po, terms from po/GLOSSARY):"
  cat "$tmp/untranslated"
  fail=1
fi
if [ -s "$tmp/fuzzy" ]; then
  echo "FAIL: fuzzy zh_CN translations (a msgid changed: check the translation, then drop the fuzzy flag):"
  cat "$tmp/fuzzy"
  fail=1
fi
# column titles (a "TRANSLATORS: column titles" comment in the source): the translation
# must take the same display width as the English, or the numbers below leave their titles
awk '/^#\. TRANSLATORS: column titles/ { want = 1; next }
     want && /^msgid "/ { s = substr($0, 8, length($0) - 8); sub(/\\n$/, "", s); print s; want = 0 }' \
  "$tmp/all.pot" | sort >"$tmp/headers"
nh=$(wc -l <"$tmp/headers")
if [ "$nh" -lt 10 ]; then
  echo "FAIL: found only $nh column-title strings (TRANSLATORS: column titles) in the sources"
  fail=1
fi
LC_ALL=C.UTF-8 msgexec -i "$tmp/merged.po" sh -c \
  'id=$(printf "%s" "$MSGEXEC_MSGID"); [ -n "$id" ] || exit 0
   printf "%s\t%s\t%s\n" "$id" "$(printf "%s\n" "$id" | wc -L)" "$(wc -L)"' >"$tmp/widths" || fail=1
sort -t "$(printf '\t')" -k1,1 "$tmp/widths" | join -t "$(printf '\t')" "$tmp/headers" - |
  awk -F '\t' '$2 != $3 { print "  \"" $1 "\": English " $2 " columns, Chinese " $3 }' >"$tmp/badwidth"
if [ -s "$tmp/badwidth" ]; then
  echo "FAIL: column titles whose translation is not as wide as the English (po/zh_CN.po):"
  cat "$tmp/badwidth"
  fail=1
fi
[ "$(wc -l <"$tmp/badwidth")" -eq 0 ] && [ "$(sort -t "$(printf '\t')" -k1,1 "$tmp/widths" | join -t "$(printf '\t')" "$tmp/headers" - | wc -l)" -ne "$nh" ] && {
  echo "FAIL: not every column-title string was found in the catalog"
  fail=1
}

# the X-macro tables (METRICS, ATTR_BUCKETS) whose text xgettext sees only through N_() in
# each row: a plain literal in a text argument would be shown untranslated (xgettext takes
# one argument of a keyword per run, so each is extracted alone, without N_: only unwrapped
# ones come out). Each table: its file, the macro's argument count, its text arguments.
for table in "src/analysis/analysis.h 7 4 5 6 7" "src/analysis/attribution.h 4 3"; do
  # shellcheck disable=SC2086 # words
  set -- $table
  file=$1 total=$2
  shift 2
  for arg in "$@"; do
    (cd "$srcdir" && xgettext -k --keyword="X:$arg,${total}t" --from-code=UTF-8 -o - "$file" 2>/dev/null) |
      sed -n 's/^msgid "\(..*\)"$/\1/p' >"$tmp/plain"
    if [ -s "$tmp/plain" ]; then
      echo "FAIL: X-macro rows of $file with argument $arg not marked N_():"
      cat "$tmp/plain"
      fail=1
    fi
  done
done

[ "$fail" -eq 0 ] && echo "po: $((n - 1)) strings, all translated in zh_CN.po; $nh column-title rows as wide as in English"
exit "$fail"
