/* SPDX-License-Identifier: MIT */
/* The result types' tables, names, lookups and destructor (result.h). */
#include "result.h"


#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "lower_bound.h"
#include "strtab.h"
#include "xsort.h"

const struct metric_def metric_defs[M_COUNT] = {
#define METRIC_DEF(id, key, unit, label, def, formula, caveat) [M_##id] = {key, unit, label, def, formula, caveat},
	METRICS(METRIC_DEF)
#undef METRIC_DEF
};

const char *result_confidence_name(enum confidence c)
{
	return c == CONF_HIGH ? "high" : c == CONF_MEDIUM ? "medium" : "low";
}

const char *result_confidence_text(enum confidence c)
{
	return c == CONF_HIGH ? C_("confidence", "high") : c == CONF_MEDIUM ? C_("confidence", "medium")
								       : C_("confidence", "low");
}

const char *result_step_source_name(enum step_source s)
{
	switch (s) {
	case STEP_SRC_STEP_TRACE: return _("step_trace_time.csv");
	case STEP_SRC_PROFILER_STEP: return _("ProfilerStep#N");
	case STEP_SRC_MSTX: return _("mstx marks");
	case STEP_SRC_ENGINE: return _("engine ops");
	case STEP_SRC_IDLE_GAPS: return _("idle gaps");
	case STEP_SRC_WINDOW: return _("whole window");
	case STEP_SRC_NONE: return _("none");
	case STEP_SRC_OP_SEQUENCE: return _("op sequence");
	case STEP_SRC_KERNEL_STEP: return _("the kernel table's Step Id");
	}
	return "?";
}

const char *result_phase_name(enum phase p)
{
	/* N_: shown translated (_()) in the Steps view and the text report, never in JSON */
	return p == PHASE_PREFILL ? N_("prefill")
	       : p == PHASE_DECODE ? N_("decode")
	       : p == PHASE_MIXED  ? N_("mixed")
				   : N_("unknown");
}

const char *result_step_phase_name(const struct step *s)
{
	/* a training step has no serving phase; "unknown" beside confidence high misread */
	if (s->phase == PHASE_UNKNOWN && s->phase_source == PHASE_SRC_WORKLOAD)
		return N_("training");
	return result_phase_name((enum phase)s->phase);
}

const char *result_phase_source_name(enum phase_source s)
{
	switch (s) {
	case PHASE_SRC_STAGE: return _("Stage column");
	case PHASE_SRC_MSTX: return _("mstx marks");
	case PHASE_SRC_CLUSTERS: return _("step duration clusters");
	case PHASE_SRC_UNIFORM: return _("uniform steps (decode only)");
	case PHASE_SRC_NONE: return _("none");
	case PHASE_SRC_ANNOTATION: return _("vLLM annotation ranges");
	case PHASE_SRC_KERNELS: return _("decode-only kernels");
	case PHASE_SRC_SHAPES: return _("attention shapes");
	case PHASE_SRC_WORKLOAD: return _("training workload");
	case PHASE_SRC_PAYLOAD: return _("collective payload");
	case PHASE_SRC_SERVING: return _("serving forwards");
	case PHASE_SRC_COUNT: break;
	}
	return "?";
}

const char *result_phase_signal_name(enum phase_source s)
{
	static const char *const names[PHASE_SRC_COUNT] = {
		[PHASE_SRC_STAGE] = "stage",     [PHASE_SRC_MSTX] = "mstx",
		[PHASE_SRC_CLUSTERS] = "clusters", [PHASE_SRC_UNIFORM] = "uniform",
		[PHASE_SRC_NONE] = "none",       [PHASE_SRC_ANNOTATION] = "annotation",
		[PHASE_SRC_KERNELS] = "kernels", [PHASE_SRC_SHAPES] = "shapes",
		[PHASE_SRC_WORKLOAD] = "workload", [PHASE_SRC_PAYLOAD] = "payload",
		[PHASE_SRC_SERVING] = "serving",
	};
	return s < PHASE_SRC_COUNT ? names[s] : "?";
}

const char *result_workload_name(enum workload w)
{
	return w == WORKLOAD_INFERENCE ? _("inference") : w == WORKLOAD_TRAINING ? _("training") : _("unknown");
}

const char *result_scope_name(enum op_scope s)
{
	return s == SCOPE_DEVICE ? "device" : s == SCOPE_HOST ? "host" : "all";
}

const char *result_align_name(enum align_mode m)
{
	return m == ALIGN_FIRST ? "first" : m == ALIGN_RAW ? "raw" : "collective";
}

#define STEP_STARTS_BY(s, i, t) ((s)[i].win_start <= (t))
LOWER_BOUND_DEFINE(step_upper_bound, const struct step *, int64_t, STEP_STARTS_BY)

size_t result_step_at(const struct rank_analysis *ra, int64_t t)
{
	size_t lo = step_upper_bound(ra->steps, t, 0, ra->n_steps);
	return lo > 0 && t < ra->steps[lo - 1].win_end ? lo - 1 : SIZE_MAX;
}

void result_set_metric(struct rank_analysis *ra, enum metric_id m, double v, enum confidence conf,
			 const char *source)
{
	if (!isfinite(v))
		return;
	ra->v[m] = v;
	ra->have[m] = true;
	ra->conf[m] = conf;
	ra->source[m] = source;
}

void result_bottleneck_free(struct bottleneck *b)
{
	for (size_t i = 0; i < b->n_ev; i++)
		free(b->ev[i].text);
	free(b->ev);
	free(b->gain.basis);
	free(b->advice);
	free(b->insufficient);
	memset(b, 0, sizeof *b);
}

void result_rank_free(struct rank_analysis *ra)
{
	if (!ra->cls_mapped)
		free(ra->cls);
	for (size_t i = 0; i < ra->n_steps; i++) {
		free(ra->steps[i].label);
		free(ra->steps[i].phase_evidence);
	}
	free(ra->steps);
	free(ra->step_evidence);
	free(ra->phase_evidence);
	free(ra->workload_evidence);
	free(ra->ops);
	if (ra->op_keys)
		strtab_free(ra->op_keys);
	free(ra->ops_source);
	for (size_t i = 0; i < ra->n_op_types; i++)
		free(ra->op_types[i].name);
	free(ra->op_types);
	for (size_t i = 0; i < ra->n_op_shapes; i++)
		free(ra->op_shapes[i].name);
	free(ra->op_shapes);
	for (size_t i = 0; i < ra->n_checks; i++)
		free(ra->checks[i].explanation);
	for (int b = 0; b < BN_COUNT; b++)
		result_bottleneck_free(&ra->bn[b]);
	for (size_t i = 0; i < ra->n_by_phase; i++)
		free(ra->by_phase[i].verdict);
	free(ra->by_phase);
	memory_free(&ra->mem);
	free(ra->outliers);
	free(ra->moe);
	result_comm_keep_free(ra); /* when it never reached the capture-level pass */
	for (size_t i = 0; i < ra->n_advice; i++)
		free(ra->advice[i].evidence);
	free(ra->advice);
	memset(ra, 0, sizeof *ra);
}

void result_comm_keep_free(struct rank_analysis *ra)
{
	if (!ra->comm_keep)
		return;
	ivset_free(&ra->comm_keep->exposed);
	ivset_free(&ra->comm_keep->comm);
	free(ra->comm_keep->before);
	free(ra->comm_keep);
	ra->comm_keep = NULL;
}
