#!/bin/sh
# SPDX-License-Identifier: MIT
# The house's layering: data flows one way, so a folder includes only its own and lower
# folders, lowest first:
#   src/base < src/json < src/store < src/load < src/analysis < src/report < tui (tui/views)
# Includes name headers by basename (one -I per folder, Makefile.am), so basenames must be
# unique. The core (src/) never includes curses: the report and the tests link it alone.
# Within src/analysis the driver sits on top: analysis.h (the driver, and the public entry
# that includes every stage's header) and digest.h (which runs the driver on captures
# beside digests) are included there only by the drivers themselves (analysis.[ch],
# digest.[ch]); every stage includes result.h and lower stages, so none calls back up.
# The check runs once on a copy with planted violations and must fail there, so a
# checker that passes everything cannot go unnoticed.
set -u
srcdir=${ASCPROF_SRCDIR:-.}

level_of_dir() {
	case $1 in
	src/base) echo 0 ;; src/json) echo 1 ;; src/store) echo 2 ;; src/load) echo 3 ;;
	src/analysis) echo 4 ;; src/report) echo 5 ;; tui | tui/views) echo 6 ;; *) echo 99 ;;
	esac
}

# check_tree ROOT: prints every violation, exits 1 when there is one
check_tree() (
	cd "$1" || exit 2
	bad=0
	files=$(find src tui -name '*.[ch]' | sort)
	dups=$(for f in $files; do basename "$f"; done | sort | uniq -d)
	if [ -n "$dups" ]; then
		echo "FAIL: basenames used twice: $dups"
		bad=1
	fi
	map=$(for f in $files; do case $f in *.h) printf '%s %s\n' "$(basename "$f")" "$(dirname "$f")" ;; esac; done)
	for f in $files; do
		dir=$(dirname "$f")
		lv=$(level_of_dir "$dir")
		if [ "$lv" = 99 ]; then
			echo "FAIL: $f is in no known folder (see tests/layering.sh)"
			bad=1
			continue
		fi
		if [ "$lv" -lt 6 ] && grep -qE '#include[[:space:]]*[<"](n?curses|ncursesw/)' "$f"; then
			echo "FAIL: $f (core) includes curses"
			bad=1
		fi
		for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
			if [ "$dir" = src/analysis ]; then
				case $(basename "$f"):$(basename "$h") in
				analysis.[ch]:* | digest.[ch]:*) ;;
				*:analysis.h | *:digest.h)
					echo "FAIL: $f (an analysis stage) includes the driver's $h"
					bad=1
					;;
				esac
			fi
			hdir=$(printf '%s\n' "$map" | awk -v h="$(basename "$h")" '$1 == h {print $2; exit}')
			[ -n "$hdir" ] || continue # config.h, generated or test-only files
			hl=$(level_of_dir "$hdir")
			if [ "$hl" -gt "$lv" ]; then
				echo "FAIL: $f includes $h from $hdir, a higher folder"
				bad=1
			fi
		done
	done
	exit $bad
)

out=$(check_tree "$srcdir")
rc=$?
if [ $rc -ne 0 ]; then
	printf '%s\n' "$out"
	exit 1
fi

# The checker must catch a planted upward include and a planted curses include.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/layering.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
(cd "$srcdir" && find src tui -name '*.[ch]' | tar -cf - -T -) | (cd "$tmp" && tar -xf -)
printf '#include "report.h"\n' >> "$tmp/src/base/xalloc.c"
if check_tree "$tmp" > "$tmp/out1"; then
	echo "FAIL: the checker missed src/base including src/report"
	exit 1
fi
grep -q 'xalloc.c includes report.h' "$tmp/out1" || { echo "FAIL: wrong complaint:"; cat "$tmp/out1"; exit 1; }
sed -i '$d' "$tmp/src/base/xalloc.c"
printf '#include <ncurses.h>\n' >> "$tmp/src/analysis/steps.c"
if check_tree "$tmp" > "$tmp/out2"; then
	echo "FAIL: the checker missed curses in src/analysis"
	exit 1
fi
sed -i '$d' "$tmp/src/analysis/steps.c"
printf '#include "analysis.h"\n' >> "$tmp/src/analysis/opstats.c"
if check_tree "$tmp" > "$tmp/out3"; then
	echo "FAIL: the checker missed an analysis stage including the driver"
	exit 1
fi
grep -q 'opstats.c (an analysis stage) includes the driver' "$tmp/out3" || { echo "FAIL: wrong complaint:"; cat "$tmp/out3"; exit 1; }
n=$(cd "$srcdir" && find src tui -name '*.[ch]' | wc -l)
echo "PASS: $n files in src/ and tui/ include only their own and lower folders; src/ is free of curses; no analysis stage includes the driver"
