/* SPDX-License-Identifier: MIT */
/* The category rule table and its per-store application. */
#include "category.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmp.h"
#include "i18n.h"
#include "lanes.h"
#include "lower_bound.h"
#include "xalloc.h"
#include "xsort.h"

enum field { F_NAME, F_TASK_TYPE, F_CAT };
enum how { M_EXACT, M_PREFIX, M_CONTAINS }; /* all case-insensitive */
enum groups { G_DEVICE = 1, G_COMM = 2, G_HOST = 4, G_OVERLAP = 8, G_OTHER = 16, G_ANY = 31 };

struct rule {
	unsigned groups;
	enum field field;
	enum how how;
	const char *pattern;
	enum ev_category cat;
	uint8_t flags;
	const char *why;
};

/* First match wins. Keep the order: waits before communication before copies. */
static const struct rule rules[] = {
	{G_OVERLAP, F_NAME, M_PREFIX, "", CAT_OTHER, 0, N_("the exporter's own overlap analysis")},
	{G_COMM, F_NAME, M_PREFIX, "", CAT_COMM, 0, N_("HCCL / Communication lanes")},

	{G_DEVICE, F_TASK_TYPE, M_CONTAINS, "WAIT", CAT_OTHER, EVF_WAIT, N_("device wait task")},
	{G_DEVICE, F_TASK_TYPE, M_CONTAINS, "EVENT_RECORD", CAT_OTHER, EVF_WAIT, N_("device event record")},
	{G_DEVICE, F_TASK_TYPE, M_CONTAINS, "NOTIFY", CAT_OTHER, EVF_WAIT, N_("device notify task")},
	{G_DEVICE, F_TASK_TYPE, M_CONTAINS, "PLACE_HOLDER", CAT_OTHER, EVF_WAIT, N_("placeholder task")},
	{G_DEVICE, F_TASK_TYPE, M_CONTAINS, "Write Value", CAT_OTHER, EVF_WAIT, N_("notify write")},
	{G_DEVICE, F_NAME, M_EXACT, "EVENT_WAIT", CAT_OTHER, EVF_WAIT, N_("device wait task")},
	{G_DEVICE, F_NAME, M_EXACT, "EVENT_RECORD", CAT_OTHER, EVF_WAIT, N_("device event record")},
	{G_DEVICE, F_NAME, M_PREFIX, "PROFILING_", CAT_OTHER, EVF_WAIT, N_("profiler marker task")},
	{G_DEVICE, F_NAME, M_PREFIX, "Notify", CAT_OTHER, EVF_WAIT, N_("device notify task")},

	/* MC2: kernels that exchange data with the peers themselves (MoE token dispatch and
	 * combine, matmul fused with a collective; "<op>Aicpu" on the communication stream):
	 * their time includes waiting for the slowest peer, so they are communication, never
	 * compute, whatever their task type */
	{G_DEVICE, F_NAME, M_CONTAINS, "MoeDistribute", CAT_COMM, EVF_FUSED_COMM,
	 N_("MC2 MoE dispatch/combine (token exchange with the peers inside the kernel)")},
	{G_DEVICE, F_NAME, M_CONTAINS, "mc2", CAT_COMM, EVF_FUSED_COMM, N_("MC2 fused communication kernel")},
	{G_DEVICE, F_NAME, M_CONTAINS, "MatmulAllReduce", CAT_COMM, EVF_FUSED_COMM,
	 N_("MC2 matmul fused with an all-reduce")},
	{G_DEVICE, F_NAME, M_CONTAINS, "AllGatherMatmul", CAT_COMM, EVF_FUSED_COMM,
	 N_("MC2 all-gather fused with a matmul")},
	{G_DEVICE, F_NAME, M_CONTAINS, "MatmulReduceScatter", CAT_COMM, EVF_FUSED_COMM,
	 N_("MC2 matmul fused with a reduce-scatter")},
	{G_DEVICE, F_TASK_TYPE, M_EXACT, "SDMA", CAT_COMM, 0, N_("HCCL data movement task")},
	{G_DEVICE, F_TASK_TYPE, M_EXACT, "HCCL", CAT_COMM, 0, N_("collective (kernel_details)")},
	{G_DEVICE, F_TASK_TYPE, M_EXACT, "COMMUNICATION", CAT_COMM, 0, N_("collective")},
	{G_DEVICE | G_HOST, F_NAME, M_PREFIX, "hcom_", CAT_COMM, 0, N_("HCCL collective")},
	{G_DEVICE | G_HOST, F_NAME, M_CONTAINS, "hccl", CAT_COMM, 0, N_("HCCL collective")},
	{G_DEVICE, F_NAME, M_EXACT, "Reduce_Inline", CAT_COMM, 0, N_("HCCL reduce task")},
	{G_DEVICE | G_HOST, F_NAME, M_CONTAINS, "allreduce", CAT_COMM, 0, N_("collective")},
	{G_DEVICE | G_HOST, F_NAME, M_CONTAINS, "allgather", CAT_COMM, 0, N_("collective")},
	{G_DEVICE | G_HOST, F_NAME, M_CONTAINS, "all_gather", CAT_COMM, 0, N_("collective")},
	{G_DEVICE | G_HOST, F_NAME, M_CONTAINS, "reducescatter", CAT_COMM, 0, N_("collective")},
	{G_DEVICE | G_HOST, F_NAME, M_CONTAINS, "reduce_scatter", CAT_COMM, 0, N_("collective")},
	{G_DEVICE | G_HOST, F_NAME, M_CONTAINS, "alltoall", CAT_COMM, 0, N_("collective")},
	{G_HOST, F_NAME, M_PREFIX, "c10d::", CAT_COMM, 0, N_("torch.distributed op")},

	{G_DEVICE, F_TASK_TYPE, M_CONTAINS, "DMA", CAT_COPY, 0, N_("DMA copy task")},
	{G_DEVICE, F_NAME, M_CONTAINS, "memcpy", CAT_COPY, 0, N_("copy task")},

	{G_HOST, F_NAME, M_PREFIX, "ProfilerStep#", CAT_OTHER, EVF_STEP_MARK, N_("step marker")},
	{G_HOST, F_NAME, M_CONTAINS, ".item", CAT_COPY, EVF_SYNC | EVF_D2H, N_("synchronous D2H (.item)")},
	{G_HOST, F_NAME, M_CONTAINS, "aten::item", CAT_COPY, EVF_SYNC | EVF_D2H, N_("synchronous D2H (.item)")},
	{G_HOST, F_NAME, M_CONTAINS, "_local_scalar_dense", CAT_COPY, EVF_SYNC | EVF_D2H, N_("synchronous D2H")},
	{G_HOST, F_NAME, M_CONTAINS, "tolist", CAT_COPY, EVF_SYNC | EVF_D2H, N_("synchronous D2H (tolist)")},
	{G_HOST, F_NAME, M_CONTAINS, "synchronize", CAT_SCHED, EVF_SYNC, N_("stream/device synchronize")},
	{G_HOST, F_NAME, M_CONTAINS, "host_to_device", CAT_COPY, EVF_H2D, N_("H2D copy")},
	{G_HOST, F_NAME, M_CONTAINS, "device_to_host", CAT_COPY, EVF_D2H, N_("D2H copy")},
	{G_HOST, F_NAME, M_CONTAINS, "_to_copy", CAT_COPY, 0, N_("host-side copy (aten::_to_copy)")},
	{G_HOST, F_NAME, M_CONTAINS, "aten::copy_", CAT_COPY, 0, N_("host-side copy (aten::copy_)")},
	{G_HOST, F_NAME, M_CONTAINS, "memcpy", CAT_COPY, 0, N_("host-side copy API")},

	{G_DEVICE, F_NAME, M_PREFIX, "", CAT_COMPUTE, 0, N_("device kernel")},
	{G_HOST, F_NAME, M_PREFIX, "", CAT_SCHED, 0, N_("host framework work")},
	{G_ANY, F_NAME, M_PREFIX, "", CAT_OTHER, 0, N_("anything else")},
};

static unsigned group_bit(enum lane_group g)
{
	switch (g) {
	case LANE_DEVICE: return G_DEVICE;
	case LANE_COMM: return G_COMM;
	case LANE_HOST_PYTHON:
	case LANE_HOST_CANN:
	case LANE_HOST_GC: return G_HOST;
	case LANE_OVERLAP: return G_OVERLAP;
	default: return G_OTHER;
	}
}

static bool matches(const char *text, enum how how, const char *pattern)
{
	size_t pl = strlen(pattern);
	switch (how) {
	case M_EXACT: return strcasecmp(text, pattern) == 0;
	case M_PREFIX: return strncasecmp(text, pattern, pl) == 0;
	case M_CONTAINS: return pl == 0 || strcasestr(text, pattern) != NULL;
	}
	return false;
}

struct ev_class category_of(enum lane_group group, const char *name, const char *cat,
			    const char *task_type)
{
	unsigned g = group_bit(group);
	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
		const struct rule *r = &rules[i];
		if (!(r->groups & g))
			continue;
		const char *text = r->field == F_NAME ? name : r->field == F_CAT ? cat : task_type;
		if (r->field == F_TASK_TYPE && !*text)
			continue;
		if (matches(text, r->how, r->pattern)) {
			struct ev_class c = {(uint8_t)r->cat, r->flags};
			/* every torch operator on a Python lane is one dispatch, whatever it does */
			if (group == LANE_HOST_PYTHON && !strcmp(cat, "cpu_op") && !(r->flags & EVF_STEP_MARK))
				c.flags |= EVF_DISPATCH;
			return c;
		}
	}
	return (struct ev_class){CAT_OTHER, 0};
}

const char *category_name(enum ev_category c)
{
	switch (c) {
	/* English (JSON, CSV); marked for the views, which show them through _() */
	case CAT_COMPUTE: return N_("compute");
	case CAT_COMM: return N_("communication");
	case CAT_COPY: return N_("copy");
	case CAT_SCHED: return N_("scheduling");
	case CAT_OTHER: return N_("other");
	case CAT_COUNT: break;
	}
	return "?";
}

const char *category_rules_text(void)
{
	static char *text; /* built once, in the language of the first call */
	if (text)
		return text;
	size_t cap = 8192, len = 0;
	char *buf = xmalloc(cap);
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
		const struct rule *r = &rules[i];
		char line[256];
		/* in the messages' language: only the Docs view shows it (device, host and the
		 * field names stay as the trace spells them) */
		const char *where = r->groups == G_ANY ? _("any lane")
				    : r->groups == (G_DEVICE | G_HOST) ? _("device or host")
				    : r->groups == G_DEVICE ? "device" : r->groups == G_HOST ? "host"
				    : r->groups == G_COMM ? _("communication") : _("overlap");
		const char *field = r->field == F_NAME ? "name" : r->field == F_CAT ? "cat" : "Task Type";
		const char *how = r->how == M_EXACT ? _("is") : r->how == M_PREFIX ? _("starts with") : _("contains");
		int n = snprintf(line, sizeof line, _("%2zu. %s, %s %s \"%s\" -> %s%s%s (%s)\n"), i + 1, where,
				 field, how, r->pattern, _(category_name(r->cat)),
				 r->flags & EVF_WAIT ? _(", wait") : "", r->flags & EVF_SYNC ? _(", sync") : "", _(r->why));
		if (n < 0)
			continue;
		if (len + (size_t)n + 1 > cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		memcpy(buf + len, line, (size_t)n + 1);
		len += (size_t)n;
	}
	text = buf;
	return text;
}

/* ---- per store ---------------------------------------------------------------------- */

struct memo {
	uint64_t *keys; /* key + 1; 0 = empty */
	struct ev_class *vals;
	size_t cap;
};

/* The first copy direction among the event at lane position pos and its enclosing events. */
static uint8_t enclosing_direction(const struct ev_class *cls, const struct lane *l, uint32_t pos)
{
	int depth = l->depth[pos] + 1;
	/* walk back to each enclosing level; nesting is shallow, so bound the walk */
	for (uint32_t k = pos + 1, steps = 0; k > 0 && depth > 0 && steps < 4096; k--, steps++) {
		if (l->depth[k - 1] >= depth)
			continue;
		depth = l->depth[k - 1];
		uint8_t dir = cls[l->events[k - 1]].flags & (EVF_H2D | EVF_D2H);
		if (dir)
			return dir;
	}
	return 0;
}

static uint32_t lane_position(const struct rank_store *rs, const struct lane *l, uint32_t ev)
{
	uint32_t pos = store_lane_lower_bound(rs, l, store_ts(rs, ev));
	while (pos < l->n_events && l->events[pos] != ev && store_ts(rs, l->events[pos]) == store_ts(rs, ev))
		pos++;
	return pos < l->n_events && l->events[pos] == ev ? pos : UINT32_MAX;
}

/* The copy direction of a launch: from the launching event or the events enclosing it on
 * the same thread. torch_npu's task queue launches copies from a direction-less
 * AscendCL@aclrtMemcpyAsync (CANN process) inside Dequeue@acl_memcpy_host_to_device (Python
 * process, same thread id), so the walk covers every host lane of that thread. */
static uint8_t launch_direction(const struct rank_store *rs, const struct ev_class *cls, uint32_t ev)
{
	uint8_t dir = cls[ev].flags & (EVF_H2D | EVF_D2H);
	if (dir)
		return dir;
	uint32_t lane_id = store_ev_lane_id(rs, ev);
	const struct lane *own = &rs->lanes[lane_id];
	for (uint32_t li = 0; li < rs->n_lanes; li++) {
		const struct lane *l = &rs->lanes[li];
		if (l->tid_text != own->tid_text || l->n_events == 0 ||
		    (l->group != LANE_HOST_PYTHON && l->group != LANE_HOST_CANN))
			continue;
		uint32_t pos;
		if (li == lane_id) {
			pos = lane_position(rs, l, ev);
		} else {
			uint32_t at = lanes_event_at(rs, li, store_ts(rs, ev));
			pos = at == UINT32_MAX ? UINT32_MAX : lane_position(rs, l, at);
		}
		if (pos != UINT32_MAX && (dir = enclosing_direction(cls, l, pos)) != 0)
			return dir;
	}
	return 0;
}

void category_classify_range(const struct rank_store *rs, struct ev_class *out, size_t from, size_t to)
{
	struct memo m = {0};
	m.cap = 1024;
	m.keys = xcalloc(m.cap, sizeof *m.keys);
	m.vals = xcalloc(m.cap, sizeof *m.vals);
	size_t used = 0;
	/* per name id: the (group, attr) it was last classified with << 32 | 1 << 16 | its
	 * class; a name nearly always comes with the same, so most events read one word
	 * instead of probing the memo's two arrays */
	uint32_t n_names = strtab_count(rs->strs);
	uint64_t *last = xcalloc(n_names ? n_names : 1, sizeof *last);
	for (size_t e = from; e < to; e++) {
		const struct lane *l = store_ev_lane(rs, e);
		uint32_t name = rs->ev_name[e];
		uint64_t upper = ((uint64_t)l->group << 29) | (store_ev_attr_id(rs, e) & 0x1fffffff);
		uint64_t *hot = name < n_names ? &last[name] : NULL;
		if (hot && *hot && *hot >> 32 == upper) {
			out[e] = (struct ev_class){.cat = (uint8_t)*hot, .flags = (uint8_t)(*hot >> 8)};
			continue;
		}
		uint64_t key = upper << 32 | name;
		uint64_t k1 = key + 1;
		size_t i = (size_t)(k1 * 0x9E3779B97F4A7C15ULL >> 20) & (m.cap - 1);
		while (m.keys[i] && m.keys[i] != k1)
			i = (i + 1) & (m.cap - 1);
		if (!m.keys[i]) {
			const struct ev_attr *a = store_ev_attr(rs, e);
			m.keys[i] = k1;
			m.vals[i] = category_of(l->group, store_ev_name(rs, e), store_str(rs, a->cat),
						store_str(rs, a->task_type));
			if (++used * 2 > m.cap) {
				/* grow and rehash */
				size_t ncap = m.cap * 2;
				uint64_t *nk = xcalloc(ncap, sizeof *nk);
				struct ev_class *nv = xcalloc(ncap, sizeof *nv);
				for (size_t j = 0; j < m.cap; j++) {
					if (!m.keys[j])
						continue;
					size_t h = (size_t)(m.keys[j] * 0x9E3779B97F4A7C15ULL >> 20) & (ncap - 1);
					while (nk[h])
						h = (h + 1) & (ncap - 1);
					nk[h] = m.keys[j];
					nv[h] = m.vals[j];
				}
				free(m.keys);
				free(m.vals);
				m.keys = nk;
				m.vals = nv;
				m.cap = ncap;
				i = (size_t)(k1 * 0x9E3779B97F4A7C15ULL >> 20) & (m.cap - 1);
				while (m.keys[i] != k1)
					i = (i + 1) & (m.cap - 1);
			}
		}
		out[e] = m.vals[i];
		if (hot)
			*hot = upper << 32 | 1u << 16 | (uint32_t)out[e].flags << 8 | out[e].cat;
	}
	free(last);
	free(m.keys);
	free(m.vals);
}

/* A host copy op that names its direction (acl_memcpy_host_to_device, .item ...). */
struct dir_op {
	int64_t a;
	uint8_t dir;
};
#define DIR_OP_LESS(x, y) ((x)->a < (y)->a)
XSORT_DEFINE(dir_ops_sort, struct dir_op, DIR_OP_LESS)
#define DIR_OP_LE_(ops, i, t) ((ops)[i].a <= (t))
LOWER_BOUND_DEFINE(dir_ops_upper_bound, const struct dir_op *, int64_t, DIR_OP_LE_)

static bool device_copy(const struct rank_store *rs, const struct ev_class *out, size_t ev)
{
	return out[ev].cat == CAT_COPY && store_ev_lane(rs, ev)->group == LANE_DEVICE;
}

/* A device copy no link reaches (the export wrote none for it: a step or a whole capture
 * without HostToDevice links) takes the direction of the directed host copy op begun last
 * before it, when no linked device copy starts between the two: where links are written,
 * an unlinked copy among linked ones is one the host named no direction for, and stays
 * without. So the figures count device copy time only, whether the links are there or not,
 * on text and Db alike (h2d_per_step, d2h_per_step). */
static void unlinked_copy_directions(const struct rank_store *rs, struct ev_class *out)
{
	uint8_t *linked = xcalloc(rs->n_ev ? rs->n_ev : 1, 1);
	size_t n_linked = 0, n_ops = 0, n_free = 0;
	for (size_t i = 0; i < rs->n_links; i++)
		if (device_copy(rs, out, rs->links[i].to_ev) && !linked[rs->links[i].to_ev]) {
			linked[rs->links[i].to_ev] = 1;
			n_linked++;
		}
	for (size_t e = 0; e < rs->n_ev; e++) {
		if (device_copy(rs, out, e))
			n_free += !linked[e];
		else if (out[e].cat == CAT_COPY && (out[e].flags & (EVF_H2D | EVF_D2H)) &&
			 lanes_group_is_host(store_ev_lane(rs, e)->group))
			n_ops++;
	}
	if (!n_free || !n_ops) {
		free(linked);
		return;
	}
	int64_t *starts = xmalloc((n_linked ? n_linked : 1) * sizeof *starts);
	struct dir_op *ops = xmalloc(n_ops * sizeof *ops);
	size_t nl = 0, no = 0;
	for (size_t e = 0; e < rs->n_ev; e++) {
		if (linked[e])
			starts[nl++] = store_ts(rs, e);
		else if (!device_copy(rs, out, e) && out[e].cat == CAT_COPY && (out[e].flags & (EVF_H2D | EVF_D2H)) &&
			 lanes_group_is_host(store_ev_lane(rs, e)->group))
			ops[no++] = (struct dir_op){store_ts(rs, e), out[e].flags & (EVF_H2D | EVF_D2H)};
	}
	xqsort(starts, nl, sizeof *starts, cmp_i64);
	dir_ops_sort(ops, no);
	for (size_t e = 0; e < rs->n_ev; e++) {
		if (linked[e] || !device_copy(rs, out, e) || (out[e].flags & (EVF_H2D | EVF_D2H)))
			continue;
		int64_t t = store_ts(rs, e);
		size_t k = dir_ops_upper_bound(ops, t, 0, no);
		if (!k)
			continue; /* no directed host op before it */
		size_t after = i64_upper_bound(starts, ops[k - 1].a, 0, nl);
		if (after < nl && starts[after] <= t)
			continue; /* a linked copy between: the links cover this stretch */
		out[e].flags |= ops[k - 1].dir | EVF_DIR_BEFORE;
	}
	free(ops);
	free(starts);
	free(linked);
}

void category_classify_links(const struct rank_store *rs, struct ev_class *out)
{
	/* device copies take their direction from the host op that launched them */
	for (size_t i = 0; i < rs->n_links; i++) {
		const struct flow_link *k = &rs->links[i];
		if (out[k->to_ev].cat != CAT_COPY)
			continue;
		out[k->to_ev].flags |= launch_direction(rs, out, k->from_ev);
	}
	unlinked_copy_directions(rs, out);
}

void category_classify(const struct rank_store *rs, struct ev_class *out)
{
	category_classify_range(rs, out, 0, rs->n_ev);
	category_classify_links(rs, out);
}
