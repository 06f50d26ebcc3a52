#!/bin/sh
# SPDX-License-Identifier: MIT
# Views open each other through one door and read the model through accessors (app.h):
#   - no app_* function is defined in a view file (app.c and its parts define them);
#   - views.h has no entry point taking a void * (a view opens another with app_open and
#     a typed struct view_target);
#   - no view includes app_parts.h (what app.c offers its own parts);
#   - no view reads struct app's fields (app->...), only through the accessors;
#   - no view reads a rank's analysis fields (ra->..., v->ra->..., pair->ra[0]->...), only
#     through app.h's app_ra_* accessors: what views depend on of struct rank_analysis is
#     that list.
# The check runs once more on a copy with each rule broken and must fail each time.
set -u
srcdir=${ASCPROF_SRCDIR:-.}

# check_tree ROOT: prints every violation, exits 1 when there is one
check_tree() (
	cd "$1" || exit 2
	bad=0
	defs=$(grep -nE '^[a-z][a-z_ ]*[ *]app_[a-z_]+\(' tui/views/*.c)
	if [ -n "$defs" ]; then
		printf 'FAIL: app_* defined in a view:\n%s\n' "$defs"
		bad=1
	fi
	voids=$(grep -nE '\(.*void \*[a-z_]*[,)]' tui/views/views.h)
	if [ -n "$voids" ]; then
		printf 'FAIL: views.h takes a void *:\n%s\n' "$voids"
		bad=1
	fi
	parts=$(grep -ln '#include "app_parts.h"' tui/views/*.[ch])
	if [ -n "$parts" ]; then
		printf 'FAIL: a view includes app_parts.h: %s\n' "$parts"
		bad=1
	fi
	fields=$(grep -nE '(^|[^>.a-z_])app->[a-z_]' tui/views/*.c)
	if [ -n "$fields" ]; then
		printf 'FAIL: a view reads struct app directly:\n%s\n' "$fields"
		bad=1
	fi
	ranks=$(grep -nE '(^|[^A-Za-z0-9_])([a-z0-9_]*_)?ra(\[[^]]*\])?->[a-z_]' tui/views/*.c)
	if [ -n "$ranks" ]; then
		printf 'FAIL: a view reads a rank analysis directly (use the app_ra_* accessors):\n%s\n' "$ranks"
		bad=1
	fi
	exit $bad
)

out=$(check_tree "$srcdir")
if [ $? -ne 0 ]; then
	printf '%s\n' "$out"
	exit 1
fi

# Each rule must catch a planted violation.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/views_door.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
plant() { # NAME FILE LINE: a copy of tui/ with LINE appended to FILE must fail with NAME
	rm -rf "$tmp/tui"
	(cd "$srcdir" && tar -cf - tui) | (cd "$tmp" && tar -xf -)
	printf '%s\n' "$3" >> "$tmp/$2"
	if check_tree "$tmp" > "$tmp/out"; then
		echo "FAIL: the checker missed $1"
		exit 1
	fi
	grep -q "$1" "$tmp/out" || { echo "FAIL: wrong complaint for $1:"; cat "$tmp/out"; exit 1; }
}
plant 'app_\* defined in a view' tui/views/view_steps.c 'void app_goto_steps(struct app *app) { (void)app; }'
plant 'views.h takes a void' tui/views/views.h 'void steps_focus(void *st, struct app *app);'
plant 'includes app_parts.h' tui/views/view_ranks.c '#include "app_parts.h"'
plant 'reads struct app directly' tui/views/view_memory.c 'static size_t peek(struct app *app) { return app->rank; }'
plant 'reads a rank analysis directly' tui/views/view_steps.c 'static int64_t peek_t0(const struct rank_analysis *ra) { return ra->t0; }'
plant 'reads a rank analysis directly' tui/views/view_compare.c 'static int peek_rank(const struct compare_pair *p) { return p->ra[1]->rank; }'
n=$(ls "$srcdir"/tui/views/*.c | wc -l)
echo "PASS: $n view files open views through app_open and read the model (the app, a rank's analysis) through accessors"
