#!/bin/sh
# SPDX-License-Identifier: MIT
# Seed corpora for the fuzz harnesses, from the bundled demo and the generator (never
# from the real fixtures): seed.sh SRCDIR GENERATOR OUTDIR. OUTDIR/<harness>/ is rebuilt.
set -eu
src=$1
gen=$2
out=$3
rm -rf "$out"
mkdir -p "$out/elem" "$out/trace" "$out/csv" "$out/discover" "$out/comm" "$out/profinfo" "$out/digest" "$out/db" "$out/cluster"
work=$(mktemp -d "${TMPDIR:-/tmp}/ascprof-seed-XXXXXX")
trap 'rm -rf "$work"' EXIT

# Small generated captures in the shapes the loaders meet.
n=0
for v in "" "--minify" "--pretty --call-stack" "--wrapper --hostile" "--chinese --gbk --bom --crlf" \
	"--tabs --ragged 3 --excel 3" "--step-marks profilerstep --step-trace rows" "--truncate-at 30000" \
	"--raw" "--ranks 2 --no-info --naming host" "--shape vllm,mla,moe,graph,annotate,mixed=1 --steps 3" \
	"--shape train" "--ranks 3 --comm --step-marks profilerstep"; do
	n=$((n + 1))
	# shellcheck disable=SC2086 # the variant is a list of options
	"$gen" --out "$work/g$n" --ops 8 --steps 2 --prefill 1 --seed "$n" $v >/dev/null
done

# trace: whole small traces and their first 4 KB (libFuzzer cuts to -max_len anyway)
i=0
for f in "$work"/g*/*/ASCEND_PROFILER_OUTPUT/trace_view.json "$src"/fixtures/demo/*/ASCEND_PROFILER_OUTPUT/trace_view.json; do
	i=$((i + 1))
	head -c 65536 "$f" >"$out/trace/t$i"
	head -c 4096 "$f" >"$out/trace/h$i"
done
printf '[]' >"$out/trace/empty_array"
printf '{"traceEvents": []}' >"$out/trace/empty_wrapper"

# elem: single elements, one per line of a minified trace
"$gen" --out "$work/m" --ops 8 --steps 2 --prefill 1 --minify --hostile --call-stack >/dev/null
for f in "$work"/m/*/ASCEND_PROFILER_OUTPUT/trace_view.json; do
	sed -e 's/^\[//' -e 's/\]$//' -e 's/},{"/}\n{"/g' "$f"
done | sort -u | awk -v d="$out/elem" 'NR % 3 == 1 {printf "%s", $0 > (d "/e" NR); close(d "/e" NR)}'

# csv: every table of the demo and of the generated variants, cut to 16 KB
i=0
for f in "$src"/fixtures/demo/*/ASCEND_PROFILER_OUTPUT/*.csv "$work"/g*/*/ASCEND_PROFILER_OUTPUT/*.csv; do
	i=$((i + 1))
	head -c 16384 "$f" >"$out/csv/c$i"
done

# comm: the communication files of the --comm variant (per rank and matrix), cut to
# 16 KB, and the shapes a cluster file and a damaged one take
i=0
for f in "$work"/g*/*/ASCEND_PROFILER_OUTPUT/communication*.json; do
	i=$((i + 1))
	head -c 16384 "$f" >"$out/comm/c$i"
done
printf '{"8,9,10": {"step1": {"hcom_allReduce__1@g": {"8": {"Communication Time Info": {"Elapse Time(ms)": 1.0}}}}}, "p2p": {}}' \
	>"$out/comm/cluster"
printf '{"step1": {"collective": {"a@g": {"Communication Bandwidth Info": {"HCCS": {"Transit Size(MB)": 1}, "HCCS": {"Transit Size(MB)": 2}}}, "a@g": {}}}}' \
	>"$out/comm/repeats"

# profinfo: every profiler_info of the demo and the generated variants
i=0
for f in "$src"/fixtures/demo/*/profiler_info*.json "$work"/g*/*/profiler_info*.json; do
	i=$((i + 1))
	cp "$f" "$out/profinfo/p$i"
done
printf '{"rank_id": 0, "config": {"x": [[[[[[[[[[[[1]]]]]]]]]]]]}}' >"$out/profinfo/nested"

# discover: capture trees in the harness's record format (see fuzz_discover.c); the
# indices below are positions in its fz_dirs and fz_names tables.
byte() { printf "\\$(printf %03o "$1")"; }
record() { # where name kind file
	len=$(wc -c <"$4")
	[ "$len" -gt 3000 ] && len=3000
	byte "$1"
	byte "$2"
	printf 'R'
	byte $((len % 256))
	byte $((len / 256))
	head -c "$len" "$4"
}
name_index() {
	case $1 in
	trace_view.json) echo 0 ;; kernel_details.csv) echo 1 ;; op_statistic.csv) echo 2 ;;
	step_trace_time.csv) echo 3 ;; operator_details.csv) echo 4 ;; api_statistic.csv) echo 5 ;;
	profiler_info_0.json) echo 8 ;; profiler_info_1.json) echo 9 ;;
	profiler_metadata.json) echo 10 ;; analyse.done) echo 11 ;; *) echo "" ;;
	esac
}
for g in "$work"/g1 "$work"/g3 "$work"/g5 "$work"/g7 "$work"/g10 "$src/fixtures/demo"; do
	seed="$out/discover/$(basename "$g")"
	: >"$seed"
	r=0
	for w in "$g"/*_ascend_pt; do
		for f in "$w"/* "$w"/ASCEND_PROFILER_OUTPUT/*; do
			[ -f "$f" ] || continue
			k=$(name_index "$(basename "$f")")
			[ -n "$k" ] || continue
			case $f in */ASCEND_PROFILER_OUTPUT/*) where=$((2 + 2 * r)) ;; *) where=$((1 + 2 * r)) ;; esac
			record "$where" "$k" R "$f" >>"$seed"
		done
		r=$((r + 1))
	done
done
# the odd kinds: a directory named trace_view.json, a FIFO, symlink loops
{ byte 2; byte 0; printf 'D'; byte 0; byte 0; byte 2; byte 1; printf 'F'; byte 0; byte 0;
  byte 1; byte 8; printf 'F'; byte 0; byte 0; byte 3; byte 0; printf 'L'; byte 0; byte 0;
  byte 4; byte 0; printf 'S'; byte 0; byte 0; } >"$out/discover/odd"

# digest: the demo's digests and those of the 3-rank capture with communication.json
# (ascprof-tui beside the generator's tools/ directory), each whole (a leading odd byte)
# and as a bare payload (a leading 0: the harness adds the header)
tui=$(dirname "$gen")/../ascprof-tui
if [ -x "$tui" ]; then
	"$tui" --digest "$work/dg" "$src/fixtures/demo" >/dev/null
	"$tui" --digest "$work/dgc" "$work/g13" >/dev/null
	i=0
	for f in "$work"/dg/*.apdigest "$work"/dgc/*.apdigest; do
		i=$((i + 1))
		{ byte 1; cat "$f"; } >"$out/digest/whole$i"
		{ byte 0; tail -c +33 "$f"; } >"$out/digest/payload$i"
	done
fi

# db: SQL that makes a Db (the harness runs it, then reads the result with every Db
# reader): a torch_npu export in small, its hostile shapes (views, no keys, virtual tables,
# generated columns, extreme values), analysis.db's communication, a cluster_analysis.db
cat >"$out/db/torch" <<'SQL'
CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT);
INSERT INTO STRING_IDS VALUES (1,'aten::add'),(2,'KERNEL_AIVEC'),(3,'Add'),(4,'AI_VECTOR_CORE'),(5,'aclnnAdd');
CREATE TABLE ENUM_API_TYPE (id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO ENUM_API_TYPE VALUES (50001,'op'),(20000,'acl');
CREATE TABLE META_DATA (name TEXT, value TEXT);
INSERT INTO META_DATA VALUES ('SCHEMA_VERSION','1.0.0');
CREATE TABLE SESSION_TIME_INFO (startTimeNs INTEGER, endTimeNs INTEGER);
INSERT INTO SESSION_TIME_INFO VALUES (1700000000000000000, 1700000001000000000);
CREATE TABLE PYTORCH_API (startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId INTEGER, name INTEGER,
 type INTEGER, sequenceNumber INTEGER, fwdThreadId INTEGER);
CREATE TABLE CONNECTION_IDS (id INTEGER, connectionId INTEGER);
CREATE TABLE CANN_API (startNs INTEGER, endNs INTEGER, type INTEGER, globalTid INTEGER,
 connectionId INTEGER PRIMARY KEY, name INTEGER);
CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalTaskId INTEGER,
 globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER);
CREATE TABLE COMPUTE_TASK_INFO (name INTEGER, globalTaskId INTEGER PRIMARY KEY, blockDim INTEGER, taskType INTEGER,
 opType INTEGER, inputShapes INTEGER);
CREATE TABLE MEMORY_RECORD (component INTEGER, timestamp INTEGER, totalAllocated INTEGER, totalReserved INTEGER,
 totalActive INTEGER, streamPtr INTEGER, deviceId INTEGER);
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 20)
 INSERT INTO PYTORCH_API SELECT CAST(1700000000000000000 + i * 100000 AS TEXT),
 CAST(1700000000000000000 + i * 100000 + 50000 AS TEXT), (4242 << 32) | 4242, i, 1, 50001, i, 0 FROM k;
INSERT INTO CONNECTION_IDS SELECT rowid - 1, 1000 + rowid FROM PYTORCH_API;
INSERT INTO CANN_API SELECT CAST(startNs AS INTEGER) + 10000, CAST(startNs AS INTEGER) + 40000, 20000, globalTid,
 1000 + rowid, 5 FROM PYTORCH_API;
INSERT INTO TASK SELECT CAST(startNs AS INTEGER) + 60000, CAST(startNs AS INTEGER) + 90000, 0, 1000 + rowid, rowid,
 4242, 2, 4294967295, 2 FROM PYTORCH_API;
INSERT INTO COMPUTE_TASK_INFO SELECT 3, globalTaskId, 8, 4, 3, 99 FROM TASK;
INSERT INTO MEMORY_RECORD SELECT 1, startNs, 1048576 * rowid, 2097152, 1048576, 0, 0 FROM TASK;
SQL
cat >"$out/db/hostile" <<'SQL'
CREATE TABLE S_REAL (id INTEGER, value TEXT);
INSERT INTO S_REAL VALUES (1,'a'),(1,'dup'),(2,'b');
CREATE VIEW STRING_IDS AS SELECT id, printf('%.*c', 2000000, 'x') AS value FROM S_REAL;
CREATE TABLE TASK_REAL (startNs INTEGER, endNs INTEGER, globalTaskId INTEGER, streamId INTEGER);
INSERT INTO TASK_REAL VALUES (9223372036854775000, 9223372036854775807, 1, 2), (-5, -9, 2, 2), (1, 2, NULL, NULL);
CREATE VIEW TASK AS WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k) SELECT t.* FROM k, TASK_REAL t;
CREATE TABLE PYTORCH_API (startNs INTEGER, endNs INTEGER, globalTid INTEGER, name INTEGER,
 big TEXT AS (printf('%.*c', 1000000, 'y')));
INSERT INTO PYTORCH_API (startNs, endNs, globalTid, name) VALUES (1, 2, 3, 99999);
CREATE VIRTUAL TABLE CANN_API USING rtree(id, startNs, endNs);
CREATE TABLE COMPUTE_TASK_INFO (name TEXT, globalTaskId INTEGER, taskType BLOB);
INSERT INTO COMPUTE_TASK_INFO VALUES ('Add', 1, x'00ff'), (NULL, 1, NULL);
SQL
cat >"$out/db/analysis" <<'SQL'
CREATE TABLE StepTraceTime (deviceId INTEGER, step INTEGER, computing NUMERIC, communication_not_overlapped NUMERIC,
 overlapped NUMERIC, communication NUMERIC, free NUMERIC, stage NUMERIC, bubble NUMERIC,
 communication_not_overlapped_and_exclude_receive NUMERIC);
INSERT INTO StepTraceTime VALUES (0, 1, 100.5, 10, 0, 10, 5, 115, 0, 10), (0, 2, 1e300, -1, 0, 0, 0, 0, 0, 0);
CREATE TABLE CommAnalyzerTime (hccl_op_name TEXT, group_name TEXT, start_timestamp NUMERIC, elapse_time NUMERIC,
 transit_time NUMERIC, wait_time NUMERIC, synchronization_time NUMERIC, idle_time NUMERIC, step TEXT, type TEXT);
INSERT INTO CommAnalyzerTime VALUES ('hcom_allReduce__1', 'g0', 1700000000000000, 0.5, 0.3, 0.1, 0.05, 0.1, 'step1',
 'collective'), (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
CREATE TABLE CommAnalyzerBandwidth (hccl_op_name TEXT, group_name TEXT, transport_type TEXT, transit_size NUMERIC,
 transit_time NUMERIC, bandwidth NUMERIC, large_packet_ratio NUMERIC, package_size NUMERIC, count NUMERIC,
 total_duration NUMERIC, step TEXT, type TEXT);
INSERT INTO CommAnalyzerBandwidth VALUES ('hcom_allReduce__1', 'g0', 'HCCS', 1.5, 0.3, 5.0, 0.0, 1.5, 1, 0.3, 'step1',
 'collective'), ('hcom_allReduce__1', 'g0', 'RDMA', 1.5, 0.3, 5.0, 0.0, 1.5, 0, 0.3, 'step1', 'collective'),
 (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
CREATE TABLE CommAnalyzerMatrix (hccl_op_name TEXT, group_name TEXT, src_rank TEXT, dst_rank TEXT,
 transport_type TEXT, transit_size NUMERIC, transit_time NUMERIC, bandwidth NUMERIC, step TEXT, type TEXT,
 op_name TEXT);
INSERT INTO CommAnalyzerMatrix VALUES ('hcom_allReduce__1', 'g0', '0', '1', 'HCCS', 1.5, 0.3, 5.0, 'step1',
 'collective', 'hcom_allReduce__1');
SQL
cat >"$out/db/cluster" <<'SQL'
CREATE TABLE ClusterTimeSummary (rank INTEGER, step INTEGER, stepTime REAL, computation REAL,
 communicationNotOverlapComputation REAL, communicationOverlapComputation REAL, communication REAL, free REAL,
 communicationWaitStageTime REAL, communicationTransmitStageTime REAL);
INSERT INTO ClusterTimeSummary VALUES (0, 1, 160, 100, 10, 0, 10, 50, 1, 2), (1, 1, 3e15, 2.9e15, 2.9e15, 0, 0,
 2.9e15, 0, 0), (1, 2, 3e15, 2.9e15, 2.9e15, 0, 0, 2.9e15, 0, 0), (-1, 1, 1, 1, 1, 1, 1, 1, 1, 1);
CREATE TABLE SlowRank (rankId INTEGER, slowAffectCount INTEGER);
INSERT INTO SlowRank VALUES (1, 2), (99999999, -1);
CREATE TABLE HcclTopOpStats (OpName TEXT, Count INTEGER, MeanNs REAL, MinNs REAL, MaxNs REAL, SumNs REAL,
 MinRank INTEGER, MaxRank INTEGER);
INSERT INTO HcclTopOpStats VALUES ('hcom_allReduce__1', 2, 1e308, 1, 1e300, 1, 0, 1), ('hcom_b', 1, 5, 1, 9, 5, -3, 7);
CREATE TABLE CommunicationGroupMapping (type TEXT, rank_set TEXT, group_name TEXT, group_id TEXT, pg_name TEXT);
INSERT INTO CommunicationGroupMapping VALUES ('collective', '(0,1)', 'g0', 'x', 'dp'), ('p2p', '(', NULL, NULL, NULL);
CREATE TABLE ClusterCommAnalyzerTime (rank_set TEXT, step TEXT, rank_id INTEGER, hccl_op_name TEXT, group_name TEXT,
 start_timestamp NUMERIC, elapsed_time NUMERIC, transit_time NUMERIC, wait_time NUMERIC, synchronization_time NUMERIC,
 idle_time NUMERIC, synchronization_time_ratio NUMERIC, wait_time_ratio NUMERIC);
INSERT INTO ClusterCommAnalyzerTime VALUES ('(0,1)', 'step1', 0, 'hcom_allReduce__1', 'g0', 1700000000000000.5, 2.0,
 0.5, 1.2, 1.0, 0.3, 0.6, 0.7);
SQL

# cluster: msprof-analyze's cluster step table: a small one, sums past int64, one rank of
# many steps beside ranks of one, ragged and odd rows
H='Step,Type,Index,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage'
{ echo "$H"; for r in 0 1 2 3; do echo "1,rank,$r,100.5,10.25,0,10.25,5,115.75"; done
  echo "1,stage,(0;1),1,1,1,1,1,1"; } >"$out/cluster/small"
{ echo "$H"; for s in 1 2 3; do echo "$s,rank,0,2900000000000000,2900000000000000,0,0,2900000000000000,0"
  echo "$s,rank,1,1,1,0,1,1,3"; done; } >"$out/cluster/sums"
{ echo "$H"; for r in 0 1 2 3 4 5 6 7; do echo "1,rank,$r,100,10,0,10,5,115"; done
  for s in 2 3 4 5 6 7 8 9; do echo "$s,rank,0,100,10,0,10,5,115"; done; } >"$out/cluster/square"
printf 'ï»¿%s
,rank,999999,1e308,-1,,x,5
2,rank,-3,1,1

1,rank,5,"1",1,1,1,1,1,1,1,1
' "$H" \
	>"$out/cluster/odd"

for h in elem trace csv discover comm profinfo digest db cluster; do
	echo "seed: $h: $(find "$out/$h" -type f | wc -l) inputs"
done
