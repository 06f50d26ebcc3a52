#!/bin/sh
# SPDX-License-Identifier: MIT
# The aarch64 suite, from a configured native build directory (.ci/run runs it):
#   tests/arm64.sh [--install]
# --install first brings, on Debian, the cross toolchain, qemu-user-static and the arm64
# -dev packages (multiarch: dpkg --add-architecture arm64), as root or through sudo. Then
# `make check-arm64`: the distributed tree cross-built under arm64/ and every test run
# under qemu-user (binfmt_misc is not needed), with tests/arch_identity.sh comparing the
# reports with this build's, byte for byte.
#
# The emulator's loader comes from the multiarch libc6:arm64 that the -dev packages bring;
# QEMU_LD_PREFIX is unset here, since pointing it at the cross toolchain's sysroot mixes two
# glibc builds and hangs the first thread (tests/emu_loader.sh says so when it happens).
set -eu
if [ "${1:-}" = --install ]; then
  as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
  export DEBIAN_FRONTEND=noninteractive
  as_root dpkg --add-architecture arm64
  as_root apt-get update -qq
  as_root apt-get install -y -qq gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static \
    libncurses-dev:arm64 libcsv-dev:arm64 libunistring-dev:arm64 libxxhash-dev:arm64 \
    libsqlite3-dev:arm64 libcmocka-dev:arm64 >/dev/null
fi
[ -f Makefile ] || { echo "tests/arm64.sh: run it from a configured build directory (./configure first)" >&2; exit 2; }
unset QEMU_LD_PREFIX
start=$(date +%s)
make check-arm64
echo "arm64: cross build and make check under qemu-user in $(($(date +%s) - start)) s"
