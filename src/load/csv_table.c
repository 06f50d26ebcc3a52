/* SPDX-License-Identifier: MIT */
/* CSV tables: a mask splitter over the lines, libcsv for the lines it leaves; typed columns
 * and lazy cells. */
#include "csv_table.h"

#include <csv.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) && defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#define CSV_X86 1
#include <immintrin.h>
#else
#define CSV_X86 0
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#endif
/* Advanced SIMD is part of every aarch64 CPU: built in, nothing to detect at run time */
#if defined(__aarch64__) && defined(__ARM_NEON)
#define CSV_NEON 1
#include <arm_neon.h>
#else
#define CSV_NEON 0
#endif
#include <sys/mman.h>
#include <sys/stat.h>
#include <uniconv.h>
#include <unistd.h>
#include <unistr.h>

#include "i18n.h"
#include "lower_bound.h"
#include "mapguard.h"
#include "num.h"
#include "sanitize.h"
#include "sbuf.h"
#include "spill.h"
#include "xalloc.h"

/* libcsv's row states (csv.h documents the field; libcsv.c names them): 0 is "row not
 * begun", 2 "in a field" (3, "field might have ended", follows a quote in a quoted field:
 * at the end of the input that quote closes it). */
#define LIBCSV_ROW_NOT_BEGUN 0
#define LIBCSV_FIELD_BEGUN 2
/* The largest cell read (real cells are at most KBs), and how much libcsv is given at once
 * so that a larger one is seen early. */
#define CSVT_CELL_MAX (16u << 20)
#define CSVT_FEED ((size_t)1 << 20)
#define WARN_EACH 5

struct parse_state {
	struct csv_table *t;
	struct diag_list *dl;
	size_t fields;      /* cells seen in the current row */
	bool header_done;
	struct sbuf cell;   /* scratch for conversion */
	struct sbuf header_acc;
	char **hdr;
	size_t nhdr, cap_hdr;
	long pending_line;
	uint64_t pending_off;
	long row_line_now;
	size_t warn_ragged, warn_excel, warn_bad;
	const char *name;
	/* the separators of the line scan_line read last (offsets in it), and a quoted cell
	 * with "" unescaped */
	size_t *sep, *qpos;
	size_t cap_sep, cap_qpos;
	struct sbuf line_text;
	/* per header position: the typed column its cells go to, NULL for cells read lazily */
	struct csv_column **cell_col;
	size_t keep_end; /* one past the last header position with a typed column */
	/* per typed column, STR_CACHE texts the splitter read (names, shapes, formats recur row
	 * after row: a compare is cheaper than the unescape, hash and probe of an intern) */
	struct str_cache { const char *p; size_t len; uint32_t id; } *memo;
	const char *buf_begin, *buf_end; /* the file's bytes (masks64 may read up to the end) */
};


/* A cell in UTF-8: converted from GB18030 when the file is not UTF-8. */
static const char *cell_utf8(struct parse_state *ps, const char *s, size_t len, size_t *out_len)
{
	if (!ps->t->gbk) {
		*out_len = len;
		return s;
	}
	size_t n = 0;
	uint8_t *conv = u8_conv_from_encoding("GB18030", iconveh_escape_sequence, s, len, NULL, NULL, &n);
	sbuf_reset(&ps->cell);
	if (conv) {
		sbuf_add(&ps->cell, (const char *)conv, n);
		free(conv);
	} else {
		sbuf_add(&ps->cell, s, len);
	}
	*out_len = ps->cell.len;
	return sbuf_str(&ps->cell);
}

static void steps_add(struct csvt_steps *s, size_t row, int64_t v)
{
	xgrow(&s->at, &s->cap, s->n + 1, sizeof *s->at);
	s->at[s->n++] = (struct csvt_step){row, v};
}

/* Every row: inline while the value stays. */
static inline void steps_put(struct csvt_steps *s, size_t row, int64_t v)
{
	if (!s->n || s->at[s->n - 1].v != v)
		steps_add(s, row, v);
}

#define STEP_BY_ROW(at, i, k) ((at)[i].row <= (k))
LOWER_BOUND_DEFINE(step_upper_bound, const struct csvt_step *, size_t, STEP_BY_ROW)

int64_t csvt_steps_at(const struct csvt_steps *s, size_t row)
{
	size_t lo = step_upper_bound(s->at, row, 0, s->n); /* the first step after row */
	return lo ? s->at[lo - 1].v : 0;
}

/* A typed cell missing (or unreadable). */
static inline void set_missing(const struct csv_column *col, size_t r)
{
	switch (col->type) {
	case CSVT_STR: col->v.str[r] = 0; break;
	case CSVT_TIME: col->v.time[r] = CSVT_MISSING_TIME; break;
	case CSVT_NUM: col->v.num[r] = NAN; break;
	case CSVT_RATIO: col->v.ratio[r] = NAN; break;
	}
}

/* A new row, its typed cells not yet written (start_row writes them missing). */
static void start_row_unset(struct parse_state *ps)
{
	struct csv_table *t = ps->t;
	if (t->nrows == t->cap_rows) {
		size_t c = t->cap_rows;
		spill_grow(&t->row_off_lo, &c, t->nrows + 1, sizeof *t->row_off_lo);
		for (size_t i = 0; i < t->n_typed; i++) {
			struct csv_column *col = &t->cols[i];
			size_t cc = t->cap_rows;
			switch (col->type) {
			case CSVT_STR: spill_grow(&col->v.str, &cc, t->nrows + 1, sizeof *col->v.str); break;
			case CSVT_TIME: spill_grow(&col->v.time, &cc, t->nrows + 1, sizeof *col->v.time); break;
			case CSVT_NUM: spill_grow(&col->v.num, &cc, t->nrows + 1, sizeof *col->v.num); break;
			case CSVT_RATIO: spill_grow(&col->v.ratio, &cc, t->nrows + 1, sizeof *col->v.ratio); break;
			}
		}
		t->cap_rows = c;
	}
	size_t r = t->nrows++;
	t->row_off_lo[r] = (uint32_t)ps->pending_off;
	steps_put(&t->off_high, r, (int64_t)(ps->pending_off >> 32));
	steps_put(&t->line_skew, r, (int64_t)ps->pending_line - (int64_t)r);
}

static void start_row(struct parse_state *ps)
{
	start_row_unset(ps);
	for (size_t i = 0; i < ps->t->n_typed; i++)
		set_missing(&ps->t->cols[i], ps->t->nrows - 1);
}

static bool is_timestamp_col(enum csv_col c)
{
	return c == COL_START || c == COL_TIMESTAMP || c == COL_ALLOCATION_TIME || c == COL_RELEASE_TIME;
}

/* A text cell read by libcsv (in its buffer, so not cached), interned. */
static uint32_t intern_cell(struct parse_state *ps, const char *s, size_t len)
{
	size_t n;
	const char *u = cell_utf8(ps, s, len, &n);
	return strtab_intern(ps->t->strs, u, n);
}

/* Slots per text column in the splitter's cache (a power of two). */
#define STR_CACHE 64

static inline size_t str_slot(const char *s, size_t len)
{
	uint64_t a = 0, b = 0;
	if (len >= 8) {
		memcpy(&a, s, 8);
		memcpy(&b, s + len - 8, 8);
	} else {
		for (size_t i = 0; i < len; i++)
			a = a << 8 | (unsigned char)s[i];
	}
	uint64_t h = ((a * 0x9E3779B97F4A7C15ULL) ^ b ^ len) * 0xC2B2AE3D27D4EB4FULL;
	return (size_t)(h >> 58); /* STR_CACHE == 64 */
}

/* "" as '"' in a quoted cell's text, into ps->line_text. */
static const char *unescape_pairs(struct parse_state *ps, const char *s, size_t len, size_t *out_len)
{
	const char *end = s + len;
	sbuf_reset(&ps->line_text);
	while (s < end) {
		const char *d = memchr(s, '"', (size_t)(end - s));
		if (!d) {
			sbuf_add(&ps->line_text, s, (size_t)(end - s));
			break;
		}
		sbuf_add(&ps->line_text, s, (size_t)(d - s) + 1); /* one quote of the pair */
		s = d + 2;
	}
	*out_len = ps->line_text.len;
	return ps->line_text.buf ? ps->line_text.buf : "";
}

/* A text cell the splitter read: its bytes in the file (a quoted cell's without its
 * quotes; pairs: with "" still in them), interned through the column's cache, keyed by
 * those bytes. An unquoted cell never holds a quote, so bytes with "" come from a quoted
 * cell alone and always stand for the same text. */
static uint32_t intern_span(struct parse_state *ps, size_t typed, const char *s, size_t len, bool pairs)
{
	struct str_cache *c = &ps->memo[typed * STR_CACHE + str_slot(s, len)];
	if (c->p && c->len == len) {
		if (len >= 8 && len <= 16) { /* most names: two words, not a call */
			uint64_t a0, a1, b0, b1;
			memcpy(&a0, s, 8);
			memcpy(&a1, s + len - 8, 8);
			memcpy(&b0, c->p, 8);
			memcpy(&b1, c->p + len - 8, 8);
			if (a0 == b0 && a1 == b1)
				return c->id;
		} else if (!memcmp(c->p, s, len)) {
			return c->id;
		}
	}
	size_t n = len;
	const char *text = pairs ? unescape_pairs(ps, s, len, &n) : s;
	uint32_t id = intern_cell(ps, text, n);
	*c = (struct str_cache){s, len, id};
	return id;
}

static void store_cell(struct parse_state *ps, size_t idx, const char *s, size_t len)
{
	struct csv_table *t = ps->t;
	if (idx >= t->ncols || !ps->cell_col[idx])
		return;
	struct csv_column *col = ps->cell_col[idx];
	size_t r = t->nrows - 1;
	enum csv_type ty = col->type;
	if (ty == CSVT_STR) {
		col->v.str[r] = intern_cell(ps, s, len);
		return;
	}
	if (ty != CSVT_TIME) { /* a plain decimal has no exponent and is never out of range */
		double d;
		if (num_double_short(s, len, &d)) {
			if (ty == CSVT_NUM)
				col->v.num[r] = d;
			else
				col->v.ratio[r] = (float)d;
			return;
		}
	}
	enum num_status st;
	bool exponent = false;
	if (ty == CSVT_TIME) {
		int64_t ns = 0;
		st = num_time_ns_exp(s, len, &ns, &exponent); /* one pass for both */
		if (st == NUM_OK)
			col->v.time[r] = ns;
	} else {
		double d;
		st = num_double(s, len, &d);
		if (st == NUM_OK) {
			if (ty == CSVT_NUM)
				col->v.num[r] = d;
			else
				col->v.ratio[r] = (float)d;
		}
		exponent = st == NUM_OK && is_timestamp_col(col->col) && num_has_exponent(s, len);
	}
	/* only a value that was kept is "kept as read": 1e400 is out of range, one message */
	if (st == NUM_OK && exponent && is_timestamp_col(col->col)) {
		t->excel_numbers++;
		if (ps->warn_excel++ < WARN_EACH)
			diag_add(ps->dl, DIAG_WARN, ps->name, ps->row_line_now, -1,
				 _("%s \"%.*s\" is in exponent form (rewritten by Excel?): precision lost, "
				 "kept as read"),
				 t->headers[idx], (int)(len > 32 ? 32 : len), s);
	}
	if (st != NUM_OK && st != NUM_MISSING) {
		t->bad_numbers++;
		if (ps->warn_bad++ < WARN_EACH) {
			char *clean = sanitize_dup(s, len > 40 ? 40 : len);
			diag_add(ps->dl, DIAG_WARN, ps->name, ps->row_line_now, -1,
				 _("%s \"%s\" is %s; read as missing"), t->headers[idx], clean,
				 st == NUM_RANGE ? _("out of range") : _("not a number"));
			free(clean);
		}
	}
}

/* ';' or '\t' when the header's cells, split at it, name a known column: a table written
 * with another separator. 0 otherwise. */
static char other_separator(const struct csv_table *t)
{
	static const char *const seps[] = {";", "\t"};
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < t->ncols; i++) {
			const char *p = t->headers[i];
			if (!strchr(p, seps[k][0]))
				continue;
			for (;;) {
				size_t n = strcspn(p, seps[k]);
				if (csv_schema_lookup(p, n) >= 0)
					return seps[k][0];
				if (!p[n])
					break;
				p += n + 1;
			}
		}
	return 0;
}

/* Unused columns named in the message; the rest are counted. */
#define UNKNOWN_LISTED 16

static void setup_columns(struct parse_state *ps)
{
	struct csv_table *t = ps->t;
	t->ncols = ps->nhdr;
	t->headers = ps->hdr;
	ps->hdr = NULL;
	t->header_col = xmalloc((t->ncols ? t->ncols : 1) * sizeof *t->header_col);
	bool present[CSV_COL_COUNT] = {false};
	struct sbuf unknown = SBUF_INIT;
	size_t n_unknown = 0, n_known = 0;
	t->cols = xcalloc(t->ncols ? t->ncols : 1, sizeof *t->cols);
	for (size_t i = 0; i < t->ncols; i++) {
		int c = csv_schema_lookup(t->headers[i], strlen(t->headers[i]));
		t->header_col[i] = c;
		n_known += c >= 0;
		if (c < 0) {
			if (t->headers[i][0] && n_unknown++ < UNKNOWN_LISTED) {
				/* a few names, each cut short: a table of 10,000 columns must not
				 * make a message line of 100 KB */
				size_t hl = strlen(t->headers[i]), cut = hl;
				if (cut > 40)
					for (cut = 40; cut > 0 && ((unsigned char)t->headers[i][cut] & 0xC0) == 0x80;)
						cut--; /* not inside a UTF-8 sequence */
				if (n_unknown > 1)
					sbuf_adds(&unknown, ", ");
				sanitize_append(&unknown, t->headers[i], cut);
				if (cut < hl)
					sbuf_adds(&unknown, "...");
			}
			continue;
		}
		if (present[c])
			continue; /* a repeated column: the first one counts */
		present[c] = true;
		if (!csv_schema_is_read((enum csv_col)c))
			continue; /* known, but nothing reads it by name: drill-down reads the file */
		t->col_at[c] = (int)t->n_typed;
		t->cols[t->n_typed].col = (enum csv_col)c;
		t->cols[t->n_typed].type = csv_schema_type((enum csv_col)c);
		t->cols[t->n_typed].index = (int)i;
		t->n_typed++;
	}
	/* a repeated column's later copies, like unknown columns, are read lazily */
	ps->cell_col = xcalloc(t->ncols ? t->ncols : 1, sizeof *ps->cell_col);
	ps->keep_end = 0;
	for (size_t k = 0; k < t->n_typed; k++) {
		ps->cell_col[t->cols[k].index] = &t->cols[k];
		if ((size_t)t->cols[k].index + 1 > ps->keep_end)
			ps->keep_end = (size_t)t->cols[k].index + 1;
	}
	ps->memo = xcalloc((t->n_typed ? t->n_typed : 1) * STR_CACHE, sizeof *ps->memo);
	const char *base = strrchr(ps->name, '/');
	enum csv_kind by_name = csv_schema_kind_by_name(base ? base + 1 : ps->name);
	t->kind = by_name != CSV_UNKNOWN ? by_name : csv_schema_kind(present);
	/* a first line without one known column may not be a header at all (a link to another
	 * file, a table of something else): its cells are not echoed */
	char sep = n_known ? 0 : other_separator(t);
	struct sbuf why = SBUF_INIT;
	if (sep)
		diag_add(ps->dl, DIAG_WARN, ps->name, 1, -1, _("the header is separated by %s, not commas: "
			 "the table is not read (export it comma-separated)"), sep == ';' ? "';'" : _("TABs"));
	else if (csv_schema_name_mismatch(base ? base + 1 : ps->name, t->kind, present, &why))
		diag_add(ps->dl, DIAG_WARN, ps->name, 1, -1, "%s", sbuf_str(&why));
	sbuf_free(&why);
	if (!sep && n_unknown && !n_known)
		diag_add(ps->dl, DIAG_INFO, ps->name, 1, -1, _("no known column in the first line (%zu "
			 "cells): not a table this program reads; kept for drill-down"), t->ncols);
	else if (!sep && n_unknown)
		diag_add(ps->dl, DIAG_INFO, ps->name, 0, -1, _("%zu column(s) not used by the analysis, kept "
			 "for drill-down: %s%s"), n_unknown, sbuf_str(&unknown),
			 n_unknown > UNKNOWN_LISTED ? ", ..." : "");
	sbuf_free(&unknown);
}

static void on_field(void *data, size_t len, void *ctx)
{
	struct parse_state *ps = ctx;
	const char *s = data ? data : "";
	if (!ps->header_done) {
		size_t n;
		const char *u = cell_utf8(ps, s, len, &n);
		xgrow(&ps->hdr, &ps->cap_hdr, ps->nhdr + 1, sizeof *ps->hdr);
		/* a BOM glued to the first header cell */
		if (ps->nhdr == 0 && n >= 3 && memcmp(u, "\xEF\xBB\xBF", 3) == 0) {
			u += 3;
			n -= 3;
		}
		/* a NUL would end the name early and lose the column: it is left out */
		if (memchr(u, '\0', n)) {
			char *h = xmalloc(n + 1);
			size_t k = 0;
			for (size_t i = 0; i < n; i++)
				if (u[i])
					h[k++] = u[i];
			h[k] = '\0';
			diag_add(ps->dl, DIAG_WARN, ps->name, ps->row_line_now, -1,
				 _("header cell %zu holds a NUL byte; read without it"), ps->nhdr + 1);
			ps->hdr[ps->nhdr++] = h;
			ps->fields++;
			return;
		}
		ps->hdr[ps->nhdr++] = xstrndup(u, n);
		ps->fields++;
		return;
	}
	if (ps->fields == 0)
		start_row(ps);
	store_cell(ps, ps->fields, s, len);
	ps->fields++;
}

static void on_row(int term, void *ctx)
{
	struct parse_state *ps = ctx;
	struct csv_table *t = ps->t;
	(void)term;
	if (!ps->header_done) {
		ps->header_done = true;
		setup_columns(ps);
		ps->fields = 0;
		return;
	}
	if (ps->fields != t->ncols && ps->fields > 0) {
		t->ragged_rows++;
		if (ps->warn_ragged++ < WARN_EACH)
			diag_add(ps->dl, DIAG_WARN, ps->name, (long)csvt_line(t, t->nrows - 1), -1,
				 _("%zu cells under a %zu-column header; row kept (%s)"), ps->fields, t->ncols,
				 ps->fields < t->ncols ? _("missing cells read as missing") : _("extra cells ignored"));
	}
	ps->fields = 0;
}

static bool looks_blank(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != '\r' && p[i] != '\n' && p[i] != ' ' && p[i] != '\t')
			return false;
	return true;
}

/* 64 bytes as bit masks of ',', '"', '\n' and '\r' (bit k: b[k]); bytes at or past limit
 * (the end of the file's bytes) are never read and give no bit. */
struct blk_masks {
	uint64_t comma, quote, nl, cr, high; /* high: bytes past ASCII */
};

static inline void masks64(const char *b, const char *limit, struct blk_masks *m)
{
	uint64_t c = 0, q = 0, n = 0, r = 0, h = 0;
#ifdef __SSE2__
	if (limit - b >= 64) {
		const __m128i comma = _mm_set1_epi8(','), quote = _mm_set1_epi8('"'), nl = _mm_set1_epi8('\n'),
			      cr = _mm_set1_epi8('\r');
		for (int i = 0; i < 4; i++) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(b + 16 * i));
			c |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, comma)) << (16 * i);
			q |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)) << (16 * i);
			n |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)) << (16 * i);
			r |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, cr)) << (16 * i);
			h |= (uint64_t)(unsigned)_mm_movemask_epi8(v) << (16 * i);
		}
		*m = (struct blk_masks){c, q, n, r, h};
		return;
	}
#endif
	size_t len = limit - b < 64 ? (size_t)(limit - b) : 64;
	for (size_t i = 0; i < len; i++) {
		c |= (uint64_t)(b[i] == ',') << i;
		q |= (uint64_t)(b[i] == '"') << i;
		n |= (uint64_t)(b[i] == '\n') << i;
		r |= (uint64_t)(b[i] == '\r') << i;
		h |= (uint64_t)((unsigned char)b[i] >> 7) << i;
	}
	*m = (struct blk_masks){c, q, n, r, h};
}

/* Bit k set when an odd number of bits at or below k are: with quote bits, the bytes
 * inside quotes (the opening quote included, the closing one not). */
static inline uint64_t prefix_xor(uint64_t x)
{
	x ^= x << 1;
	x ^= x << 2;
	x ^= x << 4;
	x ^= x << 8;
	x ^= x << 16;
	x ^= x << 32;
	return x;
}

/* One line from p as the masks see it: its end, and its commas outside quotes (exactly
 * the separators when its quotes are well formed, which split_scanned checks). */
struct line_scan {
	size_t n;     /* the line's bytes, its '\n' included (to the end of the bytes without one) */
	size_t text;  /* the bytes before its line end ('\n', and a CR just before it) */
	size_t nsep;  /* separators: the first min(nsep, kept) of them at ps->sep, as offsets */
	size_t kept;
	bool lone_cr; /* a CR elsewhere than just before the '\n' (libcsv ends a row there) */
	bool quotes;  /* a '"' in the line */
	bool high;    /* a byte past ASCII in it */
	size_t nq;    /* its quotes, at ps->qpos as offsets; SIZE_MAX: over CSVT_QUOTES_MAX */
	bool open;    /* it ends inside quotes: a cell over several lines, or a stray quote */
};

/* Separators recorded per line at most (the header's cells; a data row needs only those
 * up to its last typed column): a header of more cells goes to libcsv. */
#define CSVT_SEP_MAX ((size_t)1 << 16)
/* Quotes listed per line at most (a line of more is checked by memchr). */
#define CSVT_QUOTES_MAX ((size_t)1 << 12)

#define CSV_SCAN_CAT2(a, b) a##_##b
#define CSV_SCAN_CAT(a, b) CSV_SCAN_CAT2(a, b)
#define CSV_SCAN_FN(name) CSV_SCAN_CAT(name, CSV_SCAN_SUFFIX)

#define CSV_SCAN_SUFFIX base
#define CSV_SCAN_MASKS masks64
#include "csv_scan_line.h"
#undef CSV_SCAN_SUFFIX
#undef CSV_SCAN_MASKS

#if CSV_X86
/* The AVX-512 set: compiled for AVX-512 BW, called only after __builtin_cpu_supports said
 * yes. Five compares give the five masks of 64 bytes, where SSE2 takes twenty compares,
 * twenty moves and the shifts: the kernel table of the 1 GB generated capture (123 MB)
 * parsed in 127 ms against 139 ms on one thread. */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw")
#endif

static inline void masks64_avx512(const char *b, const char *limit, struct blk_masks *m)
{
	if (limit - b < 64) {
		masks64(b, limit, m);
		return;
	}
	__m512i v = _mm512_loadu_si512((const void *)b);
	*m = (struct blk_masks){_mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(',')),
				_mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"')),
				_mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\n')),
				_mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\r')), _mm512_movepi8_mask(v)};
}

#define CSV_SCAN_SUFFIX avx512
#define CSV_SCAN_MASKS masks64_avx512
#include "csv_scan_line.h"
#undef CSV_SCAN_SUFFIX
#undef CSV_SCAN_MASKS

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif /* CSV_X86 */

#if CSV_NEON
/* Sixty-four compare results (every byte 0 or 0xFF), a then b, c, d, as one mask: bit k
 * for byte k. NEON has no movemask: each byte keeps its own bit of its group of eight,
 * and three pairwise adds sum each group into one byte (distinct bits: no carry). */
static inline uint64_t bits64_neon(uint8x16_t a, uint8x16_t b, uint8x16_t c, uint8x16_t d)
{
	static const uint8_t weight[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
	const uint8x16_t w = vld1q_u8(weight);
	uint8x16_t ab = vpaddq_u8(vandq_u8(a, w), vandq_u8(b, w));
	uint8x16_t cd = vpaddq_u8(vandq_u8(c, w), vandq_u8(d, w));
	uint8x16_t sum = vpaddq_u8(ab, cd);
	sum = vpaddq_u8(sum, sum);
	return vgetq_lane_u64(vreinterpretq_u64_u8(sum), 0);
}

/* Bit k set when byte k of the 64 in v equals ch. */
static inline uint64_t eq64_neon(const uint8x16_t v[4], uint8_t ch)
{
	uint8x16_t c = vdupq_n_u8(ch);
	return bits64_neon(vceqq_u8(v[0], c), vceqq_u8(v[1], c), vceqq_u8(v[2], c), vceqq_u8(v[3], c));
}

/* The SSE2 masks64 on NEON: the same five masks of 64 bytes. */
static inline void masks64_neon(const char *b, const char *limit, struct blk_masks *m)
{
	if (limit - b < 64) {
		masks64(b, limit, m);
		return;
	}
	const uint8_t *u = (const uint8_t *)b;
	const uint8x16_t v[4] = {vld1q_u8(u), vld1q_u8(u + 16), vld1q_u8(u + 32), vld1q_u8(u + 48)};
	/* past ASCII: the top bit, as movemask reads it (a signed byte below zero) */
	uint8x16_t h[4];
	for (int i = 0; i < 4; i++)
		h[i] = vcltzq_s8(vreinterpretq_s8_u8(v[i]));
	*m = (struct blk_masks){eq64_neon(v, ','), eq64_neon(v, '"'), eq64_neon(v, '\n'), eq64_neon(v, '\r'),
				bits64_neon(h[0], h[1], h[2], h[3])};
}

#define CSV_SCAN_SUFFIX neon
#define CSV_SCAN_MASKS masks64_neon
#include "csv_scan_line.h"
#undef CSV_SCAN_SUFFIX
#undef CSV_SCAN_MASKS
#endif /* CSV_NEON */

typedef void (*scan_line_fn)(const char *, const char *, size_t, struct parse_state *, struct line_scan *);

static const struct {
	const char *name;
	scan_line_fn fn; /* NULL: not built for this machine */
} csv_isa_table[CSVT_ISA_COUNT] = {
	[CSVT_ISA_BASE] = {"base", scan_line_base},
#if CSV_X86
	[CSVT_ISA_AVX512] = {"avx512", scan_line_avx512},
#else
	[CSVT_ISA_AVX512] = {"avx512", NULL},
#endif
#if CSV_NEON
	[CSVT_ISA_NEON] = {"neon", scan_line_neon},
#else
	[CSVT_ISA_NEON] = {"neon", NULL},
#endif
};

static enum csvt_isa csv_isa = CSVT_ISA_BASE;

bool csvt_isa_available(enum csvt_isa isa)
{
	if ((unsigned)isa >= CSVT_ISA_COUNT || !csv_isa_table[isa].fn)
		return false;
#if CSV_X86
	if (isa == CSVT_ISA_AVX512) {
		__builtin_cpu_init();
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
	}
#endif
	return true;
}

const char *csvt_isa_name(enum csvt_isa isa) { return (unsigned)isa < CSVT_ISA_COUNT ? csv_isa_table[isa].name : "?"; }

enum csvt_isa csvt_isa_used(void) { return csv_isa; }

bool csvt_isa_set(enum csvt_isa isa)
{
	if (!csvt_isa_available(isa))
		return false;
	csv_isa = isa;
	return true;
}

/* Chosen once before main: AVX-512 where the CPU has it, NEON on aarch64 (as SSE2 is the
 * baseline on x86-64; not measured: no arm64 machine), unless $ASCPROF_CSV_SCAN names
 * another set (base, avx512, neon: comparisons, benchmarks). */
__attribute__((constructor)) static void csv_choose_isa(void)
{
	enum csvt_isa best = CSVT_ISA_BASE;
	if (csvt_isa_available(CSVT_ISA_AVX512))
		best = CSVT_ISA_AVX512;
	else if (csvt_isa_available(CSVT_ISA_NEON))
		best = CSVT_ISA_NEON;
	const char *want = getenv("ASCPROF_CSV_SCAN");
	for (int i = 0; want && i < CSVT_ISA_COUNT; i++)
		if (!strcmp(want, csv_isa_table[i].name) && csvt_isa_available((enum csvt_isa)i))
			best = (enum csvt_isa)i;
	csv_isa = best;
}

static void scan_line(const char *p, const char *limit, size_t want, struct parse_state *ps, struct line_scan *ls)
{
	csv_isa_table[csv_isa].fn(p, limit, want, ps, ls);
}

static inline const char *skip_blanks(const char *a, const char *end)
{
	while (a < end && (*a == ' ' || *a == '\t'))
		a++;
	return a;
}

/* Whether every quote of [p, end) is where libcsv reads quoted cells the way the
 * splitter does: a cell is blanks, '"', text with "" for a quote, '"', blanks; a quote
 * elsewhere (inside an unquoted cell, text after a closing quote) and a quote that does
 * not close on the line are libcsv's. Then the commas outside quotes are the separators. */
static bool quotes_well_formed(const char *p, const char *end)
{
	for (const char *q = memchr(p, '"', (size_t)(end - p)); q; q = memchr(q, '"', (size_t)(end - q))) {
		const char *b = q;
		while (b > p && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		if (b > p && b[-1] != ',')
			return false;
		for (q++;;) {
			const char *c = memchr(q, '"', (size_t)(end - q));
			if (!c)
				return false;
			if (c + 1 < end && c[1] == '"') {
				q = c + 2;
				continue;
			}
			q = skip_blanks(c + 1, end);
			if (q < end && *q != ',')
				return false;
			break;
		}
		if (q >= end)
			break;
	}
	return true;
}

/* quotes_well_formed over the line's quotes as scan_line listed them (offsets from p,
 * in order): no search. */
static bool quotes_listed_well_formed(const char *p, const char *end, const size_t *qpos, size_t nq)
{
	for (size_t i = 0; i < nq;) {
		const char *b = p + qpos[i];
		while (b > p && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		if (b > p && b[-1] != ',')
			return false;
		for (i++;; i += 2) { /* "" pairs, then the closing quote */
			if (i >= nq)
				return false;
			if (i + 1 < nq && qpos[i + 1] == qpos[i] + 1)
				continue;
			const char *a = skip_blanks(p + qpos[i] + 1, end);
			if (a < end && *a != ',')
				return false;
			i++;
			break;
		}
	}
	return true;
}

/* A cell of a well-formed line, [f, e) between its separators, as its bytes in the file:
 * blanks trimmed, a quoted one's quotes left out; *pairs when "" stands for a quote in
 * them. */
static inline const char *cell_span(const char *f, const char *e, size_t *len, bool *pairs)
{
	if (f < e && (*f == ' ' || *f == '\t'))
		f = skip_blanks(f, e);
	if (f < e && *f == '"') {
		while (e[-1] != '"') /* blanks after the closing quote */
			e--;
		f++;
		e--;
		*len = (size_t)(e - f);
		*pairs = memchr(f, '"', *len) != NULL;
		return f;
	}
	while (e > f && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*len = (size_t)(e - f);
	*pairs = false;
	return f;
}

/* The cell as libcsv gives it: "" unescaped (into ps->line_text). */
static inline const char *cell_text(struct parse_state *ps, const char *f, const char *e, size_t *len)
{
	bool pairs;
	const char *s = cell_span(f, e, len, &pairs);
	return pairs ? unescape_pairs(ps, s, *len, len) : s;
}

/* Typed cell k of row r (its header position's text s; pairs: with "" still in it): the
 * common shapes here; the rest, and every message, through store_cell. Always inlined:
 * it is the splitter's per-cell loop, the text tables' hot path. */
static inline __attribute__((always_inline)) void put_typed(struct parse_state *ps, size_t k, size_t r, const char *s,
							  size_t len, bool pairs)
{
	const struct csv_column *col = &ps->t->cols[k];
	if (col->type == CSVT_STR) {
		col->v.str[r] = intern_span(ps, k, s, len, pairs);
		return;
	}
	if (!pairs) {
		double d;
		if (col->type == CSVT_TIME ? num_time_short(s, len, &col->v.time[r]) : num_double_short(s, len, &d)) {
			if (col->type == CSVT_RATIO)
				col->v.ratio[r] = (float)d;
			else if (col->type == CSVT_NUM)
				col->v.num[r] = d;
			return;
		}
	}
	if (pairs)
		s = unescape_pairs(ps, s, len, &len);
	set_missing(col, r); /* what store_cell leaves when it cannot read the cell */
	store_cell(ps, (size_t)col->index, s, len);
}

/* What libcsv gives for one scanned line that is a whole row (not blank, no lone CR, its
 * quotes closed): cells at the separators, blanks trimmed around them, quoted ones with
 * "" for a quote. False, having given nothing, for what it leaves to libcsv (see
 * quotes_well_formed). After the header only typed cells are read; the others are
 * counted. ASCPROF_LIBCSV_ONLY=1 turns it off. */
static bool split_scanned(const char *p, const struct line_scan *ls, struct parse_state *ps)
{
	const char *end = p + ls->text;
	if (ls->quotes && !(ls->nq != SIZE_MAX ? quotes_listed_well_formed(p, end, ps->qpos, ls->nq)
					       : quotes_well_formed(p, end)))
		return false;
	const size_t *sep = ps->sep;
	size_t nf = ls->nsep + 1;
	if (!ps->header_done) {
		if (ls->kept < ls->nsep)
			return false; /* over CSVT_SEP_MAX cells */
		for (size_t i = 0; i < nf; i++) {
			const char *f = i ? p + sep[i - 1] + 1 : p, *e = i < ls->nsep ? p + sep[i] : end;
			size_t len;
			const char *s = cell_text(ps, f, e, &len);
			on_field((void *)s, len, ps);
		}
		on_row('\n', ps);
		return true;
	}
	/* every typed cell is written below: read, or missing */
	start_row_unset(ps);
	const struct csv_table *t = ps->t;
	size_t r = t->nrows - 1;
	for (size_t k = 0; k < t->n_typed; k++) {
		size_t i = (size_t)t->cols[k].index;
		if (i >= nf) { /* a short row */
			for (; k < t->n_typed; k++)
				set_missing(&t->cols[k], r);
			break;
		}
		const char *f = i ? p + sep[i - 1] + 1 : p, *e = i < ls->nsep ? p + sep[i] : end;
		size_t len;
		bool pairs;
		const char *s = cell_span(f, e, &len, &pairs);
		put_typed(ps, k, r, s, len, pairs);
	}
	ps->fields = nf;
	on_row('\n', ps);
	return true;
}

/* What a parse holds, reachable from outside so that a parse cut by a fault (the file
 * shrank, mapguard.h) can be freed. */
struct parse_run {
	const char *name, *buf;
	size_t len;
	struct diag_list *dl;
	struct parse_state ps;
	struct csv_parser p;
	bool parser_live;
	bool too_big; /* a cell ran past CSVT_CELL_MAX: libcsv is not finished */
	/* a parse that checks UTF-8 line by line keeps its messages here until it ends: a bad
	 * byte found on the way starts it again, checked first (and read as GB18030) */
	struct diag_list local;
	bool local_live;
	struct csv_table *result;
};

static void parse_state_free(struct parse_state *ps)
{
	for (size_t i = 0; i < ps->nhdr && ps->hdr; i++)
		free(ps->hdr[i]);
	free(ps->hdr);
	ps->hdr = NULL;
	sbuf_free(&ps->cell);
	sbuf_free(&ps->header_acc);
	sbuf_free(&ps->line_text);
	free(ps->sep);
	free(ps->qpos);
	ps->qpos = NULL;
	free(ps->cell_col);
	free(ps->memo);
	ps->sep = NULL;
	ps->cell_col = NULL;
	ps->memo = NULL;
}

/* After the last row: the header when it was all there was, the closing messages. The
 * table, or NULL (freed) when there was no header. */
static struct csv_table *parse_close(struct parse_state *ps, struct diag_list *dl, const char *name)
{
	struct csv_table *t = ps->t;
	if (!ps->header_done && ps->nhdr) {
		ps->header_done = true;
		setup_columns(ps);
	}
	parse_state_free(ps);
	if (!ps->header_done || t->ncols == 0) {
		diag_add(dl, DIAG_WARN, name, 0, -1, _("no header row; skipped"));
		csvt_free(t);
		t = NULL;
	}
	if (t && t->nrows == 0)
		diag_add(dl, DIAG_INFO, name, 0, -1, _("a header and no data rows"));
	if (t && t->ragged_rows > WARN_EACH)
		diag_add(dl, DIAG_WARN, name, 0, -1, _("%zu rows in all have the wrong number of cells"),
			 t->ragged_rows);
	if (t && t->excel_numbers > WARN_EACH)
		diag_add(dl, DIAG_WARN, name, 0, -1, _("%zu timestamps in all are in exponent form"),
			 t->excel_numbers);
	if (t && t->bad_numbers > WARN_EACH)
		diag_add(dl, DIAG_WARN, name, 0, -1, _("%zu numeric cells in all could not be read"),
			 t->bad_numbers);
	return t;
}

/* The end of the last complete line in buf[0, len) (after its '\n'), 0 when none. */
struct memrchr_call {
	const char *buf;
	size_t len, at;
};

static void last_line_end(void *arg)
{
	struct memrchr_call *mc = arg;
	const char *nl = mc->len ? memrchr(mc->buf, '\n', mc->len) : NULL;
	mc->at = nl ? (size_t)(nl - mc->buf) + 1 : 0;
}

/* Frees what a parse cut short held. */
static void parse_run_abandon(struct parse_run *r)
{
	if (r->parser_live)
		csv_free(&r->p);
	r->parser_live = false;
	parse_state_free(&r->ps);
	csvt_free(r->ps.t);
	r->ps.t = NULL;
	if (r->local_live)
		diag_free(&r->local);
	r->local_live = false;
}

/* Bytes that are not UTF-8 from pos on: the table reads as GB18030 (t->gbk) when they
 * convert, else with the bad bytes escaped; said once, at the first bad byte. */
static void check_encoding(struct csv_table *t, struct diag_list *dl, const char *name, const char *buf,
			   size_t len, size_t pos)
{
	const uint8_t *bad = sanitize_utf8_first_bad((const uint8_t *)buf + pos, len - pos);
	if (!bad)
		return;
	size_t n = 0;
	uint8_t *conv = u8_conv_from_encoding("GB18030", iconveh_error, buf + pos, len - pos, NULL, NULL, &n);
	size_t at = (size_t)((const char *)bad - buf);
	long line = 1;
	for (size_t i = 0; i < at; i++)
		line += buf[i] == '\n';
	if (conv) {
		free(conv);
		t->gbk = true;
		diag_add(dl, DIAG_WARN, name, line, -1,
			 _("not UTF-8 (first bad byte 0x%02X at byte %zu); read as GB18030/GBK"),
			 (unsigned char)*bad, at);
	} else {
		diag_add(dl, DIAG_WARN, name, line, -1,
			 _("not UTF-8 and not GB18030 (first bad byte 0x%02X at byte %zu); bad bytes "
			 "are shown escaped"),
			 (unsigned char)*bad, at);
	}
}

/* A line the splitter leaves, through libcsv. libcsv holds the cell it is in (twice over as
 * its buffer doubles): fed a piece at a time, a cell past CSVT_CELL_MAX ends the table (an
 * unclosed quote in a large file would otherwise cost twice the file). False when the
 * table ends here (said in dl). */
static bool feed_libcsv(struct parse_run *r, struct diag_list *dl, size_t pos, size_t n, long line)
{
	struct csv_parser *p = &r->p;
	struct parse_state *ps = &r->ps;
	size_t fed = 0;
	bool too_big = false;
	while (fed < n && !too_big) {
		size_t piece = n - fed < CSVT_FEED ? n - fed : CSVT_FEED;
		if (csv_parse(p, r->buf + pos + fed, piece, on_field, on_row, ps) != piece) {
			diag_add(dl, DIAG_WARN, r->name, line, -1, _("CSV parse error: %s; the rest is ignored"),
				 csv_strerror(csv_error(p)));
			return false;
		}
		fed += piece;
		too_big = p->entry_pos > CSVT_CELL_MAX;
	}
	if (too_big) {
		r->too_big = true;
		diag_add(dl, DIAG_WARN, r->name, ps->pending_line, (int64_t)ps->pending_off,
			 _("a cell in the row that starts here runs past %u MB (an unclosed quote?): the "
			 "rows before it are kept, the remaining %zu bytes are not read"),
			 CSVT_CELL_MAX >> 20, r->len - (size_t)ps->pending_off);
		return false;
	}
	return true;
}

/* One parse of r's bytes. utf8_first: the bytes are checked for UTF-8 before (and a file
 * that is not is read as GB18030); else line by line as they are read, the messages kept
 * in r->local, and false (nothing kept) when a bad byte turns up: the caller parses again,
 * checking first. Only ASCPROF_LIBCSV_ONLY=1 and that second parse check first: an ASCII
 * or UTF-8 file is read once, not twice. */
static bool parse_attempt(struct parse_run *r, bool utf8_first)
{
	const char *name = r->name, *buf = r->buf;
	size_t len = r->len;
	/* ASCPROF_LIBCSV_ONLY=1 sends every line through libcsv (comparisons) */
	const char *only = getenv("ASCPROF_LIBCSV_ONLY");
	bool fast = !(only && !strcmp(only, "1"));
	if (!fast)
		utf8_first = true;
	struct diag_list *dl = r->dl;
	if (!utf8_first) {
		diag_init(&r->local);
		r->local_live = true;
		dl = &r->local;
	}
	struct csv_table *t = xcalloc(1, sizeof *t);
	r->ps.t = t;
	t->path = xstrdup(name);
	t->data_fd = -1;
	t->file_size = len;
	t->strs = strtab_new();
	for (int c = 0; c < CSV_COL_COUNT; c++)
		t->col_at[c] = -1;

	size_t pos = 0;
	if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) {
		t->bom = true;
		pos = 3;
	}
	if (utf8_first)
		check_encoding(t, dl, name, buf, len, pos);
	const char *nl = memchr(buf + pos, '\n', len - pos);
	t->crlf = nl && nl > buf + pos && nl[-1] == '\r';

	struct csv_parser *p = &r->p;
	csv_init(p, CSV_APPEND_NULL);
	/* libcsv grows its cell buffer by this much at a time (128 bytes by default): a cell of
	 * megabytes would be copied over and over */
	csv_set_blk_size(p, 64u << 10);
	r->parser_live = true;
	/* libcsv's own spaces (space, TAB) and terminators (CR, LF) are ours: no callbacks,
	 * which would cost a call per byte */
	struct parse_state *ps = &r->ps;
	*ps = (struct parse_state){.t = t, .dl = dl, .name = name, .pending_line = 1, .buf_begin = buf,
				  .buf_end = buf + len};
	long line = 1;
	bool restart = false;
	r->too_big = false;
	while (pos < len) {
		/* a line that starts a row is scanned once for its end, its separators and
		 * whether the splitter may take it; a row libcsv is in the middle of is its own */
		bool fresh = p->pstate == LIBCSV_ROW_NOT_BEGUN;
		struct line_scan ls = {0};
		size_t n;
		if (fast && fresh) {
			scan_line(buf + pos, buf + len, ps->header_done ? ps->keep_end : CSVT_SEP_MAX, ps, &ls);
			n = ls.n;
		} else {
			const char *eol = memchr(buf + pos, '\n', len - pos);
			n = eol ? (size_t)(eol - (buf + pos)) + 1 : len - pos;
		}
		if (!utf8_first && (!(fast && fresh) || ls.high) &&
		    sanitize_utf8_first_bad((const uint8_t *)buf + pos, n)) {
			restart = true;
			break;
		}
		bool blank = fresh && looks_blank(buf + pos, n);
		if (fresh && !blank) {
			ps->pending_line = line;
			ps->pending_off = pos;
		}
		ps->row_line_now = ps->pending_line;
		if (fast && fresh && !blank && !ls.lone_cr && !ls.open && split_scanned(buf + pos, &ls, ps)) {
			pos += n;
			line++;
			continue;
		}
		if (!feed_libcsv(r, dl, pos, n, line))
			break;
		pos += n;
		line++;
	}
	/* the bytes a parse cut short never read count too (they make the file GB18030) */
	if (!utf8_first && !restart && pos < len &&
	    sanitize_utf8_first_bad((const uint8_t *)buf + pos, len - pos))
		restart = true;
	if (restart)
		return false;
	bool open_quote = !r->too_big && p->quoted && p->pstate == LIBCSV_FIELD_BEGUN;
	if (!r->too_big)
		csv_fini(p, on_field, on_row, ps);
	csv_free(p);
	r->parser_live = false;
	if (open_quote)
		diag_add(dl, DIAG_WARN, name, ps->pending_line, -1,
			 _("a quoted cell starting in the row at this line is never closed; it runs to the "
			 "end of the file"));
	t = parse_close(ps, dl, name);
	r->ps.t = NULL; /* from here on the table is the result */
	if (r->local_live) {
		diag_append(r->dl, &r->local);
		diag_free(&r->local);
		r->local_live = false;
	}
	r->result = t;
	return true;
}

static void parse_run_main(void *arg)
{
	struct parse_run *r = arg;
	if (parse_attempt(r, false))
		return;
	parse_run_abandon(r); /* a byte that is not UTF-8: again, checked first */
	parse_attempt(r, true);
}

static struct csv_table *parse_bytes(const char *name, const char *buf, size_t len,
				     struct diag_list *dl)
{
	struct parse_run r = {.name = name, .buf = buf, .len = len, .dl = dl};
	parse_run_main(&r);
	return r.result;
}

/* Parses a mapped file that may shrink while it is read: a read past its new end faults
 * (mapguard.h), and pages cut in the middle read as zeros. Either way the parse starts again
 * on the complete lines that are left, with the messages of that parse only, and says so. */
struct csv_table *csvt_load_map(const char *path, int fd, const char *map, size_t size,
				struct diag_list *dl)
{
	size_t len = size;
	for (int attempt = 0; attempt < 4; attempt++) {
		struct diag_list local;
		diag_init(&local);
		struct parse_run r = {.name = path, .buf = map, .len = len, .dl = &local};
		size_t fault = len;
		bool whole = mapguard_run(map, len, parse_run_main, &r, &fault);
		if (!whole)
			parse_run_abandon(&r);
		struct stat st;
		uint64_t now = fstat(fd, &st) == 0 ? (uint64_t)st.st_size : 0;
		if (whole && now >= len) {
			diag_append(dl, &local);
			diag_free(&local);
			if (len < size)
				diag_add(dl, DIAG_WARN, path, 0, (int64_t)len,
					 _("the file shrank while it was read (from %zu to %llu bytes): kept the %zu "
					 "rows of the whole lines before this offset; the rest was not read"),
					 size, (unsigned long long)now, r.result ? r.result->nrows : 0);
			return r.result;
		}
		csvt_free(r.result);
		diag_free(&local);
		/* the complete lines before the new end (or the fault, whichever comes first) */
		size_t end = now < fault ? (size_t)now : fault;
		if (end > len)
			end = len;
		size_t cut = 0;
		struct memrchr_call mc = {map, end, 0};
		if (mapguard_run(map, end, last_line_end, &mc, NULL))
			cut = mc.at;
		if (cut == 0) {
			diag_add(dl, DIAG_WARN, path, 0, (int64_t)end,
				 _("the file shrank while it was read (from %zu to %llu bytes), leaving no whole "
				 "line; skipped"),
				 size, (unsigned long long)now);
			return NULL;
		}
		len = cut;
	}
	diag_add(dl, DIAG_WARN, path, 0, -1, _("the file kept shrinking while it was read; skipped"));
	return NULL;
}

/* A copy of a mapped range, taken under the fault guard (the file may shrink). */
struct utf16_copy {
	const char *src;
	char *dst;
	size_t len;
};

static void copy_utf16(void *arg)
{
	struct utf16_copy *c = arg;
	memcpy(c->dst, c->src, c->len);
}

/* A UTF-16 table (its byte order mark makes that certain) is converted to UTF-8 in
 * memory and read there, drill-down included. False when buf is not UTF-16; else *out
 * is the table or NULL (named). */
static bool load_utf16(const char *name, const char *buf, size_t len, struct diag_list *dl, struct csv_table **out)
{
	*out = NULL;
	if (len < 2)
		return false;
	unsigned char u[2];
	struct utf16_copy head = {buf, (char *)u, 2};
	if (!mapguard_run(buf, len, copy_utf16, &head, NULL))
		return false; /* shrank to nothing: the plain reader says so */
	const char *enc = u[0] == 0xFF && u[1] == 0xFE ? "UTF-16LE" : u[0] == 0xFE && u[1] == 0xFF ? "UTF-16BE" : NULL;
	if (!enc)
		return false;
	/* converted from a copy taken under the fault guard: the file may shrink meanwhile */
	struct utf16_copy c = {buf + 2, xmalloc(len - 2 > 0 ? len - 2 : 1), len - 2};
	size_t fault = 0;
	if (!mapguard_run(buf, len, copy_utf16, &c, &fault)) {
		c.len = fault > 2 ? fault - 2 : 0;
		diag_add(dl, DIAG_WARN, name, 0, (int64_t)fault,
			 _("the file shrank while it was read: its first %zu bytes kept"), fault);
	}
	size_t n = 0;
	uint8_t *conv = u8_conv_from_encoding(enc, iconveh_escape_sequence, c.dst, c.len, NULL, NULL, &n);
	free(c.dst);
	if (!conv || n == 0) {
		free(conv);
		diag_add(dl, DIAG_WARN, name, 0, -1, _("%s (byte order mark) that cannot be converted; skipped"), enc);
		return true;
	}
	diag_add(dl, DIAG_INFO, name, 0, -1, _("%s (byte order mark): read converted to UTF-8"), enc);
	struct csv_table *t = parse_bytes(name, (const char *)conv, n, dl);
	if (!t) {
		free(conv);
		return true;
	}
	t->mem = (const char *)conv;
	t->mem_len = n;
	t->mem_owned = (char *)conv;
	*out = t;
	return true;
}

struct csv_table *csvt_load_buffer(const char *name, const char *buf, size_t len, struct diag_list *dl)
{
	if (len == 0) {
		diag_add(dl, DIAG_WARN, name, 0, -1, _("empty file (0 bytes); skipped"));
		return NULL;
	}
	struct csv_table *t;
	if (load_utf16(name, buf, len, dl, &t))
		return t;
	t = parse_bytes(name, buf, len, dl);
	if (t) {
		t->mem = buf;
		t->mem_len = len;
	}
	return t;
}

struct csv_table *csvt_load(const char *path, struct diag_list *dl) { return csvt_load_limited(path, 0, NULL, dl); }

struct csv_table *csvt_load_limited(const char *path, uint64_t max_bytes, const char *limit_why,
				    struct diag_list *dl)
{
	void *map = NULL;
	uint64_t size = 0;
	int fd = -1, err = 0;
	switch (mapguard_map_file(path, max_bytes, &map, &size, &fd, &err)) {
	case MAP_FILE_OK:
		break;
	case MAP_FILE_CANNOT_OPEN:
		diag_add(dl, DIAG_WARN, path, 0, -1, _("cannot open: %s; skipped"), strerror(err));
		return NULL;
	case MAP_FILE_NOT_REGULAR:
		diag_add(dl, DIAG_WARN, path, 0, -1, _("not a regular file; skipped"));
		return NULL;
	case MAP_FILE_EMPTY:
		diag_add(dl, DIAG_WARN, path, 0, -1, _("empty file (0 bytes); skipped"));
		return NULL;
	case MAP_FILE_TOO_BIG:
		diag_add(dl, DIAG_ERROR, path, 0, -1,
			 _("%llu bytes is over the limit of %llu bytes %s; skipped. --max-csv-bytes N sets the "
			 "limit (0: none)"),
			 (unsigned long long)size, (unsigned long long)max_bytes, limit_why ? limit_why : "");
		return NULL;
	case MAP_FILE_CANNOT_MAP:
		diag_add(dl, DIAG_WARN, path, 0, -1, _("cannot map: %s; skipped"), strerror(err));
		return NULL;
	}
	struct csv_table *t;
	if (!load_utf16(path, map, (size_t)size, dl, &t))
		t = csvt_load_map(path, fd, map, (size_t)size, dl);
	munmap(map, (size_t)size);
	close(fd);
	return t;
}

struct csv_table *csvt_load_fd(int fd, const char *name, struct diag_list *dl)
{
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_size == 0) {
		close(fd);
		diag_add(dl, DIAG_WARN, name, 0, -1, _("empty table; skipped"));
		return NULL;
	}
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		close(fd);
		diag_add(dl, DIAG_WARN, name, 0, -1, _("cannot map: %s; skipped"), strerror(errno));
		return NULL;
	}
	madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
	struct csv_table *t = parse_bytes(name, map, (size_t)st.st_size, dl);
	munmap(map, (size_t)st.st_size);
	if (t)
		t->data_fd = fd;
	else
		close(fd);
	return t;
}

void csvt_free(struct csv_table *t)
{
	if (!t)
		return;
	if (t->data_fd >= 0)
		close(t->data_fd);
	for (size_t i = 0; i < t->ncols; i++)
		free(t->headers[i]);
	free(t->headers);
	free(t->header_col);
	for (size_t i = 0; i < t->n_typed && !t->map; i++)
		spill_free(t->cols[i].v.str); /* the union's pointer, whatever its type */
	free(t->cols);
	if (!t->map)
		spill_free(t->row_off_lo);
	else
		munmap(t->map, t->map_len);
	free(t->off_high.at);
	free(t->line_skew.at);
	strtab_free(t->strs);
	free(t->path);
	for (size_t i = 0; i < t->n_parts; i++)
		free(t->parts[i].path);
	free(t->parts);
	free(t->mem_owned);
	spill_free(t->cells);
	free(t);
}

static void add_part(struct csv_table *t, const char *path, size_t first_row, uint64_t size, bool gbk)
{
	t->parts = xrealloc(t->parts, (t->n_parts + 1) * sizeof *t->parts);
	t->parts[t->n_parts++] = (struct csvt_part){xstrdup(path), first_row, size, gbk};
}

bool csvt_append(struct csv_table *dst, struct csv_table *src)
{
	if (dst->ncols != src->ncols || dst->mem || src->mem || dst->map)
		return false;
	for (size_t i = 0; i < dst->ncols; i++)
		if (strcmp(dst->headers[i], src->headers[i]) != 0)
			return false;
	if (!dst->n_parts)
		add_part(dst, dst->path, 0, dst->file_size, dst->gbk);
	for (size_t i = 0; i < src->n_parts; i++) /* src may itself have parts */
		add_part(dst, src->parts[i].path, dst->nrows + src->parts[i].first_row, src->parts[i].size,
			 src->parts[i].gbk);
	if (!src->n_parts)
		add_part(dst, src->path, dst->nrows, src->file_size, src->gbk);
	size_t n = dst->nrows + src->nrows, cap = dst->cap_rows;
	if (n > cap) {
		cap = n;
		dst->row_off_lo = spill_realloc(dst->row_off_lo, cap * sizeof *dst->row_off_lo);
		for (size_t i = 0; i < dst->n_typed; i++) {
			struct csv_column *c = &dst->cols[i];
			switch (csv_schema_type(c->col)) {
			case CSVT_STR: c->v.str = spill_realloc(c->v.str, cap * sizeof *c->v.str); break;
			case CSVT_TIME: c->v.time = spill_realloc(c->v.time, cap * sizeof *c->v.time); break;
			case CSVT_NUM: c->v.num = spill_realloc(c->v.num, cap * sizeof *c->v.num); break;
			case CSVT_RATIO: c->v.ratio = spill_realloc(c->v.ratio, cap * sizeof *c->v.ratio); break;
			}
		}
		dst->cap_rows = cap;
	}
	size_t at = dst->nrows;
	xmemcpy(dst->row_off_lo + at, src->row_off_lo, src->nrows * sizeof *src->row_off_lo);
	for (size_t i = 0; i < src->off_high.n; i++)
		steps_put(&dst->off_high, at + src->off_high.at[i].row, src->off_high.at[i].v);
	for (size_t i = 0; i < src->line_skew.n; i++) /* line - row, with rows counted on from at */
		steps_put(&dst->line_skew, at + src->line_skew.at[i].row, src->line_skew.at[i].v - (int64_t)at);
	/* same headers, so the typed columns line up one to one */
	for (size_t i = 0; i < dst->n_typed; i++) {
		struct csv_column *d = &dst->cols[i];
		const struct csv_column *sc = &src->cols[i];
		switch (csv_schema_type(d->col)) {
		case CSVT_STR:
			for (size_t r = 0; r < src->nrows; r++) {
				uint32_t id = sc->v.str[r];
				d->v.str[at + r] = id ? strtab_intern(dst->strs, strtab_str(src->strs, id),
								     strtab_len(src->strs, id))
						      : 0;
			}
			break;
		case CSVT_TIME: xmemcpy(d->v.time + at, sc->v.time, src->nrows * sizeof *sc->v.time); break;
		case CSVT_NUM: xmemcpy(d->v.num + at, sc->v.num, src->nrows * sizeof *sc->v.num); break;
		case CSVT_RATIO: xmemcpy(d->v.ratio + at, sc->v.ratio, src->nrows * sizeof *sc->v.ratio); break;
		}
	}
	dst->nrows = n;
	dst->ragged_rows += src->ragged_rows;
	dst->excel_numbers += src->excel_numbers;
	dst->bad_numbers += src->bad_numbers;
	csvt_free(src);
	return true;
}

/* The part holding a row: parts are few and in row order. */
static const struct csvt_part *row_part(const struct csv_table *t, size_t row)
{
	const struct csvt_part *p = NULL;
	for (size_t i = 0; i < t->n_parts && t->parts[i].first_row <= row; i++)
		p = &t->parts[i];
	return p;
}

const char *csvt_row_path(const struct csv_table *t, size_t row)
{
	const struct csvt_part *p = row_part(t, row);
	return p ? p->path : t->path;
}

const char *csvt_str(const struct csv_table *t, size_t row, enum csv_col c)
{
	return strtab_str(t->strs, csvt_str_id(t, row, c));
}

/* A drill-down cell onto out (converted from GB18030 in a table that is). */
static void cells_add(struct csv_cells *out, size_t *cap, const char *s, size_t len, bool gbk)
{
	char *cell = NULL;
	if (gbk) {
		size_t n = 0;
		uint8_t *conv = u8_conv_from_encoding("GB18030", iconveh_escape_sequence, s, len, NULL, NULL, &n);
		if (conv) {
			cell = xstrndup((const char *)conv, n);
			free(conv);
		}
	}
	if (!cell)
		cell = xstrndup(s, len);
	xgrow(&out->cells, cap, out->n + 1, sizeof *out->cells);
	out->cells[out->n++] = cell;
}

struct row_collect {
	struct csv_cells *out;
	size_t cap;
	bool done;
	bool gbk;
};

static void collect_field(void *data, size_t len, void *ctx)
{
	struct row_collect *rc = ctx;
	if (rc->done)
		return;
	cells_add(rc->out, &rc->cap, data ? data : "", len, rc->gbk);
}

static void collect_row(int term, void *ctx)
{
	(void)term;
	((struct row_collect *)ctx)->done = true;
}

/* ---- tables from cells ------------------------------------------------------------ */

/* The cells of a built table, row after row: per cell a tag (quoted in its file or not),
 * its length (4 bytes) and its bytes; a row ends with its own tag. A number given with
 * its value whose text reads back to it (csvt_build_cell_time/_num) is its tag and the
 * value (8 bytes), its text's length (1 byte) and the value (8 bytes), its text written only when read
 * (cell_text_of): the kernel table's hundreds of thousands of counters are typed
 * without being written and read back. */
#define CELL_TAG 'c'
#define QUOTED_TAG 'q'
#define ROW_TAG 'r'
#define TIME_TAG 't' /* ns, written as num_format_ns_as_us writes it */
#define NUM_TAG 'n'  /* a double, written as num_format_g9_exact writes it */
#define CELL_HEAD 5
#define VALUE_CELL 10

/* kind: CSVT_TIME or CSVT_NUM for a value cell (v), which reading its text would give;
 * CSVT_STR: a text cell (s, len) */
struct row_cell {
	const char *s;
	size_t len;
	size_t at;   /* a text cell of the row being added: where its bytes are in the cells */
	bool quoted; /* a text cell, quoted in its file */
	enum csv_type kind;
	union {
		int64_t ns;
		double num;
	} v;
};

struct csvt_build {
	char *name;
	struct diag_list *dl;
	char *cells; /* spilled */
	size_t len, cap;
	size_t kept;   /* cells[0, kept) are out of the process (build_release) */
	size_t row;    /* where the row being added starts */
	bool not_utf8; /* a cell is not UTF-8: the rows are typed again at the end */
	/* the rows typed as they come, their messages held until the end: a cell that is not
	 * UTF-8 starts the table again, as a file's bad byte starts its parse again */
	struct csv_table *t;
	struct parse_state ps;
	struct diag_list local;
	/* the row being added, cell by cell as it comes (n_rc), with its bytes in the file
	 * (row_len) and the line ends in its cells (row_nl): typed at its end without
	 * reading its cells again; the GB18030 restart reads them (build_type_row) */
	struct row_cell *rc;
	size_t n_rc, cap_rc, row_len, row_nl;
	long line;
	uint64_t file_off;
};

/* The pages the cells were written to (or read from) up to upto leave the process once
 * there are a few MB of them: a spilled store's file keeps them (drill-down reads them
 * back), so the cells cost no more memory than the temporary file of the CSV text did. */
#define BUILD_RELEASE ((size_t)4 << 20)
static void build_release(struct csvt_build *b, size_t upto, bool all)
{
	if (!spill_is(b->cells) || upto < b->kept + (all ? 1 : BUILD_RELEASE))
		return;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), from = b->kept & ~(page - 1);
	size_t to = all ? upto : upto & ~(page - 1);
	madvise(b->cells + from, to - from, MADV_DONTNEED);
	b->kept = to;
}

/* An empty table and its parse state, its messages into dl. */
static void build_table(struct csvt_build *b, struct diag_list *dl)
{
	struct csv_table *t = xcalloc(1, sizeof *t);
	t->path = xstrdup(b->name);
	t->data_fd = -1;
	t->strs = strtab_new();
	for (int c = 0; c < CSV_COL_COUNT; c++)
		t->col_at[c] = -1;
	b->t = t;
	b->ps = (struct parse_state){.t = t, .dl = dl, .name = b->name, .pending_line = 1};
	b->line = 1;
	b->file_off = 0;
}

struct csvt_build *csvt_build_begin(const char *name, struct diag_list *dl)
{
	struct csvt_build *b = xcalloc(1, sizeof *b);
	b->name = xstrdup(name);
	b->dl = dl;
	diag_init(&b->local);
	build_table(b, &b->local);
	return b;
}

/* Room for n more bytes; the splitter's text cache points into the cells: forgotten when
 * they move. */
static void build_room(struct csvt_build *b, size_t n)
{
	if (b->len + n <= b->cap)
		return; /* the common case, without a call per cell */
	char *before = b->cells;
	spill_grow(&b->cells, &b->cap, b->len + n, 1);
	if (b->cells != before && b->ps.memo)
		memset(b->ps.memo, 0, (b->t->n_typed ? b->t->n_typed : 1) * STR_CACHE * sizeof *b->ps.memo);
}

/* Its bytes in that file. */
static size_t cell_file_len(const char *s, size_t len, bool quoted)
{
	if (!quoted)
		return len;
	size_t n = len + 2;
	for (size_t i = 0; i < len; i++)
		n += s[i] == '"';
	return n;
}

/* The cell as that file's reader gives it: an unquoted one's blanks trimmed. */
static const char *cell_read(const char *s, size_t *len, bool quoted)
{
	if (quoted)
		return s;
	const char *e = s + *len;
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*len = (size_t)(e - s);
	return s;
}

/* The row being added's next cell, c, its bytes in the file file_len. */
static void build_note_cell(struct csvt_build *b, const struct row_cell *c, size_t file_len)
{
	if (b->n_rc == b->cap_rc)
		xgrow(&b->rc, &b->cap_rc, b->n_rc + 1, sizeof *b->rc);
	b->rc[b->n_rc++] = *c;
	b->row_len += file_len + 1; /* and the comma or the line end */
}

void csvt_build_cell(struct csvt_build *b, const char *s, size_t len)
{
	if (len > UINT32_MAX)
		len = UINT32_MAX;
	/* one pass for both questions, without branches: quoted, as a CSV file of it holds it
	 * (a comma, quote, CR or LF in it), and whether a byte is past ASCII */
	unsigned quoted = 0, bits = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		quoted |= (c == ',') | (c == '"') | (c == '\r') | (c == '\n');
		bits |= c;
	}
	build_room(b, CELL_HEAD + len);
	char *p = b->cells + b->len;
	p[0] = quoted ? QUOTED_TAG : CELL_TAG;
	uint32_t n = (uint32_t)len;
	memcpy(p + 1, &n, 4);
	memcpy(p + CELL_HEAD, s, len);
	b->len += CELL_HEAD + len;
	if (!b->not_utf8 && bits >= 0x80)
		b->not_utf8 = sanitize_utf8_first_bad((const uint8_t *)s, len) != NULL;
	struct row_cell c = {.len = len, .at = b->len - len, .quoted = quoted, .kind = CSVT_STR};
	for (size_t i = 0; quoted && i < len; i++)
		b->row_nl += s[i] == '\n';
	build_note_cell(b, &c, cell_file_len(s, len, quoted));
}

/* A value cell: its tag, its text's length and the value's 8 bytes. */
static void build_cell_value(struct csvt_build *b, char tag, size_t text_len, const void *v)
{
	build_room(b, VALUE_CELL);
	b->cells[b->len] = tag;
	b->cells[b->len + 1] = (char)text_len;
	memcpy(b->cells + b->len + 2, v, 8);
	b->len += VALUE_CELL;
	struct row_cell c = {.len = text_len, .kind = tag == TIME_TAG ? CSVT_TIME : CSVT_NUM};
	memcpy(&c.v, v, 8);
	build_note_cell(b, &c, text_len);
}

void csvt_build_cell_time(struct csvt_build *b, int64_t ns)
{
	/* what num_time_short reads back: no sign, at most NUM_TIME_MAX_NS; another time
	 * is its text, read as the file's reader reads it */
	if (ns >= 0 && ns <= NUM_TIME_MAX_NS) {
		build_cell_value(b, TIME_TAG, num_ns_as_us_len(ns), &ns);
		return;
	}
	char t[32];
	num_format_ns_as_us(ns, t, sizeof t);
	csvt_build_cell(b, t, strlen(t));
}

void csvt_build_cell_num(struct csvt_build *b, double d)
{
	/* num_double_short reads the formatter's exact texts back to d (num.h); a negative
	 * one goes through num_double, as its text */
	size_t len = d >= 0 ? num_g9_exact_len(d) : 0;
	if (len) {
		build_cell_value(b, NUM_TAG, len, &d);
		return;
	}
	char t[40];
	num_format_g9_exact(d, t, sizeof t);
	csvt_build_cell(b, t, strlen(t));
}

/* The next cell of the row at *pos into c (false at the row's end, *pos then past it);
 * a value cell's text is not written (cell_text writes it). */
static bool next_cell(const char *cells, size_t *pos, struct row_cell *c, bool *quoted)
{
	char tag = cells[*pos];
	if (tag == ROW_TAG) {
		(*pos)++;
		return false;
	}
	*quoted = tag == QUOTED_TAG;
	if (tag == TIME_TAG || tag == NUM_TAG) {
		c->kind = tag == TIME_TAG ? CSVT_TIME : CSVT_NUM;
		memcpy(&c->v, cells + *pos + 2, 8);
		c->s = NULL;
		c->len = (unsigned char)cells[*pos + 1]; /* its text's */
		*pos += VALUE_CELL;
		return true;
	}
	uint32_t n;
	memcpy(&n, cells + *pos + 1, 4);
	c->kind = CSVT_STR;
	c->s = cells + *pos + CELL_HEAD;
	c->len = n;
	*pos += CELL_HEAD + n;
	return true;
}

/* A cell's text as its file holds it: a text cell's own, a value cell's written into buf
 * (40 bytes), as csvt_build_cell_time/_num were given it. */
static const char *cell_text_of(const struct row_cell *c, char *buf, size_t *len)
{
	if (c->kind == CSVT_STR) {
		*len = c->len;
		return c->s;
	}
	if (c->kind == CSVT_TIME)
		num_format_ns_as_us(c->v.ns, buf, 40);
	else
		num_format_g9_exact(c->v.num, buf, 40);
	*len = strlen(buf);
	return buf;
}

/* A value cell into a column of another type: its text, as the file's reader reads it,
 * but not through the splitter's cache (which keeps where a text is: buf is gone after). */
static void build_value_text(struct parse_state *ps, size_t k, size_t r, const struct row_cell *c)
{
	char buf[40];
	size_t len;
	const char *s = cell_text_of(c, buf, &len);
	if (ps->t->cols[k].type == CSVT_STR)
		ps->t->cols[k].v.str[r] = intern_cell(ps, s, len);
	else
		put_typed(ps, k, r, s, len, false);
}

/* A row into the table: the header's cells, or a data row's typed cells as split_scanned
 * reads them (put_typed), the others left in the cells. */
static void build_row(struct parse_state *ps, const struct row_cell *rc, size_t n)
{
	char buf[40];
	size_t len;
	if (!ps->header_done) {
		for (size_t i = 0; i < n; i++) {
			const char *s = cell_text_of(&rc[i], buf, &len);
			on_field((void *)s, len, ps);
		}
		on_row('\n', ps);
		return;
	}
	start_row_unset(ps);
	const struct csv_table *t = ps->t;
	size_t r = t->nrows - 1;
	for (size_t k = 0; k < t->n_typed; k++) {
		size_t i = (size_t)t->cols[k].index;
		if (i >= n) { /* a short row */
			for (; k < t->n_typed; k++)
				set_missing(&t->cols[k], r);
			break;
		}
		const struct csv_column *col = &t->cols[k];
		if (rc[i].kind == CSVT_TIME && col->type == CSVT_TIME)
			col->v.time[r] = rc[i].v.ns;
		else if (rc[i].kind == CSVT_NUM && col->type == CSVT_NUM)
			col->v.num[r] = rc[i].v.num;
		else if (rc[i].kind == CSVT_NUM && col->type == CSVT_RATIO)
			col->v.ratio[r] = (float)rc[i].v.num;
		else if (rc[i].kind == CSVT_STR)
			put_typed(ps, k, r, rc[i].s, rc[i].len, false);
		else
			build_value_text(ps, k, r, &rc[i]);
	}
	ps->fields = n;
	on_row('\n', ps);
}

/* The row of n cells b->rc at pos, nl line ends in its cells, row_len bytes in the file,
 * into the table at its line there (a line of nothing but blanks is no row, as in the
 * file). A text cell's s is its bytes as the file's reader gives them (cell_read). */
static void build_put_row(struct csvt_build *b, size_t pos, size_t n, size_t nl, size_t row_len, bool blank)
{
	if (!blank || n > 1) {
		b->ps.pending_line = b->line;
		b->ps.pending_off = pos;
		b->ps.row_line_now = b->line;
		build_row(&b->ps, b->rc, n);
	}
	b->file_off += row_len ? row_len : 1;
	b->line += 1 + (long)nl;
}

/* The row of cells at pos read again into the table (the GB18030 restart); the position
 * after it. */
static size_t build_type_row(struct csvt_build *b, size_t pos)
{
	size_t row = pos, n = 0, nl = 0, row_len = 0;
	bool blank = true, q;
	struct row_cell c;
	while (next_cell(b->cells, &pos, &c, &q)) {
		if (c.kind == CSVT_STR) {
			for (size_t k = 0; q && k < c.len; k++)
				nl += c.s[k] == '\n';
			row_len += cell_file_len(c.s, c.len, q) + 1;
			c.s = cell_read(c.s, &c.len, q);
		} else {
			row_len += c.len + 1;
		}
		if (n == b->cap_rc)
			xgrow(&b->rc, &b->cap_rc, n + 1, sizeof *b->rc);
		b->rc[n++] = c;
		blank = blank && c.kind == CSVT_STR && !q && !c.len;
	}
	build_put_row(b, row, n, nl, row_len, blank);
	return pos;
}

void csvt_build_row(struct csvt_build *b)
{
	build_room(b, 1);
	b->cells[b->len++] = ROW_TAG;
	if (!b->not_utf8) {
		/* the cells as they came: their bytes where they are now (the cells move as
		 * they grow) */
		bool blank = true;
		for (size_t i = 0; i < b->n_rc; i++) {
			struct row_cell *c = &b->rc[i];
			if (c->kind != CSVT_STR) {
				blank = false;
				continue;
			}
			c->s = cell_read(b->cells + c->at, &c->len, c->quoted);
			blank = blank && !c->quoted && !c->len;
		}
		build_put_row(b, b->row, b->n_rc, b->row_nl, b->row_len, blank);
	}
	b->n_rc = b->row_len = b->row_nl = 0;
	b->row = b->len;
	build_release(b, b->row, false);
}

/* The first byte that is not UTF-8 as parse_attempt finds it in the file of these cells:
 * the byte, its offset and its line there. False when every cell is UTF-8. */
static bool build_first_bad(const struct csvt_build *b, unsigned char *byte, uint64_t *at, long *line)
{
	uint64_t off = 0;
	long ln = 1;
	for (size_t pos = 0; pos < b->len;) {
		size_t len, row = pos;
		bool q;
		struct row_cell c;
		char buf[40];
		while (next_cell(b->cells, &pos, &c, &q)) {
			const char *s = cell_text_of(&c, buf, &len);
			const uint8_t *bad = sanitize_utf8_first_bad((const uint8_t *)s, len);
			if (bad) {
				size_t k = (size_t)(bad - (const uint8_t *)s);
				uint64_t o = off + q;
				for (size_t i = 0; i < k; i++) {
					o += 1 + (s[i] == '"');
					ln += s[i] == '\n';
				}
				*byte = *bad;
				*at = o;
				*line = ln;
				return true;
			}
			for (size_t i = 0; q && i < len; i++)
				ln += s[i] == '\n';
			off += cell_file_len(s, len, q) + 1; /* and the comma or line end */
		}
		off += pos == row + 1; /* a row without cells: its line end */
		ln++;
	}
	return false;
}

/* Whether every cell reads as GB18030 (the file would: its separators are ASCII). */
static bool build_gb18030(const struct csvt_build *b)
{
	for (size_t pos = 0; pos < b->len;) {
		struct row_cell c;
		bool q;
		/* a value cell's text is ASCII */
		while (next_cell(b->cells, &pos, &c, &q)) {
			size_t n = 0, len = c.kind == CSVT_STR ? c.len : 0;
			uint8_t *conv =
				len ? u8_conv_from_encoding("GB18030", iconveh_error, c.s, len, NULL, NULL, &n) : NULL;
			if (len && !conv)
				return false;
			free(conv);
		}
	}
	return true;
}

/* A cell that is not UTF-8: the table starts again from the cells, read as GB18030 when
 * they all read as such, said first (parse_attempt's second run). */
static void build_again(struct csvt_build *b)
{
	parse_state_free(&b->ps);
	csvt_free(b->t);
	diag_free(&b->local);
	diag_init(&b->local);
	build_table(b, b->dl);
	uint64_t bad_at;
	long line;
	unsigned char byte;
	if (!build_first_bad(b, &byte, &bad_at, &line))
		return;
	b->t->gbk = build_gb18030(b);
	if (b->t->gbk)
		diag_add(b->dl, DIAG_WARN, b->name, line, -1,
			 _("not UTF-8 (first bad byte 0x%02X at byte %zu); read as GB18030/GBK"), byte, (size_t)bad_at);
	else
		diag_add(b->dl, DIAG_WARN, b->name, line, -1,
			 _("not UTF-8 and not GB18030 (first bad byte 0x%02X at byte %zu); bad bytes are shown "
			 "escaped"),
			 byte, (size_t)bad_at);
	b->kept = 0; /* read again, and given back behind the reading */
	for (size_t pos = 0; pos < b->len;) {
		pos = build_type_row(b, pos);
		build_release(b, pos, false);
	}
}

struct csv_table *csvt_build_end(struct csvt_build *b)
{
	if (b->row < b->len)
		csvt_build_row(b); /* a last row not ended */
	if (b->not_utf8)
		build_again(b);
	struct diag_list *dl = b->not_utf8 ? b->dl : &b->local;
	b->t->file_size = b->file_off;
	struct csv_table *t = parse_close(&b->ps, dl, b->name);
	diag_append(b->dl, &b->local);
	diag_free(&b->local);
	if (t) {
		t->cells = b->cells;
		t->mem = b->cells;
		t->mem_len = b->len;
		build_release(b, b->len, true); /* read again only on drill-down */
	} else {
		spill_free(b->cells);
	}
	free(b->rc);
	free(b->name);
	free(b);
	return t;
}

/* A built table's row (its cells at start, len bytes) as its file's reader gives it. */
static int build_row_cells(const struct csv_table *t, uint64_t start, size_t len, struct csv_cells *out)
{
	size_t cap = 0, pos = (size_t)start, end = (size_t)start + len;
	struct row_cell c;
	char buf[40];
	size_t n;
	bool q;
	while (pos < end && next_cell(t->cells, &pos, &c, &q)) {
		const char *s = cell_text_of(&c, buf, &n);
		const char *r = cell_read(s, &n, q);
		cells_add(out, &cap, r, n, t->gbk);
	}
	return 0;
}

int csvt_row_cells(const struct csv_table *t, size_t row, struct csv_cells *out)
{
	out->cells = NULL;
	out->n = 0;
	if (row >= t->nrows)
		return -1;
	const struct csvt_part *part = row_part(t, row);
	const char *path = part ? part->path : t->path;
	uint64_t size = part ? part->size : t->file_size;
	bool gbk = part ? part->gbk : t->gbk;
	bool next_same_file = row + 1 < t->nrows && (!part || row_part(t, row + 1) == part);
	uint64_t start = csvt_row_off(t, row);
	uint64_t end = next_same_file ? csvt_row_off(t, row + 1) : size;
	if (t->cells)
		end = row + 1 < t->nrows ? csvt_row_off(t, row + 1) : t->mem_len;
	if (end <= start || end - start > (64u << 20))
		return -1;
	size_t len = (size_t)(end - start);
	if (t->cells)
		return build_row_cells(t, start, len, out);
	char *buf = NULL;
	const char *src;
	if (t->mem) {
		if (end > t->mem_len)
			return -1;
		src = t->mem + start;
	} else {
		int fd = t->data_fd >= 0 && !part ? t->data_fd : open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			return -1;
		buf = xmalloc(len);
		ssize_t n = pread(fd, buf, len, (off_t)start);
		if (fd != t->data_fd)
			close(fd);
		if (n < 0 || (size_t)n != len) {
			free(buf);
			return -1;
		}
		src = buf;
	}
	struct csv_parser p;
	csv_init(&p, CSV_APPEND_NULL);
	/* libcsv's own spaces (space, TAB) and terminators (CR, LF) are ours: no callbacks,
	 * which would cost a call per byte */
	struct row_collect rc = {.out = out, .gbk = gbk};
	csv_parse(&p, src, len, collect_field, collect_row, &rc);
	if (!rc.done)
		csv_fini(&p, collect_field, collect_row, &rc);
	csv_free(&p);
	free(buf);
	return 0;
}

void csvt_cells_free(struct csv_cells *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->cells[i]);
	free(c->cells);
	c->cells = NULL;
	c->n = 0;
}

size_t csvt_bytes(const struct csv_table *t)
{
	size_t b = strtab_bytes(t->strs) + t->cap_rows * sizeof *t->row_off_lo +
		   (t->off_high.cap + t->line_skew.cap) * sizeof(struct csvt_step);
	for (size_t i = 0; i < t->n_typed; i++) {
		switch (csv_schema_type(t->cols[i].col)) {
		case CSVT_STR: b += t->cap_rows * sizeof(uint32_t); break;
		case CSVT_TIME: b += t->cap_rows * sizeof(int64_t); break;
		case CSVT_NUM: b += t->cap_rows * sizeof(double); break;
		case CSVT_RATIO: b += t->cap_rows * sizeof(float); break;
		}
	}
	return b;
}
