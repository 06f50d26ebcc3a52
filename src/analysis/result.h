/* SPDX-License-Identifier: MIT */
/* What an analysis is: the types its stages fill (per-rank metrics, steps and phases, op
 * statistics, cross-checks against the exporter's own numbers, clock alignment across ranks
 * and the bottleneck verdict), the metric setter and the lookups every stage shares (the
 * step at a time, nearest-rank percentiles). The bottom of src/analysis: the stages
 * (steps.h, opstats.h, align.h, ...) include this and lower stages, never the driver
 * (analysis.h). Every metric is defined once (METRICS below: key, unit, definition,
 * formula, source, caveat); the text report, the JSON report, the TUI and the man page
 * all read that table, so they show the same numbers with the same meaning.
 *
 * Time base: each rank's own clock, in integer nanoseconds; relative times in reports
 * are from the rank's first X event. Busy, idle and overlap figures are interval unions
 * (intervals.h), never sums of durations. */
#ifndef ASCPROF_RESULT_H
#define ASCPROF_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "attribution.h"
#include "capture.h"
#include "category.h"
#include "cluster_types.h"
#include "doctor_types.h"
#include "gap_types.h"
#include "intervals.h"
#include "i18n.h"
#include "memory.h"
#include "nearest_rank.h"

enum confidence { CONF_HIGH, CONF_MEDIUM, CONF_LOW };
const char *result_confidence_name(enum confidence c); /* static: English, for JSON */
/* The same in the messages' language, for text and views (static). */
const char *result_confidence_text(enum confidence c);

/* X(id, "key", "unit", label, definition, formula, caveat): the last four marked N_() for the
 * catalog and shown through _() (never an empty one: _("") is the catalog header) */
#define METRICS(X)                                                                                        \
	X(WALL_US, "wall_us", "us", N_("Window"), N_("Time covered by the rank's timeline events"),       \
	  N_("max(ts+dur) - min(ts) over X events"), N_("counter samples outside it are not counted"))    \
	X(NPU_BUSY_US, "npu_busy_us", "us", N_("NPU busy"), N_("Time at least one device task runs"),     \
	  N_("|union(Ascend Hardware tasks except waits)|"),                                              \
	  N_("wait and sync tasks (Notify Wait, EVENT_WAIT/RECORD) are not busy time"))                   \
	X(NPU_BUSY_PCT, "npu_busy_pct", "%", N_("NPU busy share"), N_("NPU busy time over the window"),   \
	  N_("npu_busy_us / wall_us"), N_("low means the device waits for the host, peers or data"))      \
	X(COMPUTE_US, "compute_us", "us", N_("Computing"), N_("Time at least one compute task runs"),     \
	  N_("|union(device compute tasks)|"),                                                            \
	  N_("the exporter's Computing; copies and waits excluded"))                                      \
	X(HOST_BUSY_US, "host_busy_us", "us", N_("Host busy"), N_("Time at least one host event runs"),   \
	  N_("|union(Python, CANN, GC lane events except ProfilerStep marks)|"),                          \
	  N_("python_function frames count"))                                                             \
	X(HOST_BUSY_PCT, "host_busy_pct", "%", N_("Host busy share"),                                     \
	  N_("Host busy time over the window"), N_("host_busy_us / wall_us"),                             \
	  N_("a reference figure, no threshold"))                                                         \
	X(HOST_ONLY_US, "host_only_us", "us", N_("Host-only"),                                            \
	  N_("Host working while the device is idle"),                                                    \
	  N_("|union(host) - union(sync ops) - union(device busy | comm)|"),                              \
	  N_("time in collectives (waiting for a peer included) and host time blocked in syncs are not counted"))   \
	X(HOST_ONLY_PCT, "host_only_pct", "%", N_("Host-only share"),                                     \
	  N_("Host-only time over the window"), N_("host_only_us / wall_us"), "")                         \
	X(NPU_IDLE_US, "npu_idle_us", "us", N_("NPU idle"),                                               \
	  N_("Time the device neither runs a task nor takes part in a collective, in gaps of 50 us or more"), \
	  N_("sum of gaps >= 50 us in union(device busy | comm) over the window"),                        \
	  N_("launch jitter (< 50 us) and collectives are not idle; the window's edges are (edge_idle_us)")) \
	X(NPU_IDLE_PCT, "npu_idle_pct", "%", N_("NPU idle share"), N_("NPU idle over the window"),        \
	  N_("npu_idle_us / wall_us"), "")                                                                \
	X(NPU_IDLE_GAPS, "npu_idle_gaps", "count", N_("Idle gaps"),                                       \
	  N_("Number of device idle gaps of 50 us or more"), N_("count of those gaps"),                   \
	  N_("many short gaps: dispatch cannot keep up; few long ones: a missing op"))                    \
	X(NPU_IDLE_GAP_MEAN_US, "npu_idle_gap_mean_us", "us", N_("Mean idle gap"),                        \
	  N_("Mean length of those gaps"), N_("npu_idle_us / npu_idle_gaps"), "")                         \
	X(COMM_US, "comm_us", "us", N_("Communication"), N_("Time at least one collective runs"),         \
	  N_("|union(HCCL/Communication lane events)|, else |union(device communication tasks)|"),        \
	  N_("includes the time a collective waits for its peers"))                                       \
	X(COMM_OVERLAPPED_US, "comm_overlapped_us", "us", N_("Comm overlapped"),                          \
	  N_("Communication hidden behind compute"), N_("|union(comm) & union(compute)|"), "")            \
	X(COMM_NOT_OVERLAPPED_US, "comm_not_overlapped_us", "us", N_("Comm not overlapped"),              \
	  N_("Communication not hidden by compute"), N_("comm_us - comm_overlapped_us"),                  \
	  N_("the first thing to optimise, not comm_us"))                                                 \
	X(COMM_NOT_OVERLAPPED_PCT, "comm_not_overlapped_pct", "%", N_("Exposed comm share"),              \
	  N_("Exposed communication over the window"), N_("comm_not_overlapped_us / wall_us"), "")        \
	X(COMM_SHARE_PCT, "comm_share_of_device_pct", "%", N_("Comm share of device time"),               \
	  N_("Communication over the time the device is busy or communicating"),                          \
	  N_("comm_us / |union(device busy) | union(comm)|"),                                             \
	  N_("the reference divides by device busy alone, which exceeds 100 % when collectives wait"))    \
	X(FREE_US, "free_us", "us", N_("Free"),                                                           \
	  N_("Window time with neither compute nor communication"),                                       \
	  N_("wall_us - |union(compute) | union(comm)|"), N_("the exporter's Free, over our window"))     \
	X(EDGE_IDLE_US, "edge_idle_us", "us", N_("Edge idle"),                                            \
	  N_("Window time before the first and after the last device task or collective"),                \
	  N_("wall_us - (last end - first start) of union(device busy | comm)"),                          \
	  N_("profiler start and stop, setup: attributed to edge_idle, counted in no score"))             \
	X(COMPUTE_PCT, "compute_pct", "%", N_("Compute share"), N_("Device compute over the window"),     \
	  N_("attribution compute / wall_us"), N_("the same as compute_us / wall_us"))                    \
	X(HOST_BOUND_PCT, "host_bound_pct", "%", N_("Host-bound share"),                                  \
	  N_("Device idle while the host dispatches ops or runs Python, over the window"),                \
	  N_("(attribution host_dispatch + host_python) / wall_us"),                                      \
	  N_("inside the device span; sync waits and host copies count for copy, not here"))              \
	X(COPY_EXPOSED_PCT, "copy_exposed_pct", "%", N_("Exposed copy share"),                            \
	  N_("Copies and syncs that no compute or collective hides, over the window"),                    \
	  N_("(attribution copy + host_sync + host_copy) / wall_us"),                                     \
	  N_("a sync waiting on a collective or on device work is that time, not copy time"))             \
	X(COMM_WAIT_PCT, "comm_wait_pct", "%", N_("Exposed comm wait share"),                             \
	  N_("Exposed communication spent waiting for a peer, over the window"),                           \
	  N_("attribution comm_wait / wall_us"),                                                          \
	  N_("split by communication.json's Transit/Elapse Time; without it, own minus least duration of the same collective across ranks, a lower bound (confidence low)")) \
	X(COLLECTIVES, "collectives", "count", N_("Collectives"), N_("Collective operations seen"),       \
	  N_("count of top-level collective events"), "")                                                 \
	X(COLLECTIVE_MEDIAN_US, "collective_median_us", "us", N_("Median collective"),                    \
	  N_("Median duration of one collective"), N_("median(dur)"),                                     \
	  N_("<= 60 us: latency bound (fixed HCCL cost); >= 16 MB: bandwidth bound"))                     \
	X(COLLECTIVE_MEDIAN_MB, "collective_median_mb", "MB", N_("Median collective size"),               \
	  N_("Median payload of one collective where args give count and data type"),                     \
	  N_("median(count * size(dtype))"), N_("absent when the trace carries no sizes"))                \
	X(COMM_WAIT_RATIO, "comm_wait_ratio", "ratio", N_("Comm wait ratio"),                             \
	  N_("Share of waiting in the communication ops' wait plus transfer time"),                       \
	  N_("sum(Wait Time) / (sum(Wait Time) + sum(Transit Time)) over the rank's communication.json ops"), \
	  N_("the exporter's definition; above 0.2 (msprof's advisor) peers arrive late: a slow rank, not a slow link")) \
	X(COMM_SYNC_RATIO, "comm_sync_ratio", "ratio", N_("Comm sync ratio"),                             \
	  N_("Share of the wait before the first transfer (waiting for every peer to arrive)"),           \
	  N_("sum(Synchronization Time) / (sum(Synchronization Time) + sum(Transit Time))"),              \
	  N_("high here and low on the peers: the peers start the collective late"))                      \
	X(COMM_TRANSIT_MB, "comm_transit_mb", "MB", N_("Comm transit size"),                              \
	  N_("Data the communication ops moved"),                                                         \
	  N_("sum(Transit Size) over transports; SDMA only where HCCS, PCIE and SIO are empty"),          \
	  N_("MB as the exporter counts them (10^6 bytes in recent versions, 2^20 in older ones)"))       \
	X(COMM_SMALL_PACKET_PCT, "comm_small_packet_pct", "%", N_("Small packets"),                       \
	  N_("Packets below 1 MB among all packets"),                                                     \
	  N_("sum(counts of Size Distribution sizes < 1 MB) / sum(counts)"),                              \
	  N_("latency bound: 1 MB at the 18 GB/s HCCS reference takes ~56 us, under the 60 us limit"))    \
	X(COMM_SLOW_LINKS, "comm_slow_links", "count", N_("Slow links"),                                  \
	  N_("Links of this rank well below the others of their group and transport"),                    \
	  N_("links with bandwidth < 0.5 x the median of their group and transport (3 links or more)"),   \
	  N_("from communication_matrix.json; local copies are not compared"))                            \
	X(DEVICE_COPY_US, "device_copy_us", "us", N_("Device copies"), N_("Time device copy tasks run"),  \
	  N_("|union(device copy tasks)|"), N_("MEMCPY_ASYNC, DMA tasks"))                                \
	X(DEVICE_COPY_PCT, "device_copy_pct", "%", N_("Device copy share"),                               \
	  N_("Device copies over device busy"), N_("device_copy_us / npu_busy_us"),                       \
	  N_("should be near 0 in steady-state inference"))                                               \
	X(HOST_COPY_US, "host_copy_us", "us", N_("Host copies"), N_("Time host copy ops run"),            \
	  N_("|union(host copy ops)|"), N_("aten::_to_copy, aten::copy_, .item, memcpy APIs"))            \
	X(HOST_COPY_PCT, "host_copy_pct", "%", N_("Host copy share"), N_("Host copies over host busy"),   \
	  N_("host_copy_us / host_busy_us"), N_("high usually means synchronous D2H"))                    \
	X(HOST_COPY_EXPOSED_PCT, "host_copy_exposed_pct", "%", N_("Exposed host copies"),                 \
	  N_("Host copy time while the device is idle, over the window"),                                 \
	  N_("|union(host copy ops) - (device busy | comm)| / wall_us"),                                  \
	  N_("a host copy that waits for a busy device costs nothing; this part does"))                   \
	X(H2D_PER_STEP_US, "h2d_per_step_us", "us", N_("H2D per step"),                                   \
	  N_("Host-to-device copy time per step"), N_("sum(dur of H2D copies) / steps"),                  \
	  N_("device copies take the direction of the host op that launched them"))                       \
	X(D2H_PER_STEP_US, "d2h_per_step_us", "us", N_("D2H per step"),                                   \
	  N_("Device-to-host copy time per step"), N_("sum(dur of D2H copies) / steps"), "")              \
	X(SYNC_OPS, "sync_ops", "count", N_("Sync ops"), N_("Host ops that drain the device queue"),      \
	  N_(".item, tolist, _local_scalar_dense, synchronize"),                                          \
	  N_("each one adds straight to the step time"))                                                  \
	X(SYNC_US, "sync_us", "us", N_("Sync time"), N_("Time in those ops"), N_("|union(sync ops)|"),    \
	  "")                                                                                             \
	X(SYNC_PER_STEP, "sync_per_step", "count", N_("Sync ops per step"), N_("Sync ops per step"),      \
	  N_("sync_ops / steps"), "")                                                                     \
	X(STEPS, "steps", "count", N_("Steps"), N_("Engine steps found"), N_("see step_source"), "")      \
	X(PREFILL_STEPS, "prefill_steps", "count", N_("Prefill steps"), N_("Steps classified prefill"),   \
	  N_("see phase_source"),                                                                         \
	  N_("one attention call over the prompt tokens of several sequences is several prompts or, with chunked prefill, prompt chunks beside decodes: such a step read by its shapes alone is unknown, not prefill")) \
	X(DECODE_STEPS, "decode_steps", "count", N_("Decode steps"), N_("Steps classified decode"),       \
	  N_("see phase_source"), "")                                                                     \
	X(MIXED_STEPS, "mixed_steps", "count", N_("Mixed steps"),                                         \
	  N_("Steps classified mixed (chunked prefill: prefill and decode tokens in one batch)"),         \
	  N_("see phase_source"), N_("absent, like prefill and decode, for a training workload"))         \
	X(STEP_P50_US, "step_p50_us", "us", N_("Step p50"), N_("Median step duration"),                   \
	  N_("nearest-rank p50"), "")                                                                     \
	X(STEP_P95_US, "step_p95_us", "us", N_("Step p95"), N_("95th percentile step duration"),          \
	  N_("nearest-rank p95"), "")                                                                     \
	X(DISPATCH_OPS, "dispatch_ops", "count", N_("Dispatched ops"),                                    \
	  N_("Host framework ops (cat cpu_op)"), N_("count of cpu_op events on Python lanes"),            \
	  N_("nested ops count too, as the profiler records them"))                                       \
	X(DISPATCH_PER_STEP, "dispatch_per_step", "ops", N_("Dispatch per step"),                         \
	  N_("Host ops dispatched per step"), N_("dispatch_ops in steps / steps"),                        \
	  N_("above 1200 the per-step dispatch cost is a fixed overhead"))                                \
	X(HOST_ONLY_PER_STEP_US, "host_only_per_step_us", "us", N_("Host-only per step"),                 \
	  N_("Device waiting on the host per step"), N_("host_only_us / steps"),                          \
	  N_("a core decode metric"))                                                                     \
	X(PMU_MAC, "pmu_mac_ratio", "ratio", N_("MAC (cube) ratio"), N_("Cube pipe busy share"),          \
	  N_("sum(r*dur)/sum(dur)"), N_("needs aic_metrics=PipeUtilization (Level1+)"))                   \
	X(PMU_VEC, "pmu_vec_ratio", "ratio", N_("Vector ratio"), N_("Vector pipe busy share"),            \
	  N_("sum(r*dur)/sum(dur)"), "")                                                                  \
	X(PMU_SCALAR, "pmu_scalar_ratio", "ratio", N_("Scalar ratio"), N_("Scalar pipe busy share"),      \
	  N_("sum(r*dur)/sum(dur)"), "")                                                                  \
	X(PMU_MTE1, "pmu_mte1_ratio", "ratio", N_("MTE1 ratio"), N_("L1->L0 move share"),                 \
	  N_("sum(r*dur)/sum(dur)"), "")                                                                  \
	X(PMU_MTE2, "pmu_mte2_ratio", "ratio", N_("MTE2 ratio"), N_("DDR->core move share"),              \
	  N_("sum(r*dur)/sum(dur)"), N_("high with low MAC means memory bound"))                          \
	X(PMU_MTE3, "pmu_mte3_ratio", "ratio", N_("MTE3 ratio"), N_("core->DDR move share"),              \
	  N_("sum(r*dur)/sum(dur)"), "")                                                                  \
	X(PMU_ICACHE, "pmu_icache_miss_rate", "ratio", N_("I-cache miss"),                                \
	  N_("Instruction cache miss rate"), N_("sum(r*dur)/sum(dur)"), "")                               \
	X(DUR_OVER_AICORE, "duration_over_aicore", "ratio", N_("Duration / AICore time"),                 \
	  N_("Kernel Duration over its AICore time"), N_("sum(Duration) / sum(aicore_time)"),             \
	  N_("much above 1: time goes to waiting and scheduling, not computing"))                         \
	X(MEM_PEAK_RESERVED_MB, "mem_peak_reserved_mb", "MB", N_("Peak reserved memory"),                 \
	  N_("Most device memory the process held"),                                                      \
	  N_("max(Total Reserved) of APP, else of any component"),                                        \
	  N_("memory_record.csv (MB; Class B memory_record_*.csv in KB, converted)"))                     \
	X(MEM_PEAK_ALLOCATED_MB, "mem_peak_allocated_mb", "MB", N_("Peak allocated memory"),              \
	  N_("Most memory the framework allocators had in use"),                                          \
	  N_("max(Total Allocated) of PTA+GE, PTA or GE"),                                                \
	  N_("memory_record.csv; needs profile_memory=True"))

enum metric_id {
#define METRIC_ENUM(id, key, unit, label, def, formula, caveat) M_##id,
	METRICS(METRIC_ENUM)
#undef METRIC_ENUM
	M_COUNT
};

struct metric_def {
	const char *key, *unit, *label, *definition, *formula, *caveat; /* static */
};
extern const struct metric_def metric_defs[M_COUNT];

enum step_source {
	STEP_SRC_STEP_TRACE, /* step_trace_time.csv with one row per step */
	STEP_SRC_PROFILER_STEP,
	STEP_SRC_MSTX,
	STEP_SRC_ENGINE,     /* repeating engine ops: execute_model, forward */
	STEP_SRC_IDLE_GAPS,
	STEP_SRC_WINDOW,
	STEP_SRC_NONE,
	STEP_SRC_OP_SEQUENCE, /* the first and last kernels repeat once per step, alternating */
	STEP_SRC_KERNEL_STEP, /* no trace: the kernel table's Step Id column */
};
const char *result_step_source_name(enum step_source s); /* static */

enum phase { PHASE_UNKNOWN, PHASE_PREFILL, PHASE_DECODE, PHASE_MIXED };
const char *result_phase_name(enum phase p); /* static */
/* A step's phase as shown: its phase, or "training" for a training workload's steps
 * (phase unknown from the workload signal); static, N_ (translate with _()). */
struct step;
const char *result_step_phase_name(const struct step *s);

/* Where a step's phase came from. The signals are tried in this order per step (see
 * steps.c): Stage, mstx or vLLM annotation ranges, decode-only kernels, attention shapes,
 * then duration clusters (or uniform steps) for the steps none of those speak for. */
enum phase_source {
	PHASE_SRC_STAGE,
	PHASE_SRC_MSTX,
	PHASE_SRC_CLUSTERS,
	PHASE_SRC_UNIFORM,
	PHASE_SRC_NONE,
	PHASE_SRC_ANNOTATION, /* execute_context_N(T)_generation_M(T) ranges */
	PHASE_SRC_KERNELS,    /* PagedAttention, MLA preprocess: decode-only batches */
	PHASE_SRC_SHAPES,     /* attention query tokens against sequences (Input Shapes) */
	PHASE_SRC_WORKLOAD,   /* a training workload: no prefill or decode */
	PHASE_SRC_PAYLOAD,    /* tokens from the tensor-parallel collectives' element counts */
	PHASE_SRC_SERVING,    /* the serving output's forward at the step's time (serving.h) */
	PHASE_SRC_COUNT
};
const char *result_phase_source_name(enum phase_source s); /* static */
/* One word for it (step tables, JSON per-step phase_signal): stage, mstx, annotation,
 * kernels, shapes, payload, serving, clusters, uniform, workload, none. */
const char *result_phase_signal_name(enum phase_source s); /* static */

/* What the capture runs: training shows backward ops, *Grad* kernels or an optimizer step;
 * inference shows serving attention kernels or engine ops. */
enum workload { WORKLOAD_UNKNOWN, WORKLOAD_INFERENCE, WORKLOAD_TRAINING };
const char *result_workload_name(enum workload w); /* static */

struct step {
	int index;           /* 0-based */
	char *label;         /* owned: "ProfilerStep#51", "execute_model #3", "Step 50" */
	int64_t start, end;  /* the marker's span (ns, rank clock); a length only without has_window */
	bool has_window;     /* false for steps read from a table without timestamps */
	int64_t win_start, win_end; /* the partition used for per-step metrics */
	enum phase phase;
	enum phase_source phase_source; /* the signal that decided it */
	enum confidence phase_conf;
	char *phase_evidence; /* owned: what that signal saw (and any signal that disagreed) */
	uint32_t marker_ev;  /* the event that marks the step, or UINT32_MAX */
	int64_t compute_ns, comm_not_overlapped_ns, free_ns, host_only_ns, h2d_ns, d2h_ns;
	size_t dispatch_ops;
	size_t graph_replays; /* host aclmdlRIExecute* calls ending in the window: a captured graph
			       * ran the step's model (its kernels have no launch flows) */
};

struct op_stat {
	/* borrowed from the store's or the CSV table's strings; a collective row's kind from
	 * the rank's op_keys (or a digest's buffer) */
	const char *name;
	/* a collective row's group ("586" of hcom_allReduce__586_0_1), borrowed as its name;
	 * NULL for other ops and for collectives whose names carry no group */
	const char *group;
	uint8_t scope;    /* enum op_scope */
	uint8_t phase;    /* enum phase, PHASE_UNKNOWN = all phases */
	uint8_t category; /* of the first instance */
	/* whole collectives of one kind and group (evkind.h struct coll_rows), each call an
	 * instance: the event names are the kind with per-call suffixes */
	bool collective;
	uint64_t count;
	int64_t total_ns, min_ns, max_ns, p50_ns, p95_ns;
	double avg_ns;
	double share_pct; /* busy_ns over the scope's (and phase's) summed busy_ns */
	int64_t busy_ns;  /* total_ns, except device communication ops: the union of their
			   * instances (SDMA tasks on parallel planes count once) */
	int64_t csv_total_ns; /* the chosen CSV table's total for the same op; -1 when absent */
	double deviation_pct;  /* (trace - csv) / csv */
	const char *type; /* OP Type from the kernel table (borrowed from it), or NULL */
};

/* Ops grouped by type: the kernel table's Type (OP Type) where known, else the name with
 * the numeric suffixes of collectives stripped (hcom_allReduce__428_5_1 -> hcom_allReduce),
 * collectives by type and group.
 * busy_ns is the union of the instances for communication types (parallel SDMA planes are
 * not serial time), the summed durations for the others; share is busy over the scope's
 * summed busy. */
struct op_type_stat {
	char *name; /* owned */
	const char *group; /* collectives: their group, borrowed as op_stat's; else NULL */
	uint8_t scope; /* SCOPE_DEVICE or SCOPE_HOST */
	uint8_t category;
	uint64_t count;
	size_t n_names;  /* distinct op names grouped here */
	int64_t total_ns, busy_ns;
	double share_pct;
};

enum op_scope { SCOPE_DEVICE, SCOPE_HOST, SCOPE_ALL, SCOPE_COUNT };
const char *result_scope_name(enum op_scope s); /* static */

/* The exporter's numbers beside ours. */
struct crosscheck {
	const char *source; /* static (*): "Overlap Analysis lane", "step_trace_time.csv" */
	int64_t win_start, win_end; /* the window their figures cover (0,0 when unknown) */
	int64_t theirs[3], ours[3];  /* computing, communication(not overlapped), free */
	double diff_pct[3];
	bool agree;       /* all within 2 % (or 1 us) */
	char *explanation; /* owned; why they differ, when they do */
};

struct evidence {
	const char *metric; /* static (*): metric key */
	double value, threshold;
	const char *unit;   /* static (*) */
	bool triggered;
	char *text; /* owned: one line with source */
};

struct gain {
	double low_pct, high_pct; /* of the window */
	enum confidence conf;
	char *basis; /* owned */
};

/* One advice rule's finding on a rank (advice.h has the rules). */
struct advice_finding {
	int rule;          /* enum advice_rule_id */
	bool triggered;    /* value >= the rule's threshold */
	double value;      /* the thresholded figure, in the rule's unit */
	uint64_t count;    /* instances */
	int64_t total_ns;  /* their time: the union of their spans (device tasks: summed) */
	double share_pct;  /* total over share_of's time (NAN when unknown) */
	const char *share_of; /* static: "device busy", "host busy", "the steps", "device kernels" */
	int64_t exposed_ns; /* the part with the device idle, inside its span */
	int64_t host_ns[4]; /* exposed_ns by the bucket it sits in: host_sync, host_copy,
			     * host_dispatch, host_python (the attribution's order) */
	const char *bucket; /* static: the bucket that holds the time (host rules: the largest
			     * of host_ns; device rules: the longest task's) */
	uint32_t event;     /* the event to show (the longest instance), or UINT32_MAX */
	int64_t event_ts, event_end; /* its span (rank clock), INT64_MIN when none */
	const char *event_name; /* its name (borrowed from the store or the kernel table), or NULL */
	uint32_t csv_line;  /* without a trace: the kernel table line (1-based) shown, else 0 */
	enum confidence conf;
	char *evidence;     /* owned: one line with the figures and the top names */
};

/* One collective instance that holds COMM_OUTLIER_PCT of its rank's window or more in
 * exposed communication: a finding of its own (comm_split.h), ranked by that cost. */
struct coll_outlier {
	const char *name;    /* borrowed from the rank's collective list */
	int64_t start, end;  /* rank clock */
	int64_t exposed_ns;  /* its exposed communication ... */
	int64_t part_ns[4];  /* ... split: waiting for a peer, transfer, setup, unsplit */
	bool first_in_group; /* its group's first collective (the index 0 in its name) */
	uint8_t source;      /* what split it: 0 nothing, 1 communication.json, 2 the peers */
	int last_rank;       /* the captured peer that arrived last, or -1 */
	uint32_t event;      /* the event to show (from a trace), or UINT32_MAX */
};

enum bottleneck_kind { BN_HOST_DISPATCH, BN_NPU_COMPUTE, BN_COMMUNICATION, BN_COPY, BN_COUNT };

struct bottleneck {
	enum bottleneck_kind kind;
	const char *name;   /* static (*) */
	int score; /* 0..100; >= 40 triggers */
	int64_t bucket_ns;  /* the attribution buckets it draws on, summed */
	char *insufficient; /* owned: why it cannot be judged, or NULL */
	struct evidence *ev; /* owned */
	size_t n_ev;
	struct gain gain;
	char *advice; /* owned: what to try */
};

/* One phase of a rank's steps (phase_verdict.h): their windows in the attribution's buckets
 * and the bottleneck rules over them. */
struct phase_verdict {
	enum phase phase;
	bool training;            /* a training workload's steps (phase unknown): "training" */
	size_t steps;
	int64_t p50_ns, p95_ns;   /* of the steps' durations (end - start), as step_p50_us */
	int64_t short_gap_ns;     /* device free in gaps under 50 us inside the windows */
	struct attribution part;  /* the windows' partition, exposed communication unsplit */
	struct attribution attr;  /* part with the rank's wait/transfer split laid on it */
	char *verdict;            /* owned */
	int first;                /* the verdict's first triggered candidate, or -1 */
	bool judged;              /* enough steps and device time for a verdict */
	double launch_pct;        /* the launch-bound share the verdict names, or 0 */
	double gain_low_pct, gain_high_pct; /* the combined gain, of the phase's wall */
};

/* A rank's analysis. (*) A string marked static is, in an analysis read from digests
 * (digest.h), in the digest's buffers (struct analysis keep) instead; and so are the
 * strings borrowed from the store or the CSV tables: either way they live as long as
 * the analysis. */
/* The sets a rank's exposure and each collective's "before" are read from, kept from the
 * rank's metrics until the capture-level pass (comm_split.h; the sets themselves are freed
 * by then); freed with the rank if it never reaches that pass. */
struct comm_keep {
	struct ivset exposed; /* communication not under compute, inside the device span */
	struct ivset comm;    /* every collective, merged */
	uint8_t *before;      /* per comm interval: enum coll_before at its start */
};
struct rank_analysis;
void result_comm_keep_free(struct rank_analysis *ra);

struct moe_inst;
struct rank_analysis {
	int rank;
	size_t rank_index; /* in capture->ranks */
	bool has_trace;
	bool marker_free; /* steps found with the markers set aside, as asked (analysis_hook) */
	bool has_timeline; /* a trace, or kernel table rows with start times */
	int64_t t0; /* the rank's first X event (relative times are from here) */
	double v[M_COUNT];
	bool have[M_COUNT];
	enum confidence conf[M_COUNT];
	const char *source[M_COUNT]; /* static (*): where the value came from */

	struct ev_class *cls; /* owned, per event; borrowed when cls_mapped */
	/* cls lies in a timeline index's mapping (the explorer's, lod_unpack), which outlives
	 * the analysis: not freed here */
	bool cls_mapped;

	struct step *steps; /* owned */
	size_t n_steps;
	enum step_source step_source;
	char *step_evidence; /* owned */
	enum phase_source phase_source; /* the first signal in order that decided any step */
	enum confidence phase_conf;     /* the lowest of the steps' */
	char *phase_evidence; /* owned: steps per signal */
	size_t phase_steps[PHASE_SRC_COUNT]; /* steps decided by each signal */
	enum workload workload;
	char *workload_evidence; /* owned */

	struct op_stat *ops; /* owned; sorted by scope, phase, total desc */
	size_t n_ops;
	struct strtab *op_keys; /* owned: the collective rows' kinds and groups, or NULL */
	char *ops_source; /* owned: "trace; CSV totals from kernel_details.csv" */
	struct op_type_stat *op_types; /* owned; by scope, then busy desc (evkind_op_type_key) */
	size_t n_op_types;
	struct op_type_stat *op_shapes; /* owned; kernel table rows by type and Input Shapes */
	size_t n_op_shapes;

	/* where the evidence can be seen: the longest idle gap, exposed communication
	 * interval, device copy and host sync (0, 0 when none) */
	int64_t longest_idle[2], longest_exposed[2], longest_copy[2], longest_sync[2];

	struct crosscheck checks[2];
	size_t n_checks;

	struct attribution attr; /* the window in disjoint buckets (attribution.h) */
	struct gap_analysis gaps; /* the device-idle gaps and their causes (gaps.h) */

	struct bottleneck bn[BN_COUNT];
	double combined_gain_low, combined_gain_high;
	struct phase_verdict *by_phase; /* owned: one per phase present (phase_verdict.h) */
	bool verdict_of_steps; /* a phase's copy (phase_verdict.c): gains are of its steps' time */
	size_t n_by_phase;

	/* alignment (filled for every rank by the capture-level pass) */
	int64_t offset_ns[3]; /* first, raw, collective: the rank's clock minus the reference's;
			       * subtract it from the rank's times to align them */
	int64_t residual_ns;  /* collective mode: median |skew| after alignment */
	int64_t residual_max_ns;
	size_t matched_collectives;
	bool collective_ok;
	bool align_loose; /* matched to the reference's collectives with digits ignored only */
	int aligned_via;  /* the rank through whose collectives the clock was aligned (it shares
			   * no name with the reference), or -1 */
	/* the same collectives across ranks, summed over the matched ones: own minus least
	 * duration (waiting for the last peer) and the least (at most the transfer: it may hold
	 * a wait every rank shares); a least beyond 1 ms plus the payload at 1 GB/s counts its
	 * excess as wait (align.c) */
	int64_t coll_wait_ns, coll_transfer_ns;
	int64_t coll_skew_ns; /* own minus the least, uncapped: the wait for a later captured
			       * peer, all that balancing the captured ranks can give back */
	bool coll_spread_ok;
	bool coll_spread_capped; /* a least duration held more than 1 ms plus its payload at 1 GB/s */
	int late_rank; /* the rank the others wait for: the cluster analysis's waited_for_rank
			* (cluster.h), the same on every rank, or -1 */
	/* the exposed communication known to be neither transfer nor a wait for a captured
	 * peer (communication.json's idle outside setup, a least duration's excess shared by
	 * every captured rank): inside comm_unsplit; no gain is claimed on it */
	int64_t comm_unsplit_idle_ns;
	/* the collective instances holding COMM_OUTLIER_PCT of the window or more
	 * (comm_split.h), longest exposed first; owned */
	struct moe_inst *moe; /* owned: MoE layer instances (moe.h), n_moe of them */
	size_t n_moe;
	/* the expert load imbalance the MoE analysis found (moe.h), when moe_imbalanced: the
	 * hot rank, its tokens over the median's, this rank's wait for it in the MoE dispatch
	 * and combine (inside its comm_wait: named, not counted again) */
	bool moe_imbalanced;
	int moe_hot_rank;
	double moe_imbalance;
	int64_t moe_wait_ns;
	struct coll_outlier *outliers;
	size_t n_outliers;
	struct comm_keep *comm_keep; /* owned: the sets the exposure is read from, until then */

	struct mem_analysis mem; /* from the memory tables; empty without them */

	struct advice_finding *advice; /* owned; one per rule that saw an instance (advice.c) */
	size_t n_advice;
	/* every rule's status (enum advice_status, by enum advice_rule_id), and for a rule not
	 * applicable why (static, marked N_()); 0 (unknown) for a rank the rules never ran on */
	uint8_t advice_status[16];
	const char *advice_reason[16];
};

enum align_mode { ALIGN_FIRST, ALIGN_RAW, ALIGN_COLLECTIVE, ALIGN_COUNT };
const char *result_align_name(enum align_mode m); /* static */

struct slow_flag {
	const char *metric; /* static: "compute_us", "comm_us", "free_us" */
	double spread_pct;  /* (max - min) / mean */
	int max_rank, min_rank;
};

/* One collective of a rank (align.c): its end and duration on the rank's clock and its
 * name (borrowed from the store, or from a digest's buffer). */
struct coll_inst {
	int64_t end, dur;
	const char *name; /* borrowed (above) */
	double bytes; /* payload from the args (read for the reference rank only); 0 unknown */
	/* its part of the rank's exposed communication (each exposed ns goes to one instance,
	 * the earliest started that covers it: comm_split.h); -1 when unknown (no timeline) */
	int64_t exposed;
	/* across the ranks (align.c): own minus the least duration of the same collective (the
	 * wait for the last peer), -1 when matched on no peer; the least's excess over the time
	 * its payload may take (1 ms plus the payload at 1 GB/s), 0 when within */
	int64_t skew, shared;
	int32_t last;   /* index into analysis.ranks of the rank with the least duration, -1 */
	uint32_t event; /* its trace event, or UINT32_MAX */
	uint8_t before; /* enum coll_before: the device just before it started */
};


struct comm_analysis;
struct cluster_db;
struct digest_keep;
struct service_analysis;
struct moe_analysis;

struct analysis {
	const struct capture *cap; /* borrowed (owned when from_digests) */
	struct rank_analysis *ranks; /* owned */
	size_t n_ranks;
	struct slow_flag slow[3];
	size_t n_slow;
	struct comm_analysis *comm; /* owned; never NULL (see comm.h) */
	struct diag_list diags; /* analysis-level remarks (not input errors) */
	/* per rank (parallel to ranks): its collectives, sorted by end (owned arrays) */
	struct coll_inst **colls; /* owned, and so is each */
	size_t *n_colls;          /* owned */
	struct cluster_analysis *cluster; /* owned: ranks x steps, slow ranks, groups (cluster.h) */
	struct cluster_db *cluster_db; /* owned: msprof-analyze's cluster_analysis.db when a
					 * cluster_analysis_output is opened (cluster_db.h), or NULL */
	bool from_digests;         /* read from digest files (digest.h): no events to drill into */
	bool from_cluster_output;  /* with from_digests: msprof-analyze's cluster output, no digests */
	struct service_analysis *service; /* owned: the serving output's figures (service.h), or NULL */
	struct moe_analysis *moe; /* owned: MoE layers and expert load (moe.h), or NULL */
	struct doctor_item *doctor; /* owned: what the capture lacks (doctor.h), n_doctor of them */
	size_t n_doctor;
	struct digest_keep *keep;  /* owned: the buffers a digest-read analysis points into */
	void (*keep_free)(struct digest_keep *keep); /* frees keep (set with it, by digest.c) */
};

/* Frees what a rank's analysis owns (steps, ops, checks, verdicts, memory, advice) and
 * zeroes it. */
void result_rank_free(struct rank_analysis *ra);
/* Frees what a candidate owns and zeroes it. */
void result_bottleneck_free(struct bottleneck *b);
/* Sets a metric when v is finite (source: static text). */
void result_set_metric(struct rank_analysis *ra, enum metric_id m, double v, enum confidence conf,
			 const char *source);
/* The step whose window [win_start, win_end) holds t, or SIZE_MAX. */
size_t result_step_at(const struct rank_analysis *ra, int64_t t);
/* Whether step c is the last one starting at or before t: what result_step_at finds. */
static inline bool analysis_last_started(const struct rank_analysis *ra, size_t c, int64_t t)
{
	return c < ra->n_steps && ra->steps[c].win_start <= t &&
	       (c + 1 == ra->n_steps || ra->steps[c + 1].win_start > t);
}
/* The same as result_step_at, first trying *hint and the step after it (times that mostly
 * rise); *hint is updated, start it at 0. Inline: scans over every event ask it of each. */
static inline size_t analysis_step_at_near(const struct rank_analysis *ra, int64_t t, size_t *hint)
{
	size_t c = *hint;
	if (!analysis_last_started(ra, c, t)) {
		if (analysis_last_started(ra, c + 1, t)) {
			c++;
		} else {
			size_t k = result_step_at(ra, t);
			if (k != SIZE_MAX)
				*hint = k;
			return k;
		}
	}
	*hint = c;
	return t < ra->steps[c].win_end ? c : SIZE_MAX;
}


#endif
