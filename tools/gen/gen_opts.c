/* SPDX-License-Identifier: MIT */
/* ascprof-gen: the command line: options and usage, --shape and the kernels options name. */
#include "gen.h"
#include "npu_cores.h"

/* clang-format off */
static const char usage_text[] =
	"usage: ascprof-gen --out DIR [options]\n"
	"Writes a synthetic vLLM-Ascend torch_npu profiler capture (one *_ascend_pt dir per rank)\n"
	"plus DIR/ground_truth.txt stating exactly what was planted.\n"
	"\n"
	"  --out DIR                where to write (created; must be empty unless --force)\n"
	"  --force                  write into a non-empty DIR\n"
	"  --ranks N                ranks (default 1, at most 64)\n"
	"  --seed S                 PRNG seed (default 1)\n"
	"  --steps N                engine steps (default 12)\n"
	"  --prefill N              prefill steps among them (default 2; step 0 is prefill when N >= 1)\n"
	"  --ops N                  mean dispatch units (kernel launches) per decode step (default 300;\n"
	"                           prefill steps have about twice as many)\n"
	"  --target-bytes N         grow the decode steps until each rank's trace_view.json is about N\n"
	"                           bytes (+-10%; never fewer steps than --prefill + 1); overrides --steps\n"
	"  --offsets-us LIST        per-rank clock offsets in us, comma separated, up to 3 decimals, may be\n"
	"                           negative (default: rank r gets r*1234.567)\n"
	"  --host-gap-us X          host-bound gap planted at the start of every decode step (default 150)\n"
	"  --edge-us X              lengthen the leading and the trailing schedule() by X us: host work\n"
	"                           at the window's edges, with no device task (default 0; --shape vllm,\n"
	"                           which writes no schedule(): an aten::zeros cpu_op at each edge)\n"
	"  --slow-rank R            rank R's compute kernels last --slow-factor times longer\n"
	"  --slow-factor F          (default 1.5; up to 3 decimals)\n"
	"  --moe-hot R:F            (--shape vllm,moe) planted expert load: each MoE layer's grouped\n"
	"                           matmuls get tokens (their leading dimension) and time by rank, rank\n"
	"                           R's F times the others' (up to 3 decimals; 1 balances them); the\n"
	"                           prompts' experts sit between all-to-alls; truth moe.*\n"
	"  --moe-no-shapes          with --moe-hot: the kernel table's GroupedMatmul Input Shapes empty\n"
	"  --record-shapes          (--shape vllm) record_shapes on, as VLLM_TORCH_PROFILER_RECORD_SHAPES=1:\n"
	"                           the host cpu_ops carry Input Dims and Input type, a MoE unit's with\n"
	"                           its own tokens (with --moe-no-shapes the trace's Input Dims are the\n"
	"                           tokens' only source; without --record-shapes neither is)\n"
	"  --kernel-scale NAME=F    compute kernel NAME (e.g. RmsNorm) lasts F times longer on every\n"
	"                           rank (up to 3 decimals)\n"
	"  --xfer-scale F           every collective's transfer lasts F times longer on every rank (a slow\n"
	"                           link: the least duration across ranks grows, no rank waits more;\n"
	"                           up to 3 decimals)\n"
	"  --link-setup-us X        the capture's first collective waits X us more on every rank before\n"
	"                           its transfer (link setup: a wait every rank shares)\n"
	"  --drop-op NAME           leave compute kernel NAME and its host ops out of every step\n"
	"  --fused                  the marked shape's layers call npu_add_rms_norm and npu_swiglu: AddRmsNorm\n"
	"                           and SwiGlu kernels where Add, RmsNorm and Silu, Mul ran in a row\n"
	"  --unfused-rope           the marked shape's rotary embedding as q*cos + rotate_half(q)*sin: Mul,\n"
	"                           Neg, ConcatD, Mul, Add kernels (aten::neg, aten::cat) for the fused rope\n"
	"  --packet-bytes N         with --comm: every collective sends N bytes to each peer (its Size\n"
	"                           Distribution holds N; default: by the step's tokens)\n"
	"  --freq-drop PCT          the AI Core Freq counter reads 800 MHz (of 1800) over the middle PCT %\n"
	"                           of each rank's span (1-90; a throttled AI Core)\n"
	"  --chip NAME              a PROF_ directory in each worker with device_<id>/info.json.<id>: the\n"
	"                           AI Core and Vector core counts of chip NAME (Ascend910B3 ...)\n"
	"  --block-dim N            every MatMulV2 kernel launched on N blocks (1-256)\n"
	"  --new-shapes             Add kernels are static (OP State) with a new input shape in every step\n"
	"  --pmu-bound              PMU ratios with a bound pipe (cube or vector at 0.85-0.95) on every\n"
	"                           kernel but RmsNorm, whose every pipe stays under 0.42 (latency-bound)\n"
	"  --alloc-storm N          N AscendCL@aclrtMalloc calls in each step's schedule() call while the\n"
	"                           device idles before the next step, sharing half of it (1-100)\n"
	"  --env NAME=VALUE         the profiled process ran with NAME=VALUE: profiler_metadata.json's\n"
	"                           ENV_VARIABLES say so (up to 8; NAME and VALUE plain text)\n"
	"  --step-marks M           engine (execute_model python_function) | profilerstep (ProfilerStep#N\n"
	"                           cpu_op, Step Id column, schedule in profiler_info) | none\n"
	"  --step-trace M           one (single whole-capture row) | rows (one per step) | none (no file)\n"
	"  --naming M               host (<host>_<pid>_<time>_ascend_pt) |\n"
	"                           rank (dp0_pp0_tp<r>_dcp0_ep0_rank<r>_<time>_ascend_pt)\n"
	"  --memory                 also write memory_record.csv, npu_module_mem.csv and\n"
	"                           operator_memory.csv (as profile_memory=True does; --demo has them)\n"
	"  --no-info                omit profiler_info_<rank>.json\n"
	"  --no-done                omit ASCEND_PROFILER_OUTPUT/analyse.done\n"
	"  --export text|db|both    db: torch_npu's Db export (ascend_pytorch_profiler_<rank>.db,\n"
	"                           analysis.db) instead of the text one; both: beside it\n"
	"  --raw                    raw capture: FRAMEWORK/ and PROF_*/ with a dummy file,\n"
	"                           no ASCEND_PROFILER_OUTPUT\n"
	"  --wrapper                trace as {\"displayTimeUnit\": \"ns\", \"traceEvents\": [...],\n"
	"                           \"otherData\": {...}} instead of a bare array\n"
	"  --minify | --pretty      no spaces, or the json.dump(indent=4) layout (default: Python's\n"
	"                           separators, one line)\n"
	"  --truncate-at BYTES      cut every rank's trace_view.json to its first BYTES bytes\n"
	"  --call-stack             \"Call stack\" args on cpu_op events (and Call Stack in operator_details.csv)\n"
	"  --bom                    UTF-8 BOM at the start of every CSV\n"
	"  --crlf                   CRLF line ends in CSVs\n"
	"  --tabs                   a TAB after every timestamp value in CSVs\n"
	"  --gbk                    custom op names with Chinese, written in GBK in kernel_details.csv and\n"
	"                           operator_details.csv (UTF-8 in the trace)\n"
	"  --chinese                some op names in the trace and CSVs contain Chinese / fullwidth characters\n"
	"  --hostile                a few names and args carry ESC, OSC 52, BEL, CR, U+009B, U+202E\n"
	"  --ragged N               N kernel_details.csv rows one field short\n"
	"  --excel N                N kernel_details.csv Start Time values Excel-mangled (1.73641E+15)\n"
	"  --shape SPEC             capture shape: marked (default: step markers as above) | vllm (what\n"
	"                           vLLM-Ascend's profiler wrapper writes: no ProfilerStep, mstx or\n"
	"                           python_function, no Input Dims, one step_trace row, realistic\n"
	"                           kernels by phase) | train (DDP training: backward *Grad* kernels,\n"
	"                           AdamW, ProfilerStep marks). vllm takes modifiers after commas:\n"
	"                           mla (MLA preprocess in decode-only steps), moe (MC2 dispatch and\n"
	"                           combine; with several ranks, all-to-all collectives in steps of more\n"
	"                           than 512 tokens), graph (ACLGraph FULL_AND_PIECEWISE: decode-only\n"
	"                           steps replayed as one graph with PagedAttention, their tasks under\n"
	"                           Model Id 1; the other steps as graph pieces between eager attention\n"
	"                           calls), annotate (execute_context_N(T)_generation_M(T)\n"
	"                           ranges), legacy (vLLM-Ascend 0.7-0.9 eager: FlashAttentionScore\n"
	"                           in prefill, PagedAttention in decode), short (every prefill as short\n"
	"                           as a decode), mixed=N (chunked-prefill steps). --step-marks\n"
	"                           profilerstep adds ProfilerStep#N (a schedule) and step_trace rows\n"
	"  --default-export         vLLM-Ascend's default export of any shape: no ProfilerStep, no\n"
	"                           python_function, no Input Dims, Input type or Call stack args, no\n"
	"                           operator_details.csv, one step_trace row without a step id;\n"
	"                           kernel_details.csv (Input Shapes) unchanged\n"
	"  --comm                   also communication.json and communication_matrix.json (needs --ranks 2 or\n"
	"                           more; with 3 or more, the link from rank 0 to rank 1 runs at a third of\n"
	"                           its peers' bandwidth)\n"
	"  --cluster-db             also cluster_analysis_output/cluster_analysis.db as msprof-analyze writes\n"
	"                           it: ClusterTimeSummary from the planted steps, SlowRank (the --slow-rank),\n"
	"                           CommunicationGroupMapping (needs --ranks 2 or more)\n"
	"  --serving                also MS Service Profiler's current output of the run in DIR/serving/\n"
	"                           (request, batch, forward, kvcache and request_status .csv): rank 0's\n"
	"                           steps as batches and forwards, a request per prompt; truth serving.*\n"
	"  --demo                   the bundled demo (2 ranks, 14 steps, 2 prefill, seed 7, --naming rank,\n"
	"                           --chinese, small); other options may not be combined with it except\n"
	"                           --out, --force and --self-check\n"
	"  --self-check             re-derive the ground truth from the written files with a generic sweep;\n"
	"                           exit 1 on any mismatch\n"
	"  --check                  only run that check on an existing DIR (written earlier); no output\n"
	"  --help                   this text and the ground-truth key reference\n"
	"\n"
	"Exit status: 0 ok, 1 failure (I/O, self-check mismatch), 2 bad usage.\n";
void usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	prog_vprintf(fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n\n%s", usage_text);
	exit(2);
}

static const char *need_arg(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
		usage_error("%s needs a value", argv[*i]);
	return argv[++*i];
}

int64_t arg_int(const char *opt, const char *v, int64_t lo, int64_t hi)
{
	int64_t x;
	if (!parse_i64(v, lo, hi, &x))
		usage_error("%s: bad value '%s' (integer %" PRId64 "..%" PRId64 ")", opt, v, lo, hi);
	return x;
}

/* The defaults the options change. */
static void opts_defaults(struct opts *o)
{
	memset(o, 0, sizeof *o);
	o->ranks = 1;
	o->seed = 1;
	o->steps = 12;
	o->prefill = 2;
	o->host_gap_ns = 150 * US;
	o->slow_rank = -1;
	o->moe_hot = -1;
	o->slow_milli = 1500;
	o->scale_kind = o->drop_kind = -1;
	o->xfer_milli = 1000;
	o->ops = 300;
}

/* A decimal with up to 3 places, scaled by 1000, in [lo, hi]; range is said after a bad one. */
static void arg_scaled(const char *opt, const char *v, int64_t *out, int64_t lo, int64_t hi, const char *range)
{
	if (!parse_scaled(v, 3, out) || *out < lo || *out > hi)
		usage_error("%s: bad value '%s'%s", opt, v, range);
}

/* An option with a number (a count, a time, a factor): false when a is none of them. */
static bool parse_number_opt(const char *a, int argc, char **argv, int *i, struct opts *o,
                             bool *slow_factor_set)
{
	if (!strcmp(a, "--ranks")) {
		o->ranks = (int)arg_int(a, need_arg(argc, argv, i), 1, MAX_RANKS);
	} else if (!strcmp(a, "--seed")) {
		const char *v = need_arg(argc, argv, i);
		char *end;
		errno = 0;
		unsigned long long s = strtoull(v, &end, 10);
		if (errno || end == v || *end || *v == '-')
			usage_error("--seed: bad value '%s'", v);
		o->seed = s;
	} else if (!strcmp(a, "--steps")) {
		o->steps = (int)arg_int(a, need_arg(argc, argv, i), 1, 1000000);
	} else if (!strcmp(a, "--prefill")) {
		o->prefill = (int)arg_int(a, need_arg(argc, argv, i), 0, 1000000);
	} else if (!strcmp(a, "--ops")) {
		o->ops = (int)arg_int(a, need_arg(argc, argv, i), 8, 100000);
	} else if (!strcmp(a, "--target-bytes")) {
		o->target_bytes = arg_int(a, need_arg(argc, argv, i), 1, INT64_MAX / 4);
	} else if (!strcmp(a, "--host-gap-us")) {
		arg_scaled(a, need_arg(argc, argv, i), &o->host_gap_ns, 0, 10000000 * US, "");
	} else if (!strcmp(a, "--edge-us")) {
		arg_scaled(a, need_arg(argc, argv, i), &o->edge_ns, 0, 10000000 * US, "");
	} else if (!strcmp(a, "--slow-rank")) {
		o->slow_rank = (int)arg_int(a, need_arg(argc, argv, i), 0, MAX_RANKS - 1);
	} else if (!strcmp(a, "--moe-hot")) {
		const char *v = need_arg(argc, argv, i);
		const char *colon = strchr(v, ':');
		char rk[16];
		if (!colon || colon == v || (size_t)(colon - v) >= sizeof rk)
			usage_error("--moe-hot wants RANK:FACTOR, e.g. 3:2.0");
		memcpy(rk, v, (size_t)(colon - v));
		rk[colon - v] = 0;
		o->moe_hot = (int)arg_int(a, rk, 0, MAX_RANKS - 1);
		arg_scaled(a, colon + 1, &o->moe_milli, 1, 100000, " (0.001..100)");
	} else if (!strcmp(a, "--moe-no-shapes")) {
		o->moe_no_shapes = true;
	} else if (!strcmp(a, "--slow-factor")) {
		arg_scaled(a, need_arg(argc, argv, i), &o->slow_milli, 1, 100000, " (0.001..100)");
		*slow_factor_set = true;
	} else if (!strcmp(a, "--xfer-scale")) {
		arg_scaled(a, need_arg(argc, argv, i), &o->xfer_milli, 1, 100000, " (0.001..100)");
	} else if (!strcmp(a, "--link-setup-us")) {
		arg_scaled(a, need_arg(argc, argv, i), &o->setup_ns, 0, 10000000 * US, "");
	} else if (!strcmp(a, "--freq-drop")) {
		const char *v = need_arg(argc, argv, i);
		char *e;
		long pct = strtol(v, &e, 10);
		if (*e || pct < 1 || pct > 90)
			usage_error("--freq-drop: want a percentage from 1 to 90: '%s'", v);
		o->freq_drop_pct = (int)pct;
	} else if (!strcmp(a, "--fused")) {
		o->fused = true;
	} else if (!strcmp(a, "--unfused-rope")) {
		o->unfused_rope = true;
	} else if (!strcmp(a, "--packet-bytes")) {
		o->packet_bytes = arg_int(a, need_arg(argc, argv, i), 1, 1LL << 34);
	} else if (!strcmp(a, "--chip")) {
		o->chip = need_arg(argc, argv, i);
		struct npu_cores nc;
		if (!npu_cores_from_chip(o->chip, &nc))
			usage_error("--chip: not a chip the core table knows: '%s'", o->chip);
	} else if (!strcmp(a, "--block-dim")) {
		o->block_dim = (int)arg_int(a, need_arg(argc, argv, i), 1, 256);
	} else if (!strcmp(a, "--pmu-bound")) {
		o->pmu_bound = true;
	} else if (!strcmp(a, "--new-shapes")) {
		o->new_shapes = true;
	} else if (!strcmp(a, "--alloc-storm")) {
		o->alloc_storm = (int)arg_int(a, need_arg(argc, argv, i), 1, 100);
	} else if (!strcmp(a, "--truncate-at")) {
		o->truncate_at = arg_int(a, need_arg(argc, argv, i), 1, INT64_MAX / 4);
	} else if (!strcmp(a, "--ragged")) {
		o->ragged = (int)arg_int(a, need_arg(argc, argv, i), 0, 100000000);
	} else if (!strcmp(a, "--excel")) {
		o->excel = (int)arg_int(a, need_arg(argc, argv, i), 0, 100000000);
	} else {
		return false;
	}
	return true;
}

/* The index of v in names (NULL-terminated); a usage error naming them all otherwise. */
static int arg_choice(const char *opt, const char *v, const char *const *names)
{
	int n = 0;
	while (names[n])
		n++;
	for (int k = 0; k < n; k++)
		if (!strcmp(v, names[k]))
			return k;
	char list[256] = "";
	size_t len = 0;
	for (int k = 0; k < n && len < sizeof list; k++)
		len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", k == 0 ? "" : k == n - 1 ? " or " : ", ",
					names[k]);
	usage_error("%s: expected %s, not '%s'", opt, list, v);
}

/* An option with a name, a list or a choice: false when a is none of them. */
static bool parse_choice_opt(const char *a, int argc, char **argv, int *i, struct opts *o,
                             const char **offsets)
{
	if (!strcmp(a, "--offsets-us")) {
		*offsets = need_arg(argc, argv, i);
	} else if (!strcmp(a, "--kernel-scale")) {
		const char *v = need_arg(argc, argv, i);
		const char *eq = strrchr(v, '=');
		if (!eq || eq == v || (size_t)(eq - v) >= sizeof o->scale_name ||
		    !parse_scaled(eq + 1, 3, &o->scale_milli) || o->scale_milli < 1 || o->scale_milli > 100000)
			usage_error("--kernel-scale: bad value '%s' (NAME=F, F 0.001..100)", v);
		memcpy(o->scale_name, v, (size_t)(eq - v));
		o->scale_name[eq - v] = '\0';
	} else if (!strcmp(a, "--drop-op")) {
		o->drop_name = need_arg(argc, argv, i);
	} else if (!strcmp(a, "--env")) {
		const char *v = need_arg(argc, argv, i);
		const char *eq = strchr(v, '=');
		if (!eq || eq == v || o->n_env >= 8 || strpbrk(v, "\"\\\n"))
			usage_error("--env: want NAME=VALUE (at most 8, no quotes or backslashes): '%s'", v);
		o->env[o->n_env++] = v;
	} else if (!strcmp(a, "--step-marks")) {
		static const char *const marks[] = {"engine", "profilerstep", "none", NULL}; /* enum step_marks */
		o->marks_set = true;
		o->marks = (enum step_marks)arg_choice(a, need_arg(argc, argv, i), marks);
	} else if (!strcmp(a, "--step-trace")) {
		static const char *const traces[] = {"one", "rows", "none", NULL}; /* enum step_trace */
		o->step_trace_set = true;
		o->step_trace = (enum step_trace)arg_choice(a, need_arg(argc, argv, i), traces);
	} else if (!strcmp(a, "--naming")) {
		static const char *const namings[] = {"host", "rank", NULL}; /* enum naming */
		o->naming = (enum naming)arg_choice(a, need_arg(argc, argv, i), namings);
	} else if (!strcmp(a, "--export")) {
		static const char *const exports[] = {"text", "db", "both", NULL};
		o->export_db = arg_choice(a, need_arg(argc, argv, i), exports);
	} else if (!strcmp(a, "--shape")) {
		parse_shape(need_arg(argc, argv, i), &o->shape);
	} else {
		return false;
	}
	return true;
}

/* A flag: its name and the bool it sets, by offset in its struct. */
struct flag_opt {
	const char *name;
	size_t off;
};

/* Sets the bool in base that a names; false when flags has no such name. */
static bool set_flag(const char *a, void *base, const struct flag_opt *flags, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (!strcmp(a, flags[k].name)) {
			*(bool *)((char *)base + flags[k].off) = true;
			return true;
		}
	return false;
}

/* A flag of what the capture holds or how it is written: false when a is none of them. */
static bool parse_flag_opt(const char *a, struct opts *o)
{
	static const struct flag_opt flags[] = {
	        {"--default-export", offsetof(struct opts, default_export)},
	        {"--record-shapes", offsetof(struct opts, record_shapes)},
	        {"--memory", offsetof(struct opts, memory)},
	        {"--no-info", offsetof(struct opts, no_info)},
	        {"--no-done", offsetof(struct opts, no_done)},
	        {"--raw", offsetof(struct opts, raw)},
	        {"--wrapper", offsetof(struct opts, wrapper)},
	        {"--call-stack", offsetof(struct opts, call_stack)},
	        {"--bom", offsetof(struct opts, bom)},
	        {"--crlf", offsetof(struct opts, crlf)},
	        {"--tabs", offsetof(struct opts, tabs)},
	        {"--gbk", offsetof(struct opts, gbk)},
	        {"--chinese", offsetof(struct opts, chinese)},
	        {"--hostile", offsetof(struct opts, hostile)},
	        {"--comm", offsetof(struct opts, comm)},
	        {"--cluster-db", offsetof(struct opts, cluster_db)},
	        {"--serving", offsetof(struct opts, serving)},
	};
	if (set_flag(a, o, flags, sizeof flags / sizeof flags[0]))
		return true;
	bool minify = !strcmp(a, "--minify");
	if (!minify && strcmp(a, "--pretty"))
		return false;
	if (o->style == (minify ? JS_PRETTY : JS_MIN))
		usage_error("--minify and --pretty exclude each other");
	o->style = minify ? JS_MIN : JS_PRETTY;
	return true;
}

/* What the options say together: the combinations refused, --demo's settings, the kernels
 * named, the shape. */
static void opts_settle(struct opts *o, bool others, bool slow_factor_set)
{
	if (!o->out)
		usage_error("--out DIR is required");
	if (o->export_db && (o->raw || o->self_check || o->truncate_at))
		usage_error("--export db|both takes no --raw, --self-check or --truncate-at");
	if (o->check_only && (others || o->demo || o->force))
		usage_error("--check takes only --out DIR");
	if (o->demo) {
		if (others)
			usage_error("--demo takes no options besides --out, --force and --self-check");
		o->ranks = 2;
		o->steps = 14;
		o->prefill = 2;
		o->seed = 7;
		o->naming = NAME_RANK;
		o->chinese = true;
		o->ops = 3; /* the smallest steps (7 launches + 2 collectives): a small fixture */
		o->memory = true;
	}
	if (o->prefill > o->steps && !o->target_bytes)
		usage_error("--prefill %d exceeds --steps %d", o->prefill, o->steps);
	if (o->slow_rank >= o->ranks)
		usage_error("--slow-rank %d: only %d rank(s)", o->slow_rank, o->ranks);
	if (o->cluster_db && (o->ranks < 2 || o->raw))
		usage_error("--cluster-db needs --ranks 2 or more and no --raw");
	if (o->comm && (o->ranks < 2 || o->raw))
		usage_error("--comm needs --ranks 2 or more (collectives run between ranks) and no --raw");
	if (o->moe_hot >= 0 && (!o->shape.moe || o->shape.kind != SHAPE_VLLM || o->moe_hot >= o->ranks ||
	                        o->ranks < 2))
		usage_error("--moe-hot needs --shape vllm,moe and its rank among 2 or more --ranks");
	if (o->moe_no_shapes && o->moe_hot < 0)
		usage_error("--moe-no-shapes needs --moe-hot");
	if (o->record_shapes && (o->shape.kind != SHAPE_VLLM || o->default_export))
		usage_error("--record-shapes needs --shape vllm (the other shapes record them) and no --default-export");
	if (slow_factor_set && o->slow_rank < 0)
		usage_error("--slow-factor needs --slow-rank");
	if (o->slow_rank < 0)
		o->slow_milli = 1000;
	if (o->scale_name[0])
		o->scale_kind = kernel_kind("--kernel-scale", o->scale_name);
	if (o->drop_name)
		o->drop_kind = kernel_kind("--drop-op", o->drop_name);
	if (o->drop_kind >= 0 && o->drop_kind == o->scale_kind)
		usage_error("--drop-op and --kernel-scale name the same kernel");
	shape_apply(o);
}

/* --offsets-us, one clock offset a rank; by default rank r is r x 1.234567 ms off. */
static void opts_offsets(struct opts *o, const char *offsets)
{
	if (offsets) {
		const char *p = offsets;
		int n = 0;
		while (*p) {
			char tmp[64];
			size_t l = strcspn(p, ",");
			if (l == 0 || l >= sizeof tmp)
				usage_error("--offsets-us: bad list '%s'", offsets);
			memcpy(tmp, p, l);
			tmp[l] = 0;
			if (n >= o->ranks)
				usage_error("--offsets-us: more values than --ranks %d", o->ranks);
			if (!parse_scaled(tmp, 3, &o->offsets_ns[n]) ||
			    o->offsets_ns[n] > 3600000000LL * US || o->offsets_ns[n] < -3600000000LL * US)
				usage_error("--offsets-us: bad value '%s' (us, up to 3 decimals, |x| <= 1 h)",
				            tmp);
			n++;
			p += l;
			if (*p == ',') {
				p++;
				if (!*p)
					usage_error("--offsets-us: trailing comma");
			}
		}
		if (n != o->ranks)
			usage_error("--offsets-us: %d value(s) for %d rank(s)", n, o->ranks);
		o->offsets_set = true;
	} else {
		for (int r = 0; r < o->ranks; r++)
			o->offsets_ns[r] = (int64_t)r * 1234567;
	}
}

void parse_opts(int argc, char **argv, struct opts *o)
{
	/* what a run is rather than what it writes (--check and --demo take no others) */
	static const struct flag_opt mode_flags[] = {
	        {"--force", offsetof(struct opts, force)},
	        {"--self-check", offsetof(struct opts, self_check)},
	        {"--check", offsetof(struct opts, check_only)},
	        {"--demo", offsetof(struct opts, demo)},
	};
	opts_defaults(o);
	bool others = false, slow_factor_set = false;
	const char *offsets = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool other = true;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage_text, stdout);
			fputs("\nGround-truth keys (DIR/ground_truth.txt):\n", stdout);
			fputs(truth_doc, stdout);
			exit(0);
		} else if (!strcmp(a, "--out")) {
			o->out = need_arg(argc, argv, &i);
			other = false;
		} else if (set_flag(a, o, mode_flags, sizeof mode_flags / sizeof mode_flags[0])) {
			other = false;
		} else if (!parse_number_opt(a, argc, argv, &i, o, &slow_factor_set) &&
		           !parse_choice_opt(a, argc, argv, &i, o, &offsets) && !parse_flag_opt(a, o)) {
			usage_error("unknown option '%s'", a);
		}
		others |= other;
	}
	opts_settle(o, others, slow_factor_set);
	opts_offsets(o, offsets);
}

/* --kernel-scale and --drop-op name a compute kernel that has a host unit of its own. */
int kernel_kind(const char *opt, const char *name)
{
	for (int k = 0; k < K_COUNT; k++)
		if (kinds[k].dc == DC_COMPUTE && kinds[k].nest > 0 && !strcmp(kinds[k].kernel, name))
			return k;
	usage_error("%s: no compute kernel named '%s' (e.g. RmsNorm, MatMulV2, Silu)", opt, name);
}

/* A --shape modifier that is a flag, set in sh; false when w is none of them. */
static bool shape_flag(const char *w, struct shape_opts *sh)
{
	static const struct flag_opt flags[] = {
	        {"mla", offsetof(struct shape_opts, mla)},       {"moe", offsetof(struct shape_opts, moe)},
	        {"graph", offsetof(struct shape_opts, graph)},   {"annotate", offsetof(struct shape_opts, annotate)},
	        {"legacy", offsetof(struct shape_opts, legacy)}, {"short", offsetof(struct shape_opts, short_prefill)},
	};
	return set_flag(w, sh, flags, sizeof flags / sizeof flags[0]);
}

void parse_shape(const char *v, struct shape_opts *sh)
{
	memset(sh, 0, sizeof *sh);
	char buf[256];
	if (strlen(v) >= sizeof buf)
		usage_error("--shape: '%s' is too long", v);
	strcpy(buf, v);
	char *save = NULL;
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		bool first = w == buf;
		if (first && !strcmp(w, "marked"))
			sh->kind = SHAPE_MARKED;
		else if (first && !strcmp(w, "vllm"))
			sh->kind = SHAPE_VLLM;
		else if (first && !strcmp(w, "train"))
			sh->kind = SHAPE_TRAIN;
		else if (first)
			usage_error("--shape: expected marked, vllm or train first, not '%s'", w);
		else if (sh->kind != SHAPE_VLLM)
			usage_error("--shape: modifiers ('%s') apply to vllm only", w);
		else if (shape_flag(w, sh))
			;
		else if (!strncmp(w, "mixed=", 6))
			sh->mixed = (int)arg_int("--shape mixed=", w + 6, 0, 1000000);
		else
			usage_error("--shape: unknown modifier '%s' (mla, moe, graph, annotate, legacy, "
			            "short, mixed=N)",
			            w);
	}
}

/* What the shape implies for the other options. */
void shape_apply(struct opts *o)
{
	if (o->shape.kind == SHAPE_VLLM) {
		/* no schedule, msprof_tx=False: no markers; one step_trace row without a step id.
		 * A schedule given (--step-marks profilerstep) marks the steps as torch_npu does */
		if (!o->marks_set)
			o->marks = MARKS_NONE;
		if (o->marks == MARKS_ENGINE)
			usage_error(
			        "--shape vllm writes no python_function: --step-marks profilerstep or none");
		if (!o->step_trace_set)
			o->step_trace = o->marks == MARKS_PROFILERSTEP ? ST_ROWS : ST_ONE;
		o->host_bare = true;
		if (o->hostile || o->demo)
			usage_error("--shape vllm does not combine with --hostile or --demo");
		if (o->shape.legacy && (o->shape.mixed || o->shape.graph || o->shape.mla))
			usage_error("--shape vllm,legacy (0.7-0.9 eager) takes no mixed, graph or mla");
	} else if (o->shape.kind == SHAPE_TRAIN) {
		o->prefill = 0; /* training steps are neither prefill nor decode */
		if (o->marks == MARKS_ENGINE)
			o->marks = MARKS_PROFILERSTEP; /* training uses a schedule */
		if (o->demo)
			usage_error("--shape train does not combine with --demo");
	}
	if (o->default_export) {
		if (o->demo)
			usage_error("--default-export does not combine with --demo");
		o->marks = MARKS_NONE;
		o->step_trace = ST_ONE;
		o->call_stack = false;
		o->host_bare = true;
	}
	/* the calls go inside schedule(), a python_function such a capture does not write */
	if (o->alloc_storm && o->host_bare)
		usage_error("--alloc-storm needs the python_function events: not with --shape vllm or --default-export");
}
