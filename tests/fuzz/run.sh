#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs one fuzz harness (after `make fuzz`) for SECONDS, nice'd, one process:
#   tests/fuzz/run.sh elem|trace|csv|discover|comm|profinfo|digest|db|cluster SECONDS [libFuzzer options...]
# from the build directory. The growing corpus is tests/fuzz/corpus/<harness>/, crashes,
# leaks and hangs land in tests/fuzz/artifacts/, the log in tests/fuzz/<harness>.log.
set -eu
h=$1
secs=$2
shift 2
dir=$(cd "$(dirname "$0")" && pwd)
mkdir -p "tests/fuzz/corpus/$h" tests/fuzz/artifacts
case $h in
elem) max=4096 ;;
discover) max=16384 ;;
*) max=65536 ;;
esac
# shellcheck disable=SC2086
exec nice -n 10 "tests/fuzz/fuzz_$h" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
	-max_len="$max" -dict="$dir/json.dict" -print_final_stats=1 \
	-artifact_prefix="tests/fuzz/artifacts/$h-" "$@" "tests/fuzz/corpus/$h" "tests/fuzz/seeds/$h" \
	>"tests/fuzz/$h.log" 2>&1
