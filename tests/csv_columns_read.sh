#!/bin/sh
# The CSV columns kept typed (csv_schema.c's READ-LIST) must be exactly those the analysis
# and the views read by name: a column read but not listed would silently read as absent,
# one listed but never read costs memory on every row of a large kernel table.
set -eu
src=${srcdir:-.}
listed=$(sed -n '/READ-LIST/,/^};/p' "$src/src/load/csv_schema.c" | grep -o '\bCOL_[A-Z0-9_]*' | sort -u)
used=$(find "$src/src" "$src/tui" -name '*.c' | grep -v -e csv_schema.c -e csv_table.c |
	xargs grep -ho '\bCOL_[A-Z0-9_]*' | sort -u)
if [ -z "$listed" ] || [ -z "$used" ]; then
	echo "could not read the list or the code" >&2
	exit 1
fi
if [ "$listed" != "$used" ]; then
	echo "columns read by the code but not kept typed (<) or kept but never read (>):" >&2
	printf '%s\n' "$listed" > "${TMPDIR:-/tmp}/csvcols.$$.a"
	printf '%s\n' "$used" > "${TMPDIR:-/tmp}/csvcols.$$.b"
	diff "${TMPDIR:-/tmp}/csvcols.$$.b" "${TMPDIR:-/tmp}/csvcols.$$.a" >&2 || true
	rm -f "${TMPDIR:-/tmp}/csvcols.$$.a" "${TMPDIR:-/tmp}/csvcols.$$.b"
	exit 1
fi
echo "$(printf '%s\n' "$listed" | wc -l) columns kept typed, each read by the code"
