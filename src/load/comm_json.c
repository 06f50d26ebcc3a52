/* SPDX-License-Identifier: MIT */
/* Communication files: a member walk over the upper levels (json_scan), jsmn per entry. */
#include "comm_json.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "i18n.h"
#include "json_scan.h"
#include "json_tok.h"
#include "num.h"
#include "xalloc.h"

#define NOT_FOUND ((size_t)-1)
/* Problems named one by one per file; the rest are counted in one closing line. */
#define MAX_LISTED 20
/* A communication file of several GB is not one: refuse it rather than map it. */
#define COMM_MAX_BYTES (4ull << 30)
#define MAX_UNKNOWN_KEYS 32

/* ---- names -------------------------------------------------------------------------- */

static const char *const transport_names[COMM_TR_COUNT] = {"RDMA", "HCCS", "PCIE", "SIO",
							   "UB",   "SDMA", "LOCAL", "OTHER"};

const char *comm_transport_name(enum comm_transport t)
{
	return (unsigned)t < COMM_TR_COUNT ? transport_names[t] : "?";
}

enum comm_transport comm_transport_parse(const char *s, size_t len)
{
	/* the names of msprof's link types fold into the transports the files report */
	static const struct { const char *name; enum comm_transport t; } alias[] = {
		{"RDMA", COMM_TR_RDMA},   {"RoCE", COMM_TR_RDMA}, {"STANDARD_ROCE", COMM_TR_RDMA},
		{"HCCS", COMM_TR_HCCS},   {"HCCS_SW", COMM_TR_HCCS}, {"PCIE", COMM_TR_PCIE},
		{"SIO", COMM_TR_SIO},     {"UB", COMM_TR_UB},     {"UBoE", COMM_TR_UB},
		{"SDMA", COMM_TR_SDMA},   {"LOCAL", COMM_TR_LOCAL}, {"ON_CHIP", COMM_TR_LOCAL},
	};
	for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
		if (strlen(alias[i].name) == len && !strncasecmp(s, alias[i].name, len))
			return alias[i].t;
	return COMM_TR_OTHER;
}

const char *comm_kind_name(enum comm_kind k)
{
	return k == COMM_KIND_P2P ? "p2p" : k == COMM_KIND_COLLECTIVE ? "collective" : "other";
}

static bool all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

enum comm_entry comm_entry_of(const char *name, size_t len)
{
	if (len == 13 && !memcmp(name, "Total Op Info", 13))
		return COMM_ENTRY_TOTAL;
	const char *dash = memrchr(name, '-', len);
	if (!dash)
		return COMM_ENTRY_OP;
	const char *suf = dash + 1;
	size_t n = len - (size_t)(suf - name);
	if (n == 5 && !memcmp(suf, "total", 5))
		return COMM_ENTRY_TYPE_TOTAL;
	if (n == 6 && !memcmp(suf, "middle", 6))
		return COMM_ENTRY_SAMPLE;
	if (n >= 3 && !memcmp(suf, "top", 3) && all_digits(suf + 3, n - 3))
		return COMM_ENTRY_SAMPLE;
	if (n >= 6 && !memcmp(suf, "bottom", 6) && all_digits(suf + 6, n - 6))
		return COMM_ENTRY_SAMPLE;
	return COMM_ENTRY_OP;
}

void comm_op_type(const char *name, size_t len, size_t *type_start, size_t *type_len)
{
	size_t a = 0, b = len;
	enum comm_entry e = comm_entry_of(name, len);
	if (e == COMM_ENTRY_SAMPLE || e == COMM_ENTRY_TYPE_TOTAL) {
		b = (size_t)((const char *)memrchr(name, '-', len) - name);
	} else if (e == COMM_ENTRY_OP) {
		if (len > 5 && !strncasecmp(name, "hcom_", 5))
			a = 5;
		const char *dd = memmem(name + a, b - a, "__", 2);
		if (dd) {
			b = (size_t)(dd - name);
		} else {
			/* "send_3_1": drop the trailing counters */
			for (;;) {
				const char *us = memrchr(name + a, '_', b - a);
				if (!us || us == name + a || !all_digits(us + 1, b - (size_t)(us + 1 - name)) ||
				    us + 1 == name + b)
					break;
				b = (size_t)(us - name);
			}
		}
		if (b == a) {
			a = 0;
			b = len;
		}
	}
	*type_start = a;
	*type_len = b - a;
}

/* ---- the walk ----------------------------------------------------------------------- */

struct cj {
	struct comm_data *cd;
	const char *path; /* labels the diagnostics */
	const char *buf;
	size_t len;
	struct diag_list *dl;
	uint16_t fi;
	int owner;
	bool cut;         /* the input ended early: named once */
	struct jtok jt;
	struct sbuf key;  /* an unescaped key */
	size_t listed, unlisted;
	char *unknown[MAX_UNKNOWN_KEYS]; /* keys already named as unknown */
	size_t n_unknown;
	bool *step_seen;  /* per step id (interned): seen in this file */
	size_t n_steps, cap_steps;
};

static struct comm_file *cur_file(struct cj *c) { return &c->cd->files[c->fi]; }

static void problemv(struct cj *c, size_t off, const char *fmt, va_list ap)
{
	if (c->listed >= MAX_LISTED) {
		c->unlisted++;
		return;
	}
	diag_addv(c->dl, DIAG_WARN, c->path, 0, (int64_t)off, fmt, ap);
	c->listed++;
}

static void problem(struct cj *c, size_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void problem(struct cj *c, size_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	problemv(c, off, fmt, ap);
	va_end(ap);
}

/* Names an unknown key once per file (a newer exporter adds fields; they are not errors). */
static void unknown_key(struct cj *c, size_t off, const char *where, const char *key, size_t klen)
{
	for (size_t i = 0; i < c->n_unknown; i++)
		if (strlen(c->unknown[i]) == klen && !memcmp(c->unknown[i], key, klen))
			return;
	if (c->n_unknown < MAX_UNKNOWN_KEYS)
		c->unknown[c->n_unknown++] = xstrndup(key, klen);
	diag_add(c->dl, DIAG_INFO, c->path, 0, (int64_t)off, _("unknown key \"%.*s\" in %s: ignored"), (int)klen,
		 key, where);
}

static uint32_t intern(struct cj *c, const char *s, size_t n)
{
	if (!memchr(s, '\\', n))
		return strtab_intern(c->cd->strs, s, n);
	sbuf_reset(&c->key);
	json_unescape(s, n, &c->key);
	return strtab_intern(c->cd->strs, c->key.buf ? c->key.buf : "", c->key.len);
}

struct member {
	const char *key; /* raw, between the quotes */
	size_t klen, koff;
	size_t vstart, vend; /* vend: set by the caller when it needs the whole value */
};

/* Objects above the entries are walked member by member without first finding their end, so
 * a file cut short keeps every entry before the cut. */
struct objit {
	size_t pos;  /* where the next member (or the closing brace) is looked for */
	bool first;
	bool closed; /* the closing brace was reached: pos is just after it */
};

static void cut_short(struct cj *c, size_t off)
{
	if (!c->cut)
		problem(c, off, _("the file ends inside a value (cut short?); what came before is kept"));
	c->cut = true;
}

static bool obj_open(struct cj *c, size_t at, struct objit *it, const char *what)
{
	if (at >= c->len || c->buf[at] != '{') {
		problem(c, at, _("%s is not a JSON object; skipped"), what);
		cur_file(c)->skipped++;
		return false;
	}
	it->pos = at + 1;
	it->first = true;
	it->closed = false;
	return true;
}

/* The next member of an object, up to the start of its value (the caller walks the value,
 * then obj_after); false at the end, or at damage (named, the rest of the object skipped). */
static bool obj_next(struct cj *c, struct objit *it, struct member *m)
{
	const char *b = c->buf;
	size_t len = c->len, p = jscan_skip_ws(b, len, it->pos);
	if (c->cut)
		return false;
	if (p >= len)
		goto cut;
	if (b[p] == '}') {
		it->pos = p + 1;
		it->closed = true;
		return false;
	}
	if (!it->first) {
		if (b[p] != ',')
			goto bad;
		p = jscan_skip_ws(b, len, p + 1);
	}
	it->first = false;
	if (p >= len)
		goto cut;
	if (b[p] != '"')
		goto bad;
	size_t ke = jscan_value_end(b, len, p);
	if (ke == NOT_FOUND)
		goto cut;
	m->koff = p;
	m->key = b + p + 1;
	m->klen = ke - p - 2;
	p = jscan_skip_ws(b, len, ke);
	if (p >= len)
		goto cut;
	if (b[p] != ':')
		goto bad;
	p = jscan_skip_ws(b, len, p + 1);
	if (p >= len)
		goto cut;
	m->vstart = p;
	m->vend = NOT_FOUND;
	return true;
bad:;
	unsigned char ch = (unsigned char)b[p];
	problem(c, p, ch > ' ' && ch < 127 ? "unexpected '%c' in an object; the rest of it is skipped"
					 : "unexpected byte 0x%02X in an object; the rest of it is skipped",
		ch);
	cur_file(c)->skipped++;
	return false;
cut:
	cut_short(c, p);
	return false;
}

/* Moves past the member's value: `end` is where a walk of it stopped, NOT_FOUND to find the
 * end by scanning (a value that was skipped, or damaged inside). False when the input ends. */
static bool obj_after(struct cj *c, struct objit *it, const struct member *m, size_t end)
{
	if (end == NOT_FOUND && !c->cut)
		end = jscan_value_end(c->buf, c->len, m->vstart);
	if (end == NOT_FOUND) {
		cut_short(c, m->vstart);
		return false;
	}
	it->pos = end;
	return true;
}

/* The end of the value of m, for the values taken whole (entries); NOT_FOUND and named when
 * the input ends inside it. */
static bool member_whole(struct cj *c, struct member *m)
{
	m->vend = jscan_value_end(c->buf, c->len, m->vstart);
	if (m->vend == NOT_FOUND)
		cut_short(c, m->vstart);
	return m->vend != NOT_FOUND;
}

static bool key_is(const struct member *m, const char *s)
{
	return strlen(s) == m->klen && !strncasecmp(m->key, s, m->klen);
}

/* The first key of the object at `at`, without naming problems (layout detection). */
static bool first_key(const struct cj *c, size_t at, const char **key, size_t *klen)
{
	if (at >= c->len || c->buf[at] != '{')
		return false;
	size_t p = jscan_skip_ws(c->buf, c->len, at + 1);
	if (p >= c->len || c->buf[p] != '"')
		return false;
	size_t ke = jscan_value_end(c->buf, c->len, p);
	if (ke == NOT_FOUND)
		return false;
	*key = c->buf + p + 1;
	*klen = ke - p - 2;
	return true;
}

static bool is_kind_key(const char *k, size_t n)
{
	return (n == 3 && !strncasecmp(k, "p2p", 3)) || (n == 10 && !strncasecmp(k, "collective", 10));
}

static void note_step(struct cj *c, uint32_t step)
{
	/* a flag per interned id: a file of many steps must not scan the ones seen */
	if (step >= c->cap_steps) {
		size_t old = c->cap_steps;
		xgrow(&c->step_seen, &c->cap_steps, (size_t)step + 1, sizeof *c->step_seen);
		memset(c->step_seen + old, 0, c->cap_steps - old);
	}
	if (!c->step_seen[step]) {
		c->step_seen[step] = true;
		c->n_steps++;
	}
}

/* ---- values --------------------------------------------------------------------------- */

struct ectx {
	uint32_t step, members, name, group;
	uint8_t kind, entry;
	const char *js; /* the entry's text: token offsets are relative to it */
	size_t base;    /* its offset in the file */
};

/* A token's offset in the file: a string's opening quote, else its first byte. */
static size_t tok_off(const struct ectx *e, const jsmntok_t *t)
{
	return e->base + (size_t)t->start - (t->type == JSMN_STRING);
}

static const char *tok_text(const struct ectx *e, const jsmntok_t *t, size_t *n)
{
	*n = (size_t)(t->end - t->start);
	return e->js + t->start;
}

/* "Transit Time(ms)" -> base "Transit Time", unit "ms" (empty when there is none). */
static void split_unit(const char *k, size_t n, size_t *base_len, const char **unit, size_t *ulen)
{
	*base_len = n;
	*unit = k + n;
	*ulen = 0;
	if (n > 2 && k[n - 1] == ')') {
		const char *open = memrchr(k, '(', n);
		if (open) {
			*base_len = (size_t)(open - k);
			while (*base_len > 0 && k[*base_len - 1] == ' ')
				(*base_len)--;
			*unit = open + 1;
			*ulen = (size_t)(k + n - 1 - (open + 1));
		}
	}
}

static bool text_is(const char *s, size_t n, const char *want)
{
	return strlen(want) == n && !strncasecmp(s, want, n);
}

/* Power of ten that turns a time in `unit` into ns; -1 when it is not a time unit. */
static int time_scale(const char *u, size_t n, int deflt)
{
	if (n == 0)
		return deflt;
	if (text_is(u, n, "ms"))
		return 6;
	if (text_is(u, n, "us") || text_is(u, n, "\xc2\xb5s"))
		return 3;
	if (text_is(u, n, "ns"))
		return 0;
	if (text_is(u, n, "s"))
		return 9;
	return -1;
}

/* Factor that turns a size in `unit` into MB (the exporter's MB); 0 when not a size. */
static double size_factor(const char *u, size_t n)
{
	if (n == 0 || text_is(u, n, "MB"))
		return 1;
	if (text_is(u, n, "KB"))
		return 1e-3;
	if (text_is(u, n, "GB"))
		return 1e3;
	if (text_is(u, n, "B"))
		return 1e-6;
	return 0;
}

static bool key_text(struct cj *c, const struct ectx *e, const jsmntok_t *kt, const char **k, size_t *n)
{
	*k = tok_text(e, kt, n);
	if (kt->type != JSMN_STRING)
		return false;
	if (memchr(*k, '\\', *n)) {
		sbuf_reset(&c->key);
		json_unescape(*k, *n, &c->key);
		*k = sbuf_str(&c->key);
		*n = c->key.len;
	}
	return true;
}

/* A number (or a numeric string): an integer at 10^scale into *i, or a double into *d
 * when i is NULL. False when absent (null, "N/A") or not a number (named). */
static bool val_num(struct cj *c, const struct ectx *e, const jsmntok_t *vt, const char *what, int scale,
		    int64_t *i, double *d)
{
	size_t n;
	const char *s = tok_text(e, vt, &n);
	enum num_status st = NUM_INVALID;
	if (vt->type == JSMN_PRIMITIVE || vt->type == JSMN_STRING)
		st = i ? num_scaled_int(s, n, scale, i, NULL) : num_double(s, n, d);
	if (st == NUM_OK)
		return true;
	if (st != NUM_MISSING) {
		problem(c, tok_off(e, vt), _("%s: not a number (%.*s); this value is skipped"), what,
			(int)(n > 40 ? 40 : n), s);
		cur_file(c)->skipped++;
	}
	return false;
}

static bool val_scaled(struct cj *c, const struct ectx *e, const jsmntok_t *vt, int scale, const char *what,
		       int64_t *out)
{
	return val_num(c, e, vt, what, scale, out, NULL);
}

static bool val_double(struct cj *c, const struct ectx *e, const jsmntok_t *vt, const char *what, double *out)
{
	return val_num(c, e, vt, what, 0, NULL, out);
}

/* The members of an object token, each key split into its base and unit:
 * "Transit Time(ms)" has base "Transit Time" and unit "ms". */
struct field {
	const char *k, *unit; /* the key (unescaped) and its unit, empty when none */
	size_t n, base, ulen;
	int kt, v;            /* key and value token indices */
};

struct fiter {
	int next, left;
};

static void fiter_init(const struct jtok *jt, int obj, struct fiter *it)
{
	it->next = obj + 1;
	it->left = jt->t[obj].type == JSMN_OBJECT ? jt->t[obj].size : 0;
}

static bool fiter_next(struct cj *c, const struct ectx *e, struct fiter *it, struct field *f)
{
	while (it->left > 0 && it->next + 1 < c->jt.n) {
		f->kt = it->next;
		f->v = it->next + 1;
		it->next = jtok_skip(&c->jt, f->v);
		it->left--;
		if (key_text(c, e, &c->jt.t[f->kt], &f->k, &f->n)) {
			split_unit(f->k, f->n, &f->base, &f->unit, &f->ulen);
			return true;
		}
	}
	return false;
}

static bool is_object(const struct cj *c, int t) { return t >= 0 && t < c->jt.n && c->jt.t[t].type == JSMN_OBJECT; }

/* Names an object that is not one; true when it is. */
static bool want_object(struct cj *c, const struct ectx *e, int t, const char *what)
{
	if (is_object(c, t))
		return true;
	problem(c, tok_off(e, &c->jt.t[t]), _("%s is not an object; skipped"), what);
	cur_file(c)->skipped++;
	return false;
}

static size_t field_off(const struct cj *c, const struct ectx *e, const struct field *f)
{
	return tok_off(e, &c->jt.t[f->kt]);
}

/* A key given twice in one object: named, the later value kept. */
static void dup_key(struct cj *c, size_t off, const char *key, size_t klen, const struct ectx *e)
{
	const char *name = strtab_str(c->cd->strs, e->name);
	problem(c, off, _("\"%.*s\" appears twice in entry \"%.80s\"; the later one is kept"), (int)(klen > 60 ? 60 : klen),
		key, name);
}

/* Transit Size, Transit Time and Bandwidth: the fields a transport and a link share. */
struct transit {
	double size_mb, bw_gbps;
	int64_t time_ns;
};

static bool transit_field(struct cj *c, const struct ectx *e, const struct field *f, struct transit *t)
{
	const jsmntok_t *vt = &c->jt.t[f->v];
	double d, fac;
	int scale;
	if (text_is(f->k, f->base, "Transit Size") && (fac = size_factor(f->unit, f->ulen)) > 0) {
		if (val_double(c, e, vt, "Transit Size", &d))
			t->size_mb = d * fac;
	} else if (text_is(f->k, f->base, "Transit Time") && (scale = time_scale(f->unit, f->ulen, 6)) >= 0) {
		if (!val_scaled(c, e, vt, scale, "Transit Time", &t->time_ns))
			t->time_ns = -1;
	} else if (text_is(f->k, f->base, "Bandwidth") && (f->ulen == 0 || text_is(f->unit, f->ulen, "GB/s"))) {
		if (val_double(c, e, vt, "Bandwidth(GB/s)", &d))
			t->bw_gbps = d;
	} else {
		return false;
	}
	return true;
}

enum { F_START = COMM_T_COUNT, F_WAIT_RATIO, F_SYNC_RATIO };

static void parse_time(struct cj *c, const struct ectx *e, int obj, struct comm_op *op)
{
	static const struct { const char *base; int field; } keys[] = {
		{"Elapse Time", COMM_T_ELAPSE},         {"Transit Time", COMM_T_TRANSIT},
		{"Wait Time", COMM_T_WAIT},             {"Synchronization Time", COMM_T_SYNC},
		{"Idle Time", COMM_T_IDLE},             {"Start Timestamp", F_START},
		{"Wait Time Ratio", F_WAIT_RATIO},      {"Synchronization Time Ratio", F_SYNC_RATIO},
	};
	if (!want_object(c, e, obj, "Communication Time Info"))
		return;
	struct fiter it;
	struct field f;
	fiter_init(&c->jt, obj, &it);
	while (fiter_next(c, e, &it, &f)) {
		int field = -1;
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
			if (text_is(f.k, f.base, keys[i].base))
				field = keys[i].field;
		const jsmntok_t *vt = &c->jt.t[f.v];
		if (field == F_WAIT_RATIO || field == F_SYNC_RATIO) {
			double r;
			if (val_double(c, e, vt, field == F_WAIT_RATIO ? "Wait Time Ratio" : "Synchronization Time Ratio", &r))
				*(field == F_WAIT_RATIO ? &op->wait_ratio : &op->sync_ratio) = r;
			continue;
		}
		/* durations are ms unless the key says otherwise; the start is us */
		int scale = field < 0 ? -1 : time_scale(f.unit, f.ulen, field == F_START ? 3 : 6);
		if (scale < 0) {
			unknown_key(c, field_off(c, e, &f), "Communication Time Info", f.k, f.n);
			continue;
		}
		char what[80];
		snprintf(what, sizeof what, "%.*s", (int)(f.n > 60 ? 60 : f.n), f.k);
		int64_t ns;
		if (!val_scaled(c, e, vt, scale, what, &ns))
			continue;
		if (field == F_START) {
			op->start_ns = ns;
			op->has_start = true;
		} else {
			op->t[field] = ns;
			op->has |= (uint8_t)(1u << field);
		}
	}
}

static void parse_dist(struct cj *c, const struct ectx *e, int obj, struct comm_bw *bw)
{
	struct comm_data *cd = c->cd;
	bw->bin0 = (uint32_t)cd->n_bins;
	if (!want_object(c, e, obj, "Size Distribution"))
		return;
	struct fiter it;
	struct field f;
	fiter_init(&c->jt, obj, &it);
	while (fiter_next(c, e, &it, &f)) {
		struct comm_bin bin = {.time_ns = -1};
		const jsmntok_t *vt = &c->jt.t[f.v];
		if (!val_double(c, e, &c->jt.t[f.kt], "Size Distribution size (MB)", &bin.size_mb))
			continue;
		/* [count, time ms] in recent files, a bare count in older ones */
		if (vt->type == JSMN_ARRAY && vt->size >= 1) {
			if (!val_double(c, e, &c->jt.t[f.v + 1], "Size Distribution count", &bin.count))
				continue;
			if (vt->size >= 2 && !val_scaled(c, e, &c->jt.t[jtok_skip(&c->jt, f.v + 1)], 6,
							 "Size Distribution time (ms)", &bin.time_ns))
				bin.time_ns = -1;
		} else if (!val_double(c, e, vt, "Size Distribution count", &bin.count)) {
			continue;
		}
		xgrow(&cd->bins, &cd->cap_bins, cd->n_bins + 1, sizeof *cd->bins);
		cd->bins[cd->n_bins++] = bin;
	}
	bw->n_bins = (uint32_t)(cd->n_bins - bw->bin0);
}

static void parse_transport(struct cj *c, const struct ectx *e, const struct field *tf, struct comm_op *op)
{
	struct comm_data *cd = c->cd;
	struct comm_bw bw = {.large_ratio = NAN, .bin0 = (uint32_t)cd->n_bins};
	struct transit t = {NAN, NAN, -1};
	bw.transport = (uint8_t)comm_transport_parse(tf->k, tf->n);
	if (bw.transport == COMM_TR_OTHER)
		unknown_key(c, field_off(c, e, tf), "Communication Bandwidth Info (a transport, kept as OTHER)",
			    tf->k, tf->n);
	if (!want_object(c, e, tf->v, "a transport of Communication Bandwidth Info"))
		return;
	struct fiter it;
	struct field f;
	fiter_init(&c->jt, tf->v, &it);
	while (fiter_next(c, e, &it, &f)) {
		double d;
		if (transit_field(c, e, &f, &t))
			continue;
		if (text_is(f.k, f.n, "Large Packet Ratio")) {
			if (val_double(c, e, &c->jt.t[f.v], "Large Packet Ratio", &d))
				bw.large_ratio = d;
		} else if (text_is(f.k, f.n, "Size Distribution")) {
			parse_dist(c, e, f.v, &bw);
		} else {
			unknown_key(c, field_off(c, e, &f), "a transport of Communication Bandwidth Info", f.k, f.n);
		}
	}
	bw.size_mb = t.size_mb;
	bw.bw_gbps = t.bw_gbps;
	bw.time_ns = t.time_ns;
	xgrow(&cd->bws, &cd->cap_bws, cd->n_bws + 1, sizeof *cd->bws);
	cd->bws[cd->n_bws++] = bw;
	op->n_bw++;
}

struct bw_key {
	uint32_t name, at; /* the transport's key (interned) and its place in the op */
	size_t off;
};

static int cmp_bw_key(const void *pa, const void *pb)
{
	const struct bw_key *a = pa, *b = pb;
	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	return a->at < b->at ? -1 : a->at > b->at;
}

/* A transport given twice in one Bandwidth Info: the later one is kept (sorted by key, so
 * that thousands of transports cost n log n). keys[] is reordered. */
static void drop_repeated_transports(struct cj *c, const struct ectx *e, struct comm_op *op, struct bw_key *keys)
{
	struct comm_data *cd = c->cd;
	if (op->n_bw < 2)
		return;
	xqsort(keys, op->n_bw, sizeof *keys, cmp_bw_key);
	bool *drop = xcalloc(op->n_bw, 1);
	bool any = false;
	for (uint32_t i = 0; i + 1 < op->n_bw; i++) {
		if (keys[i].name != keys[i + 1].name)
			continue;
		const char *k = strtab_str(cd->strs, keys[i].name);
		dup_key(c, keys[i + 1].off, k, strlen(k), e);
		drop[keys[i].at] = true;
		any = true;
	}
	if (any) {
		uint32_t k = 0;
		for (uint32_t b = 0; b < op->n_bw; b++)
			if (!drop[b])
				cd->bws[op->bw0 + k++] = cd->bws[op->bw0 + b]; /* their bins stay, unused */
		cd->n_bws -= op->n_bw - k;
		op->n_bw = k;
	}
	free(drop);
}

static void add_op(struct cj *c, const struct ectx *e, int obj, int rank)
{
	struct comm_data *cd = c->cd;
	const jsmntok_t *ot = &c->jt.t[obj];
	struct comm_op op = {
		.off = (int64_t)(e->base + (size_t)ot->start),
		.len = (uint32_t)(ot->end - ot->start),
		.wait_ratio = NAN,
		.sync_ratio = NAN,
		.step = e->step, .name = e->name, .group = e->group, .members = e->members,
		.bw0 = (uint32_t)cd->n_bws,
		.rank = rank,
		.file = c->fi,
		.kind = e->kind, .entry = e->entry,
	};
	struct fiter it;
	struct field f;
	fiter_init(&c->jt, obj, &it);
	bool seen_time = false, seen_bw = false;
	while (fiter_next(c, e, &it, &f)) {
		if (text_is(f.k, f.n, "Communication Time Info")) {
			if (seen_time) {
				/* a key given twice: the later one wins, as for trace events */
				dup_key(c, field_off(c, e, &f), f.k, f.n, e);
				memset(op.t, 0, sizeof op.t);
				op.has = 0;
				op.has_start = false;
				op.wait_ratio = op.sync_ratio = NAN;
			}
			seen_time = true;
			parse_time(c, e, f.v, &op);
		} else if (text_is(f.k, f.n, "Communication Bandwidth Info")) {
			if (seen_bw) {
				/* this op's transports are the last ones added: drop them */
				dup_key(c, field_off(c, e, &f), f.k, f.n, e);
				if (op.n_bw)
					cd->n_bins = cd->bws[op.bw0].bin0;
				cd->n_bws = op.bw0;
				op.n_bw = 0;
			}
			seen_bw = true;
			if (!want_object(c, e, f.v, "Communication Bandwidth Info"))
				continue;
			struct fiter it2;
			struct field tf;
			fiter_init(&c->jt, f.v, &it2);
			struct bw_key *keys = NULL; /* each transport's key, to find repeats */
			size_t cap_keys = 0;
			while (fiter_next(c, e, &it2, &tf)) {
				uint32_t before = op.n_bw;
				/* the key is taken first: an escaped key lives in c->key, which the
				 * transport's own fields overwrite (fuzz_comm: a use after free) */
				uint32_t key_id = strtab_intern(cd->strs, tf.k, tf.n);
				size_t key_off = field_off(c, e, &tf);
				parse_transport(c, e, &tf, &op);
				if (op.n_bw > before) {
					xgrow(&keys, &cap_keys, op.n_bw, sizeof *keys);
					keys[op.n_bw - 1] = (struct bw_key){key_id, op.n_bw - 1, key_off};
				}
			}
			drop_repeated_transports(c, e, &op, keys);
			free(keys);
		} else {
			unknown_key(c, field_off(c, e, &f), "a communication entry", f.k, f.n);
		}
	}
	xgrow(&cd->ops, &cd->cap_ops, cd->n_ops + 1, sizeof *cd->ops);
	cd->ops[cd->n_ops++] = op;
	cur_file(c)->n_ops++;
}

static void add_link(struct cj *c, const struct ectx *e, int obj, int src, int dst)
{
	struct comm_data *cd = c->cd;
	const jsmntok_t *ot = &c->jt.t[obj];
	struct comm_link l = {
		.off = (int64_t)(e->base + (size_t)ot->start),
		.len = (uint32_t)(ot->end - ot->start),
		.step = e->step, .name = e->name, .group = e->group, .members = e->members,
		.src = src, .dst = dst,
		.rank = c->owner,
		.file = c->fi,
		.kind = e->kind, .entry = e->entry, .transport = COMM_TR_OTHER,
	};
	struct transit t = {NAN, NAN, -1};
	bool have_type = false;
	struct fiter it;
	struct field f;
	fiter_init(&c->jt, obj, &it);
	while (fiter_next(c, e, &it, &f)) {
		const jsmntok_t *vt = &c->jt.t[f.v];
		size_t tn;
		const char *tv = tok_text(e, vt, &tn);
		if (transit_field(c, e, &f, &t))
			continue;
		if (text_is(f.k, f.n, "Transport Type")) {
			l.transport = (uint8_t)comm_transport_parse(tv, tn);
			have_type = true;
			if (l.transport == COMM_TR_OTHER)
				unknown_key(c, tok_off(e, vt), "Transport Type (kept as OTHER)", tv, tn);
		} else if (text_is(f.k, f.n, "Op Name")) {
			if (vt->type == JSMN_STRING)
				l.op_name = intern(c, tv, tn);
		} else {
			unknown_key(c, field_off(c, e, &f), "a matrix link", f.k, f.n);
		}
	}
	if (!have_type)
		problem(c, (size_t)l.off, _("link %d-%d has no Transport Type; kept as OTHER"), src, dst);
	l.size_mb = t.size_mb;
	l.bw_gbps = t.bw_gbps;
	l.time_ns = t.time_ns;
	xgrow(&cd->links, &cd->cap_links, cd->n_links + 1, sizeof *cd->links);
	cd->links[cd->n_links++] = l;
	cur_file(c)->n_links++;
}

/* "<int>-<int>" */
static bool link_key(const char *k, size_t n, int *src, int *dst)
{
	const char *dash = memchr(k, '-', n);
	if (!dash || dash == k || dash == k + n - 1)
		return false;
	size_t a = (size_t)(dash - k), b = n - a - 1;
	if (a > 9 || b > 9 || !all_digits(k, a) || !all_digits(dash + 1, b))
		return false;
	*src = (int)strtol(k, NULL, 10);
	*dst = (int)strtol(dash + 1, NULL, 10);
	return true;
}

static void entry(struct cj *c, struct ectx *e, const struct member *m)
{
	/* "<op>@<group>": the group is a hash of the communication domain */
	const char *at = memrchr(m->key, '@', m->klen);
	size_t nlen = at ? (size_t)(at - m->key) : m->klen;
	e->name = intern(c, m->key, nlen);
	e->group = at ? intern(c, at + 1, m->klen - nlen - 1) : 0;
	e->entry = (uint8_t)comm_entry_of(m->key, nlen);
	e->js = c->buf + m->vstart;
	e->base = m->vstart;
	int r = jtok_parse(&c->jt, e->js, m->vend - m->vstart);
	if (r <= 0 || c->jt.t[0].type != JSMN_OBJECT) {
		problem(c, m->vstart, _("entry \"%.*s\" is %s; skipped"), (int)(m->klen > 80 ? 80 : m->klen), m->key,
			r < 0 ? jtok_error_name(r) : "not an object");
		cur_file(c)->skipped++;
		return;
	}
	if (jtok_obj_get(&c->jt, e->js, 0, "Communication Time Info") >= 0 ||
	    jtok_obj_get(&c->jt, e->js, 0, "Communication Bandwidth Info") >= 0) {
		add_op(c, e, 0, c->owner);
		return;
	}
	/* links, or one entry per rank in a cluster file */
	struct fiter it;
	struct field f;
	fiter_init(&c->jt, 0, &it);
	while (fiter_next(c, e, &it, &f)) {
		int src, dst;
		if (is_object(c, f.v) && link_key(f.k, f.n, &src, &dst)) {
			add_link(c, e, f.v, src, dst);
		} else if (is_object(c, f.v) && f.n > 0 && f.n < 10 && all_digits(f.k, f.n) &&
			   (jtok_obj_get(&c->jt, e->js, f.v, "Communication Time Info") >= 0 ||
			    jtok_obj_get(&c->jt, e->js, f.v, "Communication Bandwidth Info") >= 0)) {
			add_op(c, e, f.v, (int)strtol(f.k, NULL, 10));
		} else {
			problem(c, field_off(c, e, &f),
				_("entry \"%.*s\": \"%.*s\" is neither a rank's figures nor a <src>-<dst> link; skipped"),
				(int)(m->klen > 80 ? 80 : m->klen), m->key, (int)(f.n > 40 ? 40 : f.n), f.k);
			cur_file(c)->skipped++;
		}
	}
}

/* {"<op>@<group>": ...} of one step and kind. Each walker returns the offset after the
 * object it walked, or NOT_FOUND when it stopped early (damage, named, or the end of input). */
static size_t walk_ops(struct cj *c, struct ectx *e, size_t at)
{
	struct objit it;
	struct member m;
	if (!obj_open(c, at, &it, "a step's operations"))
		return NOT_FOUND;
	while (obj_next(c, &it, &m) && member_whole(c, &m)) {
		entry(c, e, &m);
		it.pos = m.vend;
	}
	return it.closed ? it.pos : NOT_FOUND;
}

static uint8_t kind_of(const char *k, size_t n)
{
	if (n == 3 && !strncasecmp(k, "p2p", 3))
		return COMM_KIND_P2P;
	if (n == 10 && !strncasecmp(k, "collective", 10))
		return COMM_KIND_COLLECTIVE;
	return COMM_KIND_OTHER;
}

/* per rank: "stepN": {"p2p": {...}, "collective": {...}} */
static size_t walk_rank_step(struct cj *c, const struct member *step)
{
	struct ectx e = {.step = intern(c, step->key, step->klen)};
	note_step(c, e.step);
	struct objit it;
	struct member m;
	if (!obj_open(c, step->vstart, &it, "a step"))
		return NOT_FOUND;
	while (obj_next(c, &it, &m)) {
		e.kind = kind_of(m.key, m.klen);
		if (e.kind == COMM_KIND_OTHER)
			unknown_key(c, m.koff, "a step (taken as a kind of operation)", m.key, m.klen);
		if (!obj_after(c, &it, &m, walk_ops(c, &e, m.vstart)))
			break;
	}
	return it.closed ? it.pos : NOT_FOUND;
}

/* cluster: "<group ranks>"|"p2p": {"stepN": {"<op>@<group>": ...}} */
static size_t walk_cluster_group(struct cj *c, const struct member *grp)
{
	struct ectx e = {.members = intern(c, grp->key, grp->klen),
			 .kind = key_is(grp, "p2p") ? COMM_KIND_P2P : COMM_KIND_COLLECTIVE};
	cur_file(c)->cluster = true;
	struct objit it;
	struct member m;
	if (!obj_open(c, grp->vstart, &it, "a group"))
		return NOT_FOUND;
	while (obj_next(c, &it, &m)) {
		e.step = intern(c, m.key, m.klen);
		note_step(c, e.step);
		if (!obj_after(c, &it, &m, walk_ops(c, &e, m.vstart)))
			break;
	}
	return it.closed ? it.pos : NOT_FOUND;
}

static bool starts_step(const char *k, size_t n) { return n >= 4 && !strncasecmp(k, "step", 4); }

static void walk(struct cj *c)
{
	size_t p = jscan_skip_ws(c->buf, c->len, 0);
	struct objit top;
	struct member m;
	if (!obj_open(c, p, &top, "the file"))
		return;
	while (obj_next(c, &top, &m)) {
		/* per rank, a step holds kinds; in a cluster file, a group holds steps */
		const char *fk;
		size_t fn, end = NOT_FOUND;
		bool has_first = first_key(c, m.vstart, &fk, &fn);
		if (has_first && is_kind_key(fk, fn))
			end = walk_rank_step(c, &m);
		else if (has_first && starts_step(fk, fn))
			end = walk_cluster_group(c, &m);
		else if (!has_first && c->buf[m.vstart] == '{' &&
			 jscan_skip_ws(c->buf, c->len, m.vstart + 1) < c->len &&
			 c->buf[jscan_skip_ws(c->buf, c->len, m.vstart + 1)] == '}')
			; /* {}: nothing to keep */
		else if (starts_step(m.key, m.klen))
			end = walk_rank_step(c, &m);
		else {
			problem(c, m.koff, _("\"%.*s\" holds neither steps nor p2p/collective operations; skipped"),
				(int)(m.klen > 80 ? 80 : m.klen), m.key);
			cur_file(c)->skipped++;
		}
		if (!obj_after(c, &top, &m, end))
			break;
	}
	if (top.closed && jscan_skip_ws(c->buf, c->len, top.pos) < c->len)
		problem(c, top.pos, _("bytes after the JSON object; ignored"));
}

/* ---- repeated keys ------------------------------------------------------------------ */

/* The identity of an op or a link: its place in the file's key path. Two with the same
 * identity are one key given twice; the later one wins, as for trace events. */
struct ident {
	uint32_t step, name, group, members;
	int32_t rank, src, dst;
	uint8_t kind;
	size_t idx;
};

static int cmp_ident(const void *pa, const void *pb)
{
	const struct ident *a = pa, *b = pb;
#define CMP_FIELD(f)                   \
	if (a->f != b->f)              \
		return a->f < b->f ? -1 : 1
	CMP_FIELD(step);
	CMP_FIELD(kind);
	CMP_FIELD(members);
	CMP_FIELD(name);
	CMP_FIELD(group);
	CMP_FIELD(rank);
	CMP_FIELD(src);
	CMP_FIELD(dst);
	CMP_FIELD(idx);
#undef CMP_FIELD
	return 0;
}

static bool same_ident(const struct ident *a, const struct ident *b)
{
	return a->step == b->step && a->kind == b->kind && a->members == b->members && a->name == b->name &&
	       a->group == b->group && a->rank == b->rank && a->src == b->src && a->dst == b->dst;
}

/* Marks in drop[] (indexed from 0 = the file's first) all but the last of each identity,
 * naming each repeat; returns how many were marked. */
static size_t mark_repeats(struct cj *c, struct ident *v, size_t n, bool *drop, const int64_t *offs,
			   bool links)
{
	xqsort(v, n, sizeof *v, cmp_ident);
	size_t dropped = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		if (!same_ident(&v[i], &v[i + 1]))
			continue;
		drop[v[i].idx] = true;
		dropped++;
		const char *nm = strtab_str(c->cd->strs, v[i].name);
		const char *grp = strtab_str(c->cd->strs, v[i].group);
		char link[40] = "";
		if (links)
			snprintf(link, sizeof link, _("link %d-%d of "), v[i].src, v[i].dst);
		problem(c, (size_t)offs[v[i + 1].idx],
			_("%sentry \"%.80s%s%.40s\" of %.40s appears again (first at byte %lld); the later one is kept"),
			link, nm, *grp ? "@" : "", grp, strtab_str(c->cd->strs, v[i].step), (long long)offs[v[i].idx]);
	}
	return dropped;
}

static void drop_repeats(struct cj *c, size_t op0, size_t link0)
{
	struct comm_data *cd = c->cd;
	size_t n = cd->n_ops - op0, m = cd->n_links - link0, big = n > m ? n : m;
	if (big < 2)
		return;
	struct ident *v = xmalloc(big * sizeof *v);
	int64_t *offs = xmalloc(big * sizeof *offs);
	bool *drop = xmalloc(big);
	if (n > 1) {
		for (size_t i = 0; i < n; i++) {
			const struct comm_op *o = &cd->ops[op0 + i];
			v[i] = (struct ident){o->step, o->name, o->group, o->members, o->rank, 0, 0, o->kind, i};
			offs[i] = o->off;
		}
		memset(drop, 0, n);
		if (mark_repeats(c, v, n, drop, offs, false)) {
			size_t k = op0;
			for (size_t i = 0; i < n; i++)
				if (!drop[i])
					cd->ops[k++] = cd->ops[op0 + i]; /* the dropped ones' transports stay, unused */
			cur_file(c)->n_ops -= cd->n_ops - k;
			cd->n_ops = k;
		}
	}
	if (m > 1) {
		for (size_t i = 0; i < m; i++) {
			const struct comm_link *l = &cd->links[link0 + i];
			v[i] = (struct ident){l->step, l->name, l->group, l->members, l->rank, l->src, l->dst, l->kind, i};
			offs[i] = l->off;
		}
		memset(drop, 0, m);
		if (mark_repeats(c, v, m, drop, offs, true)) {
			size_t k = link0;
			for (size_t i = 0; i < m; i++)
				if (!drop[i])
					cd->links[k++] = cd->links[link0 + i];
			cur_file(c)->n_links -= cd->n_links - k;
			cd->n_links = k;
		}
	}
	free(v);
	free(offs);
	free(drop);
}

/* A new file of cd for c (the walk's state, c->buf and c->len set by the caller); false,
 * named, when cd holds as many as it can. */
static bool file_begin(struct cj *c, struct comm_data *cd, const char *name, int owner_rank,
		       struct diag_list *dl)
{
	if (!cd->strs)
		cd->strs = strtab_new();
	if (cd->n_files >= UINT16_MAX) {
		diag_add(dl, DIAG_WARN, name, 0, -1, _("too many communication files; this one is not read"));
		return false;
	}
	xgrow(&cd->files, &cd->cap_files, cd->n_files + 1, sizeof *cd->files);
	struct comm_file *f = &cd->files[cd->n_files];
	memset(f, 0, sizeof *f);
	f->path = xstrdup(name);
	f->owner_rank = owner_rank;
	c->cd = cd;
	c->path = f->path;
	c->dl = dl;
	c->fi = (uint16_t)cd->n_files;
	c->owner = owner_rank;
	cd->n_files++;
	jtok_init(&c->jt);
	return true;
}

/* The file's records complete (op0, link0: its first): repeats dropped, counts set, the
 * closing messages; c's own memory freed. */
static void file_end(struct cj *c, size_t op0, size_t link0)
{
	drop_repeats(c, op0, link0);
	struct comm_file *f = cur_file(c);
	f->matrix = f->n_links > 0;
	f->n_steps = c->n_steps;
	if (c->unlisted)
		diag_add(c->dl, DIAG_WARN, c->path, 0, -1, _("%zu more problems in this file (not listed)"),
			 c->unlisted);
	if (!f->n_ops && !f->n_links && !f->skipped && !c->listed)
		diag_add(c->dl, DIAG_INFO, c->path, 0, -1, _("no communication operations in this file"));
	jtok_free(&c->jt);
	sbuf_free(&c->key);
	for (size_t i = 0; i < c->n_unknown; i++)
		free(c->unknown[i]);
	free(c->step_seen);
}

int comm_json_load_buffer(struct comm_data *cd, const char *name, const char *buf, size_t len, int owner_rank,
			  struct diag_list *dl)
{
	struct cj c = {.buf = buf, .len = len};
	if (!file_begin(&c, cd, name, owner_rank, dl))
		return -1;
	size_t op0 = cd->n_ops, link0 = cd->n_links;
	walk(&c);
	file_end(&c, op0, link0);
	size_t p = jscan_skip_ws(buf, len, 0);
	return p < len && buf[p] == '{' ? 0 : -1;
}

/* ---- records from another reader ------------------------------------------------------ */

struct comm_json_build {
	struct cj c;
	struct ectx e;          /* the current entry */
	char *key;              /* its "<op>@<group>", for messages */
	struct comm_op op;      /* the op being filled (in_op), its transport (in_bw) */
	struct comm_bw bw;
	struct comm_link link;  /* the link being filled (in_link) */
	bool in_op, in_bw, in_link, link_typed;
	struct bw_key *keys;    /* the op's transports, to find repeats */
	size_t cap_keys;
	size_t op0, link0;
};

struct comm_json_build *comm_json_build_begin(struct comm_data *cd, const char *name, int owner_rank,
					      struct diag_list *dl)
{
	struct comm_json_build *b = xcalloc(1, sizeof *b);
	b->c.buf = "";
	if (!file_begin(&b->c, cd, name, owner_rank, dl)) {
		free(b);
		return NULL;
	}
	b->op0 = cd->n_ops;
	b->link0 = cd->n_links;
	return b;
}

void comm_json_build_problem(struct comm_json_build *b, int64_t off, bool skipped, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	problemv(&b->c, (size_t)off, fmt, ap);
	va_end(ap);
	if (skipped)
		cur_file(&b->c)->skipped++;
}

enum comm_step_as comm_json_build_step(struct comm_json_build *b, const char *step, const char *first_kind,
				       int64_t step_off)
{
	/* walk()'s reading of a top-level member by its first key */
	size_t n = strlen(first_kind), sn = strlen(step);
	if (is_kind_key(first_kind, n))
		return COMM_STEP_RANK;
	if (starts_step(first_kind, n))
		return COMM_STEP_GROUPS;
	if (starts_step(step, sn))
		return COMM_STEP_RANK;
	comm_json_build_problem(b, step_off, true,
				_("\"%.*s\" holds neither steps nor p2p/collective operations; skipped"),
				(int)(sn > 80 ? 80 : sn), step);
	return COMM_STEP_SKIP;
}

void comm_json_build_entry(struct comm_json_build *b, const char *members, const char *step, const char *kind,
			   int64_t kind_off, const char *key)
{
	struct cj *c = &b->c;
	struct strtab *s = c->cd->strs;
	b->e = (struct ectx){0};
	if (members) {
		b->e.members = strtab_intern_cstr(s, members);
		b->e.kind = strcasecmp(members, "p2p") ? COMM_KIND_COLLECTIVE : COMM_KIND_P2P;
		cur_file(c)->cluster = true;
	}
	b->e.step = strtab_intern_cstr(s, step);
	note_step(c, b->e.step);
	if (!members) {
		b->e.kind = kind_of(kind, strlen(kind));
		if (b->e.kind == COMM_KIND_OTHER)
			unknown_key(c, (size_t)kind_off, "a step (taken as a kind of operation)", kind, strlen(kind));
	}
	const char *at = strrchr(key, '@');
	size_t nlen = at ? (size_t)(at - key) : strlen(key);
	b->e.name = strtab_intern(s, key, nlen);
	b->e.group = at ? strtab_intern_cstr(s, at + 1) : 0;
	b->e.entry = (uint8_t)comm_entry_of(key, nlen);
	free(b->key);
	b->key = xstrdup(key);
}

/* A member of the entry that is neither a rank's figures nor a link (entry()'s message). */
static void build_neither(struct comm_json_build *b, const char *k, int64_t off)
{
	size_t n = strlen(b->key), kn = strlen(k);
	comm_json_build_problem(b, off, true,
				_("entry \"%.*s\": \"%.*s\" is neither a rank's figures nor a <src>-<dst> link; skipped"),
				(int)(n > 80 ? 80 : n), b->key, (int)(kn > 40 ? 40 : kn), k);
}

struct comm_op *comm_json_build_op(struct comm_json_build *b, const char *rank_key, int64_t key_off,
				   int64_t off)
{
	struct comm_data *cd = b->c.cd;
	int rank = b->c.owner;
	if (rank_key) {
		size_t n = strlen(rank_key);
		if (!n || n >= 10 || !all_digits(rank_key, n)) {
			build_neither(b, rank_key, key_off);
			return NULL;
		}
		rank = (int)strtol(rank_key, NULL, 10);
	}
	const struct ectx *e = &b->e;
	b->op = (struct comm_op){
		.off = off,
		.wait_ratio = NAN,
		.sync_ratio = NAN,
		.step = e->step, .name = e->name, .group = e->group, .members = e->members,
		.bw0 = (uint32_t)cd->n_bws,
		.rank = rank,
		.file = b->c.fi,
		.kind = e->kind, .entry = e->entry,
	};
	b->in_op = true;
	b->in_bw = false;
	return &b->op;
}

/* The transport being filled, with its bins, onto the op's. */
static void build_bw_done(struct comm_json_build *b)
{
	struct comm_data *cd = b->c.cd;
	if (!b->in_bw)
		return;
	b->bw.n_bins = (uint32_t)(cd->n_bins - b->bw.bin0);
	xgrow(&cd->bws, &cd->cap_bws, cd->n_bws + 1, sizeof *cd->bws);
	cd->bws[cd->n_bws++] = b->bw;
	b->op.n_bw++;
	b->in_bw = false;
}

struct comm_bw *comm_json_build_transport(struct comm_json_build *b, const char *name, int64_t key_off)
{
	struct cj *c = &b->c;
	struct comm_data *cd = c->cd;
	build_bw_done(b);
	size_t n = strlen(name);
	uint32_t key_id = strtab_intern(cd->strs, name, n);
	b->bw = (struct comm_bw){.size_mb = NAN, .bw_gbps = NAN, .large_ratio = NAN, .time_ns = -1,
				 .bin0 = (uint32_t)cd->n_bins};
	b->bw.transport = (uint8_t)comm_transport_parse(name, n);
	if (b->bw.transport == COMM_TR_OTHER)
		unknown_key(c, (size_t)key_off, "Communication Bandwidth Info (a transport, kept as OTHER)", name, n);
	xgrow(&b->keys, &b->cap_keys, b->op.n_bw + 1, sizeof *b->keys);
	b->keys[b->op.n_bw] = (struct bw_key){key_id, b->op.n_bw, (size_t)key_off};
	b->in_bw = true;
	return &b->bw;
}

void comm_json_build_bin(struct comm_json_build *b, const struct comm_bin *bin)
{
	struct comm_data *cd = b->c.cd;
	xgrow(&cd->bins, &cd->cap_bins, cd->n_bins + 1, sizeof *cd->bins);
	cd->bins[cd->n_bins++] = *bin;
}

void comm_json_build_op_end(struct comm_json_build *b, uint32_t len)
{
	struct comm_data *cd = b->c.cd;
	if (!b->in_op)
		return;
	build_bw_done(b);
	b->op.len = len;
	drop_repeated_transports(&b->c, &b->e, &b->op, b->keys);
	xgrow(&cd->ops, &cd->cap_ops, cd->n_ops + 1, sizeof *cd->ops);
	cd->ops[cd->n_ops++] = b->op;
	cur_file(&b->c)->n_ops++;
	b->in_op = false;
}

struct comm_link *comm_json_build_link(struct comm_json_build *b, const char *key, int64_t key_off,
				       int64_t off)
{
	int src, dst;
	if (!link_key(key, strlen(key), &src, &dst)) {
		build_neither(b, key, key_off);
		return NULL;
	}
	const struct ectx *e = &b->e;
	b->link = (struct comm_link){
		.size_mb = NAN, .bw_gbps = NAN, .time_ns = -1,
		.off = off,
		.step = e->step, .name = e->name, .group = e->group, .members = e->members,
		.src = src, .dst = dst,
		.rank = b->c.owner,
		.file = b->c.fi,
		.kind = e->kind, .entry = e->entry, .transport = COMM_TR_OTHER,
	};
	b->in_link = true;
	b->link_typed = false;
	return &b->link;
}

void comm_json_build_link_type(struct comm_json_build *b, const char *type, size_t len, int64_t off)
{
	b->link.transport = (uint8_t)comm_transport_parse(type, len);
	b->link_typed = true;
	if (b->link.transport == COMM_TR_OTHER)
		unknown_key(&b->c, (size_t)off, "Transport Type (kept as OTHER)", type, len);
}

void comm_json_build_link_end(struct comm_json_build *b, uint32_t len, const char *op_name)
{
	struct comm_data *cd = b->c.cd;
	if (!b->in_link)
		return;
	b->link.len = len;
	if (op_name)
		b->link.op_name = strtab_intern_cstr(cd->strs, op_name);
	if (!b->link_typed)
		problem(&b->c, (size_t)b->link.off, _("link %d-%d has no Transport Type; kept as OTHER"), b->link.src,
			b->link.dst);
	xgrow(&cd->links, &cd->cap_links, cd->n_links + 1, sizeof *cd->links);
	cd->links[cd->n_links++] = b->link;
	cur_file(&b->c)->n_links++;
	b->in_link = false;
}

int comm_json_build_end(struct comm_json_build *b, char *text, size_t len)
{
	comm_json_build_op_end(b, 0);
	struct comm_file *f = cur_file(&b->c);
	f->text = text;
	f->text_len = len;
	file_end(&b->c, b->op0, b->link0);
	free(b->keys);
	free(b->key);
	free(b);
	return 0;
}

int comm_json_load(struct comm_data *cd, const char *path, int owner_rank, struct diag_list *dl)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	const char *why = NULL;
	if (fd < 0)
		why = strerror(errno);
	else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		why = "not a regular file";
	else if (st.st_size == 0)
		why = "empty file (0 bytes)";
	else if ((unsigned long long)st.st_size > COMM_MAX_BYTES)
		why = "over 4 GB, too large for a communication file";
	void *map = MAP_FAILED;
	if (!why && (map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED)
		why = strerror(errno);
	if (fd >= 0)
		close(fd);
	if (why) {
		diag_add(dl, DIAG_WARN, path, 0, -1, _("cannot read: %s; skipped"), why);
		return -1;
	}
	int r = comm_json_load_buffer(cd, path, map, (size_t)st.st_size, owner_rank, dl);
	munmap(map, (size_t)st.st_size);
	return r;
}

/* The file of cd named path (the records' own pointer, or an equal name); NULL if none. */
static const struct comm_file *file_named(const struct comm_data *cd, const char *path)
{
	for (size_t i = 0; cd && i < cd->n_files; i++)
		if (cd->files[i].path == path || !strcmp(cd->files[i].path, path))
			return &cd->files[i];
	return NULL;
}

int comm_json_entry_text(const struct comm_data *cd, const char *path, int64_t off, uint32_t len,
			 size_t max_bytes, struct sbuf *out)
{
	sbuf_reset(out);
	size_t want = len < max_bytes ? len : max_bytes;
	char *buf = xmalloc(want ? want : 1);
	const struct comm_file *f = file_named(cd, path);
	ssize_t n = -1;
	if (f && f->text) {
		/* text kept in memory (a Db's tables): no file to read */
		size_t tl = f->text_len;
		n = off >= 0 && (size_t)off <= tl ? (ssize_t)(tl - (size_t)off < want ? tl - (size_t)off : want) : -1;
		if (n > 0)
			memcpy(buf, f->text + off, (size_t)n);
	} else {
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		n = fd < 0 ? -1 : pread(fd, buf, want, (off_t)off);
		if (fd >= 0)
			close(fd);
	}
	/* the entry must still be where it was: an object that ends where it ended */
	bool ok = n == (ssize_t)want && want > 0 && (buf[0] == '{' || buf[0] == '[') &&
		  (want < len || jscan_value_end(buf, want, 0) == want);
	if (ok) {
		sbuf_add(out, buf, want);
		if (want < len)
			sbuf_addf(out, "\n... %u more bytes", (unsigned)(len - want));
	} else {
		sbuf_addf(out, "the entry at byte %lld of %s can no longer be read (the file changed?)", (long long)off,
			  path);
	}
	free(buf);
	return ok ? 0 : -1;
}

/* Token i and its subtree as indented lines; returns the token after it. */
static int put_lines(const struct jtok *jt, const char *js, int i, int depth, struct sbuf *out)
{
	const jsmntok_t *t = &jt->t[i];
	if (t->type != JSMN_OBJECT || t->size == 0) {
		/* a primitive, a string or an array: its text as written, on the current line */
		size_t n = (size_t)(t->end - t->start);
		const char *s = js + t->start;
		if (t->type == JSMN_STRING)
			sbuf_addc(out, '"');
		for (size_t k = 0; k < n; k++)
			sbuf_addc(out, s[k] == '\n' || s[k] == '\r' ? ' ' : s[k]);
		if (t->type == JSMN_STRING)
			sbuf_addc(out, '"');
		sbuf_addc(out, '\n');
		return jtok_skip(jt, i);
	}
	if (depth > 0)
		sbuf_addc(out, '\n');
	int k = i + 1;
	for (int m = 0; m < t->size && k + 1 < jt->n; m++) {
		for (int d = 0; d < depth; d++)
			sbuf_adds(out, "  ");
		sbuf_add(out, js + jt->t[k].start, (size_t)(jt->t[k].end - jt->t[k].start));
		sbuf_adds(out, jt->t[k + 1].type == JSMN_OBJECT && jt->t[k + 1].size ? ":" : ": ");
		k = put_lines(jt, js, k + 1, depth + 1, out);
	}
	return k;
}

int comm_json_entry_lines(const struct comm_data *cd, const char *path, int64_t off, uint32_t len,
			  size_t max_bytes, struct sbuf *out)
{
	struct sbuf raw = SBUF_INIT;
	int r = comm_json_entry_text(cd, path, off, len, max_bytes, &raw);
	struct jtok jt;
	jtok_init(&jt);
	sbuf_reset(out);
	if (r == 0 && len <= max_bytes && jtok_parse(&jt, raw.buf, raw.len) > 0 && jt.t[0].type == JSMN_OBJECT)
		put_lines(&jt, raw.buf, 0, 0, out);
	else
		sbuf_add(out, raw.buf ? raw.buf : "", raw.len);
	jtok_free(&jt);
	sbuf_free(&raw);
	return r;
}

void comm_data_free(struct comm_data *cd)
{
	if (!cd)
		return;
	for (size_t i = 0; i < cd->n_files; i++) {
		free(cd->files[i].path);
		free(cd->files[i].text);
	}
	free(cd->files);
	free(cd->ops);
	free(cd->bws);
	free(cd->bins);
	free(cd->links);
	if (cd->strs)
		strtab_free(cd->strs);
	memset(cd, 0, sizeof *cd);
}
