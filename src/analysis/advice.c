/* SPDX-License-Identifier: MIT */
/* Ascend advice rules (advice.h): one pass over the rank's events sorts them into the
 * rules' instances (names and attribute pairs are judged once each, not per event), then
 * each rule turns its instances into figures. Spans are unions (intervals.h): nested
 * instances, an aclrtSynchronizeStreamWithTimeout inside a synchronize, count once. */
#include "advice.h"
#include "advice_int.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evkind.h"
#include "rank_sets.h"
#include "csv_table.h"
#include "discover.h"
#include "i18n.h"
#include "profinfo.h"
#include "sanitize.h"
#include "sbuf.h"
#include "strtab.h"
#include "xalloc.h"

#define SMALL_KERNEL_NS 10000 /* the storm rule's "small": 10 us */
#define STORM_MIN_SMALL 100   /* fewer small kernels are no storm */
#define STORM_MIN_DISPATCH_PCT 5.0 /* host_dispatch share of the window the storm needs */

const struct advice_rule advice_rules[ADV_COUNT] = {
	[ADV_ONLINE_COMPILE] = {"online_compile", N_("on-the-fly operator compilation"),
				"host events named aclopCompile* (AscendCL@aclopCompileAndExecute, aclopCompile)",
				"their time over host busy time", "%", 1.0,
				/* xgettext:no-c-format */
				N_("single-operator mode compiles (or looks up) each op on the host at run time; at 1 % "
				"of host time it delays dispatch measurably, and every new shape compiles again"),
				N_("keep shapes static; torch_npu.npu.set_compile_mode(jit_compile=False) and "
				"torch_npu.npu.config.allow_internal_format=False to use the binary kernels")},
	[ADV_AICPU] = {"aicpu", N_("AI CPU operators"), "device tasks whose Task Type (trace) or Accelerator Core "
		       "(kernel_details.csv) is AI_CPU",
		       "their time over device busy time", "%", 1.0,
		       /* xgettext:no-c-format */
		       N_("AI CPU tasks run on the NPU's control CPUs, often an order of magnitude slower than "
		       "AI Core, and they serialise the stream; msprof-analyze flags them at any share, here from 1 %"),
		       N_("cast inputs to a dtype the AI Core kernel supports (int64 -> int32, double -> float), or "
		       "replace the op with an equivalent that has an AI Core implementation")},
	[ADV_TRANSDATA] = {"transdata", N_("TransData format conversions"),
			   "device tasks named *TransData* (TransData, TransDataRNN, *_TransDataSpecial_*)",
			   "their time over device busy time", "%", 3.0,
			   /* xgettext:no-c-format */
			   N_("TransData converts between private formats (NC1HWC0, FRACTAL_Z) and ND: pure data "
			   "movement; above 3 % of device time the formats of neighbouring ops disagree"),
			   N_("keep tensors in one format (torch_npu.npu.config.allow_internal_format=False, or "
			   "npu_format_cast once outside the loop); check the ops either side of each TransData")},
	[ADV_DISPATCH_STORM] = {"dispatch_storm", N_("small-kernel dispatch storm"),
				"device compute kernels shorter than 10 us, with the device idle while the host "
				"dispatches (the host_dispatch bucket)",
				"kernels under 10 us over all device compute kernels", "%", 50.0,
				/* xgettext:no-c-format */
				N_("a kernel under 10 us costs less than its launch: when half the kernels are that "
				"small, there are at least 100 of them and the device idles for dispatch at least "
				"5 % of the window, the device waits for the host, not the other way round"),
				N_("fuse small ops (torch.compile / torchair graph mode, fused kernels such as "
				"npu_rms_norm, npu_rotary_mul), capture the step as an ACL graph, bind the "
				"dispatching thread to cores (CPU affinity), or use larger batches")},
	[ADV_STREAM_SYNC] = {"stream_sync", N_("synchronous streams"),
			     "host calls that block on the device: aclrtSynchronizeStream*, aclrtSynchronizeDevice, "
			     "StreamSynchronize, torch.npu.synchronize",
			     "their exposed time (device idle, the host blocked) over the window", "%", 1.0,
			     /* xgettext:no-c-format */
			     N_("each call drains the stream: the device runs dry until the host dispatches again; "
			     "above 1 % of the window the drain shows as idle device time"),
			     N_("drop synchronize() from the loop (keep it for timing only); read results "
			     "with non_blocking copies; set ASCEND_LAUNCH_BLOCKING=0")},
	[ADV_GC] = {"gc", N_("Python GC inside steps"), "events on the Python GC lane or with cat GC, inside the steps' span (first start to last end)",
		    "their time over the steps' time", "%", 1.0,
		    /* xgettext:no-c-format */
		    N_("a full collection stops the dispatching thread for milliseconds at random steps; "
		    "above 1 % of the steps' time it shows as jitter and host-bound time"),
		    N_("gc.freeze() after model load, raise the thresholds (gc.set_threshold) or run "
		    "gc.collect() between steps yourself with gc.disable() during them")},
	[ADV_ENV_VARIABLES] = {"env_variables", N_("environment settings that cost performance"),
			       "profiler_metadata.json's ENV_VARIABLES: ASCEND_LAUNCH_BLOCKING=1, "
			       "ASCEND_GLOBAL_LOG_LEVEL 0 or 1, TASK_QUEUE_ENABLE=0",
			       "settings known to cost performance", "count", 1.0,
			       N_("a synchronous launch waits for every kernel (no host-device overlap), debug or "
				  "info logging writes on the dispatch path, a disabled task queue dispatches on the "
				  "Python thread: each makes the run, and its profile, slower than production"),
			       N_("unset ASCEND_LAUNCH_BLOCKING, set ASCEND_GLOBAL_LOG_LEVEL=3 (error), leave "
				  "TASK_QUEUE_ENABLE at its default (1 or 2), then profile again")},
	[ADV_AICORE_FREQ] = {"aicore_freq", N_("AI Core frequency drops"),
			     "the AI Core Freq counter below 90 % of its highest value in the capture",
			     "that time over the window", "%", 5.0,
			     /* xgettext:no-c-format */
			     N_("a throttled AI Core (power or thermal limits, a power-saving policy) runs every "
				"kernel slower; above 5 % of the window the kernels' durations no longer measure "
				"the code alone"),
			     N_("check the device's power and temperature (npu-smi info) and its power mode; compare "
				"the kernels that ran during the drop with the same kernels outside it")},
	[ADV_BLOCK_DIM] = {"block_dim", N_("kernels on fewer blocks than cores"),
			   "kernel table rows of AI_CORE / AI_VECTOR_CORE / MIX kernels of 20 us and more whose Block Dim "
			   "(Block Num) is below the AI Core (cube) or Vector core count the capture's device implies",
			   "their time over the table's AI Core and Vector kernel time", "%", 10.0,
			   /* xgettext:no-c-format */
			   N_("a kernel split into fewer blocks than there are cores leaves the other cores idle for "
			      "its whole run; on long kernels (20 us and more) a finer split pays, and at 10 % of the "
			      "AI Core time the idle cores cost measurable time"),
			   N_("tile the kernel so that its block count is the core count or a multiple of it (the "
			      "operator's tiling, or a larger batch or sequence per call); for an aclnn operator, "
			      "check for a version or a fused variant that splits across all cores")},
	[ADV_PIPE_BOUND] = {"pipe_bound", N_("kernels bound by no pipe"),
			    "the kernel table's PMU ratios (aic_mac_ratio, aiv_vec_ratio, aic/aiv_mte2_ratio, "
			    "scalar) of the heavy kernels (1 % of PMU kernel time or more), weighted by Duration: "
			    "bound by a pipe at 80 % busy, by none (latency-bound) when every pipe is under 50 %",
			    "the latency-bound heavy kernels' time over the PMU kernels' time", "%", 10.0,
			    /* xgettext:no-c-format */
			    N_("a kernel whose cube, vector, scalar and MTE2 pipes all stay under half busy waits "
			       "on something else (synchronisation between pipes, small tiles, launch and tail "
			       "costs): neither more compute nor more bandwidth speeds it; at 10 % of the AI Core "
			       "time such kernels are worth reworking"),
			    N_("for a latency-bound kernel: larger tiles, double buffering, fewer pipe barriers "
			       "or fusing it with its neighbours; for a cube- or vector-bound one the pipe is the "
			       "limit (reduce the work); for an MTE2-bound one, reuse data in L1/UB")},
	[ADV_DYNAMIC_SHAPE] = {"dynamic_shape", N_("operators compiled again for new shapes"),
			       "kernel table rows (Type, else Name) with an Input Shapes value first seen after the "
			       "first step of their phase (prefill, decode), leaving out kernels whose OP State is "
			       "dynamic (compiled once for any shape)",
			       "input shapes new after their phase's first step", "count", 1.0,
			       N_("a static-shape operator is compiled (or its graph rebuilt) for each new input "
				  "shape; a phase's first step sees every shape of a steady run, so a shape first seen "
				  "later is a compilation inside the steady state"),
			       N_("pad or bucket the varying dimension (sequence length, batch) to a few sizes, mark "
				  "dimensions dynamic (torch._dynamo.mark_dynamic, torchair dynamic=True), or use the "
				  "binary (jit_compile=False) kernels that serve any shape")},
	[ADV_MEMORY_OPS] = {"memory_ops", N_("device memory allocation on the critical path"),
			    "host calls that allocate or free device memory (aclrtMalloc*, aclrtFree*, "
			    "aclMallocMemInner; not the host-memory variants)",
			    "their exposed time (device idle, the host in the call) over the window", "%", 1.0,
			    /* xgettext:no-c-format */
			    N_("a device allocation or free goes to the driver (an aclrtFree of 10 ms and more is "
			       "common) and the device runs dry meanwhile; the caching allocator avoids them in "
			       "steady state, so above 1 % of the window the cache is being emptied or outgrown"),
			    N_("keep the caching allocator's blocks (no torch.npu.empty_cache() in the loop), set "
			       "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True against fragmentation, and allocate "
			       "buffers of the largest size once before the loop")},
	/* msprof-analyze's packet rule (advisor/rules/packet.yaml): SDMA under 16 MB, RDMA
	 * under 1 MB, a problem from 20 % of the transfers; its byte-alignment rule: 512 B */
	[ADV_SMALL_TRANSFERS] = {"small_transfers", N_("small or misaligned transfers"),
				 "communication.json's Size Distribution per collective: SDMA (HCCS, PCIE, SIO) "
				 "transfers under 16 MB, RDMA under 1 MB, sizes not a multiple of 512 bytes",
				 "small or misaligned transfers over all transfers", "%", 20.0,
				 /* xgettext:no-c-format */
				 N_("below 16 MB (SDMA) or 1 MB (RDMA) a transfer's fixed cost (task launch, "
				    "notify, link handshake) dominates its time, and a size not aligned to 512 bytes "
				    "moves at a fraction of the bandwidth; msprof-analyze flags 20 % of transfers"),
				 N_("larger batches or gradient accumulation, bucket small collectives together "
				    "(fewer, larger all-reduces), pad tensors to 512-byte multiples, ZeRO-2/1 "
				    "rather than ZeRO-3 where memory allows")},
	/* the sequences msprof-analyze's advisor (timeline_fusion_ops, "fusion operators api
	 * analysis") and the torch_npu fused-operator replacement guide name */
	[ADV_FUSABLE_OPS] = {"fusable_ops", N_("kernel sequences a fused kernel replaces"),
			     "consecutive compute kernels on one stream: Add then RmsNorm (npu_add_rms_norm), "
			     "Silu or Swish then Mul (npu_swiglu), Neg then Concat then Mul (npu_rotary_mul)",
			     "such sequences per step", "count", 1.0,
			     N_("each sequence launches two or three small vector kernels and writes its "
				"intermediates to HBM where one fused kernel would not; once per step or more it "
				"recurs in every step"),
			     N_("call torch_npu.npu_add_rms_norm, torch_npu.npu_swiglu and "
				"torch_npu.npu_rotary_mul (or the model's fused-op switches) instead of the "
				"separate ops")},
	[ADV_AFFINITY_API] = {"affinity_api", N_("APIs with an NPU affinity replacement"),
			      "top-level framework ops on the Python lane: aten::silu then aten::mul, "
			      "aten::neg then aten::cat, aten::masked_fill then aten::softmax, torch optimizer "
			      "steps (Optimizer.step#AdamW.step) and torch.nn.utils.clip_grad_norm_",
			      "such calls per step", "count", 1.0,
			      N_("each unfused API dispatches several small ops from the Python thread; the "
				 "Ascend affinity APIs do the same work in one dispatch, and a per-step call "
				 "recurs in every step"),
			      N_("torch_npu.npu_swiglu, torch_npu.npu_rotary_mul, "
				 "torch_npu.npu_scaled_masked_softmax, torch_npu.optim.NpuFusedAdamW (and the "
				 "other NpuFused optimizers) with optimizer.clip_grad_norm_fused_")},
};

/* A frequency under this share of the capture's highest is a drop (the demo's 1650 of 1800
 * MHz, a routine dip, is not). */
#define FREQ_LOW 0.9


static bool contains_ci(const char *s, const char *needle)
{
	size_t n = strlen(needle);
	for (; s && *s; s++)
		if (strncasecmp(s, needle, n) == 0)
			return true;
	return false;
}

/* What a name or attribute pair says, judged once per distinct id. */
enum {
	NM_DONE = 1 << 0,
	NM_COMPILE = 1 << 1,
	NM_SYNC = 1 << 2,
	NM_TRANSDATA = 1 << 3,
	AT_AICPU = 1 << 1,
	AT_GC = 1 << 2,
	AT_FRAME = 1 << 3, /* python_function call-stack frames: they wrap the real calls */
};

/* The tests, once per name: out of line, so that the per-event lookup below inlines. */
static __attribute__((noinline)) uint8_t name_bits_first(const struct rank_store *rs, uint8_t *cache, uint32_t id)
{
	const char *s = store_str(rs, id);
	uint8_t b = NM_DONE;
	if (s && strstr(s, "aclopCompile"))
		b |= NM_COMPILE;
	/* aclrtSynchronizeStream, StreamSynchronize, torch.npu.synchronize */
	if (contains_ci(s, "synchronize"))
		b |= NM_SYNC;
	if (s && strstr(s, "TransData"))
		b |= NM_TRANSDATA;
	cache[id] = b;
	return b;
}

static inline uint8_t name_bits(const struct rank_store *rs, uint8_t *cache, uint32_t id)
{
	return cache[id] & NM_DONE ? cache[id] : name_bits_first(rs, cache, id);
}

/* The instance to show: the longer, and of equal ones the earlier (a Db export orders the
 * events differently: the choice must not depend on their order). */
bool advice_better(const struct rank_store *rs, uint32_t cand, int64_t cand_key, uint32_t cur, int64_t cur_key)
{
	if (cur == UINT32_MAX || cand_key != cur_key)
		return cur == UINT32_MAX || cand_key > cur_key;
	int64_t a = store_ts(rs, cand), b = store_ts(rs, cur);
	return a != b ? a < b : strcmp(store_ev_name(rs, cand), store_ev_name(rs, cur)) < 0;
}

static void hit(struct hits *h, const struct rank_store *rs, uint32_t ev)
{
	int64_t ts = store_ts(rs, ev), dur = store_dur(rs, ev);
	ivset_add(&h->spans, ts, ts + dur);
	h->count++;
	h->sum_ns += dur;
	if (advice_better(rs, ev, dur, h->count == 1 ? UINT32_MAX : h->longest, h->longest_ns)) {
		h->longest = ev;
		h->longest_ns = dur;
	}
	if (h->by_name)
		h->by_name[rs->ev_name[ev]] += dur;
}

static double pct(int64_t part, double whole_ns) { return whole_ns > 0 ? 100.0 * (double)part / whole_ns : NAN; }

const enum attr_bucket advice_host_buckets[4] = {ATTR_HOST_SYNC, ATTR_HOST_COPY, ATTR_HOST_DISPATCH,
						 ATTR_HOST_PYTHON};

/* The part of the spans with the device idle inside its span, split in the attribution's
 * order: under a sync op, a host copy, a framework op or CANN call, else host_python. The
 * finding's bucket is the largest part. */
void advice_exposed(struct hits *h, struct rank_sets *s, const struct attribution *a, struct advice_finding *f)
{
	if (!a->valid || a->span_hi <= a->span_lo)
		return;
	struct ivset rest, part, next;
	ivset_init(&rest);
	ivset_init(&part);
	ivset_init(&next);
	ivset_subtract(&h->spans, &s->occupied, &rest);
	f->exposed_ns = ivset_total_in(&rest, a->span_lo, a->span_hi);
	struct ivset *layers[3] = {&s->sync, &s->host_copy, &s->host_dispatch};
	for (int k = 0; k < 3; k++) {
		ivset_intersect(&rest, layers[k], &part);
		f->host_ns[k] = ivset_total_in(&part, a->span_lo, a->span_hi);
		ivset_subtract(&rest, layers[k], &next);
		struct ivset t = rest;
		rest = next;
		next = t;
	}
	f->host_ns[3] = ivset_total_in(&rest, a->span_lo, a->span_hi);
	int best = 3;
	for (int k = 0; k < 4; k++)
		if (f->host_ns[k] > f->host_ns[best])
			best = k;
	f->bucket = attr_bucket_defs[advice_host_buckets[best]].key;
	ivset_free(&rest);
	ivset_free(&part);
	ivset_free(&next);
}

/* ", top: Cast 144.0 us, ArgMax 20.0 us" over the names with time, largest first. */
static void top_names(struct sbuf *sb, const struct strtab *strs, const int64_t *by_name)
{
	uint32_t n = strtab_count(strs), top[3];
	int k = 0;
	for (int pass = 0; pass < 3; pass++) {
		uint32_t best = UINT32_MAX;
		for (uint32_t i = 0; i < n; i++) {
			bool taken = false;
			for (int j = 0; j < k; j++)
				taken |= top[j] == i;
			if (by_name[i] > 0 && !taken && (best == UINT32_MAX || by_name[i] > by_name[best]))
				best = i;
		}
		if (best == UINT32_MAX)
			break;
		top[k++] = best;
	}
	for (int j = 0; j < k; j++)
		sbuf_addf(sb, "%s%s %.1f us", j ? ", " : _("; top: "), strtab_str(strs, top[j]),
			  (double)by_name[top[j]] / 1e3);
}

/* " (in host_dispatch 1.2 ms, host_python 0.3 ms)": where the exposed time sits */
void advice_in_buckets(struct sbuf *sb, const struct advice_finding *f)
{
	struct sbuf list = {0};
	for (int k = 0; k < 4; k++)
		if (f->host_ns[k] > 0)
			sbuf_addf(&list, "%s%s %.3f ms", list.len ? ", " : "", attr_bucket_defs[advice_host_buckets[k]].key,
				  (double)f->host_ns[k] / 1e6);
	if (list.len)
		sbuf_addf(sb, _(" (in %s)"), list.buf);
	sbuf_free(&list);
}

struct advice_finding *advice_add_finding(struct rank_analysis *ra, int r, const struct hits *h,
					  double value)
{
	return advice_add(ra, r, h->count, h->count ? h->longest : UINT32_MAX, value);
}

struct advice_finding *advice_add(struct rank_analysis *ra, int r, uint64_t count, uint32_t event, double value)
{
	ra->advice = xrealloc(ra->advice, (ra->n_advice + 1) * sizeof *ra->advice);
	struct advice_finding *f = &ra->advice[ra->n_advice++];
	memset(f, 0, sizeof *f);
	f->rule = r;
	f->value = value;
	f->triggered = isfinite(value) && value >= advice_rules[r].threshold;
	f->count = count;
	f->event = event;
	f->share_pct = NAN;
	f->conf = CONF_HIGH;
	return f;
}

/* The steps' span: from the first step's start to the last one's end, gaps between steps
 * included, so a rule counts the same with step markers and without. Marker-free steps are
 * cut at device-idle gaps, and a GC pause that stalls dispatch makes exactly such a gap: the
 * steps' own spans would leave it out whenever the markers are missing. */
static int64_t steps_span(const struct rank_analysis *ra, struct ivset *out)
{
	int64_t first = INT64_MAX, last = INT64_MIN;
	for (size_t i = 0; i < ra->n_steps; i++)
		if (ra->steps[i].has_window && ra->steps[i].end > ra->steps[i].start) {
			first = ra->steps[i].start < first ? ra->steps[i].start : first;
			last = ra->steps[i].end > last ? ra->steps[i].end : last;
		}
	if (first < last)
		ivset_add(out, first, last);
	return ivset_total(out);
}

/* Small kernels per device lane, and the one after the longest wait on its own stream. */
static void storm_scan(const struct rank_store *rs, const struct ev_class *cls, uint64_t *kernels, uint64_t *small,
		       int64_t *small_ns, uint32_t *show)
{
	int64_t worst = -1;
	for (size_t l = 0; l < rs->n_lanes; l++) {
		const struct lane *ln = &rs->lanes[l];
		if (ln->group != LANE_DEVICE)
			continue;
		int64_t prev_end = INT64_MIN;
		for (uint32_t k = 0; k < ln->n_events; k++) {
			uint32_t ev = ln->events[k];
			if (cls[ev].cat != CAT_COMPUTE || (cls[ev].flags & EVF_WAIT))
				continue;
			int64_t ts = store_ts(rs, ev), dur = store_dur(rs, ev);
			(*kernels)++;
			if (dur < SMALL_KERNEL_NS) {
				(*small)++;
				*small_ns += dur;
				if (prev_end != INT64_MIN && advice_better(rs, ev, ts - prev_end, *show, worst)) {
					worst = ts - prev_end;
					*show = ev;
				}
			}
			if (ts + dur > prev_end)
				prev_end = ts + dur;
		}
	}
}

/* A rank without a trace: AI CPU and TransData rows of the kernel table (Accelerator Core
 * or Task Type AI_CPU; Type or Name TransData), each finding on the line of its longest. */
const char *advice_status_name(int status)
{
	switch (status) {
	case ADV_STATUS_TRIGGERED: return "triggered";
	case ADV_STATUS_CHECKED: return "checked";
	case ADV_STATUS_NOT_APPLICABLE: return "not applicable";
	default: return "unknown";
	}
}

_Static_assert(ADV_COUNT <= 16, "rank_analysis.advice_status holds 16 rules");

/* Every rule's status once the findings are made: triggered or checked where a finding is,
 * else checked (no instance) where the capture holds what the rule reads, else not
 * applicable with why (reason[r], NULL: applicable). */
static void set_statuses(struct rank_analysis *ra, const char *const reason[ADV_COUNT])
{
	for (int r = 0; r < ADV_COUNT; r++) {
		ra->advice_status[r] = reason[r] ? ADV_STATUS_NOT_APPLICABLE : ADV_STATUS_CHECKED;
		ra->advice_reason[r] = reason[r];
	}
	for (size_t i = 0; i < ra->n_advice; i++) {
		const struct advice_finding *f = &ra->advice[i];
		ra->advice_status[f->rule] = f->triggered ? ADV_STATUS_TRIGGERED : ADV_STATUS_CHECKED;
		ra->advice_reason[f->rule] = NULL;
	}
}

static void advice_csv(const struct csv_table *k, struct rank_analysis *ra)
{
	if (!k || !csvt_has(k, COL_DURATION) || !csvt_has(k, COL_NAME))
		return;
	uint32_t n_ids = strtab_count(k->strs);
	struct {
		uint64_t n;
		int64_t sum, longest;
		size_t row;
		int64_t *by_name;
	} x[2];
	memset(x, 0, sizeof x);
	for (int r = 0; r < 2; r++)
		x[r].by_name = xcalloc(n_ids ? n_ids : 1, sizeof(int64_t));
	struct kernel_memo memo = {0};
	for (size_t row = 0; row < k->nrows; row++) {
		int64_t dur;
		if (!csvt_time(k, row, COL_DURATION, &dur) || dur < 0)
			continue;
		const char *core = csvt_has(k, COL_ACCEL_CORE) ? csvt_str(k, row, COL_ACCEL_CORE) : NULL;
		const char *name = csvt_str(k, row, COL_NAME);
		const char *type = csvt_has(k, COL_TYPE) ? csvt_str(k, row, COL_TYPE) : NULL;
		bool hit[2] = {core && !strcasecmp(core, "AI_CPU") &&
				       !(evkind_kernel_class(&memo, k, row).flags & EVF_FUSED_COMM),
			       (name && strstr(name, "TransData")) || (type && strstr(type, "TransData"))};
		for (int r = 0; r < 2; r++) {
			if (!hit[r])
				continue;
			if (!x[r].n++ || dur > x[r].longest) {
				x[r].longest = dur;
				x[r].row = row;
			}
			x[r].sum += dur;
			uint32_t id = csvt_str_id(k, row, COL_NAME);
			if (id < n_ids)
				x[r].by_name[id] += dur;
		}
	}
	evkind_kernel_memo_free(&memo);
	double dev_busy = ra->have[M_NPU_BUSY_US] ? ra->v[M_NPU_BUSY_US] * 1e3 : NAN;
	struct sbuf sb = {0};
	for (int r = 0; r < 2; r++) {
		if (x[r].n) {
			struct hits h = {.count = x[r].n};
			struct advice_finding *f = advice_add_finding(ra, r ? ADV_TRANSDATA : ADV_AICPU, &h, pct(x[r].sum, dev_busy));
			f->event = UINT32_MAX;
			f->total_ns = x[r].sum;
			f->share_pct = f->value;
			f->share_of = "device busy";
			f->bucket = "compute";
			f->conf = CONF_MEDIUM; /* device busy and its buckets come from the table alone */
			f->csv_line = csvt_line(k, x[r].row);
			f->event_name = csvt_str(k, x[r].row, COL_NAME);
			f->event_ts = f->event_end = INT64_MIN;
			int64_t ts;
			if (csvt_has(k, COL_START) && csvt_time(k, x[r].row, COL_START, &ts)) {
				f->event_ts = ts;
				f->event_end = ts + x[r].longest;
			}
			sbuf_addf(&sb, _("%llu %s rows, %.3f ms (%.1f %% of device busy)"), (unsigned long long)x[r].n,
				  r ? "TransData" : "AI_CPU", (double)x[r].sum / 1e6, f->share_pct);
			top_names(&sb, k->strs, x[r].by_name);
			sbuf_addf(&sb, _(" (kernel table line %u)"), f->csv_line);
			f->evidence = sbuf_detach(&sb);
		}
		free(x[r].by_name);
	}
}

static const struct counter_track *freq_track(const struct rank_store *rs)
{
	for (size_t i = 0; i < rs->n_tracks; i++)
		if (rs->tracks[i].n_samples && !strcmp(store_str(rs, rs->tracks[i].name), "AI Core Freq"))
			return &rs->tracks[i];
	return NULL;
}

/* The AI Core frequency below FREQ_LOW of its highest (a sample's value holds until the
 * next one, the last until the window's end): that time, the compute that ran in it, the
 * longest kernel of the longest drop to show. */
static void aicore_freq(const struct rank_store *rs, const struct ev_class *cls, struct rank_analysis *ra,
			struct rank_sets *sets)
{
	const struct counter_track *tr = freq_track(rs);
	double lo, hi;
	if (!tr || !store_track_minmax(rs, tr, &lo, &hi) || !(hi > 0))
		return;
	struct ivset low;
	ivset_init(&low);
	for (uint32_t i = 0; i < tr->n_samples; i++) {
		if (!(rs->ctr_value[tr->samples[i]] < FREQ_LOW * hi))
			continue;
		int64_t a = rs->ctr_ts[tr->samples[i]];
		int64_t b = i + 1 < tr->n_samples ? rs->ctr_ts[tr->samples[i + 1]] : rs->window_end;
		ivset_add(&low, a > rs->window_start ? a : rs->window_start, b < rs->window_end ? b : rs->window_end);
	}
	ivset_normalize(&low);
	int64_t low_ns = ivset_total(&low);
	if (low_ns <= 0) {
		ivset_free(&low);
		return;
	}
	struct ivset in;
	ivset_init(&in);
	ivset_normalize(&sets->compute);
	ivset_intersect(&sets->compute, &low, &in);
	int64_t comp_ns = ivset_total(&in);
	ivset_free(&in);
	size_t longest = 0;
	for (size_t i = 1; i < low.n; i++)
		if (low.end[i] - low.start[i] > low.end[longest] - low.start[longest])
			longest = i;
	uint32_t show = UINT32_MAX;
	int64_t best = -1;
	for (size_t ev = 0; ev < rs->n_ev; ev++) {
		int64_t ts = store_ts(rs, ev), dur = store_dur(rs, ev);
		if (store_ev_lane(rs, ev)->group != LANE_DEVICE || cls[ev].cat != CAT_COMPUTE || ts < low.start[longest] ||
		    ts >= low.end[longest])
			continue;
		if (advice_better(rs, (uint32_t)ev, dur, show, best)) {
			best = dur;
			show = (uint32_t)ev;
		}
	}
	struct hits x = {.count = low.n, .longest = show};
	struct advice_finding *f = advice_add_finding(ra, ADV_AICORE_FREQ, &x, pct(low_ns, (double)ra->attr.wall_ns));
	f->event = show;
	f->event_ts = f->event_end = INT64_MIN;
	if (show != UINT32_MAX) {
		f->event_ts = store_ts(rs, show);
		f->event_end = f->event_ts + store_dur(rs, show);
		f->event_name = store_ev_name(rs, show);
	}
	f->total_ns = low_ns;
	f->share_pct = f->value;
	f->share_of = "the window";
	f->bucket = "compute";
	struct sbuf sb = SBUF_INIT;
	sbuf_addf(&sb, _("AI Core below 90 %% of its highest %.0f MHz (lowest %.0f MHz) for %.3f ms in %zu stretch(es), "
			 "%.1f %% of the window; %.3f ms of compute ran then"),
		  hi, lo, (double)low_ns / 1e6, low.n, f->value, (double)comp_ns / 1e6);
	f->evidence = sbuf_detach(&sb);
	ivset_free(&low);
}

/* A rank with no trace: the kernel table's rules, and why the others read nothing. */
static void advice_no_trace(const struct csv_table *ktable, struct rank_analysis *ra)
{
	advice_csv(ktable, ra);
	/* the kernel table holds the device tasks: the host rules have nothing to read */
	const char *host = N_("no trace: the host rules read its host lanes");
	const char *reason[ADV_COUNT] = {
		[ADV_ONLINE_COMPILE] = host, [ADV_DISPATCH_STORM] = host, [ADV_STREAM_SYNC] = host, [ADV_GC] = host,
		[ADV_MEMORY_OPS] = host,
	};
	reason[ADV_AICORE_FREQ] = N_("no trace: the AI Core Freq counter is one of its lanes");
	if (!ktable || !csvt_has(ktable, COL_DURATION) || !csvt_has(ktable, COL_NAME))
		reason[ADV_AICPU] = reason[ADV_TRANSDATA] = N_("no kernel table with names and durations");
	set_statuses(ra, reason);
}

/* AT_* bits per attribute pair (owned: free). */
static uint8_t *attr_bits(const struct rank_store *rs)
{
	uint8_t *at = xcalloc(rs->n_attrs ? rs->n_attrs : 1, 1);
	for (size_t i = 0; i < rs->n_attrs; i++) {
		const char *tt = store_str(rs, rs->attrs[i].task_type), *cat = store_str(rs, rs->attrs[i].cat);
		if (tt && !strcasecmp(tt, "AI_CPU"))
			at[i] |= AT_AICPU;
		if (cat && !strcasecmp(cat, "GC"))
			at[i] |= AT_GC;
		if (cat && !strcmp(cat, "python_function"))
			at[i] |= AT_FRAME;
	}
	return at;
}

/* One pass over the events: each rule's hits (h, initialised here). */
static void scan_hits(const struct rank_store *rs, const struct ev_class *cls, uint8_t *nm, const uint8_t *at,
		      struct hits h[ADV_COUNT])
{
	uint32_t n_names = strtab_count(rs->strs);
	memset(h, 0, ADV_COUNT * sizeof *h);
	for (int r = 0; r < ADV_COUNT; r++)
		ivset_init(&h[r].spans);
	h[ADV_AICPU].by_name = xcalloc(n_names ? n_names : 1, sizeof(int64_t));
	h[ADV_TRANSDATA].by_name = xcalloc(n_names ? n_names : 1, sizeof(int64_t));
	for (size_t ev = 0; ev < rs->n_ev; ev++) {
		const struct lane *ln = store_ev_lane(rs, ev);
		uint8_t a = at[store_ev_attr_id(rs, ev)];
		if (ln->group == LANE_DEVICE) {
			if (cls[ev].flags & EVF_WAIT)
				continue;
			/* an MC2 kernel's AI CPU part ("<op>Aicpu") drives communication: not a slow op */
			if ((a & AT_AICPU) && !(cls[ev].flags & EVF_FUSED_COMM))
				hit(&h[ADV_AICPU], rs, (uint32_t)ev);
			if (name_bits(rs, nm, rs->ev_name[ev]) & NM_TRANSDATA)
				hit(&h[ADV_TRANSDATA], rs, (uint32_t)ev);
		} else if (ln->group == LANE_HOST_GC || (a & AT_GC)) {
			hit(&h[ADV_GC], rs, (uint32_t)ev);
		} else if ((ln->group == LANE_HOST_PYTHON || ln->group == LANE_HOST_CANN) && !(a & AT_FRAME)) {
			uint8_t b = name_bits(rs, nm, rs->ev_name[ev]);
			if (b & NM_COMPILE)
				hit(&h[ADV_ONLINE_COMPILE], rs, (uint32_t)ev);
			else if (b & NM_SYNC)
				hit(&h[ADV_STREAM_SYNC], rs, (uint32_t)ev);
		}
	}
}

static void find_online_compile(struct rank_analysis *ra, struct hits *x, struct rank_sets *sets)
{
	const struct attribution *attr = &ra->attr;
	double host_busy = ra->have[M_HOST_BUSY_US] ? ra->v[M_HOST_BUSY_US] * 1e3 : NAN;
	struct sbuf sb = SBUF_INIT;
	int64_t tot = ivset_total(&x->spans);
	struct advice_finding *f = advice_add_finding(ra, ADV_ONLINE_COMPILE, x, pct(tot, host_busy));
	f->total_ns = tot;
	f->share_pct = f->value;
	f->share_of = "host busy";
	advice_exposed(x, sets, attr, f);
	sbuf_addf(&sb, _("%llu aclopCompile* calls, %.3f ms (%.1f %% of host busy); %.3f ms with the device idle"),
		  (unsigned long long)x->count, (double)tot / 1e6, f->share_pct, (double)f->exposed_ns / 1e6);
	advice_in_buckets(&sb, f);
	f->evidence = sbuf_detach(&sb);
}

/* AI_CPU or TransData (r): device tasks, whose time is device time. */
static void find_device_tasks(const struct rank_store *rs, const struct ev_class *cls, struct rank_analysis *ra,
			      int r, struct hits *x)
{
	double dev_busy = ra->have[M_NPU_BUSY_US] ? ra->v[M_NPU_BUSY_US] * 1e3 : NAN;
	struct sbuf sb = SBUF_INIT;
	struct advice_finding *f = advice_add_finding(ra, (enum advice_rule_id)r, x, pct(x->sum_ns, dev_busy));
	f->total_ns = x->sum_ns; /* task time, as the share counts it */
	f->share_pct = f->value;
	f->share_of = "device busy";
	/* device tasks: their time is device time, the bucket of the longest one's class */
	f->bucket = cls[x->longest].cat == CAT_COMPUTE ? "compute" : cls[x->longest].cat == CAT_COPY ? "copy"
		    : "device_other";
	sbuf_addf(&sb, _("%llu %s tasks, %.3f ms (%.1f %% of device busy, in %s)"), (unsigned long long)x->count,
		  r == ADV_AICPU ? "AI_CPU" : "TransData", (double)x->sum_ns / 1e6, f->share_pct, f->bucket);
	top_names(&sb, rs->strs, x->by_name);
	f->evidence = sbuf_detach(&sb);
}

static void find_dispatch_storm(const struct rank_store *rs, const struct ev_class *cls, struct rank_analysis *ra)
{
	const struct attribution *attr = &ra->attr;
	uint64_t kernels = 0, small = 0;
	int64_t small_ns = 0;
	uint32_t show = UINT32_MAX;
	storm_scan(rs, cls, &kernels, &small, &small_ns, &show);
	if (!small)
		return;
	struct sbuf sb = SBUF_INIT;
	struct hits x = {.count = small, .longest = show};
	double disp_pct = attribution_pct(attr, attr->ns[ATTR_HOST_DISPATCH]);
	struct advice_finding *f = advice_add_finding(ra, ADV_DISPATCH_STORM, &x, pct((int64_t)small, (double)kernels));
	f->event = show;
	f->triggered = f->triggered && small >= STORM_MIN_SMALL && disp_pct >= STORM_MIN_DISPATCH_PCT;
	f->total_ns = small_ns;
	f->share_pct = f->value;
	f->share_of = "device kernels";
	f->exposed_ns = attr->ns[ATTR_HOST_DISPATCH];
	f->host_ns[2] = f->exposed_ns;
	f->bucket = "host_dispatch";
	f->conf = CONF_MEDIUM; /* that the idle is for these kernels is inferred */
	sbuf_addf(&sb, _("%llu of %llu kernels under 10 us (%.1f %%), %.3f ms; device idle while the host "
		    "dispatches %.3f ms (%.1f %% of the window, host_dispatch)"), (unsigned long long)small,
		  (unsigned long long)kernels, f->share_pct, (double)small_ns / 1e6,
		  (double)f->exposed_ns / 1e6, disp_pct);
	f->evidence = sbuf_detach(&sb);
}

static void find_stream_sync(struct rank_analysis *ra, struct hits *x, struct rank_sets *sets)
{
	const struct attribution *attr = &ra->attr;
	double wall = (double)attr->wall_ns;
	struct sbuf sb = SBUF_INIT;
	struct advice_finding *f = advice_add_finding(ra, ADV_STREAM_SYNC, x, NAN);
	advice_exposed(x, sets, attr, f);
	f->value = pct(f->exposed_ns, wall);
	f->triggered = isfinite(f->value) && f->value >= advice_rules[ADV_STREAM_SYNC].threshold;
	f->total_ns = ivset_total(&x->spans);
	f->share_pct = pct(f->total_ns, wall);
	f->share_of = "the window";
	sbuf_addf(&sb, _("%llu synchronize calls"), (unsigned long long)x->count);
	if (ra->n_steps)
		sbuf_addf(&sb, _(" (%.1f per step)"), (double)x->count / (double)ra->n_steps);
	sbuf_addf(&sb, _(", %.3f ms; exposed %.3f ms (%.1f %% of the window)"), (double)f->total_ns / 1e6,
		  (double)f->exposed_ns / 1e6, f->value);
	advice_in_buckets(&sb, f);
	f->evidence = sbuf_detach(&sb);
}

/* GC inside the steps (the window when there are none): at marks GC events' attributes. */
static void find_gc(const struct rank_store *rs, const uint8_t *at, struct rank_analysis *ra, struct hits *x,
		    struct rank_sets *sets)
{
	const struct attribution *attr = &ra->attr;
	struct sbuf sb = SBUF_INIT;
	struct ivset st, in;
	ivset_init(&st);
	ivset_init(&in);
	int64_t steps_ns = steps_span(ra, &st);
	bool whole = steps_ns == 0;
	if (whole) {
		ivset_add(&st, rs->window_start, rs->window_end);
		steps_ns = ivset_total(&st);
	}
	ivset_intersect(&x->spans, &st, &in);
	int64_t gc_in = ivset_total(&in);
	/* the instances inside, and the longest of them to show */
	uint64_t n_in = 0;
	int64_t best = -1;
	uint32_t show = UINT32_MAX;
	for (size_t ev = 0; ev < rs->n_ev; ev++) {
		const struct lane *ln = store_ev_lane(rs, ev);
		if (ln->group != LANE_HOST_GC && !(at[store_ev_attr_id(rs, ev)] & AT_GC))
			continue;
		int64_t ts = store_ts(rs, ev), dur = store_dur(rs, ev);
		/* overlaps a step: the first step span ending after ts starts before its end
		 * (a binary search: a GC event over many steps costs no more) */
		size_t k = ivset_first_ending_after(&st, ts);
		if (k >= st.n || st.start[k] >= ts + (dur > 0 ? dur : 1))
			continue;
		n_in++;
		if (advice_better(rs, (uint32_t)ev, dur, show, best)) {
			best = dur;
			show = (uint32_t)ev;
		}
	}
	struct hits y = {.count = n_in, .longest = show};
	struct advice_finding *f = advice_add_finding(ra, ADV_GC, &y, pct(gc_in, (double)steps_ns));
	f->event = show;
	f->total_ns = gc_in;
	f->share_pct = f->value;
	f->share_of = whole ? "the window" : "the steps";
	advice_exposed(x, sets, attr, f);
	sbuf_addf(&sb,
		  whole ? _("%llu GC events in the window (no step windows), %.3f ms (%.1f %% of the window); "
			    "%.3f ms with the device idle")
			: _("%llu GC events in steps, %.3f ms (%.1f %% of the steps); %.3f ms with the device idle"),
		  (unsigned long long)n_in, (double)gc_in / 1e6, f->value, (double)f->exposed_ns / 1e6);
	advice_in_buckets(&sb, f);
	f->evidence = sbuf_detach(&sb);
	ivset_free(&st);
	ivset_free(&in);
}

/* Why a rule read nothing: what the trace holds for each (lanes by group, GC recording). */
static void trace_statuses(const struct rank_store *rs, struct rank_analysis *ra, bool gc_hits)
{
	bool lanes[LANE_GROUP_COUNT] = {false};
	for (size_t i = 0; i < rs->n_lanes; i++)
		if ((size_t)rs->lanes[i].group < LANE_GROUP_COUNT)
			lanes[rs->lanes[i].group] = true;
	const char *reason[ADV_COUNT] = {0};
	if (!lanes[LANE_HOST_CANN])
		reason[ADV_ONLINE_COMPILE] = N_("no CANN API lane in the trace: aclopCompile calls are recorded there");
	if (!lanes[LANE_DEVICE])
		reason[ADV_AICPU] = reason[ADV_TRANSDATA] = reason[ADV_DISPATCH_STORM] =
			N_("no device lane in the trace");
	if (!lanes[LANE_HOST_PYTHON] && !lanes[LANE_HOST_CANN])
		reason[ADV_STREAM_SYNC] = reason[ADV_DISPATCH_STORM] = reason[ADV_MEMORY_OPS] =
			N_("no host lane in the trace");
	if (!freq_track(rs))
		reason[ADV_AICORE_FREQ] = N_("no AI Core Freq counter in the trace");
	if (!lanes[LANE_HOST_GC] && !gc_hits)
		reason[ADV_GC] = N_("the trace records no GC events: torch_npu records them with experimental_config's "
				    "gc_detect_threshold");
	set_statuses(ra, reason);
}

void advice_rank(const struct rank_store *rs, const struct csv_table *ktable, struct rank_analysis *ra,
		 struct rank_sets *sets)
{
	if (!rs->has_events) {
		advice_no_trace(ktable, ra);
		return;
	}
	if (!ra->cls)
		return;
	const struct ev_class *cls = ra->cls;
	uint32_t n_names = strtab_count(rs->strs);
	uint8_t *nm = xcalloc(n_names ? n_names : 1, 1);
	uint8_t *at = attr_bits(rs);
	struct hits h[ADV_COUNT];
	scan_hits(rs, cls, nm, at, h);
	if (h[ADV_ONLINE_COMPILE].count)
		find_online_compile(ra, &h[ADV_ONLINE_COMPILE], sets);
	for (int r = ADV_AICPU; r <= ADV_TRANSDATA; r++)
		if (h[r].count)
			find_device_tasks(rs, cls, ra, r, &h[r]);
	find_dispatch_storm(rs, cls, ra);
	if (h[ADV_STREAM_SYNC].count)
		find_stream_sync(ra, &h[ADV_STREAM_SYNC], sets);
	if (h[ADV_GC].count)
		find_gc(rs, at, ra, &h[ADV_GC], sets);
	for (size_t i = 0; i < ra->n_advice; i++) {
		struct advice_finding *f = &ra->advice[i];
		f->event_ts = f->event_end = INT64_MIN;
		if (f->event != UINT32_MAX) {
			f->event_ts = store_ts(rs, f->event);
			f->event_end = f->event_ts + store_dur(rs, f->event);
			f->event_name = store_ev_name(rs, f->event);
		}
	}
	aicore_freq(rs, cls, ra, sets);
	trace_statuses(rs, ra, h[ADV_GC].count != 0);
	for (int r = 0; r < ADV_COUNT; r++) {
		ivset_free(&h[r].spans);
		free(h[r].by_name);
	}
	free(nm);
	free(at);
}

size_t advice_triggered(const struct rank_analysis *ra)
{
	size_t n = 0;
	for (size_t i = 0; i < ra->n_advice; i++)
		n += ra->advice[i].triggered;
	return n;
}

/* The settings that cost performance: the variable, the values that do, and why. */
static const struct {
	const char *key;
	const char *values[3];
	const char *why; /* N_() */
} costly_env[] = {
	{"ASCEND_LAUNCH_BLOCKING", {"1", NULL}, N_("every launch waits for its kernel")},
	{"ASCEND_GLOBAL_LOG_LEVEL", {"0", "1", NULL}, N_("debug or info logging on the dispatch path")},
	{"TASK_QUEUE_ENABLE", {"0", NULL}, N_("ops dispatched on the Python thread")},
};

void advice_env(const struct rank_plan *rp, struct rank_analysis *ra)
{
	if (!rp || !rp->has_env) {
		ra->advice_status[ADV_ENV_VARIABLES] = ADV_STATUS_NOT_APPLICABLE;
		ra->advice_reason[ADV_ENV_VARIABLES] = N_("no ENV_VARIABLES in a profiler_metadata.json beside the export");
		return;
	}
	struct sbuf sb = SBUF_INIT, set = SBUF_INIT;
	uint64_t n = 0;
	const char *quoted[sizeof costly_env / sizeof costly_env[0]] = {NULL};
	for (size_t i = 0; i < sizeof costly_env / sizeof costly_env[0]; i++) {
		const char *v = env_vars_get(rp->env, rp->n_env, costly_env[i].key);
		if (!v)
			continue;
		for (size_t k = 0; costly_env[i].values[k]; k++)
			if (!strcmp(v, costly_env[i].values[k])) {
				sbuf_addf(&sb, "%s%s=%s (%s)", n++ ? "; " : "", costly_env[i].key, costly_env[i].values[k],
					  _(costly_env[i].why));
				quoted[i] = costly_env[i].key;
				break;
			}
	}
	/* the other variables that are set, as context: the allocator, HCCL, caches */
	for (size_t i = 0; i < rp->n_env; i++) {
		bool said = false;
		for (size_t q = 0; q < sizeof quoted / sizeof quoted[0]; q++)
			said |= quoted[q] && !strcmp(quoted[q], rp->env[i].key);
		if (rp->env[i].value[0] && !said) {
			char *k = sanitize_dup(rp->env[i].key, strlen(rp->env[i].key));
			char *v = sanitize_dup(rp->env[i].value, strlen(rp->env[i].value));
			sbuf_addf(&set, "%s%s=%s", set.len ? ", " : "", k, v);
			free(k);
			free(v);
		}
	}
	ra->advice_status[ADV_ENV_VARIABLES] = n ? ADV_STATUS_TRIGGERED : ADV_STATUS_CHECKED;
	ra->advice_reason[ADV_ENV_VARIABLES] = NULL;
	if (!n) {
		sbuf_free(&sb);
		sbuf_free(&set);
		return;
	}
	struct hits x = {.count = n, .longest = UINT32_MAX};
	struct advice_finding *f = advice_add_finding(ra, ADV_ENV_VARIABLES, &x, (double)n);
	f->event = UINT32_MAX;
	f->event_ts = f->event_end = INT64_MIN;
	f->share_pct = NAN;
	f->share_of = "the environment";
	f->bucket = "host_dispatch";
	f->conf = CONF_HIGH; /* the process's own environment, as recorded */
	if (set.len)
		sbuf_addf(&sb, _("; also set: %s"), sbuf_str(&set));
	f->evidence = sbuf_detach(&sb);
	sbuf_free(&set);
}
