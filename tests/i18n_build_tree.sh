#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's Chinese command works from the build tree as written, without
# ASCPROF_LOCALEDIR (issue 40, item 1): make lays the catalogs as a locale tree (locale/)
# beside the binary, and the binary looks there before the install prefix. A copy of the
# binary elsewhere, with no locale/ beside it, does not find that catalog (English, unless
# one is installed in the prefix). Skipped in a build without NLS.
srcdir=${ASCPROF_SRCDIR:-.}
builddir=${ASCPROF_BUILDDIR:-.}
bin=${ASCPROF_BIN:-$builddir/ascprof-tui}
if [ ! -f "$builddir/locale/zh_CN/LC_MESSAGES/ascprof-tui.mo" ]; then
  echo "SKIP: no locale/ in the build tree (a build without NLS)"
  exit 77
fi
unset ASCPROF_LOCALEDIR LC_ALL LC_MESSAGES
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ascprof-i18n-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
# the README's way: LANGUAGE=zh_CN LANG=C.UTF-8 ./ascprof-tui ...
(cd "$builddir" && LANGUAGE=zh_CN LANG=C.UTF-8 "$bin" --report "$srcdir/fixtures/demo") >"$tmp/zh" 2>&1
if ! head -n 1 "$tmp/zh" | grep -q '报告'; then
  echo "FAIL: the build tree's binary did not speak Chinese; its first lines:"
  head -n 3 "$tmp/zh"
  fail=1
fi
LANG=C "$bin" --report "$srcdir/fixtures/demo" >"$tmp/c" 2>&1
if ! head -n 1 "$tmp/c" | grep -q ' report of '; then
  echo "FAIL: LANG=C is not English:"
  head -n 3 "$tmp/c"
  fail=1
fi
# a copy without locale/ beside it: the build tree's catalog is not what made it Chinese
if [ -z "${ASCPROF_EMULATOR:-}" ]; then
  mkdir -p "$tmp/bin" && cp "$builddir/ascprof-tui" "$tmp/bin/" || exit 1
  LANGUAGE=zh_CN LANG=C.UTF-8 "$tmp/bin/ascprof-tui" --report "$srcdir/fixtures/demo" >"$tmp/copy" 2>&1
  if head -n 1 "$tmp/copy" | grep -q '报告'; then
    echo "note: a copy outside the build tree is Chinese too: a catalog is installed in the prefix"
  else
    mkdir -p "$tmp/bin/locale" && cp -R "$builddir/locale/." "$tmp/bin/locale/" || exit 1
    LANGUAGE=zh_CN LANG=C.UTF-8 "$tmp/bin/ascprof-tui" --report "$srcdir/fixtures/demo" >"$tmp/copy2" 2>&1
    if ! head -n 1 "$tmp/copy2" | grep -q '报告'; then
      echo "FAIL: the copy with locale/ laid beside it is not Chinese"
      fail=1
    fi
  fi
fi
[ "$fail" -eq 0 ] || exit 1
echo "i18n: the build tree's catalog is found"
