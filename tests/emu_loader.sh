#!/bin/sh
# SPDX-License-Identifier: MIT
# Under the emulator (a cross build's make check), the program's dynamic loader and its C
# library are one glibc build, and its first thread starts.
#
# Why: QEMU_LD_PREFIX pointed at the cross toolchain's sysroot (/usr/aarch64-linux-gnu,
# Debian's libc6-arm64-cross, 2.36-8) maps the loader from there, while the arm64 -dev
# packages (multiarch) bring their own libc6:arm64 (2.36-9+deb12u14) to
# /lib/aarch64-linux-gnu, and the sysroot's loader finds that libc.so.6 first through the
# host's ld.so.cache. The two builds lay out the loader's private state (the cached thread
# stacks' list among it) differently, so the first pthread_create walks a list it cannot
# read and spins for ever: every command that loads data hung, --version did not. Nothing
# in our code was at fault; this test names the pair instead of a hang.
bin=${ASCPROF_BUILDDIR:-.}/ascprof-tui
srcdir=${ASCPROF_SRCDIR:-.}
[ -n "${ASCPROF_EMULATOR:-}" ] || { echo "SKIP: not an emulated build (no ASCPROF_EMULATOR)"; exit 77; }
[ -x "$bin" ] || { echo "SKIP: no binary at $bin"; exit 77; }
fail=0

# the file the emulator opens for a path the guest asks for: QEMU_LD_PREFIX's copy first
host_path() {
  if [ -n "${QEMU_LD_PREFIX:-}" ] && [ -e "$QEMU_LD_PREFIX$1" ]; then echo "$QEMU_LD_PREFIX$1"; else echo "$1"; fi
}
# glibc's release as its files say it: "GLIBC 2.36-9+deb12u14)" in ld.so and libc.so.6 alike
release() { grep -a -o -m 1 'GLIBC [^)]*)' "$1" | head -n 1; }

inits=$("$ASCPROF_EMULATOR" -E LD_DEBUG=libs "$bin" --version 2>&1 >/dev/null | sed -n 's/.*calling init: //p')
loader=$(printf '%s\n' "$inits" | grep '/ld-linux' | head -n 1)
libc=$(printf '%s\n' "$inits" | grep '/libc\.so' | head -n 1)
if [ -z "$loader" ] || [ -z "$libc" ]; then
  echo "FAIL: LD_DEBUG=libs under $ASCPROF_EMULATOR named no loader or libc:"
  printf '%s\n' "$inits" | head -n 10
  exit 1
fi
loader_file=$(host_path "$loader")
libc_file=$(host_path "$libc")
loader_release=$(release "$loader_file")
libc_release=$(release "$libc_file")
echo "loader $loader_file: $loader_release"
echo "libc   $libc_file: $libc_release"
if [ -z "$loader_release" ] || [ "$loader_release" != "$libc_release" ]; then
  echo "FAIL: the loader and libc.so.6 are two glibc builds ($loader_release, $libc_release):"
  echo "      QEMU_LD_PREFIX=${QEMU_LD_PREFIX:-(unset)} mixes them; unset it where the arm64 libc6 is"
  echo "      installed through multiarch, or point it at a root holding both of one build"
  fail=1
fi

# the first thread: a load starts helpers; a mixed pair spins here, so it is bounded
timeout -k 5 120 "$ASCPROF_EMULATOR" "$bin" --summary --no-index "$srcdir/fixtures/demo" >/dev/null 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then
  [ "$rc" -eq 124 ] && echo "FAIL: --summary of the demo did not finish within 120 s under the emulator" ||
    echo "FAIL: --summary of the demo under the emulator exited $rc"
  fail=1
fi
[ "$fail" -eq 0 ] && echo "PASS: one glibc build, and the first thread starts"
exit "$fail"
