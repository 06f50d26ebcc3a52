/* SPDX-License-Identifier: MIT */
/* ascprof-gen: the ground truth: ground_truth.txt and its key reference. */
/* clang-format off */
/*
 * Ground truth: DIR/ground_truth.txt, one key=value per line, '#' starts a comment. All times are
 * integer nanoseconds on the rank's own clock (true time + offset_ns); durations are in ns.
 * Every value is derived from the intervals the generator placed (sums over intervals known to be
 * disjoint, clipping), never by analysing the files; --self-check re-derives them from the files
 * with a generic sort-and-merge sweep. Interval, step and op.* keys are omitted for a rank whose
 * trace was cut by --truncate-at (counts then describe the complete elements kept). A --raw
 * capture has only the global keys and rank.<r>.dir/offset_ns/pid/device_id. --help prints the
 * block between KEYS-BEGIN and KEYS-END (truth_doc below is a verbatim copy; keep them equal).
 *
 * KEYS-BEGIN
 * ranks=<n>                                 number of ranks (worker directories)
 * seed=<s>                                  PRNG seed
 * steps=<n>                                 engine steps per rank (after --target-bytes growth)
 * base_ns=<t>                               true-time origin of the capture (rank clocks add offset_ns)
 * format=python|minify|pretty               trace_view.json separators / indentation
 * wrapper=0|1                               trace is {"traceEvents": [...]} instead of a bare array
 * step_marks=engine|profilerstep|none       how steps are marked in the trace
 * step_trace=one|rows|none                  shape of step_trace_time.csv (none: no file)
 * naming=host|rank                          worker directory naming scheme
 * raw=0|1                                   raw capture: no ASCEND_PROFILER_OUTPUT, no trace or CSV keys
 * shape=marked|vllm|train[,mla,moe,...]     --shape vllm|train: the shape and its modifiers
 * workload=inference|training               --shape vllm|train: what the capture runs
 * rank.<r>.dir=<name>                       worker directory (..._ascend_pt) directly under DIR
 * rank.<r>.offset_ns=<ns>                   rank clock minus true clock
 * rank.<r>.pid=<pid>                        Python pid = main thread tid (dequeue thread: pid+7)
 * rank.<r>.device_id=<id>                   NPU device id on its node (r mod 16; the Device_id column)
 * rank.<r>.trace_bytes=<n>                  size of trace_view.json as left on disk
 * rank.<r>.truncated=0|1                    trace_view.json was cut by --truncate-at
 * rank.<r>.cut_at=<byte>                    length it was cut to (only when truncated=1)
 * rank.<r>.first_ts_ns=<t>                  min ts over the (complete) X events
 * rank.<r>.last_end_ns=<t>                  max ts+dur over the (complete) X events
 * rank.<r>.wall_ns=<ns>                     last_end_ns - first_ts_ns
 * rank.<r>.events.<ph>=<n>                  complete trace elements with that ph (X, M, s, f, C)
 * rank.<r>.events.total=<n>                 all complete trace elements
 * rank.<r>.lane.<process>/<thread>=<n>      X events on that lane (names exactly as in the M events)
 * rank.<r>.lanes.<process>=<n>              thread lanes of the process with X events or a thread_name
 * rank.<r>.csv.<file>.rows=<n>              data records of <file>.csv (step_trace_time: only if written)
 * rank.<r>.kernel_details.ragged_lines=<l>  1-based kernel_details.csv lines one field short (l,l,...)
 * rank.<r>.kernel_details.excel_lines=<l>   1-based lines whose Start Time(us) is Excel-mangled
 * rank.<r>.compute_ns=<ns>                  |union of compute kernels| (AI_CORE, AI_VECTOR_CORE, MIX_AIC, MIX_AIV;
 *                                           not MC2 dispatch/combine: communication, comm_ns)
 * rank.<r>.copy_ns=<ns>                     sum of MEMCPY_ASYNC durations (device-side copies)
 * rank.<r>.copy_h2d_ns=<ns>                 host-to-device part of copy_ns
 * rank.<r>.copy_d2h_ns=<ns>                 device-to-host part of copy_ns
 * rank.<r>.collectives=<n>                  collective spans on HCCL/Group 0 Communication
 * rank.<r>.comm_ns=<ns>                     |union of collective spans and MC2 kernels| (a late
 *                                           rank's peers wait inside MC2 dispatch/combine)
 * rank.<r>.comm_overlapped_ns=<ns>          |comm intersect compute|
 * rank.<r>.comm_not_overlapped_ns=<ns>      comm_ns - comm_overlapped_ns (exposed communication)
 * rank.<r>.coll_transfer_ns=<ns>            summed transfer of the collective spans (SDMA; the same
 *                                           on every rank, the last to arrive waits for nothing)
 * rank.<r>.coll_wait_ns=<ns>                summed rest of their durations: waiting for peers, and
 *                                           the --link-setup-us wait every rank shares
 * rank.<r>.npu_busy_ns=<ns>                 |union of Ascend Hardware tasks but Notify Wait/EVENT_RECORD_SQE|
 * rank.<r>.npu_idle_ns=<ns>                 gaps >= 50 us of (npu busy union collectives) in [first_ts, last_end]
 * rank.<r>.npu_idle_gaps=<n>                number of those gaps
 * rank.<r>.free_ns=<ns>                     wall_ns - |compute union comm|
 * rank.<r>.host_busy_ns=<ns>                |union of the X events of the Python and CANN processes|
 * rank.<r>.host_only_ns=<ns>                |host busy minus (npu busy union collectives)|
 * rank.<r>.edge_idle_ns=<ns>                window before the first and after the last (npu busy union collectives)
 * rank.<r>.steps=<n>                        engine steps
 * rank.<r>.prefill_steps=<n>                steps planted as prefill
 * rank.<r>.decode_steps=<n>                 steps planted as decode
 * rank.<r>.mixed_steps=<n>                  --shape: steps planted as mixed (chunked prefill)
 * rank.<r>.train_steps=<n>                  --shape train: training steps (neither prefill nor decode)
 * rank.<r>.step.<k>.start_ns=<t>            step k's marker start, k from 0 (none: the execute-model region)
 * rank.<r>.step.<k>.end_ns=<t>              its end
 * rank.<r>.step.<k>.phase=prefill|decode    planted phase
 *                                           (--shape: also mixed, or train)
 * rank.<r>.step.<k>.dev_start_ns=<t>        --shape: the step's first device task start
 * rank.<r>.step.<k>.dev_end_ns=<t>          --shape: its last device task or collective end
 * rank.<r>.step.<k>.tokens=<n>              --shape: the batch's query tokens (all parts)
 * rank.<r>.step.<k>.seqs=<n>                --shape: the batch's sequences
 * rank.<r>.step.<k>.graph=0|1               --shape vllm,graph: the model ran as one graph replay
 * rank.<r>.step.<k>.replays=<n>             aclmdlRIExecuteAsync calls (1 full graph, or the pieces
 *                                           of a piecewise step: prefill and mixed under graph)
 * rank.<r>.step.<k>.dispatch_ops=<n>        cat "cpu_op" events starting in the window, ProfilerStep excluded
 * rank.<r>.step.<k>.compute_ns=<ns>         compute union clipped to [start_k, start_k+1) (last: to last_end)
 * rank.<r>.step.<k>.comm_not_overlapped_ns=<ns> exposed communication clipped to that window
 * rank.<r>.step.<k>.host_only_ns=<ns>       host-only time clipped to that window
 * rank.<r>.dispatch_ops_total=<n>           sum of dispatch_ops (= all cpu_op events but ProfilerStep)
 * op.<r>.<kernel>.count=<n>                 compute kernels (trace X events) with that name
 * op.<r>.<kernel>.total_ns=<ns>             their summed duration
 * optype.<r>.<Type>.count=<n>               kernel_details.csv rows of that Type (= an op_statistic.csv row)
 * optype.<r>.<Type>.total_ns=<ns>           their summed Duration(us)
 * kernel_scale.<kernel>=<milli>             --kernel-scale: that kernel's durations times milli/1000
 * xfer_scale=<milli>                        --xfer-scale: every collective's transfer times milli/1000
 * link_setup_ns=<ns>                        --link-setup-us: the first collective's shared wait
 * drop_op.<kernel>=1                        --drop-op: that kernel and its host ops were left out
 * moe.hot_rank=<r>, moe.factor=<milli>      --moe-hot: the hot rank and its factor
 * moe.imbalance=<milli>                     the most tokens of a rank over the median's (nearest rank), times 1000
 * moe.layers=<n>                            MoE layers (dispatch .. combine) per rank over the capture
 * moe.<r>.tokens=<n>                        tokens routed to rank r's experts, each layer's first GroupedMatmul once
 * moe.<r>.<f>_ns=<ns>                       f = gmm (GroupedMatmul time), dispatch, combine (their durations), dispatch_wait,
 *                                           combine_wait (the planted wait for the slowest rank: last arrival minus own)
 * moe.<phase>.<r>.<f>=<n>                   the same by step phase (decode, prefill, mixed), f = tokens, gmm_ns, combine_wait_ns
 * fusable.add_rms_norm=<n>                  per rank: Add then RmsNorm kernels in a row (compute only)
 * fusable.swiglu=<n>                        per rank: Silu then Mul kernels in a row (compute only)
 * affinity.silu_mul=<n>                     per rank: aten::silu then aten::mul framework ops in a row
 * fusable.rotary=<n>                        per rank: Neg, ConcatD, Mul kernels in a row (--unfused-rope)
 * affinity.neg_cat=<n>                      per rank: aten::neg then aten::cat (--unfused-rope)
 * comm.packet_bytes=<n>                     --packet-bytes: every collective's packet to a peer
 * comm=0|1                                  --comm: communication.json and communication_matrix.json written
 * comm.group=<id>                           the communication-domain id after '@' in every entry
 * comm.slow_link=<src>-<dst>|none           the link planted at a third of its peers' bandwidth
 * comm.links=<n>                            src-dst pairs in the matrices (self links, LOCAL, included)
 * comm.<r>.ops=<n>                          collective entries of communication.json ("Total Op Info" not counted)
 * comm.<r>.<t>_ns=<ns>                      summed Elapse/Transit/Wait/Synchronization/Idle Time, t = elapse,
 *                                           transit, wait, sync, idle (wait = sync: all of it precedes the transfer)
 * comm.<r>.hccs_bytes=<n>                   summed HCCS Transit Size (MB = 10^6 bytes); SDMA repeats it
 * comm.<r>.hccs_time_ns=<ns>                summed HCCS Transit Time
 * comm.<r>.packets=<n>                      Size Distribution counts (one packet per peer and collective)
 * comm.<r>.small_packets=<n>                those below 1 MB
 * comm.link.<s>-<d>.bytes=<n>               matrix link s -> d (s != d) over all steps ("-total" entries)
 * comm.link.<s>-<d>.time_ns=<ns>            its summed Transit Time
 * KEYS-END
 *
 * step_trace_time.csv (when written) holds the same numbers in us: with "one" a single row over
 * [first_ts, last_end] (Computing = compute_ns, Communication(Not Overlapped) = comm_not_overlapped_ns,
 * Overlapped, Communication = comm_ns, Free = free_ns, Stage = wall_ns); with "rows" one row per
 * step window, Step = k + 1.
 */
/* clang-format on */
#include "gen.h"
#include "cmp.h"
#include "npu_cores.h"

/* The key reference printed by --help: the KEYS block above, verbatim. */
/* clang-format off */
const char truth_doc[] =
	"ranks=<n>                                 number of ranks (worker directories)\n"
	"seed=<s>                                  PRNG seed\n"
	"steps=<n>                                 engine steps per rank (after --target-bytes growth)\n"
	"base_ns=<t>                               true-time origin of the capture (rank clocks add offset_ns)\n"
	"format=python|minify|pretty               trace_view.json separators / indentation\n"
	"wrapper=0|1                               trace is {\"traceEvents\": [...]} instead of a bare array\n"
	"step_marks=engine|profilerstep|none       how steps are marked in the trace\n"
	"step_trace=one|rows|none                  shape of step_trace_time.csv (none: no file)\n"
	"naming=host|rank                          worker directory naming scheme\n"
	"raw=0|1                                   raw capture: no ASCEND_PROFILER_OUTPUT, no trace or CSV keys\n"
	"shape=marked|vllm|train[,mla,moe,...]     --shape vllm|train: the shape and its modifiers\n"
	"workload=inference|training               --shape vllm|train: what the capture runs\n"
	"rank.<r>.dir=<name>                       worker directory (..._ascend_pt) directly under DIR\n"
	"rank.<r>.offset_ns=<ns>                   rank clock minus true clock\n"
	"rank.<r>.pid=<pid>                        Python pid = main thread tid (dequeue thread: pid+7)\n"
	"rank.<r>.device_id=<id>                   NPU device id on its node (r mod 16; the Device_id column)\n"
	"rank.<r>.trace_bytes=<n>                  size of trace_view.json as left on disk\n"
	"rank.<r>.truncated=0|1                    trace_view.json was cut by --truncate-at\n"
	"rank.<r>.cut_at=<byte>                    length it was cut to (only when truncated=1)\n"
	"rank.<r>.first_ts_ns=<t>                  min ts over the (complete) X events\n"
	"rank.<r>.last_end_ns=<t>                  max ts+dur over the (complete) X events\n"
	"rank.<r>.wall_ns=<ns>                     last_end_ns - first_ts_ns\n"
	"rank.<r>.events.<ph>=<n>                  complete trace elements with that ph (X, M, s, f, C)\n"
	"rank.<r>.events.total=<n>                 all complete trace elements\n"
	"rank.<r>.lane.<process>/<thread>=<n>      X events on that lane (names exactly as in the M events)\n"
	"rank.<r>.lanes.<process>=<n>              thread lanes of the process with X events or a thread_name\n"
	"rank.<r>.csv.<file>.rows=<n>              data records of <file>.csv (step_trace_time: only if written)\n"
	"rank.<r>.kernel_details.ragged_lines=<l>  1-based kernel_details.csv lines one field short (l,l,...)\n"
	"rank.<r>.kernel_details.excel_lines=<l>   1-based lines whose Start Time(us) is Excel-mangled\n"
	"rank.<r>.compute_ns=<ns>                  |union of compute kernels| (AI_CORE, AI_VECTOR_CORE, MIX_AIC, MIX_AIV;\n"
	"                                          not MC2 dispatch/combine: communication, comm_ns)\n"
	"rank.<r>.copy_ns=<ns>                     sum of MEMCPY_ASYNC durations (device-side copies)\n"
	"rank.<r>.copy_h2d_ns=<ns>                 host-to-device part of copy_ns\n"
	"rank.<r>.copy_d2h_ns=<ns>                 device-to-host part of copy_ns\n"
	"rank.<r>.collectives=<n>                  collective spans on HCCL/Group 0 Communication\n"
	"rank.<r>.comm_ns=<ns>                     |union of collective spans and MC2 kernels| (a late\n"
	"                                          rank's peers wait inside MC2 dispatch/combine)\n"
	"rank.<r>.comm_overlapped_ns=<ns>          |comm intersect compute|\n"
	"rank.<r>.comm_not_overlapped_ns=<ns>      comm_ns - comm_overlapped_ns (exposed communication)\n"
	"rank.<r>.coll_transfer_ns=<ns>            summed transfer of the collective spans (SDMA; the same\n"
	"                                          on every rank, the last to arrive waits for nothing)\n"
	"rank.<r>.coll_wait_ns=<ns>                summed rest of their durations: waiting for peers, and\n"
	"                                          the --link-setup-us wait every rank shares\n"
	"rank.<r>.npu_busy_ns=<ns>                 |union of Ascend Hardware tasks but Notify Wait/EVENT_RECORD_SQE|\n"
	"rank.<r>.npu_idle_ns=<ns>                 gaps >= 50 us of (npu busy union collectives) in [first_ts, last_end]\n"
	"rank.<r>.npu_idle_gaps=<n>                number of those gaps\n"
	"rank.<r>.free_ns=<ns>                     wall_ns - |compute union comm|\n"
	"rank.<r>.host_busy_ns=<ns>                |union of the X events of the Python and CANN processes|\n"
	"rank.<r>.host_only_ns=<ns>                |host busy minus (npu busy union collectives)|\n"
	"rank.<r>.edge_idle_ns=<ns>                window before the first and after the last (npu busy union collectives)\n"
	"rank.<r>.steps=<n>                        engine steps\n"
	"rank.<r>.prefill_steps=<n>                steps planted as prefill\n"
	"rank.<r>.decode_steps=<n>                 steps planted as decode\n"
	"rank.<r>.mixed_steps=<n>                  --shape: steps planted as mixed (chunked prefill)\n"
	"rank.<r>.train_steps=<n>                  --shape train: training steps (neither prefill nor decode)\n"
	"rank.<r>.step.<k>.start_ns=<t>            step k's marker start, k from 0 (none: the execute-model region)\n"
	"rank.<r>.step.<k>.end_ns=<t>              its end\n"
	"rank.<r>.step.<k>.phase=prefill|decode    planted phase\n"
	"                                          (--shape: also mixed, or train)\n"
	"rank.<r>.step.<k>.dev_start_ns=<t>        --shape: the step's first device task start\n"
	"rank.<r>.step.<k>.dev_end_ns=<t>          --shape: its last device task or collective end\n"
	"rank.<r>.step.<k>.tokens=<n>              --shape: the batch's query tokens (all parts)\n"
	"rank.<r>.step.<k>.seqs=<n>                --shape: the batch's sequences\n"
	"rank.<r>.step.<k>.graph=0|1               --shape vllm,graph: the model ran as one graph replay\n"
	"rank.<r>.step.<k>.replays=<n>             aclmdlRIExecuteAsync calls (1 full graph, or the pieces\n"
	"                                          of a piecewise step: prefill and mixed under graph)\n"
	"rank.<r>.step.<k>.dispatch_ops=<n>        cat \"cpu_op\" events starting in the window, ProfilerStep excluded\n"
	"rank.<r>.step.<k>.compute_ns=<ns>         compute union clipped to [start_k, start_k+1) (last: to last_end)\n"
	"rank.<r>.step.<k>.comm_not_overlapped_ns=<ns> exposed communication clipped to that window\n"
	"rank.<r>.step.<k>.host_only_ns=<ns>       host-only time clipped to that window\n"
	"rank.<r>.dispatch_ops_total=<n>           sum of dispatch_ops (= all cpu_op events but ProfilerStep)\n"
	"op.<r>.<kernel>.count=<n>                 compute kernels (trace X events) with that name\n"
	"op.<r>.<kernel>.total_ns=<ns>             their summed duration\n"
	"optype.<r>.<Type>.count=<n>               kernel_details.csv rows of that Type (= an op_statistic.csv row)\n"
	"optype.<r>.<Type>.total_ns=<ns>           their summed Duration(us)\n"
	"kernel_scale.<kernel>=<milli>             --kernel-scale: that kernel's durations times milli/1000\n"
	"xfer_scale=<milli>                        --xfer-scale: every collective's transfer times milli/1000\n"
	"link_setup_ns=<ns>                        --link-setup-us: the first collective's shared wait\n"
	"drop_op.<kernel>=1                        --drop-op: that kernel and its host ops were left out\n"
	"moe.hot_rank=<r>, moe.factor=<milli>      --moe-hot: the hot rank and its factor\n"
	"moe.imbalance=<milli>                     the most tokens of a rank over the median's (nearest rank), times 1000\n"
	"moe.layers=<n>                            MoE layers (dispatch .. combine) per rank over the capture\n"
	"moe.<r>.tokens=<n>                        tokens routed to rank r's experts, each layer's first GroupedMatmul once\n"
	"moe.<r>.<f>_ns=<ns>                       f = gmm (GroupedMatmul time), dispatch, combine (their durations), dispatch_wait,\n"
	"                                          combine_wait (the planted wait for the slowest rank: last arrival minus own)\n"
	"moe.<phase>.<r>.<f>=<n>                   the same by step phase (decode, prefill, mixed), f = tokens, gmm_ns, combine_wait_ns\n"
	"fusable.add_rms_norm=<n>                  per rank: Add then RmsNorm kernels in a row (compute only)\n"
	"fusable.swiglu=<n>                        per rank: Silu then Mul kernels in a row (compute only)\n"
	"affinity.silu_mul=<n>                     per rank: aten::silu then aten::mul framework ops in a row\n"
	"fusable.rotary=<n>                        per rank: Neg, ConcatD, Mul kernels in a row (--unfused-rope)\n"
	"affinity.neg_cat=<n>                      per rank: aten::neg then aten::cat (--unfused-rope)\n"
	"comm.packet_bytes=<n>                     --packet-bytes: every collective's packet to a peer\n"
	"comm=0|1                                  --comm: communication.json and communication_matrix.json written\n"
	"comm.group=<id>                           the communication-domain id after '@' in every entry\n"
	"comm.slow_link=<src>-<dst>|none           the link planted at a third of its peers' bandwidth\n"
	"comm.links=<n>                            src-dst pairs in the matrices (self links, LOCAL, included)\n"
	"comm.<r>.ops=<n>                          collective entries of communication.json (\"Total Op Info\" not counted)\n"
	"comm.<r>.<t>_ns=<ns>                      summed Elapse/Transit/Wait/Synchronization/Idle Time, t = elapse,\n"
	"                                          transit, wait, sync, idle (wait = sync: all of it precedes the transfer)\n"
	"comm.<r>.hccs_bytes=<n>                   summed HCCS Transit Size (MB = 10^6 bytes); SDMA repeats it\n"
	"comm.<r>.hccs_time_ns=<ns>                summed HCCS Transit Time\n"
	"comm.<r>.packets=<n>                      Size Distribution counts (one packet per peer and collective)\n"
	"comm.<r>.small_packets=<n>                those below 1 MB\n"
	"comm.link.<s>-<d>.bytes=<n>               matrix link s -> d (s != d) over all steps (\"-total\" entries)\n"
	"comm.link.<s>-<d>.time_ns=<ns>            its summed Transit Time\n";

static const char *style_name(enum jstyle s)
{
	return s == JS_PY ? "python" : s == JS_MIN ? "minify" : "pretty";
}

/* The trace: its size, cut, window, events by ph and lanes. */
static void truth_trace(struct sbuf *b, const struct gen *G, const struct rank_model *R,
                        const struct rank_out *ro)
{
	const struct opts *o = G->o;
	int r = R->r;
	const struct tw *t = &ro->t;
	sbuf_addf(b, "rank.%d.trace_bytes=%" PRIu64 "\nrank.%d.truncated=%d\n", r, ro->trace_bytes, r,
	       ro->truncated);
	if (ro->truncated)
		sbuf_addf(b, "rank.%d.cut_at=%" PRId64 "\n", r, o->truncate_at);
	/* window: by construction, or from the kept elements when cut */
	int64_t first = R->first_ts + R->off, last = R->last_end + R->off;
	if (ro->truncated) {
		first = t->have_x ? t->x_min : 0;
		last = t->have_x ? t->x_max : 0;
	} else if (t->x_min != first || t->x_max != last) {
		die("internal: rank %d window %" PRId64 "..%" PRId64 " but X events span %" PRId64
		    "..%" PRId64,
		    r, first, last, t->x_min, t->x_max);
	}
	if (!ro->truncated || t->have_x)
		sbuf_addf(b,
		       "rank.%d.first_ts_ns=%" PRId64 "\nrank.%d.last_end_ns=%" PRId64
		       "\nrank.%d.wall_ns=%" PRId64 "\n",
		       r, first, r, last, r, last - first);
	int64_t total = 0;
	for (int p = 0; p < PH_COUNT; p++) {
		sbuf_addf(b, "rank.%d.events.%c=%" PRId64 "\n", r, ph_chars[p], t->n_ph[p]);
		total += t->n_ph[p];
	}
	sbuf_addf(b, "rank.%d.events.total=%" PRId64 "\n", r, total);
	for (int p = 0; p < PR_COUNT; p++) {
		if (!t->proc_named[p])
			continue; /* a lane is only identifiable through its process_name */
		int nl = 0;
		for (int ln = 0; ln < LN_COUNT; ln++) {
			if (lanes[ln].proc != (enum proc_id)p || !lane_on(G, (enum lane_id)ln))
				continue;
			if (t->lane_named[ln] || t->lane_x[ln])
				nl++;
			if (!t->lane_named[ln])
				continue;
			char nm[64];
			thread_label(R, (enum lane_id)ln, nm, sizeof nm);
			sbuf_addf(b, "rank.%d.lane.%s/%s=%" PRId64 "\n", r, procs[p].name, nm, t->lane_x[ln]);
		}
		sbuf_addf(b, "rank.%d.lanes.%s=%d\n", r, procs[p].name, nl);
	}
}

/* The CSV tables' rows, the memory figures, the broken lines, kernel types. */
static void truth_tables(struct sbuf *b, const struct gen *G, const struct rank_model *R,
                         const struct rank_out *ro)
{
	const struct opts *o = G->o;
	int r = R->r;
	sbuf_addf(b, "rank.%d.csv.kernel_details.rows=%" PRId64 "\n", r, ro->rows_kernel);
	if (!o->default_export) /* --default-export writes no operator_details.csv */
		sbuf_addf(b, "rank.%d.csv.operator_details.rows=%" PRId64 "\n", r, ro->rows_oper);
	sbuf_addf(b, "rank.%d.csv.op_statistic.rows=%" PRId64 "\nrank.%d.csv.api_statistic.rows=%" PRId64 "\n", r,
	       ro->rows_opstat, r, ro->rows_api);
	if (o->step_trace != ST_NONE)
		sbuf_addf(b, "rank.%d.csv.step_trace_time.rows=%" PRId64 "\n", r, ro->rows_step);
	if (o->memory)
		sbuf_addf(b,
		       "rank.%d.csv.memory_record.rows=%" PRId64 "\nrank.%d.csv.npu_module_mem.rows=%" PRId64
		       "\nrank.%d.csv.operator_memory.rows=%" PRId64 "\nrank.%d.mem.pta_peak_allocated_mb=%" PRId64
		       "\nrank.%d.mem.pta_peak_reserved_mb=%" PRId64 "\nrank.%d.mem.app_peak_reserved_mb=%" PRId64
		       "\nrank.%d.mem.hccl_peak_reserved_mb=%d\nrank.%d.mem.allocs=%" PRId64
		       "\nrank.%d.mem.negative_sizes=%" PRId64 "\nrank.%d.mem.never_released=%" PRId64 "\n",
		       r, ro->rows_memrec, r, ro->rows_modmem, r, ro->rows_opmem, r, ro->pta_peak_alloc_mb, r,
		       ro->pta_peak_reserved_mb, r, ro->app_peak_reserved_mb, r, MEM_HCCL_MB, r, ro->allocs, r,
		       ro->negative, r, ro->never_released);
	if (o->ragged)
		sbuf_addf(b, "rank.%d.kernel_details.ragged_lines=%s\n", r, ro->ragged.buf ? ro->ragged.buf : "");
	if (o->excel)
		sbuf_addf(b, "rank.%d.kernel_details.excel_lines=%s\n", r, ro->excel.buf ? ro->excel.buf : "");
	size_t nt;
	struct agg *types = op_types(R, &nt);
	for (size_t i = 0; i < nt; i++)
		sbuf_addf(b, "optype.%d.%s.count=%" PRId64 "\noptype.%d.%s.total_ns=%" PRId64 "\n", r,
		       types[i].key, types[i].n, r, types[i].key, types[i].total);
	free(types);
}

/* The rank's totals by construction (a whole trace only). */
static void truth_figures(struct sbuf *b, const struct rank_model *R)
{
	int r = R->r;
	sbuf_addf(b,
	       "rank.%d.compute_ns=%" PRId64 "\nrank.%d.copy_ns=%" PRId64 "\nrank.%d.copy_h2d_ns=%" PRId64
	       "\nrank.%d.copy_d2h_ns=%" PRId64 "\n",
	       r, R->compute, r, R->copy, r, R->h2d, r, R->d2h);
	sbuf_addf(b,
	       "rank.%d.collectives=%d\nrank.%d.comm_ns=%" PRId64 "\nrank.%d.comm_overlapped_ns=%" PRId64
	       "\nrank.%d.comm_not_overlapped_ns=%" PRId64 "\n",
	       r, R->ncoll, r, R->comm, r, R->overlapped, r, R->comm - R->overlapped);
	int64_t cwait = 0, cxfer = 0;
	for (size_t i = 0; i < R->nu; i++)
		if (kinds[R->u[i].kind].dc == DC_COMM) {
			cxfer += R->u[i].xfer;
			cwait += R->u[i].k_dur - R->u[i].xfer;
		}
	sbuf_addf(b, "rank.%d.coll_transfer_ns=%" PRId64 "\nrank.%d.coll_wait_ns=%" PRId64 "\n", r, cxfer, r, cwait);
	sbuf_addf(b,
	       "rank.%d.npu_busy_ns=%" PRId64 "\nrank.%d.npu_idle_ns=%" PRId64
	       "\nrank.%d.npu_idle_gaps=%" PRId64 "\nrank.%d.free_ns=%" PRId64
	       "\nrank.%d.host_busy_ns=%" PRId64 "\nrank.%d.host_only_ns=%" PRId64 "\nrank.%d.edge_idle_ns=%" PRId64
	       "\n",
	       r, R->busy, r, R->idle, r, R->idle_gaps, r, R->free_ns, r, R->host_busy, r, R->host_only, r,
	       R->edge_idle);
}

/* The steps: counts by phase, then each step's window and figures. */
static void truth_steps(struct sbuf *b, const struct gen *G, const struct rank_model *R)
{
	const struct opts *o = G->o;
	int r = R->r;
	int nph[4] = {0, 0, 0, 0};
	for (int k = 0; k < R->nst; k++)
		nph[o->shape.kind == SHAPE_MARKED ? R->st[k].prefill : R->st[k].phase]++;
	sbuf_addf(b,
	       "rank.%d.steps=%d\nrank.%d.prefill_steps=%d\nrank.%d.decode_steps=%d\nrank.%d.dispatch_ops_"
	       "total=%" PRId64 "\n",
	       r, R->nst, r, nph[SP_PREFILL], r, nph[SP_DECODE], r, R->cpu_ops);
	if (o->shape.kind != SHAPE_MARKED)
		sbuf_addf(b, "rank.%d.mixed_steps=%d\nrank.%d.train_steps=%d\n", r, nph[SP_MIXED], r, nph[SP_TRAIN]);
	static const char *const phase_names[] = {"decode", "prefill", "mixed", "train"};
	for (int k = 0; k < R->nst; k++) {
		const struct step *st = &R->st[k];
		/* the window [start_k, start_k+1) holds the step span and the schedule() after it;
		 * all of the step's device work lies inside its span */
		int64_t host_only = (st->he - st->hs - ul_clip(&R->occ_u, st->hs, st->he)) + (st->sch_end - st->sch_ts);
		if (R->honly_u.n)
			host_only = ul_clip(&R->honly_u, st->hs, k + 1 < R->nst ? R->st[k + 1].hs : R->last_end);
		sbuf_addf(b,
		       "rank.%d.step.%d.start_ns=%" PRId64 "\nrank.%d.step.%d.end_ns=%" PRId64
		       "\nrank.%d.step.%d.phase=%s\nrank.%d.step.%d.dispatch_ops=%" PRId64 "\n",
		       r, k, st->hs + R->off, r, k, st->he + R->off, r, k,
		       phase_names[o->shape.kind == SHAPE_MARKED ? st->prefill : st->phase], r, k, st->cpu_ops);
		if (o->shape.kind != SHAPE_MARKED)
			sbuf_addf(b,
			       "rank.%d.step.%d.dev_start_ns=%" PRId64 "\nrank.%d.step.%d.dev_end_ns=%" PRId64
			       "\nrank.%d.step.%d.tokens=%" PRId64 "\nrank.%d.step.%d.seqs=%" PRId64
			       "\nrank.%d.step.%d.graph=%d\nrank.%d.step.%d.replays=%d\n",
			       r, k, st->first_dev + R->off, r, k, st->last_dev + R->off, r, k, st->tok, r, k, st->seqs,
			       r, k, st->graph, r, k, st->replays);
		sbuf_addf(b,
		       "rank.%d.step.%d.compute_ns=%" PRId64
		       "\nrank.%d.step.%d.comm_not_overlapped_ns=%" PRId64
		       "\nrank.%d.step.%d.host_only_ns=%" PRId64 "\n",
		       r, k, st->compute, r, k, st->comm - st->overlapped, r, k, host_only);
	}
}

/* compute kernels by trace name */
static void truth_ops(struct sbuf *b, const struct rank_model *R)
{
	int r = R->r;
	struct agg *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < R->nu; i++) {
		const struct unit *u = &R->u[i];
		if (kinds[u->kind].dc == DC_COMPUTE)
			agg_add(agg_find(&v, &n, &cap, kinds[u->kind].kernel, ""), u->k_dur);
		if (u->s3_dur)
			agg_add(agg_find(&v, &n, &cap, kinds[K_S3].kernel, ""), u->s3_dur);
	}
	qsort(v, n, sizeof *v, agg_by_total);
	for (size_t i = 0; i < n; i++)
		sbuf_addf(b, "op.%d.%s.count=%" PRId64 "\nop.%d.%s.total_ns=%" PRId64 "\n", r, v[i].key, v[i].n,
		       r, v[i].key, v[i].total);
	free(v);
}

/* The advice plants' figures, from the model (the rules read them from the files):
 * --alloc-storm's calls (as gen_trace.c places them), --new-shapes' Add shapes first seen
 * after their phase's first step (an op's first shape is no compile again), and with
 * --chip: the long kernels under their cores (as kernel_details.csv lists them, with
 * --block-dim's MatMulV2). */
static void truth_advice(struct sbuf *b, const struct gen *G, const struct rank_model *R)
{
	const struct opts *o = G->o;
	int r = R->r;
	if (o->alloc_storm) {
		int64_t n = 0, ns = 0, t0, slot;
		for (int k = 0; k < R->nst; k++) {
			int m = alloc_storm_slots(G, R, k, &t0, &slot);
			n += m;
			ns += m * (slot / 2);
		}
		sbuf_addf(b, "rank.%d.advice.alloc_calls=%" PRId64 "\nrank.%d.advice.alloc_ns=%" PRId64 "\n", r, n, r, ns);
	}
	if (o->new_shapes) {
		int64_t fresh = 0, seen = 0;
		bool phase_seen[2] = {false, false};
		for (int k = 0; k < R->nst; k++) {
			const struct step *st = &R->st[k];
			bool baseline = !phase_seen[st->prefill];
			phase_seen[st->prefill] = true;
			bool add = false;
			for (size_t i = 0; i < st->nu && !add; i++)
				add = R->u[st->u0 + i].kind == K_ADD;
			if (add && !baseline && seen)
				fresh++;
			seen += add;
		}
		sbuf_addf(b, "rank.%d.advice.new_shapes=%" PRId64 "\n", r, fresh);
	}
	if (o->pmu_bound) { /* every kernel row with PMU cells; RmsNorm's are the latency-bound */
		int64_t pmu = 0, rms = 0;
		for (size_t i = 0; i < R->nu; i++) {
			const struct unit *u = &R->u[i];
			if (kinds[u->kind].dc == DC_COMPUTE) {
				pmu += u->k_dur;
				rms += u->kind == K_RMSNORM ? u->k_dur : 0;
			}
			pmu += u->s3_dur;
		}
		sbuf_addf(b, "rank.%d.advice.pmu_ns=%" PRId64 "\nrank.%d.advice.latency_bound_ns=%" PRId64 "\n", r, pmu, r,
			  rms);
	}
	if (o->chip) {
		struct npu_cores nc;
		npu_cores_from_chip(o->chip, &nc);
		int64_t n = 0, ns = 0;
		for (size_t i = 0; i < R->nu; i++) {
			const struct unit *u = &R->u[i];
			const struct kind *kd = &kinds[u->kind];
			for (int pass = 0; pass < 2; pass++) {
				const struct kind *pk = pass ? &kinds[K_S3] : kd;
				int64_t dur = pass ? u->s3_dur : u->k_dur;
				if (pk->dc != DC_COMPUTE || (pass && !u->s3_dur) || dur < 20000)
					continue;
				bool cube = !strcmp(pk->task_type, "AI_CORE") || !strcmp(pk->task_type, "MIX_AIC");
				bool vec = !strcmp(pk->task_type, "AI_VECTOR_CORE");
				int blocks = o->block_dim && !pass && u->kind == K_LINEAR ? o->block_dim : pk->block_dim;
				int cores = cube ? nc.aic_lo : vec ? nc.aiv_lo : 0;
				if (blocks > 0 && blocks < cores) {
					n++;
					ns += dur;
				}
			}
		}
		sbuf_addf(b, "rank.%d.advice.small_block_kernels=%" PRId64 "\nrank.%d.advice.small_block_ns=%" PRId64 "\n",
			  r, n, r, ns);
	}
}

static void truth_rank(struct sbuf *b, const struct gen *G, const struct rank_model *R,
                       const struct rank_out *ro)
{
	const struct opts *o = G->o;
	int r = R->r;
	sbuf_addf(b, "\n# ---- rank %d ----\n", r);
	sbuf_addf(b,
	       "rank.%d.dir=%s\nrank.%d.offset_ns=%" PRId64 "\nrank.%d.pid=%" PRId64
	       "\nrank.%d.device_id=%d\n",
	       r, R->dir, r, R->off, r, R->pid, r, R->dev);
	if (o->raw)
		return;
	truth_trace(b, G, R, ro);
	truth_tables(b, G, R, ro);
	if (ro->truncated)
		return;
	truth_figures(b, R);
	truth_steps(b, G, R);
	truth_ops(b, R);
	truth_advice(b, G, R);
}

/* --moe-hot: per rank, whole capture and by phase, summed from the units as placed. */
struct moe_sum {
	int64_t tokens, gmm, disp, comb, disp_wait, comb_wait;
};

static void moe_add(struct moe_sum *m, const struct unit *u)
{
	switch (u->moe_role) {
	case MR_GMM1: m->tokens += u->moe_tok; /* fall through */
	case MR_GMM2: m->gmm += u->k_dur; break;
	case MR_DISPATCH: m->disp += u->k_dur; m->disp_wait += u->moe_wait; break;
	case MR_COMBINE: m->comb += u->k_dur; m->comb_wait += u->moe_wait; break;
	default: break;
	}
}

static void truth_moe(struct sbuf *b, const struct gen *G)
{
	static const char *const phn[] = {"decode", "prefill", "mixed", "train"};
	int n = G->o->ranks, layers = 0;
	int64_t sorted[MAX_RANKS], most = 0;
	sbuf_adds(b, "\n# ---- MoE (--moe-hot) ----\n");
	for (int r = 0; r < n; r++) {
		const struct rank_model *R = &G->rk[r];
		struct moe_sum all = {0}, ph[4] = {{0}};
		for (int k = 0; k < R->nst; k++)
			for (size_t i = 0; i < R->st[k].nu; i++) {
				const struct unit *u = &R->u[R->st[k].u0 + i];
				moe_add(&all, u);
				moe_add(&ph[R->st[k].phase & 3], u);
				layers += r == 0 && u->moe_role == MR_COMBINE;
			}
		sorted[r] = all.tokens;
		most = max64(most, all.tokens);
		sbuf_addf(b, "moe.%d.tokens=%" PRId64 "\nmoe.%d.gmm_ns=%" PRId64 "\nmoe.%d.dispatch_ns=%" PRId64
		          "\nmoe.%d.combine_ns=%" PRId64 "\nmoe.%d.dispatch_wait_ns=%" PRId64 "\nmoe.%d.combine_wait_ns=%" PRId64 "\n",
		          r, all.tokens, r, all.gmm, r, all.disp, r, all.comb, r, all.disp_wait, r, all.comb_wait);
		for (int p = 0; p < 3; p++)
			if (ph[p].tokens)
				sbuf_addf(b, "moe.%s.%d.tokens=%" PRId64 "\nmoe.%s.%d.gmm_ns=%" PRId64
				          "\nmoe.%s.%d.combine_wait_ns=%" PRId64 "\n",
				          phn[p], r, ph[p].tokens, phn[p], r, ph[p].gmm, phn[p], r, ph[p].comb_wait);
	}
	qsort(sorted, (size_t)n, sizeof *sorted, cmp_i64);
	int64_t median = sorted[(n + 1) / 2 - 1];
	sbuf_addf(b, "moe.hot_rank=%d\nmoe.factor=%" PRId64 "\nmoe.imbalance=%" PRId64 "\nmoe.layers=%d\n", G->o->moe_hot,
	          G->o->moe_milli, median ? most * 1000 / median : 0, layers);
}

void write_truth(const struct gen *G, struct rank_out *ro)
{
	const struct opts *o = G->o;
	struct sbuf b = {0};
	sbuf_adds(&b, "# ascprof-gen ground truth: key=value, times in integer ns on each rank's clock.\n"
	           "# Keys are documented by `ascprof-gen --help`.\n");
	sbuf_addf(&b, "ranks=%d\nseed=%" PRIu64 "\nsteps=%d\nbase_ns=%" PRId64 "\nformat=%s\nwrapper=%d\n",
	       o->ranks, o->seed, G->steps, G->base, style_name(o->style), o->wrapper);
	static const char *const marks[] = {"engine", "profilerstep", "none"};
	static const char *const traces[] = {"one", "rows", "none"};
	sbuf_addf(&b, "step_marks=%s\nstep_trace=%s\nnaming=%s\nraw=%d\n", marks[o->marks],
	       traces[o->step_trace], o->naming == NAME_HOST ? "host" : "rank", o->raw);
	static const char *const shapes[] = {"marked", "vllm", "train"};
	if (o->shape.kind != SHAPE_MARKED) /* the marked shape's truth stays as it was */
		sbuf_addf(&b, "shape=%s%s%s%s%s%s%s\nworkload=%s\n", shapes[o->shape.kind], o->shape.mla ? ",mla" : "",
		       o->shape.moe ? ",moe" : "", o->shape.graph ? ",graph" : "", o->shape.annotate ? ",annotate" : "",
		       o->shape.legacy ? ",legacy" : "", o->shape.short_prefill ? ",short" : "",
		       o->shape.kind == SHAPE_TRAIN ? "training" : "inference");
	if (o->scale_kind >= 0)
		sbuf_addf(&b, "kernel_scale.%s=%" PRId64 "\n", kinds[o->scale_kind].kernel, o->scale_milli);
	if (o->drop_kind >= 0)
		sbuf_addf(&b, "drop_op.%s=1\n", kinds[o->drop_kind].kernel);
	sbuf_addf(&b, "fusable.add_rms_norm=%" PRId64 "\nfusable.swiglu=%" PRId64 "\naffinity.silu_mul=%" PRId64 "\n",
		  G->fus_add_rms, G->fus_swiglu, G->aff_silu_mul);
	sbuf_addf(&b, "fusable.rotary=%" PRId64 "\naffinity.neg_cat=%" PRId64 "\n", G->fus_rotary, G->aff_neg_cat);
	if (o->packet_bytes)
		sbuf_addf(&b, "comm.packet_bytes=%" PRId64 "\n", o->packet_bytes);
	if (o->xfer_milli != 1000)
		sbuf_addf(&b, "xfer_scale=%" PRId64 "\n", o->xfer_milli);
	if (o->setup_ns)
		sbuf_addf(&b, "link_setup_ns=%" PRId64 "\n", o->setup_ns);
	for (int r = 0; r < o->ranks; r++)
		truth_rank(&b, G, &G->rk[r], &ro[r]);
	if (o->comm)
		truth_comm(&b, G, ro);
	if (o->moe_hot >= 0)
		truth_moe(&b, G);
	char path[4096];
	path_join(path, sizeof path, o->out, "ground_truth.txt");
	write_file(path, b.buf, b.len);
	free(b.buf);
}
