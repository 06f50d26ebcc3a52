/* SPDX-License-Identifier: MIT */
/* The trace loader's segments: one element at a time into a thread's own columns (trace_internal.h). */
#include "config.h"
#include "trace_internal.h"

void trace_seg_init(struct seg *sg, const char *name)
{
	memset(sg, 0, sizeof *sg);
	sg->strs = strtab_new();
	jtok_init(&sg->jt);
	sg->name_for_diag = name;
	diag_init(&sg->local);
	/* attr 0 is "no cat, no Task Type" */
	xgrow(&sg->attrs, &sg->cap_attrs, 1, sizeof *sg->attrs);
	sg->attrs[0] = (struct ev_attr){0, 0};
	sg->n_attrs = 1;
	bool found;
	*u64map_slot(&sg->attr_map, pair_key(0, 0), &found) = 0;
}

void trace_seg_free(struct seg *sg)
{
	strtab_free(sg->strs);
	spill_free(sg->ts_step);
	free(sg->ts_jumps);
	spill_free(sg->dur);
	spill_free(sg->name);
	spill_free(sg->kind);
	spill_free(sg->off_step);
	free(sg->long_durs);
	free(sg->jumps);
	free(sg->kinds);
	u64map_free(&sg->kind_map);
	free(sg->attrs);
	u64map_free(&sg->attr_map);
	free(sg->lanes);
	u64map_free(&sg->lane_map);
	free(sg->ctr_ts);
	free(sg->ctr_value);
	free(sg->ctr_track);
	free(sg->ctr_off);
	free(sg->tracks);
	u64map_free(&sg->track_map);
	spill_free(sg->flows);
	free(sg->meta);
	free(sg->opens);
	free(sg->open_top);
	free(sg->ends);
	jtok_free(&sg->jt);
	sbuf_free(&sg->scratch);
	diag_free(&sg->local);
	memset(sg, 0, sizeof *sg);
}

void trace_seg_warn(struct seg *sg, enum warn_kind kind, uint64_t off, const char *fmt, ...)
{
	if (sg->warn_count[kind]++ >= WARN_EACH)
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	diag_add(&sg->local, DIAG_WARN, sg->name_for_diag, 0, (int64_t)off, "%s", msg);
}

static inline uint64_t load_u64(const char *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
	return w;
}

static inline uint64_t load_u32(const char *p)
{
	uint32_t w;
	memcpy(&w, p, 4);
	return w;
}

static __attribute__((noinline)) uint32_t seg_intern_escaped(struct seg *sg, const struct espan *sp)
{
	sbuf_reset(&sg->scratch);
	json_unescape(sp->p, sp->len, &sg->scratch);
	/* a \u0000 would cut the text where it is read as a C string */
	if (sg->scratch.len && memchr(sg->scratch.buf, '\0', sg->scratch.len)) {
		struct sbuf fixed = SBUF_INIT;
		for (size_t i = 0; i < sg->scratch.len; i++)
			if (sg->scratch.buf[i])
				sbuf_addc(&fixed, sg->scratch.buf[i]);
			else
				sbuf_adds(&fixed, "\xEF\xBF\xBD"); /* U+FFFD */
		trace_seg_warn(sg, W_NUL, sg->cur_off, _("a string holds \\u0000 (\"%.40s\"...): shown as U+FFFD "
			 "rather than cut there"), fixed.buf);
		uint32_t id = strtab_intern(sg->strs, fixed.buf, fixed.len);
		sbuf_free(&fixed);
		return id;
	}
	return strtab_intern(sg->strs, sg->scratch.buf ? sg->scratch.buf : "", sg->scratch.len);
}

/* Up to 16 bytes of text as two words and its length, which together are the text itself
 * (overlapping loads that stay inside it); longer text gives its first and last 8 bytes. */
static inline __attribute__((always_inline)) void text_words(const char *p, uint32_t len, uint64_t *w0, uint64_t *w1)
{
	*w0 = *w1 = 0;
	if (len >= 8) {
		*w0 = load_u64(p);
		*w1 = load_u64(p + len - 8);
	} else if (len >= 4) {
		*w0 = load_u32(p) | load_u32(p + len - 4) << 32;
	} else if (len) {
		*w0 = (uint64_t)(unsigned char)p[0] | (uint64_t)(unsigned char)p[len / 2] << 8 |
		      (uint64_t)(unsigned char)p[len - 1] << 16;
	}
}

/* Interns the text of a field: strings unescaped, primitives verbatim. Unescaped text
 * goes through the cache: up to 16 bytes, the two words and the length are the text
 * itself (text_words), so a hit needs no compare of bytes; longer text is compared with
 * the table's copy (the arena never moves). */
static inline __attribute__((always_inline)) uint32_t seg_intern(struct seg *sg, const struct espan *sp)
{
	if (!sp->p)
		return 0;
	if (sp->has_esc)
		return seg_intern_escaped(sg, sp);
	const char *p = sp->p;
	uint32_t len = sp->len;
	uint64_t w0, w1;
	text_words(p, len, &w0, &w1);
	uint64_t h = (w0 ^ (w1 * 0x9E3779B97F4A7C15ULL) ^ len) * 0xFF51AFD7ED558CCDULL;
	struct intern_cache *c = &sg->cache[h >> (64 - INTERN_CACHE_BITS)];
	/* an unused entry reads as "", which is id 0 (the table's first string): right too */
	if (c->len == len && c->w0 == w0 && c->w1 == w1 && (len <= 16 || !memcmp(c->text, p, len)))
		return c->id;
	uint32_t id = strtab_intern(sg->strs, p, len);
	*c = (struct intern_cache){w0, w1, strtab_str(sg->strs, id), len, id};
	return id;
}

uint32_t trace_seg_lane(struct seg *sg, uint32_t pid, uint32_t tid)
{
	uint64_t key = pair_key(pid, tid);
	size_t at;
	uint32_t id;
	if (pair_cache_get(&sg->lane_cache, key, &at, &id))
		return id;
	bool found;
	uint32_t *slot = u64map_slot(&sg->lane_map, key, &found);
	if (!found) {
		xgrow(&sg->lanes, &sg->cap_lanes, sg->n_lanes + 1, sizeof *sg->lanes);
		sg->lanes[sg->n_lanes] = (struct seg_lane){pid, tid};
		*slot = (uint32_t)sg->n_lanes++;
	}
	sg->lane_cache.key[at] = key + 1;
	return sg->lane_cache.id[at] = *slot;
}

/* The lane of an event's "pid" and "tid" texts: through the lane memo when both are at
 * most 16 bytes without escapes (their words and lengths are then the texts themselves),
 * which saves interning both and the pair's look-up; else the long way. */
static inline __attribute__((always_inline)) uint32_t seg_lane_of(struct seg *sg, const struct espan *pid,
								   const struct espan *tid)
{
	/* an absent text has length 0 (and no pointer): the long way too */
	if (pid->len - 1u >= 16 || tid->len - 1u >= 16 || (pid->has_esc | tid->has_esc))
		return trace_seg_lane(sg, seg_intern(sg, pid), seg_intern(sg, tid));
	uint64_t p0, p1, t0, t1;
	text_words(pid->p, pid->len, &p0, &p1);
	text_words(tid->p, tid->len, &t0, &t1);
	uint32_t lens = pid->len | tid->len << 8;
	uint64_t h = ((p0 ^ p1 * 0x9E3779B97F4A7C15ULL) * 0xFF51AFD7ED558CCDULL) ^ (t0 ^ t1 * 0xC2B2AE3D27D4EB4FULL) ^ lens;
	struct lane_memo *m = &sg->lane_memo[(h * 0x9E3779B97F4A7C15ULL) >> (64 - LANE_MEMO_BITS)];
	if (!((m->p0 ^ p0) | (m->p1 ^ p1) | (m->t0 ^ t0) | (m->t1 ^ t1) | (m->lens ^ lens)))
		return m->lane;
	uint32_t lane = trace_seg_lane(sg, seg_intern(sg, pid), seg_intern(sg, tid));
	*m = (struct lane_memo){p0, p1, t0, t1, lens, lane};
	return lane;
}

uint32_t trace_seg_attr(struct seg *sg, uint32_t cat, uint32_t task_type)
{
	uint64_t key = pair_key(cat, task_type);
	size_t at;
	uint32_t id;
	if (pair_cache_get(&sg->attr_cache, key, &at, &id))
		return id;
	bool found;
	uint32_t *slot = u64map_slot(&sg->attr_map, key, &found);
	if (!found) {
		xgrow(&sg->attrs, &sg->cap_attrs, sg->n_attrs + 1, sizeof *sg->attrs);
		sg->attrs[sg->n_attrs] = (struct ev_attr){cat, task_type};
		*slot = (uint32_t)sg->n_attrs++;
	}
	sg->attr_cache.key[at] = key + 1;
	return sg->attr_cache.id[at] = *slot;
}

static uint32_t seg_track(struct seg *sg, uint32_t pid, uint32_t name, uint32_t value_key)
{
	bool found;
	uint32_t *slot = u64map_slot(&sg->track_map, pair_key(pid, name), &found);
	if (!found) {
		xgrow(&sg->tracks, &sg->cap_tracks, sg->n_tracks + 1, sizeof *sg->tracks);
		sg->tracks[sg->n_tracks] = (struct seg_track){pid, name, value_key};
		*slot = (uint32_t)sg->n_tracks++;
	}
	return *slot;
}

static uint32_t seg_kind(struct seg *sg, uint32_t lane, uint32_t attr)
{
	uint64_t key = pair_key(lane, attr);
	if (sg->n_kinds && key == sg->last_kind_key)
		return sg->last_kind;
	bool found;
	uint32_t *slot = u64map_slot(&sg->kind_map, key, &found);
	if (!found) {
		xgrow(&sg->kinds, &sg->cap_kinds, sg->n_kinds + 1, sizeof *sg->kinds);
		sg->kinds[sg->n_kinds] = (struct ev_kind){lane, attr};
		*slot = (uint32_t)sg->n_kinds++;
	}
	sg->last_kind_key = key;
	sg->last_kind = *slot;
	return *slot;
}

static void seg_push_x(struct seg *sg, int64_t ts, int64_t dur, uint32_t name, uint32_t lane,
		       uint32_t attr, uint64_t off)
{
	if (sg->n == sg->cap) {
		size_t c = sg->cap;
		spill_grow(&sg->ts_step, &c, sg->n + 1, sizeof *sg->ts_step);
		c = sg->cap;
		spill_grow(&sg->name, &c, sg->n + 1, sizeof *sg->name);
		c = sg->cap;
		spill_grow(&sg->kind, &c, sg->n + 1, sizeof *sg->kind);
		c = sg->cap;
		spill_grow(&sg->dur, &c, sg->n + 1, sizeof *sg->dur);
		c = sg->cap;
		spill_grow(&sg->off_step, &c, sg->n + 1, sizeof *sg->off_step);
		sg->cap = c;
	}
	size_t i = sg->n++;
	int64_t step;
	if (i > 0 && !__builtin_sub_overflow(ts, sg->ts_prev, &step) && step > TS_JUMP && step <= INT32_MAX) {
		sg->ts_step[i] = (int32_t)step;
	} else {
		xgrow(&sg->ts_jumps, &sg->cap_ts_jumps, sg->n_ts_jumps + 1, sizeof *sg->ts_jumps);
		sg->ts_jumps[sg->n_ts_jumps++] = (struct ts_jump){(uint32_t)i, ts};
		sg->ts_step[i] = TS_JUMP;
	}
	sg->ts_prev = ts;
	sg->name[i] = name;
	sg->kind[i] = seg_kind(sg, lane, attr);
	if (dur >= STORE_LONG_DUR) {
		xgrow(&sg->long_durs, &sg->cap_long, sg->n_long + 1, sizeof *sg->long_durs);
		sg->long_durs[sg->n_long++] = (struct long_dur){(uint32_t)i, dur};
		sg->dur[i] = STORE_LONG_DUR;
	} else {
		sg->dur[i] = (uint32_t)dur;
	}
	uint64_t full = sg->base + off;
	if (full >= sg->off_prev && full - sg->off_prev < UINT32_MAX) {
		sg->off_step[i] = (uint32_t)(full - sg->off_prev);
	} else {
		xgrow(&sg->jumps, &sg->cap_jumps, sg->n_jumps + 1, sizeof *sg->jumps);
		sg->jumps[sg->n_jumps++] = (struct off_jump){(uint32_t)i, full};
		sg->off_step[i] = UINT32_MAX;
	}
	sg->off_prev = full;
}

static void seg_push_ctr(struct seg *sg, int64_t ts, double v, uint32_t track, uint64_t off)
{
	if (sg->n_ctr == sg->cap_ctr) {
		size_t c = sg->cap_ctr;
		xgrow(&sg->ctr_ts, &c, sg->n_ctr + 1, sizeof *sg->ctr_ts);
		c = sg->cap_ctr;
		xgrow(&sg->ctr_value, &c, sg->n_ctr + 1, sizeof *sg->ctr_value);
		c = sg->cap_ctr;
		xgrow(&sg->ctr_track, &c, sg->n_ctr + 1, sizeof *sg->ctr_track);
		c = sg->cap_ctr;
		xgrow(&sg->ctr_off, &c, sg->n_ctr + 1, sizeof *sg->ctr_off);
		sg->cap_ctr = c;
	}
	sg->ctr_ts[sg->n_ctr] = ts;
	sg->ctr_value[sg->n_ctr] = v;
	sg->ctr_track[sg->n_ctr] = track;
	sg->ctr_off[sg->n_ctr] = sg->base + off;
	sg->n_ctr++;
}

/* Parses "ts" (µs, string or number) into ns. Returns false when unusable. */
static bool parse_ts(struct seg *sg, const struct espan *t, uint64_t off, int64_t *out)
{
	if (!t->p || (!t->is_str && (t->p[0] == '{' || t->p[0] == '[')))
		return false;
	bool exponent;
	enum num_status st = num_time_ns_exp(t->p, t->len, out, &exponent);
	if (st != NUM_OK) {
		trace_seg_warn(sg, W_BAD_TS, off, _("\"ts\" is %s (%.*s); event dropped"),
			 st == NUM_RANGE ? "out of range" : "not a number", (int)(t->len > 40 ? 40 : t->len), t->p);
		return false;
	}
	/* 1.7364088836e15 µs holds a tenth of a millisecond at best: the digits are gone */
	if (exponent)
		trace_seg_warn(sg, W_TS_EXPONENT, off, _("\"ts\" in exponent form (%.*s): the digits it dropped "
			 "are lost; kept as read"), (int)(t->len > 40 ? 40 : t->len), t->p);
	return true;
}

static void parse_meta(struct seg *sg, const struct elem *e, uint64_t off)
{
	const struct espan *name = &e->f[EF_NAME];
	if (!name->p || !e->f[EF_PID].p)
		return;
	static const struct { const char *name; enum meta_kind kind; int arg; } known[] = {
		{"process_name", META_PROCESS_NAME, EF_ARG_NAME},
		{"process_labels", META_PROCESS_LABELS, EF_ARG_LABELS},
		{"process_sort_index", META_PROCESS_SORT, EF_ARG_SORT_INDEX},
		{"thread_name", META_THREAD_NAME, EF_ARG_NAME},
		{"thread_sort_index", META_THREAD_SORT, EF_ARG_SORT_INDEX},
	};
	for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
		size_t kl = strlen(known[k].name);
		if (name->len != kl || memcmp(name->p, known[k].name, kl))
			continue;
		const struct espan *v = &e->f[known[k].arg];
		if (!v->p || (!v->is_str && (v->p[0] == '{' || v->p[0] == '[')))
			return;
		struct meta_rec m = {0};
		m.kind = (uint8_t)known[k].kind;
		m.off = off;
		m.file = sg->name_for_diag;
		m.pid = seg_intern(sg, &e->f[EF_PID]);
		m.tid = seg_intern(sg, &e->f[EF_TID]);
		if (m.kind == META_PROCESS_SORT || m.kind == META_THREAD_SORT) {
			double d;
			if (num_int64(v->p, v->len, &m.num) != NUM_OK) {
				/* a sort index beyond int64 is unusable like text (fuzz_trace) */
				if (num_double(v->p, v->len, &d) != NUM_OK || !(d >= -0x1p63 && d < 0x1p63))
					return;
				m.num = (int64_t)d;
			}
		} else {
			m.str = seg_intern(sg, v);
		}
		if (m.kind == META_THREAD_NAME || m.kind == META_THREAD_SORT)
			trace_seg_lane(sg, m.pid, m.tid); /* a named thread is a lane even if empty */
		xgrow(&sg->meta, &sg->cap_meta, sg->n_meta + 1, sizeof *sg->meta);
		sg->meta[sg->n_meta++] = m;
		return;
	}
}

static void parse_counter(struct seg *sg, const struct elem *e, uint64_t off)
{
	int64_t ts;
	if (!e->f[EF_TS].p) {
		trace_seg_warn(sg, W_NO_TS, off, _("counter event without \"ts\"; dropped"));
		sg->ph.rejected++;
		return;
	}
	if (!parse_ts(sg, &e->f[EF_TS], off, &ts)) {
		sg->ph.rejected++;
		return;
	}
	uint32_t pid = seg_intern(sg, &e->f[EF_PID]);
	uint32_t name = e->f[EF_NAME].p ? seg_intern(sg, &e->f[EF_NAME]) : seg_intern(sg, &e->f[EF_PROCESS_NAME]);
	double value = 0.0 / 0.0;
	uint32_t value_key = 0;
	if (e->f[EF_ARG_NUM_VAL].p) {
		num_double(e->f[EF_ARG_NUM_VAL].p, e->f[EF_ARG_NUM_VAL].len, &value);
		value_key = seg_intern(sg, &e->f[EF_ARG_NUM_KEY]);
	}
	seg_push_ctr(sg, ts, value, seg_track(sg, pid, name, value_key), off);
}

/* Text of a decimal beyond 64 bits, without leading zeros, so that 020 and "20" agree. */
static uint32_t seg_intern_u128(struct seg *sg, unsigned __int128 v)
{
	char digits[40];
	size_t n = sizeof digits;
	while (v > UINT64_MAX) { /* a 128-bit division per digit only above 64 bits */
		digits[--n] = (char)('0' + (int)(v % 10));
		v /= 10;
	}
	uint64_t low = (uint64_t)v;
	do {
		digits[--n] = (char)('0' + (int)(low % 10));
		low /= 10;
	} while (low);
	return strtab_intern(sg->strs, digits + n, sizeof digits - n);
}

static void parse_flow(struct seg *sg, const struct elem *e, char ph, uint64_t off)
{
	struct flow fl = {0};
	fl.ph = ph == 's' ? FLOW_START : ph == 'f' ? FLOW_FINISH : FLOW_STEP;
	int64_t ts;
	if (!parse_ts(sg, &e->f[EF_TS], off, &ts)) {
		sg->ph.rejected++;
		return;
	}
	fl.ts = ts;
	fl.lane = seg_lane_of(sg, &e->f[EF_PID], &e->f[EF_TID]);
	fl.cat = seg_intern(sg, &e->f[EF_CAT]);
	const struct espan *id = &e->f[EF_ID];
	unsigned __int128 num = 0;
	if (!id->p) {
		fl.id = 0;
	} else if (num_u128(id->p, id->len, &num) == NUM_OK) {
		if (num <= UINT64_MAX) {
			fl.id = (uint64_t)num;
		} else {
			fl.id = seg_intern_u128(sg, num);
			fl.id_is_text = 1;
		}
	} else {
		fl.id = seg_intern(sg, id);
		fl.id_is_text = 1;
	}
	spill_grow(&sg->flows, &sg->cap_flows, sg->n_flows + 1, sizeof *sg->flows);
	sg->flows[sg->n_flows++] = fl;
}

static void parse_complete(struct seg *sg, const struct elem *e, uint64_t off)
{
	int64_t ts, dur = 0;
	if (!e->f[EF_TS].p) {
		trace_seg_warn(sg, W_NO_TS, off, _("\"X\" event without \"ts\"; dropped"));
		sg->ph.rejected++;
		return;
	}
	if (!parse_ts(sg, &e->f[EF_TS], off, &ts)) {
		sg->ph.rejected++;
		return;
	}
	const struct espan *d = &e->f[EF_DUR];
	if (d->p) {
		enum num_status st = num_time_ns(d->p, d->len, &dur, NULL);
		int shown = (int)(d->len > 40 ? 40 : d->len);
		if (st != NUM_OK) {
			trace_seg_warn(sg, W_BAD_DUR, off, _("\"dur\" is %s (%.*s); kept with duration 0"),
				 st == NUM_RANGE ? "out of range" : "not a number", shown, d->p);
			dur = 0;
		} else if (dur < 0) {
			trace_seg_warn(sg, W_NEG_DUR, off, _("negative \"dur\" (%.*s); kept with duration 0"), shown, d->p);
			dur = 0;
		} else if (dur > TRACE_DUR_MAX_NS) {
			/* no profiled call lasts a day: such a value is a corrupt field, and
			 * keeping it would stretch the window over years */
			trace_seg_warn(sg, W_BAD_DUR, off, _("\"dur\" (%.*s us) is longer than a day; kept with duration 0"),
				 shown, d->p);
			dur = 0;
		}
	}
	/* keep ts + dur representable */
	if (dur > INT64_MAX - (ts > 0 ? ts : 0))
		dur = INT64_MAX - (ts > 0 ? ts : 0);
	uint32_t name = seg_intern(sg, &e->f[EF_NAME]);
	uint32_t lane = seg_lane_of(sg, &e->f[EF_PID], &e->f[EF_TID]);
	uint32_t cat = seg_intern(sg, &e->f[EF_CAT]);
	const struct espan *tt = &e->f[EF_ARG_TASK_TYPE];
	uint32_t ttype = tt->p && (tt->is_str || (tt->p[0] != '{' && tt->p[0] != '['))
				 ? seg_intern(sg, tt)
				 : 0;
	seg_push_x(sg, ts, dur, name, lane, trace_seg_attr(sg, cat, ttype), off);
}

/* The lane, attributes, start of a "B" or "E" event; false (and counted) without a usable
 * "ts". */
static bool parse_be_common(struct seg *sg, const struct elem *e, uint64_t off, char ph, int64_t *ts,
			    uint32_t *lane)
{
	if (!e->f[EF_TS].p) {
		trace_seg_warn(sg, W_NO_TS, off, _("\"%c\" event without \"ts\"; dropped"), ph);
		sg->ph.rejected++;
		return false;
	}
	if (!parse_ts(sg, &e->f[EF_TS], off, ts)) {
		sg->ph.rejected++;
		return false;
	}
	*lane = seg_lane_of(sg, &e->f[EF_PID], &e->f[EF_TID]);
	return true;
}

/* A "B" (begin) event: opened on its lane until its "E". */
static void parse_begin(struct seg *sg, const struct elem *e, uint64_t off)
{
	int64_t ts;
	uint32_t lane;
	if (!parse_be_common(sg, e, off, 'B', &ts, &lane))
		return;
	uint32_t name = seg_intern(sg, &e->f[EF_NAME]);
	uint32_t cat = seg_intern(sg, &e->f[EF_CAT]);
	const struct espan *tt = &e->f[EF_ARG_TASK_TYPE];
	uint32_t ttype = tt->p && (tt->is_str || (tt->p[0] != '{' && tt->p[0] != '[')) ? seg_intern(sg, tt) : 0;
	uint32_t attr = trace_seg_attr(sg, cat, ttype);
	if (sg->cap_open_top < sg->n_lanes) {
		size_t old = sg->cap_open_top;
		xgrow(&sg->open_top, &sg->cap_open_top, sg->n_lanes, sizeof *sg->open_top);
		for (size_t i = old; i < sg->cap_open_top; i++)
			sg->open_top[i] = BE_NONE;
	}
	if (sg->n_opens >= BE_NONE) {
		sg->ph.rejected++;
		return;
	}
	xgrow(&sg->opens, &sg->cap_opens, sg->n_opens + 1, sizeof *sg->opens);
	sg->opens[sg->n_opens] = (struct be_open){ts, off, name, lane, attr, sg->open_top[lane], false};
	sg->open_top[lane] = (uint32_t)sg->n_opens++;
}

/* The span of a "B" and its "E" as an "X" event at the "B"'s place (its args are the
 * drawer's). */
void trace_seg_push_be_span(struct seg *sg, int64_t b_ts, uint64_t b_full_off, uint32_t name, uint32_t lane,
			 uint32_t attr, int64_t e_ts, uint64_t e_off)
{
	int64_t dur;
	if (__builtin_sub_overflow(e_ts, b_ts, &dur) || dur < 0) {
		trace_seg_warn(sg, W_END_BEFORE_BEGIN, e_off,
			 _("\"E\" event before its \"B\" (at byte %llu); the span is kept with duration 0"),
			 (unsigned long long)b_full_off);
		dur = 0;
	}
	/* the offset is stored as base + off: the "B" may lie in an earlier part */
	seg_push_x(sg, b_ts, dur, name, lane, attr, b_full_off - sg->base);
}

/* An "E" (end) event: closes the innermost open "B" of its lane. */
static void parse_end(struct seg *sg, const struct elem *e, uint64_t off)
{
	int64_t ts;
	uint32_t lane;
	if (!parse_be_common(sg, e, off, 'E', &ts, &lane))
		return;
	uint32_t top = lane < sg->cap_open_top ? sg->open_top[lane] : BE_NONE;
	if (top == BE_NONE) {
		xgrow(&sg->ends, &sg->cap_ends, sg->n_ends + 1, sizeof *sg->ends);
		sg->ends[sg->n_ends++] = (struct be_end){ts, off, lane};
		return;
	}
	struct be_open *b = &sg->opens[top];
	b->closed = true;
	sg->open_top[lane] = b->prev;
	trace_seg_push_be_span(sg, b->ts, sg->base + b->off, b->name, b->lane, b->attr, ts, off);
}

/* The fields of one element into the segment, whichever extractor read them. */
void trace_seg_take_element(struct seg *sg, const struct elem *e, uint64_t off)
{
	char ph = 0;
	const struct espan *p = &e->f[EF_PH];
	/* Only printable ASCII is counted by character: a control byte or DEL is "other" and
	 * never reaches a summary line. */
	if (p->p && p->is_str && p->len == 1 && (unsigned char)p->p[0] > ' ' && (unsigned char)p->p[0] < 0x7f)
		ph = p->p[0];
	sg->cur_off = off;
	if (ph)
		sg->ph.by_char[(unsigned char)ph]++;
	else
		sg->ph.other++;
	switch (ph) {
	case 'X': parse_complete(sg, e, off); break;
	case 'B': parse_begin(sg, e, off); break;
	case 'E': parse_end(sg, e, off); break;
	case 'M': parse_meta(sg, e, off); break;
	case 'C': parse_counter(sg, e, off); break;
	case 's':
	case 'f':
	case 't': parse_flow(sg, e, ph, off); break;
	default: break;
	}
}

/* The reference path: jsmn over a bounded element. */
void trace_seg_parse_element(struct seg *sg, const char *buf, size_t start, size_t end)
{
	const char *js = buf + start;
	size_t len = end - start;
	if (len > (size_t)INT32_MAX) {
		trace_seg_warn(sg, W_BIG, start, _("element of %zu bytes is beyond what can be tokenized; skipped"),
			 len);
		sg->ph.rejected++;
		return;
	}
	if (buf[start] != '{') {
		trace_seg_warn(sg, W_NOT_OBJECT, start, _("array element is not an object; skipped"));
		sg->ph.not_object++;
		return;
	}
	struct elem e;
	int err = 0;
	enum elem_status st = elem_from_jsmn(&sg->jt, js, len, &e, &err);
	char *flat = NULL;
	if (st != ELEM_OK && err == JTOK_ERROR_DEPTH) {
		/* the fields are near the top: read them from a copy whose deep values are
		 * blanked (same offsets), and keep the event (the drawer says what is left out) */
		flat = xmalloc(len);
		memcpy(flat, js, len);
		jtok_flatten_deep(flat, len, JTOK_MAX_DEPTH);
		st = elem_from_jsmn(&sg->jt, flat, len, &e, &err);
		if (st == ELEM_OK)
			trace_seg_warn(sg, W_BAD_JSON, start,
				 _("values nested more than %d deep in an element of %zu bytes; the event is kept without them"),
				 JTOK_MAX_DEPTH, len);
	}
	if (st != ELEM_OK) {
		trace_seg_warn(sg, W_BAD_JSON, start, _("%s in an element of %zu bytes; skipped"), jtok_error_name(err), len);
		sg->ph.rejected++;
		free(flat);
		return;
	}
	trace_seg_take_element(sg, &e, start); /* copies what it keeps: flat may go */
	free(flat);
}
