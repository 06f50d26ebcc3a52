#!/bin/bash
# SPDX-License-Identifier: MIT
# Chinese screen tests: the main views' key scripts (tests/screens/NAME.keys, on
# fixtures/demo) run headless in Chinese at 80x24 and 160x48, and every dumped screen must
# equal tests/screens_zh/NAME.WxH.N.txt. No system locale is needed: LANGUAGE=zh_CN with
# LC_ALL=C.UTF-8 selects the catalog, compiled here from po/zh_CN.po into
# $ASCPROF_LOCALEDIR. Each screen must also fit: no line wider than the terminal (display
# width, a CJK character two cells), and in the Ops table every column title ends in the
# cell where the numbers under it end. The same run checks that LANG=C stays English, that
# the text report is translated with its score bars and metric values aligned (and its advice
# section on a real capture), and that --report --json is byte-identical in both languages.
# ASCPROF_UPDATE_SCREENS=1 rewrites the expected screens (review the diff before committing).
srcdir=${ASCPROF_SRCDIR:-.}
bin=${ASCPROF_BIN:-./ascprof-tui}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
if ! command -v msgfmt >/dev/null 2>&1; then
  echo "SKIP: msgfmt not found (Debian: apt-get install gettext)"
  exit 77
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/ascprof-zh-XXXXXX") || exit 1
# the index cache of every run here lies in the temp dir, never the user's (a run in
# one language must not leave an analysis another reads)
export XDG_CACHE_HOME=$out/cache
trap 'rm -rf "$out"' EXIT INT TERM
mkdir -p "$out/locale/zh_CN/LC_MESSAGES"
msgfmt -o "$out/locale/zh_CN/LC_MESSAGES/ascprof-tui.mo" "$srcdir/po/zh_CN.po" || exit 1
export TERM=xterm-256color LC_ALL=C.UTF-8 TZ=UTC ASCPROF_LOCALEDIR=$out/locale
zh() { LANGUAGE=zh_CN "$bin" "$@"; }

pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# display width of each character, cached
declare -A cw
width_of() { # the display width of $1 in $W
  local s=$1 i c n=0
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    if [ -z "${cw[$c]+x}" ]; then
      cw[$c]=$(printf '%s\n' "$c" | wc -L)
    fi
    n=$((n + cw[$c]))
  done
  W=$n
}
# the cells where a run of text ends: after a non-space followed by a space (or the end);
# with $2 = 2, runs are separated by two spaces at least (column titles of two words)
ends_of() {
  local s=$1 sep=${2:-1} i c col=0 prev=' ' gap=0 last=-1
  E=" "
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    if [ -z "${cw[$c]+x}" ]; then cw[$c]=$(printf '%s\n' "$c" | wc -L); fi
    if [ "$c" = ' ' ]; then
      gap=$((gap + 1))
      if [ "$prev" != ' ' ]; then last=$col; fi
      if [ "$gap" -eq "$sep" ] && [ "$last" -ge 0 ]; then E="$E$last "; last=-1; fi
    else
      gap=0
    fi
    col=$((col + cw[$c]))
    prev=$c
  done
  [ "$prev" != ' ' ] && E="$E$col "
}

for size in 80x24 160x48; do
  w=${size%x*}
  for name in overview ops steps ranks bottleneck timeline timeline_input memory comm help; do
    keys=$srcdir/tests/screens/$name.keys
    [ -f "$keys" ] || continue
    # a script may :resize the terminal: its widest size bounds every line
    maxw=$w
    for rw in $(sed -n 's/^:resize \([0-9]*\)x.*/\1/p' "$keys"); do
      [ "$rw" -gt "$maxw" ] && maxw=$rw
    done
    d=$out/$size/$name
    mkdir -p "$d"
    if ! (cd "$srcdir" && OUT=$d zh --script "$keys" --size "$size" fixtures/demo >"$d.stdout" 2>"$d.stderr"); then
      bad "$name at $size: the explorer exited with an error"
      cat "$d.stderr"
      continue
    fi
    for got in "$d"/*.txt; do
      base=$(basename "$got" .txt)
      want=$srcdir/tests/screens_zh/$name.$size.${base#"$name".}.txt
      [ "${ASCPROF_UPDATE_SCREENS:-0}" = 1 ] && mkdir -p "$srcdir/tests/screens_zh" && cp "$got" "$want"
      if [ ! -f "$want" ]; then
        bad "$name at $size: no expected screen $(basename "$want")"
      elif diff -u "$want" "$got" >"$out/diff"; then
        ok
      else
        bad "$name at $size: $(basename "$want") differs from the expected screen:"
        cat "$out/diff"
      fi
      widest=$(wc -L <"$got")
      if [ "$widest" -gt "$maxw" ]; then
        bad "$name at $size: $(basename "$want") has a line $widest cells wide"
      else
        ok
      fi
      # the Ops table: line 3 holds the column titles, the rows below their numbers
      if [ "$name" = ops ] && sed -n 3p "$got" | grep -q '次数'; then
        ends_of "$(sed -n 3p "$got")" 2
        heads=$E
        for row in 4 5 6; do
          sed -n ${row}p "$got" | grep -q '[0-9]' || continue
          ends_of "$(sed -n ${row}p "$got")" 1
          first=1
          for e in $heads; do
            [ "$first" = 1 ] && { first=0; continue; } # the name column is left-aligned
            case "$E" in
              *" $e "*) ;;
              *) bad "$name at $size: $(basename "$want") row $row: no number ends in cell $e under its column title"; continue 2 ;;
            esac
          done
          ok
        done
      fi
    done
  done
done

# translated at all, English under LANG=C, and the JSON report in either language the same
zh_help=$(zh --help)
case "$zh_help" in
  *用法*) ok ;;
  *) bad "--help is not in Chinese with LANGUAGE=zh_CN" ;;
esac
c_help=$(LC_ALL=C LANGUAGE=zh_CN "$bin" --help)
case "$c_help" in
  Usage:*) ok ;;
  *) bad "--help is not English with LC_ALL=C" ;;
esac
# --no-index: the first run would write a trace index the second reads ("written" against
# "used"), which is no difference of language
for args in "--no-index --report --json fixtures/demo" "--no-index --summary --json fixtures/demo" \
            "--no-index --compare --report --json fixtures/demo fixtures/demo"; do
  # shellcheck disable=SC2086 # words
  (cd "$srcdir" && "$bin" $args) >"$out/en.json" || bad "$args failed"
  # shellcheck disable=SC2086 # words
  (cd "$srcdir" && zh $args) >"$out/zh.json" || bad "$args failed in Chinese"
  # the summary's load timings (load_seconds, phase_seconds, the index's seconds) differ
  # from run to run
  for f in en zh; do
    sed '/"phase_seconds"/,/}/d; /"load_seconds"/d; /"index": {/,/}/{/"seconds"/d;}' "$out/$f.json" >"$out/$f.cmp"
  done
  if cmp -s "$out/en.cmp" "$out/zh.cmp" && [ -s "$out/en.cmp" ]; then
    ok
  else
    bad "$args differs between English and Chinese"
    diff "$out/en.cmp" "$out/zh.cmp" | head -20
  fi
done

# the text report: in Chinese with the catalog, the bottleneck names padded by display width
(cd "$srcdir" && zh --report fixtures/demo) >"$out/zh.txt" || bad "--report failed in Chinese"
if grep -q '^瓶颈（得分 0-100' "$out/zh.txt" && grep -q '结论：NPU 计算' "$out/zh.txt"; then
  ok
else
  bad "--report is not in Chinese with LANGUAGE=zh_CN"
fi
# "  NAME<pad to 14 columns> SCORE [": the bar starts in the same column on every line
cols=$(grep '^  [^ ].* \[[#.]*\]' "$out/zh.txt" | while IFS= read -r l; do
  width_of "${l%%\[*}"
  echo "$W"
done | sort -u)
if [ "$cols" = 21 ]; then ok; else bad "--report: bottleneck bars start in columns $(echo $cols)"; fi
# the metrics: "  LABEL<pad to 26 columns> VALUE<right-aligned in 14>  SOURCE", values end in column 43
cols=$(sed -n '/^指标$/,/^$/p' "$out/zh.txt" | grep '^  ' | while IFS= read -r l; do
  width_of "${l%  *}"
  echo "$W"
done | sort -u)
if [ "$cols" = 43 ]; then ok; else bad "--report: metric values end in columns $(echo $cols)"; fi
# the metrics' sources and the cross-checks, translated where they are shown (JSON keeps them)
if grep -q '^  NPU 忙碌  .* Ascend Hardware 泳道$' "$out/zh.txt" && grep -q '：差异在 2 % 以内$' "$out/zh.txt" &&
   ! grep -Eq '(Ascend Hardware|Python/CANN) lanes|agrees within|the table covers' "$out/zh.txt"; then
  ok
else
  bad "--report: the metrics' sources or the cross-checks are not in Chinese"
fi
# the attribution: "  L LABEL<pad to 34 columns> VALUE<right-aligned in 14> PCT %", every line as wide
cols=$(sed -n '/时间窗的归因/,/^$/p' "$out/zh.txt" | grep '^  [^ []  *[^ ].* %$' | while IFS= read -r l; do
  width_of "$l"
  echo "$W"
done | sort -u)
if [ "$cols" = 62 ] && grep -q '^  C Device 计算  ' "$out/zh.txt"; then
  ok
else
  bad "--report: the attribution's lines are $(echo $cols) columns wide (or its labels are not translated)"
fi
# the cluster and memory sections
if grep -q '^集群：2 个 rank，最多 14 步' "$out/zh.txt" && grep -q '^    rank   步数     步 ms   自身 ms' "$out/zh.txt" &&
   grep -q '^内存（MB）$' "$out/zh.txt" && grep -q '^      分配峰值 MB       预留峰值' "$out/zh.txt" &&
   ! grep -Eq 'slow ranks|everyone waits|peak alloc|communication groups' "$out/zh.txt"; then
  ok
else
  bad "--report: the cluster or memory section is not in Chinese"
fi

# the advice rules on a real capture (level1: on-the-fly compilation and TransData reach
# their thresholds): titles, evidence, why and try in Chinese, no English left in the section
real=${ASCPROF_SHARED:-$srcdir/../shared}/fixtures-real/msinsight/test/data/pytorch/text/level1
if [ -d "$real" ]; then
  zh --no-index --report "$real" 2>/dev/null | sed -n '/^建议（昇腾规则/,/^$/p' >"$out/zh.adv"
  if grep -q '^  \* 算子在线编译（9.0 % >= 1.0，置信度 高）' "$out/zh.adv" &&
     grep -q '次 aclopCompile\* 调用，.*（位于 host_dispatch ' "$out/zh.adv" &&
     grep -q '^      原因：TransData 在私有格式' "$out/zh.adv" &&
     ! grep -Eq 'on-the-fly|format conversions|why:|try:|top:|calls,|tasks,| of device busy' "$out/zh.adv"; then
    ok
  else
    bad "--report on level1: the advice section is not all Chinese"
    cat "$out/zh.adv"
  fi
else
  echo "no ../shared/fixtures-real: the real-capture advice check is skipped"
fi

# the comparison report: figure labels and column titles in Chinese, the figures' values
# in the same columns (labels padded by display width)
(cd "$srcdir" && zh --no-index --report --compare fixtures/demo fixtures/demo) >"$out/zh.cmp.txt" 2>/dev/null ||
  bad "--report --compare failed in Chinese"
cols=$(sed -n '/^  指标  /,/^$/p' "$out/zh.cmp.txt" | grep ' %  same$' | while IFS= read -r l; do
  width_of "$l"
  echo "$W"
done | sort -u)
if [ "$cols" = 89 ] && grep -q '^  时间窗  ' "$out/zh.cmp.txt" && grep -q '^瓶颈得分（0-100' "$out/zh.cmp.txt" &&
   ! grep -Eq '^  (figure|candidate) ' "$out/zh.cmp.txt"; then
  ok
else
  bad "--report --compare: figures not in Chinese or not aligned (line widths: $(echo $cols))"
fi

# bad input: the loaders' messages (with diag.c's level names and byte offsets) are in
# Chinese in the text summary, and --summary --json
# stays English and the same in both languages, also after a Chinese run has written the
# trace index (which keeps the loaders' messages)
gen=${ASCPROF_GEN:-$(dirname "$bin")/tools/ascprof-gen}
if [ -x "$gen" ]; then
  export XDG_CACHE_HOME=$out/cache
  cap=$out/bad
  "$gen" --out "$cap" --ops 20 --steps 3 --prefill 1 --no-done >/dev/null || bad "ascprof-gen failed"
  opd=$(echo "$cap"/*_ascend_pt/ASCEND_PROFILER_OUTPUT)
  : >"$opd/communication.json"
  head -c 4000 "$opd/trace_view.json" >"$out/cut" && mv "$out/cut" "$opd/trace_view.json"
  zh --summary "$cap" >"$out/zh.sum" 2>&1
  # the level names and the byte-offset prefix of diag.c too
  if grep -q '^  警告：.*communication.json: 空文件（0 字节）；已跳过' "$out/zh.sum" &&
     grep -q '此处没有 analyse.done' "$out/zh.sum" &&
     grep -q '^  警告：.*trace_view.json: 第 [0-9]* 字节: 文件被截断' "$out/zh.sum" &&
     ! grep -Eq '(warning|info|error):|: byte [0-9]' "$out/zh.sum"; then
    ok
  else
    bad "--summary on bad input: the loaders' messages are not in Chinese"
    head -20 "$out/zh.sum"
  fi
  # the first English run writes the English index, the next two use it
  "$bin" --summary --json "$cap" >/dev/null 2>&1
  "$bin" --summary --json "$cap" >"$out/en.json" 2>/dev/null
  zh --summary --json "$cap" >"$out/zh.json" 2>/dev/null
  for f in en zh; do
    sed '/"phase_seconds"/,/}/d; /"load_seconds"/d; /"seconds"/d' "$out/$f.json" >"$out/$f.cmp"
  done
  if cmp -s "$out/en.cmp" "$out/zh.cmp" && grep -q 'empty file (0 bytes); skipped' "$out/en.cmp" &&
     grep -q 'trace_view.json: byte [0-9]*: ' "$out/en.cmp" && grep -q '"level": "warning"' "$out/en.cmp" &&
     ! LC_ALL=C grep -q '[^ -~]' "$out/en.cmp"; then
    ok
  else
    bad "--summary --json on bad input is not the same English in both languages"
    diff "$out/en.cmp" "$out/zh.cmp" | head -20
  fi
  # the Cluster view (0) on four generated ranks, rank 3 planted slow: translated, its step
  # cells after the column titles, every line within 80 columns
  "$gen" --out "$out/c4" --ranks 4 --comm --steps 4 --ops 20 --seed 5 --slow-rank 3 >/dev/null ||
    bad "ascprof-gen failed"
  printf '0\n:dump %s\n' "$out/cluster.txt" >"$out/cluster.keys"
  zh --no-index --script "$out/cluster.keys" --size 80x24 "$out/c4" >/dev/null 2>&1 || bad "the Cluster view failed"
  if [ "$(wc -L <"$out/cluster.txt")" -le 80 ] && grep -q '^ rank      步 ms   自身 ms   等待 ms      z  各步' "$out/cluster.txt" &&
     grep -q '^ 3  .*[▁▂▃▄▅▆▇█]' "$out/cluster.txt" && grep -q '^ 慢卡：3（' "$out/cluster.txt" &&
     ! grep -Eq 'slow ranks|waits for|collectives matched' "$out/cluster.txt"; then
    ok
  else
    bad "the Cluster view is not in Chinese or not aligned"
    cat "$out/cluster.txt"
  fi
  # the Serving view (V) on generated serving output beside its ranks, at 80x24: its screens
  # (the view, a request's executions) against tests/screens_zh/serving.80x24.N.txt, every
  # line within 80 columns, the request table's column titles translated
  "$gen" --out "$out/sv" --ranks 2 --steps 12 --prefill 3 --ops 40 --serving --seed 2 >/dev/null ||
    bad "ascprof-gen failed"
  printf 'V\n:dump %s\nEnter\n:dump %s\n' "$out/serving.1.txt" "$out/serving.2.txt" >"$out/serving.keys"
  (cd "$out" && zh --no-index --script "$out/serving.keys" --size 80x24 sv >/dev/null 2>&1) ||
    bad "the Serving view failed"
  for n in 1 2; do
    want=$srcdir/tests/screens_zh/serving.80x24.$n.txt
    [ "${ASCPROF_UPDATE_SCREENS:-0}" = 1 ] && cp "$out/serving.$n.txt" "$want"
    if [ -f "$want" ] && diff -u "$want" "$out/serving.$n.txt" && [ "$(wc -L <"$out/serving.$n.txt")" -le 80 ] &&
       grep -q '排队 ms' "$out/serving.$n.txt" && ! grep -Eq 'arrival ms|bound by|worst request' "$out/serving.$n.txt"; then
      ok
    else
      bad "the Serving view's screen $n is not in Chinese, not within 80 columns or not as expected"
    fi
  done
else
  echo "no generator: the bad-input, Cluster and Serving view checks are skipped"
fi

# digests keep the analysis' texts for later JSON runs: one written in Chinese gives the
# same --report --json as one written in English; the command's own lines are in the
# user's language
(cd "$srcdir" && zh --digest "$out/dg-zh" fixtures/demo) >"$out/dg-zh.out" 2>&1 || bad "--digest failed in Chinese"
(cd "$srcdir" && "$bin" --digest "$out/dg-en" fixtures/demo) >"$out/dg-en.out" 2>&1 || bad "--digest failed"
if grep -q '^rank 1：[0-9]* 字节（占其 trace 的 [0-9.]* %，trace 为 [0-9]* 字节）$' "$out/dg-zh.out" &&
   grep -q '^rank 1: [0-9]* bytes ([0-9.]* % of its trace' "$out/dg-en.out"; then
  ok
else
  bad "--digest's lines are not in the user's language"
  cat "$out/dg-zh.out" "$out/dg-en.out"
fi
for l in zh en; do
  "$bin" --report --json "$out/dg-$l" 2>/dev/null | sed '/^  "path": /d' >"$out/dg-$l.json"
done
if cmp -s "$out/dg-zh.json" "$out/dg-en.json" && [ -s "$out/dg-en.json" ]; then
  ok
else
  bad "--report --json from digests written in Chinese and in English differs"
  diff "$out/dg-en.json" "$out/dg-zh.json" | head -10
fi

echo "screens_zh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
