/* SPDX-License-Identifier: MIT */
/* Chrome-trace loader: parallel element walk, per-thread segments, ordered merge. */
#include "trace.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <unistr.h>

#include "i18n.h"
#include "json_scan.h"
#include "json_tok.h"
#include "trace_elem.h"
#include "lanes.h"
#include "mapguard.h"
#include "num.h"
#include "spill.h"
#include "stagetime.h"
#include "u64map.h"
#include "xalloc.h"
#include "xthread.h"

#define NOT_FOUND ((size_t)-1)
/* Below this size one thread is faster than splitting. */
#define PARALLEL_MIN_BYTES (4u << 20)
#define MAX_THREADS 16
/* A part is walked in one range per thread at first. A thread slowed by others (the CSV
 * tables load beside the traces) would leave the other cores idle at the end, so a
 * thread left without a range asks the busiest one to give it the second half of what
 * it has left (range_split), while that is worth a range more in the merge. Fixed tail
 * ranges (80 % in long ranges, then 12 and 8 %) left the second core idle 10-80 ms at
 * the end of a 1 GB trace's walk; split on demand, 1-22 ms. */
#define MAX_RANGES (MAX_THREADS + 32)
/* A walking thread looks for such a request every this many bytes, and gives half of its
 * rest only when that rest is at least twice SPLIT_MIN_BYTES. */
#define SPLIT_CHECK_BYTES ((size_t)256 << 10)
#define SPLIT_MIN_BYTES ((size_t)4 << 20)
/* Each kind of per-element complaint is listed this many times per range, then counted. */
#define WARN_EACH 5
#define INTERN_CACHE_BITS 9
#define INTERN_CACHE_SIZE (1u << INTERN_CACHE_BITS)
#define LANE_MEMO_BITS 6

static uint64_t pair_key(uint32_t a, uint32_t b) { return ((uint64_t)a << 32) | b; }

/* ---- per-thread segment ------------------------------------------------------------- */

enum meta_kind { META_PROCESS_NAME, META_PROCESS_LABELS, META_PROCESS_SORT, META_THREAD_NAME,
		 META_THREAD_SORT };

struct meta_rec {
	uint32_t pid, tid; /* strtab ids (segment-local until merged) */
	uint32_t str;      /* for names and labels */
	int64_t num;       /* for sort indices */
	uint64_t off;
	const char *file; /* the part it came from, for messages */
	uint8_t kind;
};

struct seg_lane { uint32_t pid, tid; };
struct seg_track { uint32_t pid, name, value_key; };

enum warn_kind { W_BAD_JSON, W_NOT_OBJECT, W_BAD_TS, W_BAD_DUR, W_NEG_DUR, W_NO_TS, W_BIG,
		 W_END_BEFORE_BEGIN, W_END_ALONE, W_NUL, W_TS_EXPONENT, W_KIND_COUNT };

/* "B" events waiting for their "E": a stack per lane, linked through prev (an index, or
 * BE_NONE). What is still open when the segment ends, and the "E" events that found no
 * "B" in it, are paired across segments when they are merged (pair_across_segments). */
#define BE_NONE UINT32_MAX
struct be_open {
	int64_t ts;
	uint64_t off;
	uint32_t name, lane, attr, prev;
	bool closed;
};
struct be_end {
	int64_t ts;
	uint64_t off;
	uint32_t lane;
};

/* Ids of recent (a, b) pairs in front of a u64map: events alternate between a few lanes
 * and attributes, and a look here is cheaper than the map. Keys are kept plus one (0:
 * empty). */
#define PAIR_CACHE_SIZE 16
struct pair_cache {
	uint64_t key[PAIR_CACHE_SIZE];
	uint32_t id[PAIR_CACHE_SIZE];
};

/* True with *id when key is cached; *at is its entry either way. */
static inline bool pair_cache_get(const struct pair_cache *pc, uint64_t key, size_t *at, uint32_t *id)
{
	*at = (size_t)(mix64(key) >> 60);
	*id = pc->id[*at];
	return pc->key[*at] == key + 1;
}

/* The longest "dur" kept: a day. */
#define TRACE_DUR_MAX_NS (INT64_C(86400) * 1000000000)

#define TS_JUMP INT32_MIN /* seg ts_step value: the start is in ts_jumps */

struct seg {
	struct strtab *strs;
	uint64_t base; /* added to stored offsets: the part's place in the rank's offset space */
	/* X, compact as in the store (store.h); offsets as steps from the previous event's */
	size_t n, cap;
	/* starts as steps from the previous event's (in file order they are mostly close);
	 * a step that does not fit in 32 bits is TS_JUMP and the start is in ts_jumps */
	int32_t *ts_step;
	int64_t ts_prev;
	struct ts_jump { uint32_t ev; int64_t ts; } *ts_jumps;
	size_t n_ts_jumps, cap_ts_jumps;
	uint32_t *name, *kind, *dur, *off_step;
	uint64_t off_prev;
	struct long_dur *long_durs;
	size_t n_long, cap_long;
	struct off_jump { uint32_t ev; uint64_t off; } *jumps; /* steps of 4 GB and more */
	size_t n_jumps, cap_jumps;
	struct ev_kind *kinds;
	size_t n_kinds, cap_kinds;
	struct u64map kind_map;
	uint64_t last_kind_key; /* consecutive events mostly share a lane and attributes */
	uint32_t last_kind;
	/* attrs */
	struct ev_attr *attrs;
	size_t n_attrs, cap_attrs;
	struct u64map attr_map;
	struct pair_cache attr_cache;
	/* lanes */
	struct seg_lane *lanes;
	size_t n_lanes, cap_lanes;
	struct u64map lane_map;
	struct pair_cache lane_cache;
	/* C */
	size_t n_ctr, cap_ctr;
	int64_t *ctr_ts;
	double *ctr_value;
	uint32_t *ctr_track;
	uint64_t *ctr_off;
	struct seg_track *tracks;
	size_t n_tracks, cap_tracks;
	struct u64map track_map;
	/* flows, metadata */
	struct flow *flows;
	size_t n_flows, cap_flows;
	struct meta_rec *meta;
	size_t n_meta, cap_meta;
	/* B/E pairs */
	struct be_open *opens;
	size_t n_opens, cap_opens;
	uint32_t *open_top; /* per lane: the innermost open "B", or BE_NONE */
	size_t cap_open_top;
	struct be_end *ends; /* "E" events with no "B" open on their lane in this segment */
	size_t n_ends, cap_ends;
	struct ph_counts ph;
	uint64_t warn_count[W_KIND_COUNT];
	uint64_t cur_off; /* the element being taken, for messages from deep inside */
	/* texts interned lately (names, pids, tids, cats) by their bytes: a few hundred
	 * distinct ones make up nearly every event, and this is cheaper than the table */
	struct intern_cache { uint64_t w0, w1; const char *text; uint32_t len, id; } cache[INTERN_CACHE_SIZE];
	/* lanes of recent (pid, tid) texts by their words (seg_lane_of); lens 0: empty, as
	 * no entry is made for an empty text */
	struct lane_memo { uint64_t p0, p1, t0, t1; uint32_t lens, lane; } lane_memo[1u << LANE_MEMO_BITS];
	/* walk state */
	struct jtok jt;
	struct sbuf scratch;
	const char *name_for_diag;
	/* Messages stay here until the range is confirmed: a range walked from a wrong
	 * guess is discarded with everything it said. */
	struct diag_list local;
};

/* Event i's start from event i - 1's (prev), read in index order; *jump is the next
 * unread entry of ts_jumps. */
static inline int64_t seg_next_ts(const struct seg *sg, size_t i, int64_t prev, size_t *jump)
{
	return sg->ts_step[i] != TS_JUMP ? prev + sg->ts_step[i] : sg->ts_jumps[(*jump)++].ts;
}

static void seg_init(struct seg *sg, const char *name)
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

static void seg_free(struct seg *sg)
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

static void seg_warn(struct seg *sg, enum warn_kind kind, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void seg_warn(struct seg *sg, enum warn_kind kind, uint64_t off, const char *fmt, ...)
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
		seg_warn(sg, W_NUL, sg->cur_off, _("a string holds \\u0000 (\"%.40s\"...): shown as U+FFFD "
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

static uint32_t seg_lane(struct seg *sg, uint32_t pid, uint32_t tid)
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
		return seg_lane(sg, seg_intern(sg, pid), seg_intern(sg, tid));
	uint64_t p0, p1, t0, t1;
	text_words(pid->p, pid->len, &p0, &p1);
	text_words(tid->p, tid->len, &t0, &t1);
	uint32_t lens = pid->len | tid->len << 8;
	uint64_t h = ((p0 ^ p1 * 0x9E3779B97F4A7C15ULL) * 0xFF51AFD7ED558CCDULL) ^ (t0 ^ t1 * 0xC2B2AE3D27D4EB4FULL) ^ lens;
	struct lane_memo *m = &sg->lane_memo[(h * 0x9E3779B97F4A7C15ULL) >> (64 - LANE_MEMO_BITS)];
	if (!((m->p0 ^ p0) | (m->p1 ^ p1) | (m->t0 ^ t0) | (m->t1 ^ t1) | (m->lens ^ lens)))
		return m->lane;
	uint32_t lane = seg_lane(sg, seg_intern(sg, pid), seg_intern(sg, tid));
	*m = (struct lane_memo){p0, p1, t0, t1, lens, lane};
	return lane;
}

static uint32_t seg_attr(struct seg *sg, uint32_t cat, uint32_t task_type)
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
		seg_warn(sg, W_BAD_TS, off, _("\"ts\" is %s (%.*s); event dropped"),
			 st == NUM_RANGE ? "out of range" : "not a number", (int)(t->len > 40 ? 40 : t->len), t->p);
		return false;
	}
	/* 1.7364088836e15 µs holds a tenth of a millisecond at best: the digits are gone */
	if (exponent)
		seg_warn(sg, W_TS_EXPONENT, off, _("\"ts\" in exponent form (%.*s): the digits it dropped "
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
			seg_lane(sg, m.pid, m.tid); /* a named thread is a lane even if empty */
		xgrow(&sg->meta, &sg->cap_meta, sg->n_meta + 1, sizeof *sg->meta);
		sg->meta[sg->n_meta++] = m;
		return;
	}
}

static void parse_counter(struct seg *sg, const struct elem *e, uint64_t off)
{
	int64_t ts;
	if (!e->f[EF_TS].p) {
		seg_warn(sg, W_NO_TS, off, _("counter event without \"ts\"; dropped"));
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
		seg_warn(sg, W_NO_TS, off, _("\"X\" event without \"ts\"; dropped"));
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
			seg_warn(sg, W_BAD_DUR, off, _("\"dur\" is %s (%.*s); kept with duration 0"),
				 st == NUM_RANGE ? "out of range" : "not a number", shown, d->p);
			dur = 0;
		} else if (dur < 0) {
			seg_warn(sg, W_NEG_DUR, off, _("negative \"dur\" (%.*s); kept with duration 0"), shown, d->p);
			dur = 0;
		} else if (dur > TRACE_DUR_MAX_NS) {
			/* no profiled call lasts a day: such a value is a corrupt field, and
			 * keeping it would stretch the window over years */
			seg_warn(sg, W_BAD_DUR, off, _("\"dur\" (%.*s us) is longer than a day; kept with duration 0"),
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
	seg_push_x(sg, ts, dur, name, lane, seg_attr(sg, cat, ttype), off);
}

/* The lane, attributes, start of a "B" or "E" event; false (and counted) without a usable
 * "ts". */
static bool parse_be_common(struct seg *sg, const struct elem *e, uint64_t off, char ph, int64_t *ts,
			    uint32_t *lane)
{
	if (!e->f[EF_TS].p) {
		seg_warn(sg, W_NO_TS, off, _("\"%c\" event without \"ts\"; dropped"), ph);
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
	uint32_t attr = seg_attr(sg, cat, ttype);
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
static void push_be_span(struct seg *sg, int64_t b_ts, uint64_t b_full_off, uint32_t name, uint32_t lane,
			 uint32_t attr, int64_t e_ts, uint64_t e_off)
{
	int64_t dur;
	if (__builtin_sub_overflow(e_ts, b_ts, &dur) || dur < 0) {
		seg_warn(sg, W_END_BEFORE_BEGIN, e_off,
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
	push_be_span(sg, b->ts, sg->base + b->off, b->name, b->lane, b->attr, ts, off);
}

/* The fields of one element into the segment, whichever extractor read them. */
static void take_element(struct seg *sg, const struct elem *e, uint64_t off)
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
static void parse_element(struct seg *sg, const char *buf, size_t start, size_t end)
{
	const char *js = buf + start;
	size_t len = end - start;
	if (len > (size_t)INT32_MAX) {
		seg_warn(sg, W_BIG, start, _("element of %zu bytes is beyond what can be tokenized; skipped"),
			 len);
		sg->ph.rejected++;
		return;
	}
	if (buf[start] != '{') {
		seg_warn(sg, W_NOT_OBJECT, start, _("array element is not an object; skipped"));
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
			seg_warn(sg, W_BAD_JSON, start,
				 _("values nested more than %d deep in an element of %zu bytes; the event is kept without them"),
				 JTOK_MAX_DEPTH, len);
	}
	if (st != ELEM_OK) {
		seg_warn(sg, W_BAD_JSON, start, _("%s in an element of %zu bytes; skipped"), jtok_error_name(err), len);
		sg->ph.rejected++;
		free(flat);
		return;
	}
	take_element(sg, &e, start); /* copies what it keeps: flat may go */
	free(flat);
}

/* ---- range walking ------------------------------------------------------------------ */

/* RANGE_VANISHED: a read faulted, the file shrank while it was read (mapguard.h) */
enum range_end { RANGE_STOPPED, RANGE_ARRAY_END, RANGE_TRUNCATED, RANGE_ERROR, RANGE_EMPTY, RANGE_VANISHED };

struct range_queue;

struct range_job {
	const char *buf;
	size_t len;
	size_t begin;      /* first byte to walk from (element start or after '[') */
	/* elements starting at or after this belong to the next range; lowered by the
	 * walking thread itself when it gives up the rest of its range (range_split) */
	_Atomic size_t stop;
	_Atomic size_t at;          /* how far the walk is, published every SPLIT_CHECK_BYTES */
	_Atomic bool split_wanted;  /* an idle thread asks for the second half of the rest */
	bool running;               /* under the queue's lock */
	struct range_queue *queue;  /* NULL: walked alone (a re-walk), never split */
	struct seg seg;
	enum range_end how;
	size_t next_start; /* RANGE_STOPPED: the first element not walked */
	size_t end_pos;    /* where the walk ended (cut or error offset) */
	size_t last_complete_end;
	unsigned char err_byte; /* RANGE_ERROR: the byte (read while the file was there) */
	uint64_t reported;      /* progress already counted */
	_Atomic uint64_t *progress;
	bool jsmn_only; /* the reference path only (tests) */
	size_t fast;    /* elements the fast scanner read */
};

/* The ranges of one part, handed out in file order to whichever thread is free; split
 * further while they are walked (range_split). Under mu: n, next, and each job's
 * running; cv is signalled when a range is added or ends. */
struct range_queue {
	struct range_job *jobs;
	int n, next, cap, splits;
	size_t split_min, check_bytes; /* SPLIT_MIN_BYTES and SPLIT_CHECK_BYTES but in tests */
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

static void seg_init(struct seg *sg, const char *name);

/* jscan_resync reads the file too: under its own guard */
struct resync_call {
	const char *buf;
	size_t len, guess, at;
};

static void resync_guarded(void *arg)
{
	struct resync_call *rc = arg;
	rc->at = jscan_resync(rc->buf, rc->len, rc->guess);
}

static void job_start(struct range_job *job, const char *name, uint64_t base, size_t begin)
{
	seg_init(&job->seg, name);
	job->seg.base = base;
	job->begin = begin;
	atomic_store_explicit(&job->at, begin, memory_order_relaxed);
}

/* Called by the thread walking job, at pos, when an idle thread asked for work: gives
 * the second half of what is left, from an element start found there, to a new range of
 * the queue; returns the job's stop (lowered when it gave). The thread that walks the
 * job is the only one that moves its stop, so no element is walked twice: if the guess
 * was not an element start after all, the confirmation after the walk re-walks the new
 * range from where this one really stopped, as for the first ranges. */
static size_t range_split(struct range_job *job, size_t pos, size_t stop)
{
	struct range_queue *q = job->queue;
	size_t end = stop < job->len ? stop : job->len;
	size_t nb = NOT_FOUND;
	atomic_store_explicit(&job->split_wanted, false, memory_order_relaxed);
	/* the resync reads the file: outside the lock, and under a guard of its own (a
	 * page vanished ahead is no reason to end this walk where the guess was) */
	struct resync_call rc = {job->buf, job->len, pos + (end - pos) / 2, NOT_FOUND};
	if (end > pos && end - pos >= 2 * q->split_min && mapguard_run(job->buf, job->len, resync_guarded, &rc, NULL))
		nb = rc.at;
	pthread_mutex_lock(&q->mu);
	if (nb != NOT_FOUND && nb > pos && nb < end && q->n < q->cap) {
		struct range_job *nj = &q->jobs[q->n];
		memset(nj, 0, sizeof *nj);
		nj->buf = job->buf;
		nj->len = job->len;
		nj->progress = job->progress;
		nj->jsmn_only = job->jsmn_only;
		nj->queue = q;
		job_start(nj, job->seg.name_for_diag, job->seg.base, nb);
		atomic_store_explicit(&nj->stop, stop, memory_order_relaxed);
		atomic_store_explicit(&job->stop, nb, memory_order_relaxed);
		stop = nb;
		q->n++;
		q->splits++;
	}
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
	return stop;
}

/* Every SPLIT_CHECK_BYTES of the walk: publishes how far it is, and gives half of the rest
 * away when asked. Returns the job's stop. */
static size_t range_checkpoint(struct range_job *job, size_t pos, size_t stop)
{
	atomic_store_explicit(&job->at, pos, memory_order_relaxed);
	if (job->queue && atomic_load_explicit(&job->split_wanted, memory_order_relaxed))
		stop = range_split(job, pos, stop);
	return stop;
}

static void range_walk_body(void *arg)
{
	struct range_job *job = arg;
	struct jscan js = {.buf = job->buf, .len = job->len, .pos = job->begin};
	size_t start, end;
	uint64_t reported = job->begin;
	job->reported = reported;
	job->last_complete_end = job->begin;
	/* read once: the calls below could change them as far as the compiler knows */
	const char *buf = job->buf;
	size_t len = job->len, stop = atomic_load_explicit(&job->stop, memory_order_relaxed);
	size_t check_bytes = job->queue ? job->queue->check_bytes : SPLIT_CHECK_BYTES;
	size_t check_at = job->begin + check_bytes;
	bool fast_ok = !job->jsmn_only;
	for (;;) {
		/* the fast scanner reads an element and finds its end in one pass; anything it is
		 * not sure of goes through the boundary scan and jsmn */
		size_t at = js.pos;
		if (len - at >= 3 && !memcmp(buf + at, ", {", 3)) {
			at += 2; /* between python's elements: no call */
		} else {
			at = jscan_skip_ws(buf, len, at);
			while (at < len && buf[at] == ',')
				at = jscan_skip_ws(buf, len, at + 1);
		}
		if (at >= check_at) {
			check_at = at + check_bytes;
			stop = range_checkpoint(job, at, stop);
		}
		if (fast_ok && at < stop && at < len && buf[at] == '{') {
			struct elem e;
			size_t used;
			if (elem_fast(buf + at, len - at, &e, &used) == ELEM_OK) {
				take_element(&job->seg, &e, at);
				js.pos = at + used;
				job->last_complete_end = js.pos;
				job->fast++;
				if (job->progress && js.pos - reported > (1u << 20)) {
					atomic_fetch_add(job->progress, js.pos - reported);
					job->reported = reported = js.pos;
				}
				continue;
			}
		}
		js.pos = at;
		enum jscan_status st = jscan_next(&js, &start, &end);
		if (st == JSCAN_ELEMENT) {
			if (start >= stop) {
				job->how = RANGE_STOPPED;
				job->next_start = start;
				break;
			}
			parse_element(&job->seg, job->buf, start, end);
			job->last_complete_end = end;
			if (job->progress && end - reported > (1u << 20)) {
				atomic_fetch_add(job->progress, end - reported);
				job->reported = reported = end;
			}
			continue;
		}
		job->end_pos = js.pos;
		job->how = st == JSCAN_END ? RANGE_ARRAY_END
			   : st == JSCAN_TRUNCATED ? RANGE_TRUNCATED
						  : RANGE_ERROR;
		if (job->how == RANGE_ERROR && js.pos < job->len)
			job->err_byte = (unsigned char)job->buf[js.pos];
		break;
	}
}

/* Walks one range; a file that shrinks under the walk ends the range where its bytes
 * vanished, keeping the complete elements before (the segment is only ever appended to
 * after an element's bytes were read). */
static void *range_walk(void *arg)
{
	struct range_job *job = arg;
	size_t fault;
	if (!mapguard_run(job->buf, job->len, range_walk_body, job, &fault)) {
		job->how = RANGE_VANISHED;
		job->end_pos = fault;
	}
	if (job->progress && job->last_complete_end > job->reported)
		atomic_fetch_add(job->progress, job->last_complete_end - job->reported);
	return NULL;
}

/* ---- merge -------------------------------------------------------------------------- */

struct merge_state {
	struct rank_store *rs;
	struct u64map lane_map, attr_map, track_map, kind_map;
	size_t cap_kinds;
	struct meta_rec *meta;
	size_t n_meta, cap_meta;
	size_t cap_lanes, cap_attrs, cap_tracks;
};

static uint32_t global_lane(struct merge_state *ms, uint32_t pid, uint32_t tid)
{
	struct rank_store *rs = ms->rs;
	bool found;
	uint32_t *slot = u64map_slot(&ms->lane_map, pair_key(pid, tid), &found);
	if (!found) {
		xgrow(&rs->lanes, &ms->cap_lanes, rs->n_lanes + 1, sizeof *rs->lanes);
		struct lane *l = &rs->lanes[rs->n_lanes];
		memset(l, 0, sizeof *l);
		l->pid_text = pid;
		l->tid_text = tid;
		l->stream = -1;
		*slot = (uint32_t)rs->n_lanes++;
	}
	return *slot;
}

/* Columns move out of the segments a chunk at a time, each chunk's pages given back once
 * it is copied: moved whole, every column was held twice for a while, the load's peak.
 * The rank's columns are grown lazily (spill.h) and their space written a chunk ahead of
 * the copy, so it takes the pages the chunk before gave back rather than fresh ones.
 * An eighth of the column a chunk: each release is a round of TLB shootdowns on the other
 * cores, so not many more. */
static size_t merge_chunk(size_t n) { return n / 8 > 32768 ? n / 8 : 32768; }
/* Where the chunk that starts at i of n ends. */
static size_t chunk_end(size_t i, size_t n, size_t chunk) { return n - i < chunk ? n : i + chunk; }
/* The rank's column col usable up to element n (see spill_ensure). */
#define ENSURE_COLUMN(col, n) ((col) = spill_ensure((col), (n) * sizeof *(col)))
#define MOVE_COLUMN(dst, at, src, n)                                                       \
	do {                                                                               \
		size_t done_ = 0, chunk_ = merge_chunk(n);                                 \
		for (size_t o_ = 0; o_ < (n); o_ += chunk_) {                              \
			size_t c_ = chunk_end(o_, (n), chunk_) - o_;                       \
			ENSURE_COLUMN(dst, (at) + o_ + c_);                                \
			memcpy((dst) + (at) + o_, (src) + o_, c_ * sizeof *(src));         \
			done_ = spill_release((src), done_, (o_ + c_) * sizeof *(src));   \
		}                                                                          \
		spill_free(src);                                                           \
		(src) = NULL;                                                              \
	} while (0)
#define MAP_COLUMN(dst, at, src, n, map)                                                   \
	do {                                                                               \
		size_t done_ = 0, chunk_ = merge_chunk(n);                                 \
		for (size_t o_ = 0; o_ < (n); o_ += chunk_) {                              \
			size_t c_ = chunk_end(o_, (n), chunk_) - o_;                       \
			ENSURE_COLUMN(dst, (at) + o_ + c_);                                \
			for (size_t i_ = o_; i_ < o_ + c_; i_++)                           \
				(dst)[(at) + i_] = (map)[(src)[i_]];                       \
			done_ = spill_release((src), done_, (o_ + c_) * sizeof *(src));   \
		}                                                                          \
		spill_free(src);                                                           \
		(src) = NULL;                                                              \
	} while (0)

#define MAP_IN_PLACE(col, n, map)                             \
	do {                                                  \
		for (size_t i_ = 0; i_ < (n); i_++)           \
			(col)[i_] = (map)[(col)[i_]];         \
	} while (0)
/* The first segment's columns become the rank's, grown in place: realloc of a large block
 * remaps its pages rather than copying them, so only the later segments are copied. */
#define ADOPT_COLUMN(dst, src, total)                                                   \
	do {                                                                            \
		(dst) = spill_realloc_lazy((src), ((total) ? (total) : 1) * sizeof *(src)); \
		(src) = NULL;                                                           \
	} while (0)

static struct flow map_flow(struct flow fl, const uint32_t *smap, const uint32_t *lmap)
{
	fl.lane = lmap[fl.lane];
	/* cat has 29 bits: half a billion distinct strings cannot fit in memory anyway */
	fl.cat = smap[fl.cat] < (1u << 29) ? smap[fl.cat] : 0;
	if (fl.id_is_text)
		fl.id = smap[fl.id];
	return fl;
}

/* A segment's local ids (strings, lanes, attribute pairs, kinds, counter tracks) mapped to
 * the rank's: made in file order, so ids come out the same whatever the threads. */
struct seg_maps {
	uint32_t *smap, *lmap, *amap, *kmap, *tmap;
	size_t ev_at, ctr_at; /* where the segment's events and counters go */
	bool adopted;         /* the rank's columns are this segment's own (see ADOPT_COLUMN) */
};

static void seg_maps_build(struct merge_state *ms, struct seg *sg, struct seg_maps *maps)
{
	struct rank_store *rs = ms->rs;
	uint32_t nstr = strtab_count(sg->strs);
	uint32_t *smap = xmalloc((nstr ? nstr : 1) * sizeof *smap);
	for (uint32_t i = 0; i < nstr; i++)
		smap[i] = strtab_intern(rs->strs, strtab_str(sg->strs, i), strtab_len(sg->strs, i));

	uint32_t *lmap = xmalloc((sg->n_lanes ? sg->n_lanes : 1) * sizeof *lmap);
	for (size_t i = 0; i < sg->n_lanes; i++)
		lmap[i] = global_lane(ms, smap[sg->lanes[i].pid], smap[sg->lanes[i].tid]);

	uint32_t *amap = xmalloc(sg->n_attrs * sizeof *amap);
	for (size_t i = 0; i < sg->n_attrs; i++) {
		uint32_t cat = smap[sg->attrs[i].cat], tt = smap[sg->attrs[i].task_type];
		bool found;
		uint32_t *slot = u64map_slot(&ms->attr_map, pair_key(cat, tt), &found);
		if (!found) {
			xgrow(&rs->attrs, &ms->cap_attrs, rs->n_attrs + 1, sizeof *rs->attrs);
			rs->attrs[rs->n_attrs] = (struct ev_attr){cat, tt};
			*slot = (uint32_t)rs->n_attrs++;
		}
		amap[i] = *slot;
	}

	uint32_t *kmap = xmalloc((sg->n_kinds ? sg->n_kinds : 1) * sizeof *kmap);
	for (size_t i = 0; i < sg->n_kinds; i++) {
		uint32_t lane = lmap[sg->kinds[i].lane], attr = amap[sg->kinds[i].attr];
		bool found;
		uint32_t *slot = u64map_slot(&ms->kind_map, pair_key(lane, attr), &found);
		if (!found) {
			xgrow(&rs->kinds, &ms->cap_kinds, rs->n_kinds + 1, sizeof *rs->kinds);
			rs->kinds[rs->n_kinds] = (struct ev_kind){lane, attr};
			*slot = (uint32_t)rs->n_kinds++;
		}
		kmap[i] = *slot;
	}

	uint32_t *tmap = xmalloc((sg->n_tracks ? sg->n_tracks : 1) * sizeof *tmap);
	for (size_t i = 0; i < sg->n_tracks; i++) {
		uint32_t pid = smap[sg->tracks[i].pid], name = smap[sg->tracks[i].name];
		bool found;
		uint32_t *slot = u64map_slot(&ms->track_map, pair_key(pid, name), &found);
		if (!found) {
			xgrow(&rs->tracks, &ms->cap_tracks, rs->n_tracks + 1, sizeof *rs->tracks);
			struct counter_track *t = &rs->tracks[rs->n_tracks];
			memset(t, 0, sizeof *t);
			t->pid_text = pid;
			t->name = name;
			t->value_key = smap[sg->tracks[i].value_key];
			*slot = (uint32_t)rs->n_tracks++;
		}
		tmap[i] = *slot;
	}

	for (size_t i = 0; i < sg->n_meta; i++) {
		struct meta_rec m = sg->meta[i];
		m.pid = smap[m.pid];
		m.tid = smap[m.tid];
		m.str = smap[m.str];
		if (m.kind == META_THREAD_NAME || m.kind == META_THREAD_SORT)
			global_lane(ms, m.pid, m.tid);
		xgrow(&ms->meta, &ms->cap_meta, ms->n_meta + 1, sizeof *ms->meta);
		ms->meta[ms->n_meta++] = m;
	}
	for (int k = 0; k < 128; k++)
		rs->ph.by_char[k] += sg->ph.by_char[k];
	rs->ph.other += sg->ph.other;
	rs->ph.not_object += sg->ph.not_object;
	rs->ph.rejected += sg->ph.rejected;

	maps->smap = smap;
	maps->lmap = lmap;
	maps->amap = amap;
	maps->kmap = kmap;
	maps->tmap = tmap;
}

static void seg_maps_free(struct seg_maps *m)
{
	free(m->smap);
	free(m->lmap);
	free(m->amap);
	free(m->kmap);
	free(m->tmap);
}

/* The columns of the segments, in three jobs that share no column (merge_worker): times
 * and offsets, ids, flows. Each segment column is freed once copied; the rank's columns
 * are grown lazily, so pages become resident only as they are written. */
struct merge_columns {
	struct rank_store *rs;
	struct seg **segs;
	struct seg_maps *maps;
	size_t n_segs;
};

static void *merge_times_offsets(void *arg)
{
	struct merge_columns *mc = arg;
	struct rank_store *rs = mc->rs;
	/* the starts' blocks and far blocks first: a block may span two segments */
	int64_t *ts_hi = store_ts_begin(rs);
	for (size_t k = 0, ev = 0; k < mc->n_segs; k++) {
		const struct seg *sg = mc->segs[k];
		int64_t ts = 0;
		for (size_t i = 0, j = 0; i < sg->n; i++, ev++) {
			ts = seg_next_ts(sg, i, ts, &j);
			store_ts_bound(rs, ts_hi, ev, ts);
		}
	}
	store_ts_plan(rs, ts_hi);
	for (size_t k = 0; k < mc->n_segs; k++) {
		struct seg *sg = mc->segs[k];
		size_t at = mc->maps[k].ev_at, c = mc->maps[k].ctr_at;
		/* offsets: the steps summed back, re-based on the rank's blocks */
		uint64_t off = 0;
		size_t done_off = 0, chunk = merge_chunk(sg->n);
		for (size_t i = 0, j = 0; i < sg->n; i++) {
			if (i % chunk == 0)
				ENSURE_COLUMN(rs->ev_off_lo, at + chunk_end(i, sg->n, chunk));
			uint32_t step = sg->off_step[i];
			off = step != UINT32_MAX ? off + step : sg->jumps[j++].off;
			store_put_off(rs, at + i, off);
			if ((i + 1) % chunk == 0)
				done_off = spill_release(sg->off_step, done_off, (i + 1) * sizeof *sg->off_step);
		}
		spill_free(sg->off_step);
		sg->off_step = NULL;
		int64_t ts = 0;
		size_t done = 0;
		for (size_t i = 0, j = 0; i < sg->n; i++) {
			if (i % chunk == 0)
				ENSURE_COLUMN(rs->ev_ts_lo, at + chunk_end(i, sg->n, chunk));
			ts = seg_next_ts(sg, i, ts, &j);
			store_put_ts(rs, at + i, ts);
			if ((i + 1) % chunk == 0)
				done = spill_release(sg->ts_step, done, (i + 1) * sizeof *sg->ts_step);
		}
		spill_free(sg->ts_step);
		sg->ts_step = NULL;
		for (size_t i = 0; i < sg->n_long; i++)
			rs->long_durs[rs->n_long_durs++] =
				(struct long_dur){(uint32_t)(at + sg->long_durs[i].ev), sg->long_durs[i].dur};
		if (!mc->maps[k].adopted) {
			MOVE_COLUMN(rs->ev_dur, at, sg->dur, sg->n);
			MOVE_COLUMN(rs->ctr_ts, c, sg->ctr_ts, sg->n_ctr);
			MOVE_COLUMN(rs->ctr_value, c, sg->ctr_value, sg->n_ctr);
			MOVE_COLUMN(rs->ctr_off, c, sg->ctr_off, sg->n_ctr);
		}
	}
	/* every column written to its end (the last chunk did): a guard, free when so */
	ENSURE_COLUMN(rs->ev_off_lo, rs->n_ev);
	ENSURE_COLUMN(rs->ev_ts_lo, rs->n_ev);
	ENSURE_COLUMN(rs->ev_dur, rs->n_ev);
	ENSURE_COLUMN(rs->ctr_ts, rs->n_ctr);
	ENSURE_COLUMN(rs->ctr_value, rs->n_ctr);
	ENSURE_COLUMN(rs->ctr_off, rs->n_ctr);
	return NULL;
}

static void *merge_ids(void *arg)
{
	struct merge_columns *mc = arg;
	struct rank_store *rs = mc->rs;
	for (size_t k = 0; k < mc->n_segs; k++) {
		struct seg *sg = mc->segs[k];
		const struct seg_maps *m = &mc->maps[k];
		size_t at = m->ev_at, c = m->ctr_at;
		if (m->adopted) {
			MAP_IN_PLACE(rs->ev_name, sg->n, m->smap);
			MAP_IN_PLACE(rs->ev_kind, sg->n, m->kmap);
			MAP_IN_PLACE(rs->ctr_track, sg->n_ctr, m->tmap);
		} else {
			MAP_COLUMN(rs->ev_name, at, sg->name, sg->n, m->smap);
			MAP_COLUMN(rs->ev_kind, at, sg->kind, sg->n, m->kmap);
			MAP_COLUMN(rs->ctr_track, c, sg->ctr_track, sg->n_ctr, m->tmap);
		}
	}
	ENSURE_COLUMN(rs->ev_name, rs->n_ev);
	ENSURE_COLUMN(rs->ev_kind, rs->n_ev);
	ENSURE_COLUMN(rs->ctr_track, rs->n_ctr);
	return NULL;
}

static void *merge_flows(void *arg)
{
	struct merge_columns *mc = arg;
	struct rank_store *rs = mc->rs;
	for (size_t k = 0; k < mc->n_segs; k++) {
		struct seg *sg = mc->segs[k];
		const struct seg_maps *m = &mc->maps[k];
		if (m->adopted) {
			for (size_t i = 0; i < sg->n_flows; i++)
				rs->flows[i] = map_flow(rs->flows[i], m->smap, m->lmap);
			rs->n_flows = sg->n_flows;
			continue;
		}
		size_t done = 0, chunk = merge_chunk(sg->n_flows);
		for (size_t i = 0; i < sg->n_flows; i++) {
			if (i % chunk == 0)
				ENSURE_COLUMN(rs->flows, rs->n_flows - i + chunk_end(i, sg->n_flows, chunk));
			rs->flows[rs->n_flows++] = map_flow(sg->flows[i], m->smap, m->lmap);
			if ((i + 1) % chunk == 0)
				done = spill_release(sg->flows, done, (i + 1) * sizeof *sg->flows);
		}
		spill_free(sg->flows);
		sg->flows = NULL;
	}
	ENSURE_COLUMN(rs->flows, rs->n_flows);
	return NULL;
}

/* The merge's jobs share no column; two threads take them biggest first (the flows, then
 * the times and offsets with the starts' layout, then the ids), whichever is free. Split
 * in two halves (times and offsets, ids and flows), the second ran 40 ms alone on the 1 GB
 * capture. */
struct merge_queue {
	struct merge_columns *mc;
	_Atomic int next;
};

static void *merge_worker(void *arg)
{
	static void *(*const jobs[])(void *) = {merge_flows, merge_times_offsets, merge_ids};
	struct merge_queue *q = arg;
	for (int i; (i = atomic_fetch_add(&q->next, 1)) < (int)(sizeof jobs / sizeof jobs[0]);)
		jobs[i](q->mc);
	return NULL;
}

/* Applies process/thread metadata in file order (the last record wins, a change of a
 * process's name is reported). */
static void apply_meta(struct merge_state *ms, const char *name, struct diag_list *dl)
{
	struct rank_store *rs = ms->rs;
	/* pid -> first lane index is not enough (a pid has many lanes): use a pid map to a
	 * record of process fields, then copy onto each lane. */
	struct proc { uint32_t pid, name, labels; int64_t sort; bool has_sort; };
	struct proc *procs = NULL;
	size_t n_procs = 0, cap_procs = 0;
	struct u64map pmap = {0};
	size_t renamed = 0;
	for (size_t i = 0; i < ms->n_meta; i++) {
		const struct meta_rec *m = &ms->meta[i];
		if (m->kind <= META_PROCESS_SORT) {
			bool found;
			uint32_t *slot = u64map_slot(&pmap, m->pid, &found);
			if (!found) {
				xgrow(&procs, &cap_procs, n_procs + 1, sizeof *procs);
				procs[n_procs] = (struct proc){m->pid, 0, 0, 0, false};
				*slot = (uint32_t)n_procs++;
			}
			struct proc *p = &procs[*slot];
			if (m->kind == META_PROCESS_NAME) {
				if (p->name && p->name != m->str && renamed++ < WARN_EACH)
					diag_add(dl, DIAG_WARN, m->file, 0, (int64_t)m->off,
						 _("process %s is named both \"%s\" and \"%s\"; the later name is used"),
						 store_str(rs, m->pid), store_str(rs, p->name),
						 store_str(rs, m->str));
				p->name = m->str;
			} else if (m->kind == META_PROCESS_LABELS) {
				p->labels = m->str;
			} else {
				p->sort = m->num;
				p->has_sort = true;
			}
		} else {
			const uint32_t *slot = u64map_get(&ms->lane_map, pair_key(m->pid, m->tid));
			if (!slot)
				continue;
			struct lane *l = &rs->lanes[*slot];
			if (m->kind == META_THREAD_NAME)
				l->thread_name = m->str;
			else {
				l->thread_sort = m->num;
				l->has_thread_sort = true;
			}
		}
	}
	for (size_t i = 0; i < rs->n_lanes; i++) {
		struct lane *l = &rs->lanes[i];
		const uint32_t *p = u64map_get(&pmap, l->pid_text);
		if (!p)
			continue;
		l->process_name = procs[*p].name;
		l->process_labels = procs[*p].labels;
		l->process_sort = procs[*p].sort;
		l->has_process_sort = procs[*p].has_sort;
	}
	for (size_t i = 0; i < rs->n_tracks; i++) {
		const uint32_t *p = u64map_get(&pmap, rs->tracks[i].pid_text);
		if (p)
			rs->tracks[i].process_name = procs[*p].name;
	}
	free(procs);
	u64map_free(&pmap);
}

/* Names that are not UTF-8 are kept as bytes and shown escaped; said once per file, at
 * the first event named with one (or whose lane is). */
static void report_bad_utf8(const struct rank_store *rs, const char *name, struct diag_list *dl)
{
	uint32_t n = strtab_count(rs->strs);
	uint8_t *bad = NULL;
	size_t n_bad = 0;
	for (uint32_t id = 1; id < n; id++)
		if (u8_check((const uint8_t *)strtab_str(rs->strs, id), strtab_len(rs->strs, id))) {
			if (!bad)
				bad = xcalloc(n, 1);
			bad[id] = 1;
			n_bad++;
		}
	if (!n_bad)
		return;
	int64_t off = -1;
	for (size_t e = 0; e < rs->n_ev && off < 0; e++) {
		const struct lane *l = store_ev_lane(rs, e);
		if (bad[rs->ev_name[e]] || bad[l->process_name] || bad[l->thread_name] || bad[l->pid_text])
			off = (int64_t)store_ev_off(rs, e);
	}
	diag_add(dl, DIAG_WARN, name, 0, off,
		 _("%zu name(s) are not valid UTF-8%s; their bad bytes are shown as \\xNN"), n_bad,
		 off >= 0 ? _(" (the first event with one starts here)") : "");
	free(bad);
}

/* ---- entry points ------------------------------------------------------------------- */

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Hands a confirmed range's messages on, then its counts of what was not listed. */
static void report_seg_counts(const struct seg *sg, const char *name, struct diag_list *dl)
{
	diag_append(dl, &sg->local);
	static const char *what[W_KIND_COUNT] = {
		[W_BAD_JSON] = N_("invalid elements"), [W_NOT_OBJECT] = N_("non-object elements"),
		[W_BAD_TS] = N_("unusable \"ts\" values"), [W_BAD_DUR] = N_("unusable \"dur\" values"),
		[W_NEG_DUR] = N_("negative \"dur\" values"), [W_NO_TS] = N_("events without \"ts\""),
		[W_BIG] = N_("oversized elements"), [W_END_BEFORE_BEGIN] = N_("\"E\" events before their \"B\""),
		[W_END_ALONE] = N_("\"E\" events without a \"B\""), [W_NUL] = N_("strings with \\u0000"),
		[W_TS_EXPONENT] = N_("\"ts\" values in exponent form"),
	};
	for (int k = 0; k < W_KIND_COUNT; k++)
		if (sg->warn_count[k] > WARN_EACH)
			diag_add(dl, DIAG_WARN, name, 0, -1, _("%llu more %s than listed above"),
				 (unsigned long long)(sg->warn_count[k] - WARN_EACH), _(what[k]));
}

/* One buffer's walk: its ranges, each confirmed to start where the one before ended. */
struct part_walk {
	const char *name;
	const char *buf;
	size_t len;
	bool mapped;         /* a file's pages, which vanish if it shrinks */
	bool wrapped;        /* the array is a wrapper object's "traceEvents" */
	struct range_job slots[MAX_RANGES]; /* the ranges, in the order they were made */
	struct range_job *jobs[MAX_RANGES]; /* the same in file order */
	int used;            /* confirmed ranges; 0 when the buffer is not a trace */
	size_t n_ev, n_ctr;  /* what the confirmed ranges hold */
};

static bool jsmn_only_wanted(const struct trace_load_opts *opts)
{
	/* ASCPROF_JSMN_ONLY=1 reads with the reference tokenizer alone (comparisons) */
	const char *env = getenv("ASCPROF_JSMN_ONLY");
	return (opts && opts->jsmn_only) || (env && !strcmp(env, "1"));
}

/* The running range with the most left to walk, if that is worth a split; under q->mu. */
static struct range_job *busiest_range(struct range_queue *q)
{
	struct range_job *best = NULL;
	size_t most = 0;
	for (int i = 0; i < q->next; i++) {
		struct range_job *job = &q->jobs[i];
		if (!job->running)
			continue;
		size_t stop = atomic_load_explicit(&job->stop, memory_order_relaxed);
		size_t at = atomic_load_explicit(&job->at, memory_order_relaxed);
		size_t end = stop < job->len ? stop : job->len;
		/* a split gives half of the rest, and the rest shrinks until the walker looks */
		if (end > at && end - at >= 2 * q->split_min + q->check_bytes && end - at > most) {
			most = end - at;
			best = job;
		}
	}
	return best;
}

/* Takes ranges in file order; with none left, asks the busiest walker for half of its
 * rest and waits for it, until no walker has enough left to be worth it. */
static void *range_worker(void *arg)
{
	struct range_queue *q = arg;
	pthread_mutex_lock(&q->mu);
	for (;;) {
		if (q->next < q->n) {
			struct range_job *job = &q->jobs[q->next++];
			job->running = true;
			pthread_mutex_unlock(&q->mu);
			range_walk(job);
			pthread_mutex_lock(&q->mu);
			job->running = false;
			pthread_cond_broadcast(&q->cv);
			continue;
		}
		struct range_job *victim = q->n < q->cap ? busiest_range(q) : NULL;
		if (!victim)
			break;
		atomic_store_explicit(&victim->split_wanted, true, memory_order_relaxed);
		pthread_cond_wait(&q->cv, &q->mu);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

/* jscan_open reads the file too: under its own guard */
struct open_call {
	struct jscan *js;
	const char *buf;
	size_t len;
	char *err;
	size_t errlen;
	bool ok;
};

static void open_guarded(void *arg)
{
	struct open_call *oc = arg;
	oc->ok = jscan_open(oc->js, oc->buf, oc->len, oc->err, oc->errlen);
}

static bool walk_part(struct rank_store *rs, struct part_walk *pw, uint64_t base,
		      const struct trace_load_opts *opts, struct diag_list *dl)
{
	const char *buf = pw->buf;
	size_t len = pw->len;
	char err[256];
	struct jscan js;
	struct open_call oc = {&js, buf, len, err, sizeof err, false};
	size_t fault;
	if (!mapguard_run(buf, len, open_guarded, &oc, &fault)) {
		diag_add(dl, DIAG_ERROR, pw->name, 0, (int64_t)fault,
			 _("the file shrank while it was read (its bytes from this offset on are gone); "
			 "nothing loaded"));
		return false;
	}
	if (!oc.ok) {
		diag_add(dl, DIAG_ERROR, pw->name, 0, -1, _("not a Chrome trace: %s; nothing loaded"), err);
		return false;
	}
	rs->trace.wrapped |= js.shape == JSCAN_WRAPPED;
	pw->wrapped = js.shape == JSCAN_WRAPPED;

	int nthreads = opts && opts->threads > 0 ? opts->threads : xthread_cpus();
	if (nthreads > MAX_THREADS)
		nthreads = MAX_THREADS;
	if (len < PARALLEL_MIN_BYTES)
		nthreads = 1;
	size_t body = js.pos;
	struct range_job *slots = pw->slots, **jobs = pw->jobs;
	/* one range per thread to start with; a thread that ends first takes half of what
	 * another has left (range_split) */
	int nranges = opts && opts->initial_ranges > 0 && opts->initial_ranges < nthreads ? opts->initial_ranges
											 : nthreads;
	int njobs = 0;
	size_t prev_begin = body;
	struct range_queue q = {.jobs = slots, .cap = MAX_RANGES, .split_min = SPLIT_MIN_BYTES,
				.check_bytes = SPLIT_CHECK_BYTES};
	if (opts && opts->split_min_bytes) {
		q.split_min = opts->split_min_bytes;
		q.check_bytes = q.split_min / 4 ? q.split_min / 4 : 1;
	}
	for (int i = 0; i < nranges; i++) {
		size_t begin;
		if (i == 0) {
			begin = body;
		} else {
			struct resync_call rc = {
				buf, len, body + (size_t)((unsigned __int128)(len - body) * (unsigned)i / (unsigned)nranges),
				NOT_FOUND};
			if (!mapguard_run(buf, len, resync_guarded, &rc, NULL))
				break; /* the file shrank: the ranges so far cover what is left */
			begin = rc.at;
			if (begin == NOT_FOUND || begin <= prev_begin)
				break;
		}
		struct range_job *job = &slots[njobs++];
		memset(job, 0, sizeof *job);
		job->buf = buf;
		job->len = len;
		job->stop = len + 1;
		job->progress = opts ? opts->progress : NULL;
		job->jsmn_only = jsmn_only_wanted(opts);
		job->queue = nthreads > 1 ? &q : NULL;
		job_start(job, pw->name, base, begin);
		if (njobs > 1)
			slots[njobs - 2].stop = begin;
		prev_begin = begin;
	}
	int workers = nthreads;
	if (workers > rs->trace.threads_used)
		rs->trace.threads_used = workers;
	q.n = njobs;
	pthread_mutex_init(&q.mu, NULL);
	pthread_cond_init(&q.cv, NULL);
	pthread_t tids[MAX_THREADS];
	bool started[MAX_THREADS] = {false};
	for (int i = 1; i < workers; i++)
		started[i] = pthread_create(&tids[i], NULL, range_worker, &q) == 0;
	range_worker(&q);
	for (int i = 1; i < workers; i++)
		if (started[i])
			pthread_join(tids[i], NULL);
	pthread_mutex_destroy(&q.mu);
	pthread_cond_destroy(&q.cv);
	/* ranges split off while walking were added at the end: in file order */
	njobs = q.n;
	rs->trace.split_ranges += q.splits;
	for (int i = 0; i < njobs; i++) {
		slots[i].queue = NULL; /* a re-walk below is not split */
		int k = i;
		for (; k > 0 && jobs[k - 1]->begin > slots[i].begin; k--)
			jobs[k] = jobs[k - 1];
		jobs[k] = &slots[i];
	}
	/* Confirm each guessed boundary against the exact walk before it; re-walk a range
	 * from the exact boundary when the guess was wrong (e.g. "}, {" inside a string). */
	int used = 1;
	for (int i = 1; i < njobs; i++) {
		struct range_job *prev = jobs[used - 1];
		if (prev->how != RANGE_STOPPED)
			break; /* the array ended, was cut or broke before this range */
		struct range_job *job = jobs[i];
		if (prev->next_start != job->begin) {
			seg_free(&job->seg);
			job_start(job, pw->name, base, prev->next_start);
			range_walk(job);
			rs->trace.rewalked_ranges++;
		}
		used = i + 1;
	}
	for (int i = used; i < njobs; i++)
		seg_free(&jobs[i]->seg);
	pw->used = used;
	for (int i = 0; i < used; i++) {
		pw->n_ev += jobs[i]->seg.n;
		pw->n_ctr += jobs[i]->seg.n_ctr;
		rs->trace.fast_elements += jobs[i]->fast;
	}
	return true;
}

/* What follows the events' closing ']': a bare array ends there, and a wrapper object has
 * other keys, but no second "traceEvents". */
struct tail_call {
	const char *buf;
	size_t len, from;
	bool wrapped;
	size_t extra_at, second_at; /* NOT_FOUND when none */
};

static void tail_scan(void *arg)
{
	struct tail_call *tc = arg;
	size_t at = jscan_skip_ws(tc->buf, tc->len, tc->from);
	tc->extra_at = tc->second_at = NOT_FOUND;
	if (!tc->wrapped) {
		if (at < tc->len)
			tc->extra_at = at;
		return;
	}
	static const char key[] = "\"traceEvents\"";
	const char *k = memmem(tc->buf + at, tc->len - at, key, sizeof key - 1);
	if (k)
		tc->second_at = (size_t)(k - tc->buf);
}

static void report_tail(struct part_walk *pw, size_t end, struct diag_list *dl)
{
	struct tail_call tc = {pw->buf, pw->len, end, pw->wrapped, NOT_FOUND, NOT_FOUND};
	if (!mapguard_run(pw->buf, pw->len, tail_scan, &tc, NULL))
		return; /* shrank meanwhile: nothing after the events to speak of */
	if (tc.extra_at != NOT_FOUND)
		diag_add(dl, DIAG_WARN, pw->name, 0, (int64_t)tc.extra_at,
			 _("%zu bytes after the closing ']' of the events are not read"), pw->len - tc.extra_at);
	if (tc.second_at != NOT_FOUND)
		diag_add(dl, DIAG_WARN, pw->name, 0, (int64_t)tc.second_at,
			 _("a second \"traceEvents\" key after the events that were read; its events are "
			 "not read (only the first array is)"));
}

/* Says how the part ended when it did not end with its closing bracket. */
static void report_part_end(struct rank_store *rs, struct part_walk *pw, struct trace_part *part,
			    struct diag_list *dl)
{
	struct range_job *last = pw->jobs[pw->used - 1];
	size_t len = pw->len;
	rs->trace.parsed_bytes += last->last_complete_end;
	if (last->how == RANGE_ARRAY_END)
		report_tail(pw, last->end_pos, dl);
	if (last->how == RANGE_ARRAY_END || last->how == RANGE_STOPPED)
		return;
	part->truncated = true;
	if (!rs->trace.truncated) {
		rs->trace.truncated = true;
		rs->trace.cut_offset = (int64_t)last->end_pos;
	}
	/* a file cut while it was read ends in a fault, or in the zeros of its last page */
	struct stat st;
	if (pw->mapped && stat(pw->name, &st) == 0 && (uint64_t)st.st_size < len) {
		diag_add(dl, DIAG_WARN, pw->name, 0, (int64_t)last->last_complete_end,
			 _("the file shrank while it was read (from %zu to %llu bytes): kept %zu events and "
			 "%zu counter samples from the complete elements before byte %zu; the rest was "
			 "not read"),
			 len, (unsigned long long)st.st_size, pw->n_ev, pw->n_ctr, last->last_complete_end);
		return;
	}
	if (last->how == RANGE_VANISHED)
		diag_add(dl, DIAG_WARN, pw->name, 0, (int64_t)last->end_pos,
			 _("the file shrank while it was read (its bytes from this offset on are gone): "
			 "kept %zu events and %zu counter samples from the complete elements before byte "
			 "%zu; the rest was not read"),
			 pw->n_ev, pw->n_ctr, last->last_complete_end);
	else if (last->how == RANGE_ERROR)
		diag_add(dl, DIAG_WARN, pw->name, 0, (int64_t)last->end_pos,
			 _("unexpected byte 0x%02X between elements: kept the %zu events before it, "
			 "ignored the remaining %zu bytes"),
			 last->err_byte, pw->n_ev, len - last->end_pos);
	else
		diag_add(dl, DIAG_WARN, pw->name, 0, (int64_t)last->end_pos,
			 _("the file is cut short (no closing ']'): kept %zu events and %zu counter samples "
			 "from the complete elements before byte %zu; %zu trailing bytes dropped"),
			 pw->n_ev, pw->n_ctr, last->last_complete_end, len - last->last_complete_end);
}

/* "B" events still open at the end of a segment, carried to the next ones by their lane's
 * texts (segments intern separately). */
struct be_carried {
	int64_t ts;
	uint64_t full_off, off;
	const char *name, *cat, *task_type, *file; /* the earlier segment's, alive until merged */
	uint32_t prev;
};

/* Pairs the "E" events each segment could not close with the "B" events earlier segments
 * left open, in file order; the spans join the segment of the "E". What stays unpaired is
 * reported. */
static void pair_across_segments(struct part_walk *pws, size_t n_parts, struct diag_list *dl)
{
	struct strtab *texts = strtab_new();
	struct u64map tops = {0};
	struct be_carried *open = NULL;
	size_t n_open = 0, cap_open = 0;
	for (size_t p = 0; p < n_parts; p++)
		for (int i = 0; i < pws[p].used; i++) {
			struct seg *sg = &pws[p].jobs[i]->seg;
			for (size_t k = 0; k < sg->n_ends; k++) {
				const struct be_end *en = &sg->ends[k];
				const struct seg_lane *ln = &sg->lanes[en->lane];
				uint64_t key = pair_key(strtab_intern_cstr(texts, strtab_str(sg->strs, ln->pid)),
							strtab_intern_cstr(texts, strtab_str(sg->strs, ln->tid)));
				bool found;
				uint32_t *top = u64map_slot(&tops, key, &found);
				if (!found)
					*top = BE_NONE;
				if (*top == BE_NONE) {
					seg_warn(sg, W_END_ALONE, en->off,
						 _("\"E\" event with no \"B\" open on its thread (pid %s, tid %s); dropped"),
						 strtab_str(sg->strs, ln->pid), strtab_str(sg->strs, ln->tid));
					continue;
				}
				struct be_carried *b = &open[*top];
				*top = b->prev;
				uint32_t attr = seg_attr(sg, strtab_intern_cstr(sg->strs, b->cat),
							 strtab_intern_cstr(sg->strs, b->task_type));
				push_be_span(sg, b->ts, b->full_off, strtab_intern_cstr(sg->strs, b->name), en->lane,
					     attr, en->ts, en->off);
				b->file = NULL; /* closed */
			}
			for (size_t k = 0; k < sg->n_opens; k++) {
				const struct be_open *o = &sg->opens[k];
				if (o->closed)
					continue;
				const struct seg_lane *ln = &sg->lanes[o->lane];
				uint64_t key = pair_key(strtab_intern_cstr(texts, strtab_str(sg->strs, ln->pid)),
							strtab_intern_cstr(texts, strtab_str(sg->strs, ln->tid)));
				bool found;
				uint32_t *top = u64map_slot(&tops, key, &found);
				xgrow(&open, &cap_open, n_open + 1, sizeof *open);
				open[n_open] = (struct be_carried){o->ts, sg->base + o->off, o->off,
								   strtab_str(sg->strs, o->name),
								   strtab_str(sg->strs, sg->attrs[o->attr].cat),
								   strtab_str(sg->strs, sg->attrs[o->attr].task_type),
								   sg->name_for_diag, found ? *top : BE_NONE};
				*top = (uint32_t)n_open++;
			}
		}
	size_t unclosed = 0;
	for (size_t k = 0; k < n_open; k++) {
		if (!open[k].file)
			continue;
		if (unclosed++ < WARN_EACH)
			diag_add(dl, DIAG_WARN, open[k].file, 0, (int64_t)open[k].off,
				 _("\"B\" event (\"%.60s\") never ended by an \"E\" on its thread; dropped"), open[k].name);
	}
	if (unclosed > WARN_EACH)
		diag_add(dl, DIAG_WARN, pws[0].name, 0, -1, _("%zu more \"B\" events never ended than listed above"),
			 unclosed - WARN_EACH);
	free(open);
	u64map_free(&tops);
	strtab_free(texts);
}

/* The parts a load mapped, unmapped (their buf then NULL). */
struct unmap_job {
	struct part_walk *pws;
	size_t n;
};

static void *unmap_parts(void *arg)
{
	struct unmap_job *u = arg;
	for (size_t i = 0; i < u->n; i++)
		if (u->pws[i].mapped && u->pws[i].buf) {
			munmap((void *)u->pws[i].buf, u->pws[i].len);
			u->pws[i].buf = NULL;
		}
	return NULL;
}

/* Merges the confirmed ranges of every part, in file order, then resolves metadata, lanes
 * and flows over the whole.
 *
 * unmap: the parts' mappings, unmapped on a helper thread (started here, joined by the
 * caller) once the merge's columns are allocated. An munmap holds the address space's
 * lock while it clears a 1 GB trace's page tables (20-40 ms), and every mmap and mremap
 * waits for it: started before the merge, it held the merge's allocations up that long
 * with the second core idle. The merge itself then only writes and faults pages in. */
static void merge_parts(struct rank_store *rs, struct part_walk *pws, size_t n_parts, int threads,
			const char *name, struct diag_list *dl, struct xthread *unmapper, struct unmap_job *unmap)
{
	pair_across_segments(pws, n_parts, dl);
	size_t n_ev = 0, n_ctr = 0, n_flows = 0, n_long = 0;
	for (size_t p = 0; p < n_parts; p++)
		for (int i = 0; i < pws[p].used; i++) {
			n_ev += pws[p].jobs[i]->seg.n;
			n_long += pws[p].jobs[i]->seg.n_long;
			n_ctr += pws[p].jobs[i]->seg.n_ctr;
			n_flows += pws[p].jobs[i]->seg.n_flows;
		}
	struct seg *first = NULL;
	for (size_t p = 0; p < n_parts && !first; p++)
		if (pws[p].used)
			first = &pws[p].jobs[0]->seg;
	struct seg none = {0}, *adopt = first ? first : &none;
	ADOPT_COLUMN(rs->ev_dur, adopt->dur, n_ev);
	ADOPT_COLUMN(rs->ev_name, adopt->name, n_ev);
	ADOPT_COLUMN(rs->ev_kind, adopt->kind, n_ev);
	rs->ev_off_lo = spill_alloc_lazy((n_ev ? n_ev : 1) * sizeof *rs->ev_off_lo);
	rs->ev_off_block = xmalloc(((n_ev >> STORE_OFF_SHIFT) + 1) * sizeof *rs->ev_off_block);
	rs->long_durs = xmalloc((n_long ? n_long : 1) * sizeof *rs->long_durs);
	ADOPT_COLUMN(rs->ctr_ts, adopt->ctr_ts, n_ctr);
	ADOPT_COLUMN(rs->ctr_value, adopt->ctr_value, n_ctr);
	ADOPT_COLUMN(rs->ctr_track, adopt->ctr_track, n_ctr);
	ADOPT_COLUMN(rs->ctr_off, adopt->ctr_off, n_ctr);
	ADOPT_COLUMN(rs->flows, adopt->flows, n_flows);
	rs->n_ev = n_ev;
	rs->n_ctr = n_ctr;
	struct merge_state ms = {.rs = rs};
	rs->attrs = xmalloc(sizeof *rs->attrs);
	rs->attrs[0] = (struct ev_attr){0, 0};
	rs->n_attrs = 1;
	ms.cap_attrs = 1;
	bool found;
	*u64map_slot(&ms.attr_map, pair_key(0, 0), &found) = 0;
	size_t n_segs = 0, ev_at = 0, ctr_at = 0;
	for (size_t p = 0; p < n_parts; p++)
		n_segs += (size_t)pws[p].used;
	struct merge_columns mc = {.rs = rs, .n_segs = n_segs};
	mc.segs = xmalloc((n_segs ? n_segs : 1) * sizeof *mc.segs);
	mc.maps = xcalloc(n_segs ? n_segs : 1, sizeof *mc.maps);
	for (size_t p = 0, k = 0; p < n_parts; p++)
		for (int i = 0; i < pws[p].used; i++, k++) {
			struct seg *sg = mc.segs[k] = &pws[p].jobs[i]->seg;
			mc.maps[k].ev_at = ev_at;
			mc.maps[k].ctr_at = ctr_at;
			mc.maps[k].adopted = sg == first;
			seg_maps_build(&ms, sg, &mc.maps[k]);
			report_seg_counts(sg, pws[p].name, dl);
			ev_at += sg->n;
			ctr_at += sg->n_ctr;
		}
	/* a large merge is memory traffic: its three jobs on two cores */
	struct merge_queue q = {.mc = &mc};
	atomic_init(&q.next, 0);
	xthread_start(unmapper, unmap_parts, unmap, threads > 1);
	struct xthread helper;
	xthread_start(&helper, merge_worker, &q, threads > 1 && n_ev >= (1u << 18));
	merge_worker(&q);
	xthread_join(&helper);
	for (size_t k = 0; k < n_segs; k++) {
		seg_maps_free(&mc.maps[k]);
		seg_free(mc.segs[k]);
	}
	free(mc.segs);
	free(mc.maps);
	apply_meta(&ms, name, dl);
	free(ms.meta);
	u64map_free(&ms.lane_map);
	u64map_free(&ms.attr_map);
	u64map_free(&ms.track_map);
	u64map_free(&ms.kind_map);
}

static void add_part(struct rank_store *rs, const char *path, uint64_t base, uint64_t size)
{
	rs->trace.parts = xrealloc(rs->trace.parts, (rs->trace.n_parts + 1) * sizeof *rs->trace.parts);
	rs->trace.parts[rs->trace.n_parts++] = (struct trace_part){xstrdup(path), base, size, false};
}

/* Walks the parts (already in memory) and merges them; 0 when at least one was a trace. */
static int load_walks(struct rank_store *rs, struct part_walk *pws, size_t n_parts,
		      const struct trace_load_opts *opts, struct diag_list *dl)
{
	double t0 = now_seconds();
	size_t walked = 0;
	for (size_t p = 0; p < n_parts; p++) {
		if (!walk_part(rs, &pws[p], rs->trace.parts[p].base, opts, dl))
			continue;
		report_part_end(rs, &pws[p], &rs->trace.parts[p], dl);
		walked++;
	}
	double t_walk = now_seconds();
	rs->trace.walk_seconds = t_walk - t0;
	stagetime_add(STAGE_WALK, t0);
	if (!walked)
		return -1;
	/* nothing after the walk reads the files' bytes: their mappings go on a helper thread
	 * while the merge runs (a 1 GB trace's unmap took 27 ms, on one core alone) */
	struct xthread unmapper;
	struct unmap_job unmap = {pws, n_parts};
	merge_parts(rs, pws, n_parts, rs->trace.threads_used, rs->trace.parts[0].path, dl, &unmapper, &unmap);
	double t_merge = now_seconds();
	rs->trace.merge_seconds = t_merge - t_walk;
	stagetime_add(STAGE_MERGE, t_walk);
	lanes_finish(rs, rs->trace.parts[0].path, dl);
	report_bad_utf8(rs, rs->trace.parts[0].path, dl);
	xthread_join(&unmapper);
	rs->trace.finish_seconds = now_seconds() - t_merge;
	rs->trace.load_seconds = now_seconds() - t0;
	return 0;
}

int trace_load_buffer(struct rank_store *rs, const char *name, const char *buf, size_t len,
		      const struct trace_load_opts *opts, struct diag_list *dl)
{
	free(rs->trace.path);
	rs->trace.path = xstrdup(name);
	rs->trace.size = len;
	rs->trace.mem = buf;
	rs->trace.mem_len = len;
	rs->trace.cut_offset = -1;
	add_part(rs, name, 0, len);
	struct part_walk *pw = xcalloc(1, sizeof *pw);
	*pw = (struct part_walk){.name = name, .buf = buf, .len = len};
	int r = load_walks(rs, pw, 1, opts, dl);
	free(pw);
	return r;
}

/* Maps one part; NULL (with a message) when it cannot be read or is empty. */
static void *map_part(const char *path, const struct trace_load_opts *opts, uint64_t *size,
		      struct diag_list *dl)
{
	void *map = NULL;
	int err = 0;
	uint64_t max = opts ? opts->max_file_bytes : 0;
	switch (mapguard_map_file(path, max, &map, size, NULL, &err)) {
	case MAP_FILE_OK:
		return map;
	case MAP_FILE_CANNOT_OPEN:
		diag_add(dl, DIAG_ERROR, path, 0, -1, _("cannot open: %s"), strerror(err));
		break;
	case MAP_FILE_NOT_REGULAR:
		diag_add(dl, DIAG_ERROR, path, 0, -1, _("not a regular file; skipped"));
		break;
	case MAP_FILE_EMPTY:
		diag_add(dl, DIAG_WARN, path, 0, -1, _("empty file (0 bytes); skipped"));
		break;
	case MAP_FILE_TOO_BIG:
		diag_add(dl, DIAG_ERROR, path, 0, -1,
			 _("%llu bytes is over the limit of %llu bytes set by --max-trace-bytes; skipped "
			 "(a larger N, or 0 for no limit, reads it)"),
			 (unsigned long long)*size, (unsigned long long)max);
		break;
	case MAP_FILE_CANNOT_MAP:
		diag_add(dl, DIAG_ERROR, path, 0, -1, _("cannot map: %s"), strerror(err));
		break;
	}
	return NULL;
}

int trace_load_parts(struct rank_store *rs, const char *const *paths, size_t n,
		     const struct trace_load_opts *opts, struct diag_list *dl)
{
	if (n == 0)
		return -1;
	free(rs->trace.path);
	rs->trace.path = xstrdup(paths[0]);
	rs->trace.cut_offset = -1;
	struct part_walk *pws = xcalloc(n, sizeof *pws);
	size_t kept = 0;
	uint64_t base = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t size = 0;
		void *map = map_part(paths[i], opts, &size, dl);
		rs->trace.size += size;
		if (!map)
			continue;
		add_part(rs, paths[i], base, size);
		pws[kept++] = (struct part_walk){.name = rs->trace.parts[rs->trace.n_parts - 1].path,
						 .buf = map, .len = (size_t)size, .mapped = true};
		base += size;
	}
	int r = kept ? load_walks(rs, pws, kept, opts, dl) : -1;
	unmap_parts(&(struct unmap_job){pws, kept}); /* those the load did not */
	free(pws);
	return r;
}

int trace_load(struct rank_store *rs, const char *path, const struct trace_load_opts *opts,
	       struct diag_list *dl)
{
	return trace_load_parts(rs, &path, 1, opts, dl);
}

/* ---- lazy args ---------------------------------------------------------------------- */

int trace_element_json(const struct rank_store *rs, uint64_t off, struct sbuf *out)
{
	sbuf_reset(out);
	if (rs->trace.mem) {
		if (off >= rs->trace.mem_len)
			goto gone;
		size_t e = jscan_value_end(rs->trace.mem, rs->trace.mem_len, (size_t)off);
		if (e == NOT_FOUND)
			goto gone;
		sbuf_add(out, rs->trace.mem + off, e - (size_t)off);
		return 0;
	}
	/* the part holding off: parts are few and in offset order */
	const struct trace_part *part = NULL;
	for (size_t i = 0; i < rs->trace.n_parts; i++)
		if (off >= rs->trace.parts[i].base && off - rs->trace.parts[i].base < rs->trace.parts[i].size)
			part = &rs->trace.parts[i];
	if (!part)
		goto gone;
	off -= part->base;
	int fd = open(part->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		sbuf_addf(out, "cannot reopen %s: %s", part->path, strerror(errno));
		return -1;
	}
	size_t want = 4096;
	const size_t limit = 256u << 20;
	char *buf = NULL;
	for (;;) {
		buf = xrealloc(buf, want);
		ssize_t n = pread(fd, buf, want, (off_t)off);
		if (n <= 0)
			break;
		size_t e = jscan_value_end(buf, (size_t)n, 0);
		if (e != NOT_FOUND && buf[0] == '{') {
			sbuf_add(out, buf, e);
			free(buf);
			close(fd);
			return 0;
		}
		if ((size_t)n < want || want >= limit)
			break;
		want *= 4;
	}
	free(buf);
	close(fd);
gone:
	sbuf_reset(out);
	sbuf_addf(out, "the element at byte %llu can no longer be read (the file changed?)",
		  (unsigned long long)off);
	return -1;
}

int trace_event_args(const struct rank_store *rs, size_t ev, struct sbuf *out)
{
	struct sbuf raw = SBUF_INIT;
	if (ev >= rs->n_ev || trace_element_json(rs, store_ev_off(rs, ev), &raw) != 0) {
		sbuf_reset(out);
		sbuf_adds(out, raw.len ? sbuf_str(&raw) : "no such event");
		sbuf_free(&raw);
		return -1;
	}
	struct jtok jt;
	jtok_init(&jt);
	int r = jtok_parse(&jt, raw.buf, raw.len);
	size_t flattened = 0;
	if (r == JTOK_ERROR_DEPTH) {
		flattened = jtok_flatten_deep(raw.buf, raw.len, JTOK_MAX_DEPTH);
		r = jtok_parse(&jt, raw.buf, raw.len);
	}
	int count = 0;
	sbuf_reset(out);
	if (flattened && r > 0)
		sbuf_addf(out, "(%zu value%s nested more than %d deep shown as 0)\n", flattened,
			  flattened == 1 ? "" : "s", JTOK_MAX_DEPTH);
	int args = r > 0 ? jtok_obj_get(&jt, raw.buf, 0, "args") : -1;
	if (args >= 0 && jt.t[args].type == JSMN_OBJECT) {
		int nkeys = jt.t[args].size;
		int i = args + 1;
		for (int k = 0; k < nkeys && i + 1 < jt.n; k++) {
			jtok_unescape(raw.buf, &jt.t[i], out);
			sbuf_adds(out, ": ");
			const jsmntok_t *v = &jt.t[i + 1];
			if (v->type == JSMN_STRING || v->type == JSMN_PRIMITIVE)
				jtok_unescape(raw.buf, v, out);
			else
				sbuf_add(out, raw.buf + v->start, (size_t)(v->end - v->start));
			sbuf_addc(out, '\n');
			count++;
			i = jtok_skip(&jt, i + 1);
		}
	} else if (r < 0) {
		sbuf_addf(out, "the element no longer parses: %s", jtok_error_name(r));
		count = -1;
	}
	jtok_free(&jt);
	sbuf_free(&raw);
	return count;
}
