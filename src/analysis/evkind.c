/* SPDX-License-Identifier: MIT */
/* What an event or a kernel row is beyond its category (evkind.h). */
#include "evkind.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json_tok.h"
#include "num.h"
#include "sbuf.h"
#include "trace.h"
#include "xalloc.h"

struct ev_class analysis_kernel_class(struct kernel_memo *m, const struct csv_table *k, size_t row)
{
	uint32_t name = csvt_str_id(k, row, COL_NAME), core = csvt_str_id(k, row, COL_ACCEL_CORE);
	if (!m->by_name) {
		m->n_names = strtab_count(k->strs);
		m->by_name = xcalloc(m->n_names ? m->n_names : 1, sizeof *m->by_name);
	}
	uint64_t *last = name < m->n_names ? &m->by_name[name] : NULL;
	uint32_t v32;
	if (last && *last && (uint32_t)(*last >> 32) == core) {
		v32 = (uint32_t)*last;
	} else {
		bool found;
		uint32_t *v = u64map_slot(&m->map, (uint64_t)name << 32 | core, &found);
		if (!found) {
			struct ev_class c = category_of(LANE_DEVICE, csvt_str(k, row, COL_NAME), "",
							csvt_str(k, row, COL_ACCEL_CORE));
			*v = 1u << 16 | (uint32_t)c.flags << 8 | c.cat;
		}
		v32 = *v;
		if (last)
			*last = (uint64_t)core << 32 | v32;
	}
	return (struct ev_class){.cat = (uint8_t)v32, .flags = (uint8_t)(v32 >> 8)};
}

void analysis_kernel_memo_free(struct kernel_memo *m)
{
	u64map_free(&m->map);
	free(m->by_name);
	m->by_name = NULL;
	m->n_names = 0;
}

bool analysis_has_group_lanes(const struct rank_store *rs)
{
	for (size_t i = 0; i < rs->n_lanes; i++) {
		const char *tn = store_str(rs, rs->lanes[i].thread_name);
		if (rs->lanes[i].group == LANE_COMM && (strcasestr(tn, "Communication") || strcasestr(tn, "Group")))
			return true;
	}
	return false;
}

/* Is ev a whole collective (not one of its sub-tasks)? The whole test; evkind.h asks the
 * lane and the class inline first. */
bool analysis_is_collective_named(const struct rank_store *rs, const struct ev_class *cls, uint32_t ev,
				  bool have_group_lanes)
{
	const struct lane *l = store_ev_lane(rs, ev);
	if (have_group_lanes) {
		const char *tn = store_str(rs, l->thread_name);
		return l->group == LANE_COMM && (strcasestr(tn, "Communication") || strcasestr(tn, "Group"));
	}
	if (l->group != LANE_DEVICE || cls[ev].cat != CAT_COMM)
		return false;
	const char *n = store_ev_name(rs, ev);
	return !strncasecmp(n, "hcom_", 5) || strcasestr(n, "hccl") || strcasestr(n, "allreduce") ||
	       strcasestr(n, "allgather") || strcasestr(n, "reducescatter") || strcasestr(n, "alltoall");
}

static int dtype_bytes(const char *t)
{
	if (strcasestr(t, "64"))
		return 8;
	if (strcasestr(t, "32"))
		return 4;
	if (strcasestr(t, "16"))
		return 2;
	if (strcasestr(t, "8"))
		return 1;
	return 0;
}

/* Payload of a collective from its args ("count" and "data_type"), in bytes; 0 unknown. */
double analysis_collective_bytes(const struct rank_store *rs, uint32_t ev)
{
	struct sbuf raw = SBUF_INIT;
	double bytes = 0;
	if (trace_element_json(rs, store_ev_off(rs, ev), &raw) == 0) {
		struct jtok jt;
		jtok_init(&jt);
		if (jtok_parse(&jt, raw.buf, raw.len) > 0) {
			int args = jtok_obj_get(&jt, raw.buf, 0, "args");
			int cnt = jtok_obj_get(&jt, raw.buf, args, "count");
			int dt = jtok_obj_get(&jt, raw.buf, args, "data_type");
			if (cnt >= 0 && dt >= 0) {
				struct sbuf t = SBUF_INIT;
				jtok_unescape(raw.buf, &jt.t[dt], &t);
				double c;
				const jsmntok_t *ct = &jt.t[cnt];
				if (num_double(raw.buf + ct->start, (size_t)(ct->end - ct->start), &c) == NUM_OK)
					bytes = c * dtype_bytes(sbuf_str(&t));
				sbuf_free(&t);
			}
		}
		jtok_free(&jt);
	}
	sbuf_free(&raw);
	return bytes;
}
