#!/bin/sh
# SPDX-License-Identifier: MIT
# README.md must show the screens the screen tests draw (tests/screens/*.txt), as
# `make readme-screens` copies them: see tests/tools/readme_screens.sh.
srcdir=${ASCPROF_SRCDIR:-.}
exec sh "$srcdir/tests/tools/readme_screens.sh" --check "$srcdir/README.md" "$srcdir/tests/screens"
