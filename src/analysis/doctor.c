/* SPDX-License-Identifier: MIT */
/* The capture doctor (doctor.h): one check per missing input, each counted over the ranks.
 * profiler_info's config is what the capture was taken with; without it, the tables and
 * lanes say what is there. */
#include "doctor.h"

#include <string.h>

#include "capture.h"
#include "csv_table.h"
#include "i18n.h"
#include "result.h"
#include "strtab.h"
#include "xalloc.h"

enum doc_check {
	DOC_KERNELS,
	DOC_GRAPH_KERNELS,
	DOC_COMM,
	DOC_SHAPES,
	DOC_STACK,
	DOC_PMU,
	DOC_SCHEDULE,
	DOC_LONG,
	DOC_COUNT
};

static const struct doctor_item doc_items[DOC_COUNT] = {
	[DOC_KERNELS] = {N_("kernel_details.csv"),
			 N_("the kernel table: op statistics by type, Input Shapes, block dims, PMU figures"),
			 "experimental_config profiler_level=Level1", 0},
	[DOC_GRAPH_KERNELS] = {N_("kernel_details.csv in a graph-mode capture"),
			       N_("the kernels inside each graph replay: the host launched none of them, only the "
				  "kernel table names them by op"),
			       "experimental_config profiler_level=Level1", 0},
	[DOC_COMM] = {N_("communication.json"),
		      N_("the split of exposed communication into transfer, wait and link setup; small_transfers"),
		      "experimental_config profiler_level=Level1", 0},
	[DOC_SHAPES] = {N_("Input Dims on framework ops (record_shapes)"),
			N_("the host ops' shapes in Op detail; the shapes an op is compiled again for"),
			"record_shapes=True", 0},
	[DOC_STACK] = {N_("call stacks (with_stack)"), N_("where each host op was called from (Op detail)"),
		       "with_stack=True", 0},
	[DOC_PMU] = {N_("PMU columns in kernel_details.csv (aic_metrics)"),
		     N_("the pipe each kernel is bound by (cube, vector, MTE2), cube and vector use"),
		     "experimental_config aic_metrics=PipeUtilization", 0},
	[DOC_SCHEDULE] = {N_("step markers (a schedule)"),
			  N_("step boundaries: the steps were inferred from idle gaps or repeating kernels, "
			     "per-step figures are less certain"),
			  "schedule(wait=1, warmup=1, active=N), prof.step() per step", 0},
	[DOC_LONG] = {N_("a short window (this one holds 5 million events or more on a rank)"),
		      N_("loading time and memory: every event is read and indexed"),
		      "schedule(skip_first=N, active=2); service profiler: delay, max_iterations", 0},
};

static bool has_device_lane(const struct rank_store *rs)
{
	for (size_t i = 0; i < rs->n_lanes; i++)
		if (rs->lanes[i].group == LANE_DEVICE)
			return true;
	return false;
}

/* A captured graph replayed: host calls aclmdlRIExecute* (a name the trace holds). */
static bool graph_mode(const struct rank_store *rs)
{
	uint32_t n = rs->strs ? strtab_count(rs->strs) : 0;
	for (uint32_t i = 0; i < n; i++) {
		const char *s = strtab_str(rs->strs, i);
		if (s && strstr(s, "aclmdlRIExecute"))
			return true;
	}
	return false;
}

/* The checks one rank fails (miss[c] set); the step check needs its analysis (ra). */
static void doc_rank(const struct rank_data *rd, const struct rank_analysis *ra, size_t n_ranks, bool miss[DOC_COUNT])
{
	const struct rank_store *rs = &rd->store;
	const struct csv_table *k = rd->by_kind[CSV_KERNEL];
	const struct profinfo *pi = &rd->plan->info;
	bool trace = rs->has_events, device = trace && has_device_lane(rs);
	if (device && !k)
		miss[graph_mode(rs) ? DOC_GRAPH_KERNELS : DOC_KERNELS] = true;
	if (n_ranks > 1 && !rd->comm.n_ops)
		miss[DOC_COMM] = true;
	miss[DOC_SHAPES] = pi->loaded ? !pi->record_shapes : k && !csvt_has(k, COL_INPUT_SHAPES);
	miss[DOC_STACK] = pi->loaded && trace && !pi->with_stack;
	miss[DOC_PMU] = k && !csvt_has(k, COL_AIC_MAC_RATIO) && !csvt_has(k, COL_AIC_VEC_RATIO) &&
			!csvt_has(k, COL_AIC_MTE2_RATIO);
	enum step_source s = ra ? ra->step_source : STEP_SRC_PROFILER_STEP;
	miss[DOC_SCHEDULE] = trace && (s == STEP_SRC_IDLE_GAPS || s == STEP_SRC_WINDOW || s == STEP_SRC_NONE ||
				       s == STEP_SRC_OP_SEQUENCE);
	miss[DOC_LONG] = rs->n_ev >= DOCTOR_LONG_EVENTS;
}

size_t doctor_check(const struct capture *cap, const struct analysis *an, struct doctor_item **out)
{
	size_t count[DOC_COUNT] = {0}, n = 0;
	for (size_t i = 0; i < cap->n_ranks; i++) {
		const struct rank_analysis *ra = NULL;
		for (size_t j = 0; an && j < an->n_ranks && !ra; j++)
			ra = an->ranks[j].rank_index == i ? &an->ranks[j] : NULL;
		bool miss[DOC_COUNT] = {false};
		doc_rank(&cap->ranks[i], ra, cap->n_ranks, miss);
		for (int c = 0; c < DOC_COUNT; c++)
			count[c] += miss[c];
	}
	*out = xcalloc(DOC_COUNT, sizeof **out);
	for (int c = 0; c < DOC_COUNT; c++)
		if (count[c]) {
			(*out)[n] = doc_items[c];
			(*out)[n++].ranks = count[c];
		}
	return n;
}

void doctor_run(struct analysis *an)
{
	an->doctor = NULL;
	an->n_doctor = an->from_digests || !an->cap ? 0 : doctor_check(an->cap, an, &an->doctor);
}
