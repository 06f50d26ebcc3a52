#!/bin/sh
# SPDX-License-Identifier: MIT
# The house's layering: data flows one way, so a folder uses only its own and lower
# folders, lowest first, and the files inside a folder form no loop:
#   src/base < src/json < src/store < src/load < src/analysis < src/report < tui (tui/views)
#   (tools/ above all)
# A file here is a module: a .c with its .h and its private header (NAME_internal.h,
# NAME_parts.h); a header alone is a module of its own. Two kinds of edge between modules
# are checked:
#   include  FROM includes TO's header, or declares a struct TO's header defines
#            (`struct csv_table;`: a forward declaration hides a use from the includes)
#   call     a function defined in TO's object is called in FROM's (nm on the build
#            tree's objects, $ASCPROF_BUILDDIR: T/W defined, U used)
# No edge points to a higher folder, no edge lies on a cycle (of its kind), and no
# analysis stage uses the driver: analysis.[ch] (the driver, the public entry) and
# digest.[ch] (which runs the driver on captures beside digests) are used inside
# src/analysis only by themselves; every stage uses result.h and lower stages.
# Includes name headers by basename (one -I per folder, Makefile.am), so basenames must be
# unique. The core (src/) never includes curses: the report and the tests link it alone.
# The check runs again on a copy with planted violations and must fail there, so a
# checker that passes everything cannot go unnoticed.
set -u
srcdir=${ASCPROF_SRCDIR:-.}
builddir=${ASCPROF_BUILDDIR:-}

# KNOWN_LOOPS: edges allowed to lie on a loop (or point up), one a line: KIND FROM TO,
# printed as notes; any other such edge fails, and so does a line here that is no longer
# a loop. Issue 39 emptied it: keep it empty (a loop is cut, not listed).
KNOWN_LOOPS=''

# source_edges: "include FROM TO WHY" for every #include "x.h" naming a header of the tree
# and every forward declaration `struct x;` of a struct a header defines (run in the root)
source_edges() {
	find src tui tools -name '*.[ch]' | sort | awk '
	# a private header named after its module (trace_internal.h, app_parts.h) is that module
	function mod(p) { sub(/\.[ch]$/, "", p); sub(/_(internal|parts)$/, "", p); return p }
	function base(p) { sub(/.*\//, "", p); return p }
	function dir(p) { sub(/\/[^\/]*$/, "", p); return p }
	# the module defining struct s for a declaration in module m: its own, else one in
	# its folder, else the one outside tools/ (for the core), else none (ambiguous); a
	# struct no header defines is opaque, owned by the .c that defines it
	function struct_home(s, m,   k, i, c, found, n) {
		if ((s, m) in cdef) return m
		n = split(hdef[s] != "" ? hdef[s] : cdefs[s], c, " ")
		for (i = 1; i <= n; i++) if (dir(c[i]) == dir(m)) return c[i]
		found = ""; k = 0
		for (i = 1; i <= n; i++) if (c[i] !~ /^tools\// || m ~ /^tools\//) { found = c[i]; k++ }
		return k == 1 ? found : ""
	}
	{ files[++nf] = $0 }
	END {
		for (i = 1; i <= nf; i++) {
			f = files[i]
			if (f ~ /\.h$/) hmod[base(f)] = mod(f)
			while ((getline line < f) > 0) {
				if (line !~ /^(typedef )?struct [a-z_0-9]+ \{/) continue
				s = line; sub(/^(typedef )?struct /, "", s); sub(/ .*/, "", s)
				if (f ~ /\.h$/) hdef[s] = hdef[s] " " mod(f)
				else { cdef[s, mod(f)] = 1; cdefs[s] = cdefs[s] " " mod(f) }
			}
			close(f)
		}
		for (i = 1; i <= nf; i++) {
			f = files[i]; m = mod(f)
			while ((getline line < f) > 0) {
				if (line ~ /^[ \t]*#[ \t]*include[ \t]*"/) {
					h = line; sub(/^[^"]*"/, "", h); sub(/".*/, "", h)
					t = hmod[base(h)]
					if (t != "" && t != m) print "include", m, t, f " includes " base(h)
				} else if (line ~ /^struct [a-z_0-9]+;/) {
					s = line; sub(/^struct /, "", s); sub(/;.*/, "", s)
					t = struct_home(s, m)
					if (t != "" && t != m) print "include", m, t, f " declares struct " s
				}
			}
			close(f)
		}
	}'
}

# call_edges BUILD: "call FROM TO WHY" for every function defined in one module's object
# and used in another's (run in the source root); fails when a .c has no object in BUILD
call_edges() {
	for c in $(find src tui tools -name '*.c' | sort); do
		d=${c%/*}
		n=${c##*/}
		n=${n%.c}
		found=0
		# automake names a per-target object TARGET-NAME.o
		for o in "$1/$d/$n.o" "$1/$d"/*-"$n.o"; do
			[ -f "$o" ] || continue
			found=1
			${NM:-nm} "$o" | awk -v m="$d/$n" '
				NF == 3 && $2 ~ /^[TWi]$/ { print "D", m, $3 }
				NF == 2 && $1 == "U" { print "U", m, $2 }'
		done
		[ $found = 1 ] || echo "X $d/$n no object for $c in $1 (build it first)"
	done | awk '
	function dir(p) { sub(/\/[^\/]*$/, "", p); return p }
	$1 == "X" { sub(/^X [^ ]+ /, ""); print "FAIL: " $0; bad = 1; next }
	$1 == "D" { if (!(($3, $2) in seen)) { def[$3] = def[$3] " " $2; seen[$3, $2] = 1 } next }
	{ use[++nu] = $2 " " $3 }
	END {
		for (i = 1; i <= nu; i++) {
			split(use[i], u, " ")
			n = split(def[u[2]], c, " ")
			if (n == 0) continue
			# a name defined in several programs (main): the one beside the caller,
			# else the one outside tools/ for the core, else every one
			pick = ""
			for (k = 1; k <= n; k++) if (dir(c[k]) == dir(u[1])) pick = pick " " c[k]
			if (pick == "") for (k = 1; k <= n; k++) if (c[k] !~ /^tools\// || u[1] ~ /^tools\//) pick = pick " " c[k]
			if (pick == "") pick = def[u[2]]
			n = split(pick, c, " ")
			for (k = 1; k <= n; k++) {
				if (c[k] == u[1]) continue
				e = u[1] " " c[k]
				if (!(e in why)) { order[++ne] = e; why[e] = "calls " u[2] }
				else if (length(why[e]) < 60) why[e] = why[e] ", " u[2]
				else if (why[e] !~ /\.\.\.$/) why[e] = why[e] ", ..."
			}
		}
		for (i = 1; i <= ne; i++) print "call", order[i], why[order[i]]
		exit bad
	}'
}

# check_graph EDGES ALLOW CALLS: every edge that points up, uses the driver from a stage
# or lies on a cycle of its kind fails unless ALLOW lists it (then a note); a line of
# ALLOW that matches none fails (call lines only when CALLS is 1)
check_graph() {
	awk -v calls="$3" '
	function dir(p) { sub(/\/[^\/]*$/, "", p); return p }
	function level(m,   d) {
		d = dir(m)
		if (d == "src/base") return 0; if (d == "src/json") return 1
		if (d == "src/store") return 2; if (d == "src/load") return 3
		if (d == "src/analysis") return 4; if (d == "src/report") return 5
		if (d == "tui" || d == "tui/views") return 6; if (d ~ /^tools(\/|$)/) return 7
		return 99
	}
	# Tarjan over the graph of kind K; comp[K, v] names the strongly connected part
	function strong(K, v,   i, w) {
		idx[K, v] = low[K, v] = ++counter; stack[++sp] = v; on[K, v] = 1
		for (i = 1; i <= nadj[K, v]; i++) {
			w = adj[K, v, i]
			if (!((K, w) in idx)) { strong(K, w); if (low[K, w] < low[K, v]) low[K, v] = low[K, w] }
			else if (on[K, w] && idx[K, w] < low[K, v]) low[K, v] = idx[K, w]
		}
		if (low[K, v] == idx[K, v]) {
			ncomp++
			do { w = stack[sp--]; on[K, w] = 0; comp[K, w] = ncomp } while (w != v)
		}
	}
	FILENAME == ARGV[1] { if (NF >= 3 && $1 !~ /^#/) allow[$1 " " $2 " " $3] = 1; next }
	{
		k = $1 " " $2 " " $3
		if (k in ewhy) next
		w = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", w); ewhy[k] = w; ek[++ne] = k
		if (!(($1, $2, $3) in has)) { has[$1, $2, $3] = 1; adj[$1, $2, ++nadj[$1, $2]] = $3 }
		node[$1, $2] = 1; node[$1, $3] = 1; nodes[++nn] = $1 SUBSEP $2; nodes[++nn] = $1 SUBSEP $3
	}
	END {
		for (i = 1; i <= nn; i++) {
			split(nodes[i], kv, SUBSEP)
			if (!((kv[1], kv[2]) in idx)) strong(kv[1], kv[2])
		}
		for (i = 1; i <= ne; i++) {
			split(ek[i], e, " ")
			what = ""
			if (level(e[2]) == 99) what = "in no known folder"
			else if (level(e[3]) > level(e[2])) what = "an arrow back up: " dir(e[3]) " is a higher folder"
			else if (dir(e[2]) == "src/analysis" && e[2] !~ /\/(analysis|digest)$/ &&
			    e[3] ~ /^src\/analysis\/(analysis|digest)$/)
				what = "an analysis stage uses the driver"
			else if (comp[e[1], e[2]] == comp[e[1], e[3]]) {
				what = "a loop:"
				for (j = 1; j <= nn; j++) {
					split(nodes[j], kv, SUBSEP)
					if (kv[1] == e[1] && comp[kv[1], kv[2]] == comp[e[1], e[2]] && !((kv[2]) in listed)) {
						what = what " " kv[2]; listed[kv[2]] = 1
					}
				}
				for (j in listed) delete listed[j]
			}
			if (what == "") continue
			line = e[1] " " e[2] " -> " e[3] " (" ewhy[ek[i]] "): " what
			if (ek[i] in allow) { print "NOTE: known (issue 39): " line; used[ek[i]] = 1 }
			else { print "FAIL: " line; bad = 1 }
		}
		for (k in allow) {
			if ((k in used) || (k ~ /^call / && calls != 1)) continue
			print "FAIL: KNOWN_LOOPS lists " k ", no longer a loop or an arrow back up: delete its line"
			bad = 1
		}
		exit bad
	}' "$2" "$1"
}

# check_tree ROOT CALLS: prints every violation (and the known loops as notes), exits 1
# when there is one; CALLS is a file of call edges, or empty to check includes alone
check_tree() (
	cd "$1" || exit 2
	bad=0
	files=$(find src tui -name '*.[ch]' | sort)
	dups=$(for f in $files; do basename "$f"; done | sort | uniq -d)
	if [ -n "$dups" ]; then
		echo "FAIL: basenames used twice: $dups"
		bad=1
	fi
	for f in $files; do
		case $(dirname "$f") in
		src/base | src/json | src/store | src/load | src/analysis | src/report) core=1 ;;
		tui | tui/views) core=0 ;;
		*)
			echo "FAIL: $f is in no known folder (see tests/layering.sh)"
			bad=1
			continue
			;;
		esac
		if [ $core = 1 ] && grep -qE '#include[[:space:]]*[<"](n?curses|ncursesw/)' "$f"; then
			echo "FAIL: $f (core) includes curses"
			bad=1
		fi
	done
	edges=$(mktemp "${TMPDIR:-/tmp}/layering-edges.XXXXXX") || exit 2
	allow=$(mktemp "${TMPDIR:-/tmp}/layering-allow.XXXXXX") || exit 2
	source_edges > "$edges"
	if [ -n "$2" ]; then cat "$2" >> "$edges"; fi
	printf '%s\n' "$allow_list" > "$allow"
	check_graph "$edges" "$allow" "$([ -n "$2" ] && echo 1 || echo 0)" || bad=1
	rm -f "$edges" "$allow"
	exit $bad
)

allow_list=$KNOWN_LOOPS
tmp=$(mktemp -d "${TMPDIR:-/tmp}/layering.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
calls=
if [ -n "$builddir" ] && [ -f "$builddir/src/base/xalloc.o" ]; then
	calls=$tmp/calls
	if ! (cd "$srcdir" && call_edges "$builddir") > "$calls"; then
		grep '^FAIL' "$calls"
		exit 1
	fi
else
	echo "NOTE: no build tree (ASCPROF_BUILDDIR, make check sets it): includes alone, no call edges"
fi

out=$(check_tree "$srcdir" "$calls")
rc=$?
printf '%s\n' "$out" | grep '^NOTE' | sort -u
if [ $rc -ne 0 ]; then
	printf '%s\n' "$out" | grep -v '^NOTE'
	exit 1
fi

# The checker must catch each kind of violation planted in a copy. planted WHAT EXPECTED
# [CALLS]: the check of the copy (with CALLS as its call edges) must fail, saying EXPECTED.
(cd "$srcdir" && find src tui tools -name '*.[ch]' | tar -cf - -T -) | (cd "$tmp" && mkdir copy && cd copy && tar -xf -)
planted() {
	if check_tree "$tmp/copy" "${3-$calls}" > "$tmp/out"; then
		echo "FAIL: the checker missed $1"
		exit 1
	fi
	grep -q "^FAIL: .*$2" "$tmp/out" || { echo "FAIL: wrong complaint for $1:"; cat "$tmp/out"; exit 1; }
}
printf '#include "report.h"\n' >> "$tmp/copy/src/base/xalloc.c"
planted 'src/base including src/report' 'xalloc.c includes report.h.*an arrow back up'
sed -i '$d' "$tmp/copy/src/base/xalloc.c"
printf '#include <ncurses.h>\n' >> "$tmp/copy/src/analysis/steps.c"
planted 'curses in src/analysis' 'steps.c (core) includes curses'
sed -i '$d' "$tmp/copy/src/analysis/steps.c"
printf '#include "analysis.h"\n' >> "$tmp/copy/src/analysis/opstats.c"
planted 'an analysis stage including the driver' 'opstats.c includes analysis.h.*stage uses the driver'
sed -i '$d' "$tmp/copy/src/analysis/opstats.c"
printf 'struct analysis;\n' >> "$tmp/copy/src/base/diag.h"
planted 'a forward declaration from a higher folder' 'diag.h declares struct analysis.*arrow back up'
sed -i '$d' "$tmp/copy/src/base/diag.h"
printf '#include "sanitize.h"\n' >> "$tmp/copy/src/base/sbuf.h"
planted 'an include cycle in src/base' 'include src/base/sbuf -> src/base/sanitize.*a loop: .*src/base/sbuf'
sed -i '$d' "$tmp/copy/src/base/sbuf.h"
allow_list="$KNOWN_LOOPS
include src/base/sbuf src/base/sanitize"
planted 'a known loop that is gone' 'KNOWN_LOOPS lists include src/base/sbuf src/base/sanitize'
allow_list=$KNOWN_LOOPS
# call edges: a synthetic list beside the real one
printf 'call src/base/u64map src/json/jsonw calls jsonw_x\n' > "$tmp/calls.up"
printf 'call src/store/lod src/store/lanes calls lanes_x\ncall src/store/lanes src/store/lod calls lod_x\n' > "$tmp/calls.loop"
printf 'call src/analysis/steps src/analysis/digest calls digest_x\n' > "$tmp/calls.driver"
for k in up loop driver; do
	if [ -n "$calls" ]; then cat "$calls" >> "$tmp/calls.$k"; fi
done
planted 'a call back up' 'call src/base/u64map -> src/json/jsonw (calls jsonw_x): an arrow back up' "$tmp/calls.up"
planted 'a call cycle in src/store' 'call src/store/lanes -> src/store/lod (calls lod_x): a loop: ' "$tmp/calls.loop"
planted 'a stage calling the driver' 'call src/analysis/steps -> src/analysis/digest.*stage uses the driver' "$tmp/calls.driver"

n=$(cd "$srcdir" && find src tui -name '*.[ch]' | wc -l)
echo "PASS: $n files in src/ and tui/ use only their own and lower folders (includes, forward declarations${calls:+, calls}), form no new loop and no stage uses the driver; src/ is free of curses"
