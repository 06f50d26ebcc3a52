#!/bin/sh
# SPDX-License-Identifier: MIT
# The man page: groff -man -ww must find nothing to warn about, it must fit 80 columns,
# every option of `ascprof-tui --help` (each -x and --long form) must have an entry in
# OPTIONS, every action of `ascprof-tui --list-keys` must have an entry in KEYS that
# names it and lists each of its keys ("q, Esc  (close)"), and every command of
# `ascprof-tui --list-commands` an entry in VIEWS' Command line ("zoom MS MS") that names
# its arguments, with its other names in the text. Skipped without groff.
bin=${ASCPROF_BIN:-./ascprof-tui}
builddir=${ASCPROF_BUILDDIR:-.}
srcdir=${ASCPROF_SRCDIR:-.}

if ! command -v groff >/dev/null 2>&1; then
  echo "SKIP: groff not found (Debian: apt-get install groff-base)"
  exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ascprof-man-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# configure writes the page into the build tree; without it, substitute the template
page=$builddir/man/ascprof-tui.1
if [ ! -f "$page" ]; then
  if [ ! -f "$srcdir/man/ascprof-tui.1.in" ]; then
    echo "FAIL: no $page and no $srcdir/man/ascprof-tui.1.in"
    exit 1
  fi
  sed 's/@PACKAGE_VERSION@/test/g' "$srcdir/man/ascprof-tui.1.in" >"$tmp/ascprof-tui.1"
  page=$tmp/ascprof-tui.1
fi

fail=0
LC_ALL=C
export LC_ALL

# 1. lint: every warning category, no output
groff -man -ww -z "$page" >"$tmp/lint" 2>&1
if [ -s "$tmp/lint" ]; then
  echo "FAIL: groff -man -ww -z $page warns:"
  cat "$tmp/lint"
  fail=1
fi

# 2. 80 columns, as man(1) shows it in a terminal of that width
groff -man -Tascii -P-c -P-b -P-u "$page" 2>"$tmp/render80" |
  awk 'length($0) > 80 { print "  line " NR " has " length($0) " columns: " $0 }' >"$tmp/wide"
if [ -s "$tmp/render80" ] || [ -s "$tmp/wide" ]; then
  echo "FAIL: the page does not render cleanly in 80 columns:"
  cat "$tmp/render80" "$tmp/wide"
  fail=1
fi

# The text to search: plain ASCII, one paragraph per line, no hyphenation.
groff -man -Tascii -rLL=2000n -rHY=0 -P-c -P-b -P-u "$page" >"$tmp/text" 2>/dev/null
section() {
  awk -v want="$1" '/^[A-Z][A-Z ]*$/ { on = ($0 == want); next } on' "$tmp/text"
}
section OPTIONS >"$tmp/options"
section KEYS >"$tmp/keys"
if [ ! -s "$tmp/options" ] || [ ! -s "$tmp/keys" ]; then
  echo "FAIL: no OPTIONS or KEYS section in $page"
  exit 1
fi

# 3. options: the option words of --help, each in the tag of an OPTIONS entry
if ! "$bin" --help >"$tmp/help" 2>&1; then
  echo "FAIL: $bin --help failed"
  cat "$tmp/help"
  exit 1
fi
awk '$1 ~ /^-/ {
  for (i = 1; i <= NF; i++) {
    t = $i
    sub(/,$/, "", t)
    if (t !~ /^--?[A-Za-z]/)
      break
    print t
  }
}' "$tmp/help" >"$tmp/help_opts"
nopts=$(wc -l <"$tmp/help_opts")
if [ "$nopts" -lt 10 ]; then
  echo "FAIL: found only $nopts options in --help; has its layout changed?"
  fail=1
fi
# the entries' tags: lines at the section's indent that start with an option
awk '/^       -/ { gsub(/[][,|()=;:.]/, " "); for (i = 1; i <= NF; i++) print $i }' \
  "$tmp/options" | sort -u >"$tmp/option_words"
while read -r opt; do
  if ! grep -Fqx -- "$opt" "$tmp/option_words"; then
    echo "FAIL: option $opt of --help has no entry in the OPTIONS section of the man page"
    fail=1
  fi
done <"$tmp/help_opts"

# 4. keys: --list-keys prints "%-16s %-16s %-16s %s" (scope, keys, action, help)
if ! "$bin" --list-keys >"$tmp/list" 2>&1; then
  echo "FAIL: $bin --list-keys failed"
  cat "$tmp/list"
  exit 1
fi
awk '{
  keys = substr($0, 18, 16); name = substr($0, 35, 16)
  sub(/ +$/, "", keys); sub(/ +$/, "", name)
  if (substr($0, 17, 1) != " " || substr($0, 34, 1) != " " || keys == "" ||
      name !~ /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/) {
    print "cannot read this --list-keys line: " $0 > "/dev/stderr"
    bad = 1
    next
  }
  print name "\t" keys
} END { exit bad }' "$tmp/list" >"$tmp/actions" || fail=1
nact=$(wc -l <"$tmp/actions")
if [ "$nact" -lt 40 ]; then
  echo "FAIL: found only $nact actions in --list-keys; has its layout changed?"
  fail=1
fi
# KEYS entries: a tag at the section's indent, "key, key  (action)"
awk '/^       [^ ].*  \([a-z][a-z0-9-]*\)$/ {
  line = $0
  sub(/^ +/, "", line)
  p = match(line, /  \([a-z][a-z0-9-]*\)$/)
  print substr(line, p + 3, length(line) - p - 3) "\t" substr(line, 1, p - 1)
}' "$tmp/keys" >"$tmp/man_keys"
awk -F '\t' '
  FNR == NR { man[$1] = $2; next }
  {
    listed[$1] = 1
    if (!($1 in man)) {
      print "FAIL: action " $1 " (keys " $2 ") has no entry in the KEYS section"
      bad = 1
      next
    }
    n = split(man[$1], have, ", ")
    m = split($2, want, " ")
    for (i = 1; i <= m; i++) {
      found = 0
      for (j = 1; j <= n; j++)
        if (have[j] == want[i])
          found = 1
      if (!found) {
        print "FAIL: key " want[i] " of action " $1 " is missing from its KEYS entry (" man[$1] ")"
        bad = 1
      }
    }
  }
  END {
    for (a in man)
      if (!(a in listed)) {
        print "FAIL: the KEYS section lists action " a ", which --list-keys does not print"
        bad = 1
      }
    exit bad
  }' "$tmp/man_keys" "$tmp/actions" || fail=1
# each scope --list-keys prints heads a subsection of KEYS, and the sort keys' scope names
# the Serving view, whose table they sort too (issue 38)
awk '{ print substr($0, 1, 16) }' "$tmp/list" | sed 's/ *$//' | sort -u | while read -r sc; do
  section KEYS | grep -q "^   $sc\( \|$\)" || { echo "FAIL: scope $sc has no subsection in KEYS"; exit 1; }
done || fail=1
for a in sort-next sort-reverse; do
  grep -q "^[a-z+]*serving[a-z+]* .* $a " "$tmp/list" ||
    { echo "FAIL: --list-keys does not give $a the Serving view's scope"; grep " $a " "$tmp/list"; fail=1; }
done

# 5. commands: --list-commands prints "%-16s %-8s %s" (names, arguments, help)
if ! "$bin" --list-commands >"$tmp/clist" 2>&1; then
  echo "FAIL: $bin --list-commands failed"
  cat "$tmp/clist"
  exit 1
fi
# the Command line subsection of VIEWS: from its heading to the next one
section VIEWS | awk '/^   [^ ]/ { on = ($0 == "   Command line"); next } on' >"$tmp/cmdline"
if [ ! -s "$tmp/cmdline" ]; then
  echo "FAIL: no Command line subsection under VIEWS in $page"
  exit 1
fi
awk '
  FNR == NR {
    if ($0 ~ /^       [^ ]/) { tag = $0; sub(/^ +/, "", tag); tags[++ntag] = tag }
    line = $0; gsub(/[,;:.()]/, " ", line)
    n = split(line, w, " ")
    for (i = 1; i <= n; i++) words[w[i]] = 1
    next
  }
  {
    names = substr($0, 1, 16); args = substr($0, 18, 8)
    sub(/ +$/, "", names); sub(/ +$/, "", args)
    if (substr($0, 17, 1) != " " || substr($0, 26, 1) != " " || names !~ /^[a-z]/) {
      print "cannot read this --list-commands line: " $0
      bad = 1
      next
    }
    ncmd++
    n = split(names, name, " ")
    want = args == "" ? name[1] : name[1] " " args
    found = 0
    for (t = 1; t <= ntag; t++)
      # a short tag shares its line with the text that follows it ("rank N selects rank N;")
      if (tags[t] == want || index(tags[t], want " ") == 1 || (args == "" && index(tags[t], name[1] ",") == 1))
        found = 1
    if (!found) {
      print "FAIL: command " name[1] " has no entry \"" want "\" in the Command line subsection"
      bad = 1
    }
    for (i = 2; i <= n; i++)
      if (!(name[i] in words)) {
        print "FAIL: name " name[i] " of command " name[1] " is not in the Command line subsection"
        bad = 1
      }
  }
  END {
    if (ncmd < 5) {
      print "FAIL: found only " ncmd " commands in --list-commands; has its layout changed?"
      bad = 1
    }
    exit bad
  }' "$tmp/cmdline" "$tmp/clist" || fail=1
ncmd=$(wc -l <"$tmp/clist")

# 6. no words run together (issue 40, item 9): the alternating-font macros (.BR, .IR, ...)
# join their arguments without a space, so ".BR advice ), Memory (components" renders
# "advice),Memory(components". Each pair of adjacent arguments that are both plain words
# (or a word after "),") is reported, in both pages, with how the page renders it.
for p in "$srcdir/man/ascprof-tui.1.in" "$srcdir/man/zh_CN/ascprof-tui.1.in"; do
  awk '
    /^\.(BR|RB|BI|IB|IR|RI)[ \t]/ {
      s = substr($0, 5); n = 0
      while (length(s)) {
        sub(/^[ \t]+/, "", s)
        if (!length(s)) break
        if (substr(s, 1, 1) == "\"") {
          e = index(substr(s, 2), "\""); if (!e) e = length(s)
          a[++n] = substr(s, 2, e - 1); s = substr(s, e + 2)
        } else {
          e = match(s, /[ \t]/); if (!e) e = length(s) + 1
          a[++n] = substr(s, 1, e - 1); s = substr(s, e)
        }
      }
      for (i = 1; i < n; i++)
        if (a[i] ~ /^[A-Za-z()\047][A-Za-z0-9()\047,;:]*[A-Za-z,;:)]$/ && a[i+1] ~ /^[a-z][A-Za-z0-9\047(),;:-]*$/)
          printf "  %s:%d: \"%s\" and \"%s\" render as \"%s%s\": %s\n", FILENAME, FNR, a[i], a[i+1], a[i], a[i+1], $0
    }' "$p"
done >"$tmp/glued"
if [ -s "$tmp/glued" ]; then
  echo "FAIL: words run together in an alternating-font macro (quote the text or put it on the next line):"
  cat "$tmp/glued"
  fail=1
fi
# and the rendered page (man(1) as a reader sees it) has none of those joins
groff -man -Tascii -rLL=2000n -P-c -P-b -P-u "$page" 2>/dev/null >"$tmp/rendered"
for glued in '),the' 'advice),Memory' 'theCSVtotal'; do
  if grep -qF -- "$glued" "$tmp/rendered"; then
    echo "FAIL: the rendered page runs words together: $glued"
    fail=1
  fi
done

if [ "$fail" -eq 0 ]; then
  echo "man page: lint clean, 80 columns, $nopts options, $nact actions and $ncmd commands documented"
fi
exit "$fail"
