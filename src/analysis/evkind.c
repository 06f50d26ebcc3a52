/* SPDX-License-Identifier: MIT */
/* What an event or a kernel row is beyond its category (evkind.h). */
#include "evkind.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json_tok.h"
#include "num.h"
#include "sbuf.h"
#include "capture.h"
#include "xalloc.h"

struct ev_class evkind_kernel_class(struct kernel_memo *m, const struct csv_table *k, size_t row)
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

void evkind_kernel_memo_free(struct kernel_memo *m)
{
	u64map_free(&m->map);
	free(m->by_name);
	m->by_name = NULL;
	m->n_names = 0;
}

bool evkind_is_group_lane(const struct rank_store *rs, const struct lane *l)
{
	const char *tn = store_str(rs, l->thread_name);
	return l->group == LANE_COMM && (strcasestr(tn, "Communication") || strcasestr(tn, "Group"));
}

bool evkind_has_group_lanes(const struct rank_store *rs)
{
	for (size_t i = 0; i < rs->n_lanes; i++)
		if (evkind_is_group_lane(rs, &rs->lanes[i]))
			return true;
	return false;
}

bool evkind_collective_name(const char *n)
{
	return !strncasecmp(n, "hcom_", 5) || strcasestr(n, "hccl") || strcasestr(n, "allreduce") ||
	       strcasestr(n, "allgather") || strcasestr(n, "reducescatter") || strcasestr(n, "alltoall");
}

/* Is ev a whole collective (not one of its sub-tasks)? The whole test; evkind.h asks the
 * lane and the class inline first. */
bool evkind_is_collective_named(const struct rank_store *rs, const struct ev_class *cls, uint32_t ev,
				  bool have_group_lanes)
{
	const struct lane *l = store_ev_lane(rs, ev);
	if (have_group_lanes)
		return evkind_is_group_lane(rs, l);
	if (l->group != LANE_DEVICE || cls[ev].cat != CAT_COMM)
		return false;
	return evkind_collective_name(store_ev_name(rs, ev));
}

const char *evkind_op_type_key(const char *name, const char *type, char *buf, size_t size)
{
	snprintf(buf, size, "%s", type && *type ? type : name ? name : "");
	if (strncasecmp(buf, "hcom_", 5) != 0)
		return buf;
	/* hcom_allReduce__428_5_1: the group's sequence and counters after "__" */
	char *dd = strstr(buf + 5, "__");
	if (dd)
		*dd = 0;
	for (size_t n = strlen(buf); n > 5;) {
		size_t k = n;
		while (k > 5 && isdigit((unsigned char)buf[k - 1]))
			k--;
		if (k < n && k > 5 && buf[k - 1] == '_') {
			buf[--k] = 0; /* "_<digits>" */
			n = k;
		} else if (buf[n - 1] == '_') {
			buf[--n] = 0;
		} else {
			break;
		}
	}
	return buf;
}

const char *evkind_collective_group(const char *name, char *buf, size_t size)
{
	/* HCCL names a collective op__<group>_<index>_<n>: the group is the part after "__" */
	const char *u = name ? strstr(name, "__") : NULL;
	if (!u || !u[2] || !size)
		return NULL;
	u += 2;
	size_t n = strcspn(u, "_");
	if (n >= size)
		n = size - 1;
	memcpy(buf, u, n);
	buf[n] = 0;
	return buf;
}

void evkind_coll_rows_init(struct coll_rows *cr, uint32_t n_names, bool any_name, struct strtab *strs)
{
	memset(cr, 0, sizeof *cr);
	cr->n_names = n_names;
	cr->key_of = xcalloc(n_names ? n_names : 1, sizeof *cr->key_of);
	cr->any_name = any_name;
	cr->strs = strs;
}

uint32_t evkind_coll_row(struct coll_rows *cr, uint32_t id, const char *name)
{
	if (id >= cr->n_names)
		return UINT32_MAX;
	if (!cr->key_of[id]) {
		cr->key_of[id] = 1;
		if (cr->any_name || evkind_collective_name(name)) {
			char kb[512], gb[128];
			const char *kind = evkind_op_type_key(name, NULL, kb, sizeof kb);
			const char *group = evkind_collective_group(name, gb, sizeof gb);
			struct coll_row_key key = {strtab_str(cr->strs, strtab_intern_cstr(cr->strs, kind)),
						   group ? strtab_str(cr->strs, strtab_intern_cstr(cr->strs, group)) : NULL};
			size_t k = 0; /* a capture's collectives have a handful of kinds and groups */
			while (k < cr->n_keys && (cr->keys[k].kind != key.kind || cr->keys[k].group != key.group))
				k++;
			if (k == cr->n_keys) {
				xgrow(&cr->keys, &cr->cap, cr->n_keys + 1, sizeof *cr->keys);
				cr->keys[cr->n_keys++] = key;
			}
			cr->key_of[id] = (uint32_t)k + 2;
		}
	}
	return cr->key_of[id] >= 2 ? cr->key_of[id] - 2 : UINT32_MAX;
}

void evkind_coll_rows_free(struct coll_rows *cr)
{
	free(cr->key_of);
	free(cr->keys);
	memset(cr, 0, sizeof *cr);
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
double evkind_collective_bytes(const struct rank_store *rs, uint32_t ev)
{
	struct sbuf raw = SBUF_INIT;
	double bytes = 0;
	if (capture_entry_text(rs, store_ev_off(rs, ev), &raw) == 0) {
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
