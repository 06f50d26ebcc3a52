/* SPDX-License-Identifier: MIT */
/* ascprof-gen: writes a synthetic vLLM-Ascend torch_npu capture and the exact ground truth it
 * planted (gen_truth.c documents every key). The generator is one program in several files, by
 * section: gen_main.c (calibration, driver), gen_opts.c (options), gen_util.c (utilities),
 * gen_kinds.c (op kinds), gen_plan.c (the per-step plan), gen_sim.c (simulation),
 * gen_trace.c (trace_view.json), gen_csv.c (CSV tables), gen_files.c (the files around
 * them), gen_truth.c (ground truth), gen_comm.c (--comm), gen_check.c (--self-check),
 * gen_db.c (--export db). This header is the state they share: the options, the model
 * (struct gen, struct rank_model), the writers' types, and the functions one file calls in
 * another. Nothing here is thread-safe: the generator runs on one thread. */
#ifndef ASCPROF_GEN_H
#define ASCPROF_GEN_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "sbuf.h"
#include "xalloc.h"

#define US             1000LL /* ns per microsecond */
#define MS             1000000LL
#define MAX_RANKS      64
#define KERNEL_LATENCY (20 * US) /* launch -> earliest kernel start */
#define IDLE_MIN       (50 * US) /* device gaps shorter than this are jitter, not idle */
#define BASE_NS        1736408883674584732LL

/* ------------------------------------------------------------------------------------------ */
/* PRNG: splitmix64 to seed, xoshiro256** to draw; all streams derive from (seed, purpose...). */

struct rng {
	uint64_t s[4];
};

/* ------------------------------------------------------------------------------------------ */
/* buffered output: large buffer, own number formatting; count-only mode for --target-bytes   */

struct out {
	int fd; /* -1: count only */
	char *buf;
	size_t len, cap;
	uint64_t flushed; /* bytes already handed to the kernel (or counted) */
	const char *path;
};

/* ------------------------------------------------------------------------------------------ */
/* options                                                                                    */

enum step_marks { MARKS_ENGINE, MARKS_PROFILERSTEP, MARKS_NONE };
enum step_trace { ST_ONE, ST_ROWS, ST_NONE };
enum naming { NAME_HOST, NAME_RANK };
enum jstyle { JS_PY, JS_MIN, JS_PRETTY };
/* --shape: marked (our historical capture, step markers), vllm (what vLLM-Ascend's own profiler
 * wrapper writes: no markers, no python_function, no Input Dims), train (DDP training) */
enum shape_kind { SHAPE_MARKED, SHAPE_VLLM, SHAPE_TRAIN };
struct shape_opts {
	enum shape_kind kind;
	bool mla, moe, graph, annotate, short_prefill;
	bool legacy; /* vLLM-Ascend 0.7-0.9 eager: FlashAttentionScore in prefill, PagedAttention in decode */
	int mixed; /* chunked-prefill (mixed) steps among the decode steps */
};

struct opts {
	const char *out;
	int ranks;
	uint64_t seed;
	int steps;
	int prefill;
	int64_t target_bytes;
	bool offsets_set;
	int64_t offsets_ns[MAX_RANKS];
	int64_t host_gap_ns;
	int64_t edge_ns; /* --edge-us: host work before the first and after the last device task */
/* --shape vllm: the edges' host work (a cpu_op of the scheduler's, no device task) */
#define VLLM_EDGE_OP "aten::zeros"
	int slow_rank;      /* -1: none */
	/* --moe-hot R:F (--shape vllm,moe): every MoE layer's experts get planted token counts
	 * (moe_tokens), rank R's F times the others'; the prompts' experts between all-to-alls */
	int moe_hot;        /* -1: off */
	int64_t moe_milli;
	bool moe_no_shapes; /* --moe-no-shapes: the kernel table's GroupedMatmul shapes left empty */
	bool record_shapes; /* --record-shapes: --shape vllm's cpu_ops carry Input Dims (a MoE unit's own tokens) */
	int64_t slow_milli; /* kernel duration factor in 1/1000 */
	char scale_name[128];     /* --kernel-scale NAME */
	const char *drop_name;    /* --drop-op NAME */
	const char *env[8];       /* --env NAME=VALUE: profiler_metadata.json ENV_VARIABLES set */
	int freq_drop_pct;        /* --freq-drop PCT: the AI Core at 800 MHz for PCT % of the span */
	bool fused;               /* --fused: AddRmsNorm and SwiGlu kernels instead of Add+RmsNorm, Silu+Mul */
	bool unfused_rope;        /* --unfused-rope: q*cos + rotate_half(q)*sin instead of the fused rope */
	int64_t packet_bytes;     /* --packet-bytes N: every collective's packet to a peer, 0: by tokens */
	const char *chip;         /* --chip NAME: a PROF_ device info.json with its core counts */
	int block_dim;            /* --block-dim N: every MatMulV2 kernel on N blocks (0: its kind's) */
	bool new_shapes;          /* --new-shapes: Add static, a new input shape in every step */
	int alloc_storm;          /* --alloc-storm N: N aclrtMalloc calls between consecutive steps */
	bool pmu_bound;           /* --pmu-bound: every kernel bound by a pipe but RmsNorm (by none) */
	int n_env;
	int64_t scale_milli;
	int64_t xfer_milli; /* --xfer-scale: every collective's transfer, in 1/1000 */
	int64_t setup_ns;   /* --link-setup-us: the first collective's wait on every rank */
	int scale_kind, drop_kind; /* the kinds they name (enum kind_id), -1: none */
	enum step_marks marks;
	bool marks_set, step_trace_set; /* given on the command line (--shape vllm keeps them) */
	/* no python_function events, no Input Dims or Input type args: --shape vllm and
	 * --default-export (with_stack=False, record_shapes=False) */
	bool host_bare;
	/* --default-export: vLLM-Ascend's default export of any shape (host_bare, no ProfilerStep,
	 * no Call stack, no operator_details.csv, one step_trace row without a step) */
	bool default_export;
	enum step_trace step_trace;
	enum naming naming;
	bool no_info, no_done, raw, wrapper, memory;
	enum jstyle style;
	int64_t truncate_at; /* 0: off */
	bool call_stack, bom, crlf, tabs, gbk, chinese, hostile;
	int ragged, excel;
	int ops; /* mean dispatch units per decode step */
	bool comm; /* communication.json and communication_matrix.json */
	bool cluster_db; /* cluster_analysis_output/cluster_analysis.db (gen_db.h) */
	bool serving;    /* MS Service Profiler output in DIR/serving (gen_serving.c) */
	bool demo, self_check, force, check_only;
	struct shape_opts shape;
	int export_db; /* --export: 0 text, 1 db (the text replaced), 2 both (gen_db.h) */
};

/* ------------------------------------------------------------------------------------------ */
/* op kinds: what one host dispatch unit looks like on every lane                             */

enum dev_class { DC_COMPUTE, DC_H2D, DC_D2H, DC_COMM };

enum kind_id {
	K_H2D,
	K_D2H,
	K_EMBED,
	K_RMSNORM,
	K_LINEAR,
	K_ROPE,
	K_CACHE,
	K_ATTN,
	K_ADD,
	K_SILU,
	K_MUL,
	K_ARGMAX,
	K_QMM,
	K_FATTN,
	K_GBK1,
	K_GBK2,
	K_HOSTILE,
	K_ALLREDUCE,
	K_S3,
	/* --shape vllm and train kinds ('@' in a shape is the batch's sequence count) */
	K_FIA,
	K_PAGED,
	K_MLAPO,
	K_MOE_DISP,
	K_MOE_COMB,
	K_GMM,
	K_FA,
	K_FA_GRAD,
	K_RMSNORM_GRAD,
	K_SWIGLU_GRAD,
	K_MM_GRAD,
	K_EMBED_GRAD,
	K_ADAMW,
	K_ALLTOALL,
	K_FLASH, /* --shape vllm,legacy: prefill attention without a cache */
	K_ADDRMSNORM, /* --fused: Add + RmsNorm as one kernel */
	K_SWIGLU,     /* --fused: Silu + Mul as one kernel */
	K_NEG,        /* --unfused-rope: rotate_half's negation */
	K_CAT,        /* --unfused-rope: rotate_half's concatenation */
	K_COUNT
};
#define HOSTILE_PYFUNC                                                                                       \
	"evil.py(7): \x1b]0;title\x07\xe2\x80\xae"                                                           \
	"cba"

struct kind {
	const char *host[3]; /* cpu_op names, outermost first */
	int nest;
	const char *acl;      /* AscendCL@<acl> */
	const char *acl_mode; /* args.Mode of the AscendCL event */
	const char *deq;      /* Dequeue@<deq> */
	const char *kernel;   /* device task name */
	const char *type;     /* kernel_details Type */
	const char *task_type;
	enum dev_class dc;
	int weight; /* share of the step's device budget */
	int block_dim, mix_block_dim;
	const char *in_shape; /* '#' = token count, ';' between inputs */
	const char *in_dtype, *in_fmt, *out_shape, *out_dtype, *out_fmt;
	const char *torch_types;
	const char *frame; /* innermost Python frame of its call stack */
};

/* ------------------------------------------------------------------------------------------ */
/* interval lists built in time order                                                         */

struct ivl {
	int64_t s, e;
};

struct ivl_list {
	struct ivl *v;
	size_t n, cap;
};

/* ------------------------------------------------------------------------------------------ */
/* the model                                                                                  */

enum proc_id { PR_PY, PR_CANN, PR_HW, PR_HCCL, PR_OV, PR_FREQ, PR_HBM, PR_COUNT };
enum lane_id {
	LN_PY_MAIN,
	LN_PY_DEQ,
	LN_CANN,
	LN_S2,
	LN_S3,
	LN_S4,
	LN_HCCL_G0,
	LN_HCCL_P0,
	LN_OV_COMP,
	LN_OV_COMM,
	LN_OV_NOV,
	LN_OV_FREE,
	LN_COUNT
};

/* a trace process: its name, labels and sort index */
struct proc_def {
	const char *name, *labels;
	int sort; /* process_sort_index and the packed-pid index */
};

/* a trace lane: its process, tid and thread name */
struct lane_def {
	enum proc_id proc;
	int tid;          /* fixed tid; -1: main thread, -2: dequeue thread */
	const char *name; /* NULL: "Thread <tid>" */
	bool multi_rank_only;
};

/* One host dispatch unit: cpu_op(s) + Enqueue on the main thread, Dequeue + CANN events on the
 * dequeue thread, and its device work (stream-2 task, or a collective). True-time ns. */
struct unit {
	int64_t c_ts, c_dur;   /* outermost cpu_op */
	int64_t eq_ts, dq_ts;  /* Enqueue / Dequeue */
	int64_t acl_ts, nl_ts; /* AscendCL@ / Node@launch (Hccl@Launch_Ffts for collectives) */
	int32_t eq_dur, dq_dur, acl_dur, nl_dur;
	int64_t k_ts, k_dur;    /* stream-2 task; collective: [a, E) */
	int64_t k_wait;         /* kernel_details Wait Time */
	int64_t s3_ts, s3_wait; /* concurrent stream-3 kernel (s3_dur 0: none) */
	int64_t ev_ts;          /* EVENT_RECORD on stream 3 (0: none) */
	int64_t xfer;           /* collective: transfer time T (SDMA = [E-T, E)) */
	int32_t s3_dur;
	int32_t corr, conn, acl_conn;
	int32_t task, s3_task, ev_task, s3_conn, ev_conn;
	int32_t coll_seq; /* running collective number (name suffix) */
	uint8_t kind;
	uint8_t long_id; /* HostToDevice id written as a 20-digit string */
	uint8_t graph;   /* launched by a graph replay: no host events of its own */
	uint8_t part;    /* --shape: 0 whole batch, 1 its decode part, 2 its prefill part */
	int64_t moe_tok;  /* --moe-hot: a GroupedMatmul's tokens routed to this rank's experts */
	int64_t moe_wait; /* --moe-hot: a dispatch or combine's planted wait for the slowest rank */
	uint8_t moe_role; /* --moe-hot: enum moe_role */
	int64_t rp_end;  /* the first unit of a run of graph units: the end of the run's replay call
	                  * (from this unit's Dequeue to the run's last); 0 otherwise */
};

/* --moe-hot: what a unit is to its MoE layer */
enum moe_role { MR_NONE, MR_DISPATCH, MR_GMM1, MR_GMM2, MR_COMBINE };

/* --shape: a step's phase as planted */
enum step_phase { SP_DECODE, SP_PREFILL, SP_MIXED, SP_TRAIN };

struct step {
	int64_t hs, he;            /* step marker span (the execute-model region) */
	int64_t prep_ts, prep_end; /* _prepare_inputs */
	int64_t fwd_ts, fwd_end;   /* _model_forward (wraps the dispatch) */
	int64_t sch_ts, sch_end;   /* schedule() after the step */
	int64_t evil_ts, evil_end; /* hostile python_function (0: none) */
	size_t u0, nu;
	bool prefill;
	/* --shape: phase, batch tokens and sequences (the prefill part's of a mixed step), the
	 * whole model one graph replay (full graph), replays (CANN aclmdlRIExecuteAsync calls:
	 * one full graph, or the pieces of a piecewise step) */
	uint8_t phase;
	bool graph;
	int replays;
	int64_t tok, seqs, tok_p, seqs_p;
	/* by-construction sums */
	int64_t compute, copy, h2d, d2h, comm, overlapped, busy, cpu_ops, first_dev, last_dev;
	int ncoll;
};

struct rank_model {
	int r, dev; /* rank, NPU device id on its node (16 per node) */
	int64_t off;
	int64_t pid, tid_main, tid_deq;
	int64_t proc_pid[PR_COUNT];
	char dir[160];
	struct unit *u;
	size_t nu, ucap;
	struct step *st;
	int nst;
	int64_t sch0_ts, sch0_end; /* leading schedule() */
	/* device placement state */
	int64_t s2_end, s3_end, coll_end;
	int64_t coll_a, coll_E, coll_T, sdma_cov, nov_cur;
	int ov_left;
	bool dep_wait, have_s2, have_s3, have_coll;
	bool sdma_pending;
	int64_t sdma_s, sdma_e;
	int32_t next_corr, next_conn, next_task, next_s3_task, next_s4_task;
	/* lists kept in placement order */
	struct ivl_list comp_m; /* merged compute: Overlap Analysis / Computing */
	struct ivl_list busy_u; /* npu busy union */
	struct ivl_list cc_u;   /* compute union comm */
	struct ivl_list nov;    /* exposed communication pieces */
	struct ivl_list freeg;  /* gaps of cc_u inside the window */
	struct ivl_list occ_u;  /* busy union comm: the device runs a task or is in a collective */
	struct ivl_list host_u, honly_u; /* --shape vllm: host busy and host-only (no spans cover the steps) */
	/* truths (true-time sums) */
	int64_t first_ts, last_end;
	int64_t compute, copy, h2d, d2h, comm, overlapped, busy, host_busy, host_only;
	int64_t idle, idle_gaps, free_ns, cpu_ops, edge_idle;
	int ncoll, prefill_steps;
};

struct plan_unit {
	uint8_t kind;
	bool s3, ev, long_id, graph;
	uint8_t part;
	int m_ov;
	int64_t host_dur, kdur, xfer;
};

struct plan {
	bool prefill;
	uint8_t phase; /* --shape: enum step_phase */
	bool graph, a2a; /* a2a: the collectives are MoE all-to-alls */
	bool piecewise;  /* graph pieces between eager attention (FULL_AND_PIECEWISE's other batches) */
	int64_t tok, seqs, tok_p, seqs_p;
	int n;
	struct plan_unit *pu;
	size_t cap;
	int64_t prep, tail, sched, gap_before;
};

struct gen {
	const struct opts *o;
	int steps;
	bool *is_prefill;
	int64_t base;
	int coll_group; /* the <seq> in hcom_allReduce__<seq>_<n>_1 */
	int64_t tok_decode, tok_prefill;
	/* truth: per rank, consecutive compute units Add, RmsNorm and Silu, Mul; units Silu, Mul */
	int64_t fus_add_rms, fus_swiglu, aff_silu_mul;
	int64_t fus_rotary, aff_neg_cat; /* Neg, Concat, Mul kernels; aten::neg, aten::cat ops */
	uint8_t *phase; /* --shape: per step, enum step_phase */
	int64_t *running; /* --shape: per step, the requests decoding (continuous batching: a walk) */
	const char *host;
	struct rank_model *rk;
	int coll_counter;
	/* per-kind strings */
	char *dims_trace[K_COUNT][2], *types_trace[K_COUNT], *shape_in[K_COUNT][2], *shape_out[K_COUNT][2],
	        *stack_json[K_COUNT], *stack_csv[K_COUNT];
};

/* The query tokens of a step's batch (--shape: the plan's, all parts), else its phase's: a
 * tensor-parallel collective carries tokens x hidden (4096) elements, as the model's hidden
 * states are reduced across the ranks. */
static inline int64_t step_coll_tokens(const struct gen *G, const struct step *st)
{
	return st->tok > 0 ? st->tok : st->prefill ? G->tok_prefill : G->tok_decode;
}

/* --moe-hot: the balanced share of a step's tokens one rank's experts get (top-8 of 64
 * experts: 8 tokens' worth per token, spread over the ranks) */
static inline int64_t moe_base_tokens(const struct gen *G, const struct step *st)
{
	int64_t t = st->tok * 8 / G->o->ranks;
	return t > 0 ? t : 1;
}

/* ------------------------------------------------------------------------------------------ */
/* trace_view.json writer                                                                     */

enum ph_idx { PH_X, PH_M, PH_S, PH_F, PH_C, PH_COUNT };

struct tw {
	struct out *o;
	const struct gen *G;
	const struct rank_model *R;
	enum jstyle style;
	int depth;
	bool first[8];
	bool first_elem;
	int64_t py_id;
	bool replayed; /* the unit being written runs in a graph replay: its tasks carry Model Id 1 */
	/* tallies of the complete elements that survive --truncate-at */
	uint64_t cut; /* 0: no cut */
	int64_t n_ph[PH_COUNT];
	int64_t lane_x[LN_COUNT];
	bool lane_named[LN_COUNT], proc_named[PR_COUNT];
	bool have_x;
	int64_t x_min, x_max;
};

/* ------------------------------------------------------------------------------------------ */
/* CSV writers: op_statistic and api_statistic aggregates (the ground truth sums them too)     */

struct agg {
	const char *key, *key2; /* Type + core type, or level + API name */
	int64_t n, total, min, max;
	__int128 sq;
};

/* ------------------------------------------------------------------------------------------ */
/* ground truth                                                                               */

/* --comm truths of one rank, summed while its files are written. */
struct comm_truth {
	int64_t ops, t[5]; /* elapse, transit, wait, sync, idle */
	int64_t hccs_bytes, hccs_time, packets, small_packets;
	int64_t link_bytes[MAX_RANKS], link_time[MAX_RANKS];
};
/* --memory sizes (see write_memory) */
enum { MEM_WEIGHTS_MB = 4096, MEM_CACHE_MB = 8192, MEM_GE_ALLOC_MB = 64, MEM_GE_RES_MB = 128,
       MEM_DRIVER_MB = 1024, MEM_HCCL_MB = 404 };

struct rank_out {
	uint64_t trace_bytes;
	bool truncated;
	struct tw t;
	int64_t rows_kernel, rows_oper, rows_opstat, rows_api, rows_step;
	struct sbuf ragged, excel;
	struct comm_truth comm;
	/* --memory */
	int64_t rows_memrec, rows_modmem, rows_opmem;
	int64_t pta_peak_alloc_mb, pta_peak_reserved_mb, app_peak_reserved_mb, allocs, negative, never_released;
};

/* ------------------------------------------------------------------------------------------ */
/* functions and tables shared between the files, by the file that defines them             */

/* gen_truth.c */
extern const char truth_doc[];
void write_truth(const struct gen *G, struct rank_out *ro);
/* --serving: DIR/serving/ and its truth (gen_serving.c) */
void gen_serving(const struct gen *G);

/* gen_util.c */
extern const char *prog;
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* "ascprof-gen: " and the message on stderr, no newline (die, usage_error). */
void prog_vprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
int u64_digits(char *buf, uint64_t v);
int fmt_us3(char *buf, int64_t ns);
bool parse_scaled(const char *s, int scale, int64_t *out);
bool parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out);
void rng_init(struct rng *r, uint64_t seed, uint64_t a, uint64_t b, uint64_t c);
uint64_t rng_next(struct rng *r);
int64_t rng_range(struct rng *r, int64_t lo, int64_t hi);
bool rng_permille(struct rng *r, int pm);
int64_t jitter(struct rng *r, int64_t v, int pm);
void out_open(struct out *o, const char *path, size_t cap);
void out_flush(struct out *o);
uint64_t out_pos(const struct out *o);
void out_close(struct out *o);
void out_str(struct out *o, const char *s);
void out_i64(struct out *o, int64_t v);
void out_us3(struct out *o, int64_t ns);
void out_us_py(struct out *o, int64_t ns);
void out_milli(struct out *o, int64_t m);
void out_spaces(struct out *o, int n);
void out_json_str(struct out *o, const char *s);
void ul_add(struct ivl_list *l, int64_t s, int64_t e);
void pl_add(struct ivl_list *l, int64_t s, int64_t e);
void ul_merge(const struct ivl_list *a, const struct ivl_list *b, struct ivl_list *out);
int64_t ul_clip(const struct ivl_list *l, int64_t lo, int64_t hi);
int64_t ivl_total(const struct ivl_list *l);
void sweep_merge(struct ivl_list *l);
void list_push(struct ivl_list *l, int64_t s, int64_t e);
void sweep_subtract(const struct ivl_list *a, const struct ivl_list *b, struct ivl_list *out);
void write_file(const char *path, const char *data, size_t n);
void path_join(char *buf, size_t n, const char *a, const char *b);
void mkdir_p(const char *path);
bool dir_empty(const char *path);
int ivl_cmp(const void *a, const void *b);
int64_t sweep_clip(const struct ivl_list *l, int64_t lo, int64_t hi);
int64_t sweep_total(const struct ivl_list *l);

/* gen_csv.c */
void from_gbk(struct sbuf *dst, const char *s, size_t n);
int64_t write_kernel_details(const struct gen *G, const struct rank_model *R, const char *path,
                             struct sbuf *ragged, struct sbuf *excel);
int64_t write_operator_details(const struct gen *G, const struct rank_model *R, const char *path);
struct agg *agg_find(struct agg **v, size_t *n, size_t *cap, const char *a, const char *b);
void agg_add(struct agg *g, int64_t d);
int agg_by_total(const void *a, const void *b);
struct agg *op_types(const struct rank_model *R, size_t *n);
int64_t write_op_statistic(const struct gen *G, const struct rank_model *R, const char *path);
int64_t write_api_statistic(const struct gen *G, const struct rank_model *R, const char *path);
int64_t write_step_trace(const struct gen *G, const struct rank_model *R, const char *path);
void write_memory(const struct gen *G, const struct rank_model *R, const char *od, struct rank_out *ro);

/* gen_opts.c */
void parse_opts(int argc, char **argv, struct opts *o);
void usage_error(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
int64_t arg_int(const char *opt, const char *v, int64_t lo, int64_t hi);
int kernel_kind(const char *opt, const char *name);
void parse_shape(const char *v, struct shape_opts *sh);
void shape_apply(struct opts *o);

/* gen_kinds.c */
extern const struct kind kinds[K_COUNT];

/* gen_sim.c */
extern const struct proc_def procs[PR_COUNT];
extern const struct lane_def lanes[LN_COUNT];
char *shape_text(const struct gen *G, const struct step *st, const struct unit *u, const char *pat);
char *dims_text(const struct gen *G, const struct step *st, const struct unit *u, const char *pat);
void annotation_name(const struct step *st, char *buf, size_t n);
void coll_name(char *buf, size_t n, const struct gen *G, const struct unit *u);
void format_stamp(char *buf, size_t n, int64_t ns);
void gen_init(struct gen *G, const struct opts *o, int steps);
void gen_simulate(struct gen *G);
void gen_free(struct gen *G);

/* gen_plan.c */
void make_plan(const struct gen *G, int k, struct plan *P);

/* gen_trace.c */
extern const char ph_chars[PH_COUNT];
bool lane_on(const struct gen *G, enum lane_id ln);
void thread_label(const struct rank_model *R, enum lane_id ln, char *buf, size_t n);
/* --alloc-storm: the calls after step k (gen_trace.c; the API table and the truth count
 * the same): how many, the first slot's start and the slot length */
int alloc_storm_slots(const struct gen *G, const struct rank_model *R, int k, int64_t *t0, int64_t *slot);
void cann_x(struct tw *t, const char *name, int64_t ts, int64_t dur, const char *mode, const char *level,
            const char *id, const char *item, int32_t conn);
uint64_t write_trace(const struct gen *G, const struct rank_model *R, const char *path, struct tw *t);

/* gen_comm.c */
void truth_comm(struct sbuf *b, const struct gen *G, const struct rank_out *ro);
void write_comm(const struct gen *G, const struct rank_model *R, const char *od, struct comm_truth *ct);

/* gen_files.c */
void write_rank(const struct gen *G, const struct rank_model *R, struct rank_out *ro);

/* gen_check.c */
int self_check(const char *outdir);

/* ------------------------------------------------------------------------------------------ */
/* inline helpers: min/max, output (allocation, strings: src/base's xalloc.h, sbuf.h)       */

static inline int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}
static inline int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* Length of [s,e) inside [a,b). */
static inline int64_t clip_len(int64_t s, int64_t e, int64_t a, int64_t b)
{
	int64_t lo = max64(s, a), hi = min64(e, b);
	return hi > lo ? hi - lo : 0;
}

static inline void out_need(struct out *o, size_t n)
{
	if (o->len + n > o->cap)
		out_flush(o);
}

static inline void out_chr(struct out *o, char c)
{
	out_need(o, 1);
	o->buf[o->len++] = c;
}

#endif
