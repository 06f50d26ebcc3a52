/* SPDX-License-Identifier: MIT */
/* ascprof-gen: small utilities: allocation, strings, numbers, the PRNG, buffered output, interval
 * lists and sweeps, files and directories. */
#include "gen.h"

/* ------------------------------------------------------------------------------------------ */
/* small utilities                                                                            */

const char *prog = "ascprof-gen";
void prog_vprintf(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	prog_vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* Decimal digits of v (v >= 0) into buf (no terminator); returns the count. */
int u64_digits(char *buf, uint64_t v)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (int i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return n;
}

/* "us.nnn" for a ns count (may be negative). Returns length; buf needs 32 bytes. */
int fmt_us3(char *buf, int64_t ns)
{
	int n = 0;
	uint64_t a;
	if (ns < 0) {
		buf[n++] = '-';
		a = (uint64_t)0 - (uint64_t)ns;
	} else {
		a = (uint64_t)ns;
	}
	n += u64_digits(buf + n, a / 1000);
	unsigned f = (unsigned)(a % 1000);
	buf[n++] = '.';
	buf[n++] = (char)('0' + f / 100);
	buf[n++] = (char)('0' + f / 10 % 10);
	buf[n++] = (char)('0' + f % 10);
	buf[n] = 0;
	return n;
}

/* Python-float-like us: trailing zeros trimmed but one decimal kept ("136581.0", "8873.756"). */
static int fmt_us_py(char *buf, int64_t ns)
{
	int n = fmt_us3(buf, ns);
	while (buf[n - 1] == '0' && buf[n - 2] != '.')
		n--;
	buf[n] = 0;
	return n;
}

/* Exact decimal -> integer scaled by 10^scale ("1234.567" with scale 3 -> 1234567). */
bool parse_scaled(const char *s, int scale, int64_t *out)
{
	bool neg = false;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (!*s)
		return false;
	int64_t v = 0;
	int digits = 0, frac = -1;
	for (; *s; s++) {
		if (*s == '.') {
			if (frac >= 0)
				return false;
			frac = 0;
			continue;
		}
		if (*s < '0' || *s > '9')
			return false;
		if (frac >= 0) {
			if (frac == scale) {
				if (*s != '0')
					return false; /* more precision than we keep */
				continue;
			}
			frac++;
		}
		if (v > (INT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (*s - '0');
		digits++;
	}
	if (!digits)
		return false;
	for (int f = frac < 0 ? 0 : frac; f < scale; f++) {
		if (v > INT64_MAX / 10)
			return false;
		v *= 10;
	}
	*out = neg ? -v : v;
	return true;
}

bool parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void rng_init(struct rng *r, uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t x = seed;
	uint64_t mix = splitmix64(&x) ^ (a * 0xd1b54a32d192ed03ULL);
	mix = splitmix64(&mix) ^ (b * 0x8cb92ba72f3d8dd7ULL);
	mix = splitmix64(&mix) ^ (c * 0xaef17502108ef2d9ULL);
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&mix);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

/* Uniform in [lo, hi] (inclusive). */
int64_t rng_range(struct rng *r, int64_t lo, int64_t hi)
{
	if (hi <= lo)
		return lo;
	uint64_t span = (uint64_t)(hi - lo) + 1;
	unsigned __int128 m = (unsigned __int128)rng_next(r) * span;
	return lo + (int64_t)(uint64_t)(m >> 64);
}

bool rng_permille(struct rng *r, int pm)
{
	return rng_range(r, 0, 999) < pm;
}

/* Scale v by a per-mille factor drawn from [1000-pm, 1000+pm]. */
int64_t jitter(struct rng *r, int64_t v, int pm)
{
	return v * rng_range(r, 1000 - pm, 1000 + pm) / 1000;
}

void out_open(struct out *o, const char *path, size_t cap)
{
	memset(o, 0, sizeof *o);
	o->path = path;
	o->cap = cap;
	o->buf = xmalloc(cap);
	if (!path) {
		o->fd = -1;
		return;
	}
	o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (o->fd < 0)
		die("cannot create %s: %s", path, strerror(errno));
}

void out_flush(struct out *o)
{
	size_t off = 0;
	while (o->fd >= 0 && off < o->len) {
		ssize_t w = write(o->fd, o->buf + off, o->len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			die("write %s: %s", o->path, strerror(errno));
		}
		off += (size_t)w;
	}
	o->flushed += o->len;
	o->len = 0;
}

uint64_t out_pos(const struct out *o)
{
	return o->flushed + o->len;
}

void out_close(struct out *o)
{
	out_flush(o);
	if (o->fd >= 0 && close(o->fd) != 0)
		die("close %s: %s", o->path, strerror(errno));
	free(o->buf);
	o->buf = NULL;
}

static void out_mem(struct out *o, const void *p, size_t n)
{
	if (n > o->cap / 2) {
		/* large blobs go through the buffer in pieces */
		const char *c = p;
		while (n) {
			size_t k = n < o->cap ? n : o->cap;
			out_need(o, k);
			memcpy(o->buf + o->len, c, k);
			o->len += k;
			c += k;
			n -= k;
		}
		return;
	}
	out_need(o, n);
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

void out_str(struct out *o, const char *s)
{
	out_mem(o, s, strlen(s));
}

void out_i64(struct out *o, int64_t v)
{
	out_need(o, 24);
	char *p = o->buf + o->len;
	int n = 0;
	if (v < 0) {
		p[n++] = '-';
		n += u64_digits(p + n, (uint64_t)0 - (uint64_t)v);
	} else {
		n += u64_digits(p + n, (uint64_t)v);
	}
	o->len += (size_t)n;
}

void out_us3(struct out *o, int64_t ns)
{
	out_need(o, 32);
	o->len += (size_t)fmt_us3(o->buf + o->len, ns);
}

void out_us_py(struct out *o, int64_t ns)
{
	out_need(o, 32);
	o->len += (size_t)fmt_us_py(o->buf + o->len, ns);
}

/* milli-units value as "x.yyy" (ratios, percentages, GB/s). */
void out_milli(struct out *o, int64_t m)
{
	out_us3(o, m);
}

void out_spaces(struct out *o, int n)
{
	out_need(o, (size_t)n);
	memset(o->buf + o->len, ' ', (size_t)n);
	o->len += (size_t)n;
}

/* JSON string body escaping as Python's json.dumps(ensure_ascii=False) does, plus C1 controls
 * (U+0080..U+009F) written as \u00XX so that a terminal never sees them raw. */
static void out_json_escaped(struct out *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		size_t run = i;
		while (run < n && p[run] >= 0x20 && p[run] != '"' && p[run] != '\\' &&
		       !(p[run] == 0xc2 && run + 1 < n && p[run + 1] >= 0x80 && p[run + 1] <= 0x9f))
			run++;
		if (run > i) {
			out_mem(o, p + i, run - i);
			i = run;
			continue;
		}
		unsigned c = p[i];
		char e[8];
		size_t en = 2;
		e[0] = '\\';
		if (c == 0xc2) { /* C1 control */
			c = p[i + 1];
			i++;
		}
		switch (c) {
		case '"': e[1] = '"'; break;
		case '\\': e[1] = '\\'; break;
		case '\n': e[1] = 'n'; break;
		case '\r': e[1] = 'r'; break;
		case '\t': e[1] = 't'; break;
		case '\b': e[1] = 'b'; break;
		case '\f': e[1] = 'f'; break;
		default:
			e[1] = 'u';
			e[2] = '0';
			e[3] = '0';
			e[4] = hex[c >> 4];
			e[5] = hex[c & 15];
			en = 6;
		}
		out_mem(o, e, en);
		i++;
	}
}

void out_json_str(struct out *o, const char *s)
{
	out_chr(o, '"');
	out_json_escaped(o, s, strlen(s));
	out_chr(o, '"');
}

/* Append [s,e) where s is not before any earlier start: touching or overlapping pieces merge.
 * The simulation feeds these in placement order, so this is bookkeeping, not analysis. */
void ul_add(struct ivl_list *l, int64_t s, int64_t e)
{
	if (e <= s)
		return;
	if (l->n) {
		struct ivl *last = &l->v[l->n - 1];
		if (s < last->s)
			die("internal: interval appended out of order");
		if (s <= last->e) {
			if (e > last->e)
				last->e = e;
			return;
		}
	}
	xgrow(&l->v, &l->cap, l->n + 1, sizeof *l->v);
	l->v[l->n++] = (struct ivl){s, e};
}

/* Append a piece that is known to be disjoint from (and after) the earlier ones. */
void pl_add(struct ivl_list *l, int64_t s, int64_t e)
{
	if (e <= s)
		return;
	xgrow(&l->v, &l->cap, l->n + 1, sizeof *l->v);
	l->v[l->n++] = (struct ivl){s, e};
}

/* Merges two time-ordered lists into out, in start order (ul_add joins what overlaps). */
void ul_merge(const struct ivl_list *a, const struct ivl_list *b, struct ivl_list *out)
{
	size_t i = 0, j = 0;
	while (i < a->n || j < b->n) {
		if (j >= b->n || (i < a->n && a->v[i].s <= b->v[j].s)) {
			ul_add(out, a->v[i].s, a->v[i].e);
			i++;
		} else {
			ul_add(out, b->v[j].s, b->v[j].e);
			j++;
		}
	}
}

/* Length of the list inside [lo, hi). */
int64_t ul_clip(const struct ivl_list *l, int64_t lo, int64_t hi)
{
	int64_t t = 0;
	for (size_t i = 0; i < l->n; i++) {
		int64_t s = l->v[i].s > lo ? l->v[i].s : lo, e = l->v[i].e < hi ? l->v[i].e : hi;
		if (e > s)
			t += e - s;
	}
	return t;
}

int64_t ivl_total(const struct ivl_list *l)
{
	int64_t t = 0;
	for (size_t i = 0; i < l->n; i++)
		t += l->v[i].e - l->v[i].s;
	return t;
}

/* ------------------------------------------------------------------------------------------ */
/* files around the trace                                                                     */

void write_file(const char *path, const char *data, size_t n)
{
	struct out o;
	out_open(&o, path, n + 16);
	out_mem(&o, data, n);
	out_close(&o);
}

void path_join(char *buf, size_t n, const char *a, const char *b)
{
	if ((size_t)snprintf(buf, n, "%s/%s", a, b) >= n)
		die("path too long: %s/%s", a, b);
}

void mkdir_p(const char *path)
{
	char tmp[4096];
	if (strlen(path) >= sizeof tmp)
		die("path too long: %s", path);
	strcpy(tmp, path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
			die("mkdir %s: %s", tmp, strerror(errno));
		*p = '/';
	}
	if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
		die("mkdir %s: %s", tmp, strerror(errno));
	struct stat sb;
	if (stat(tmp, &sb) != 0 || !S_ISDIR(sb.st_mode))
		die("%s is not a directory", tmp);
}

bool dir_empty(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return true;
	struct dirent *e;
	bool empty = true;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			empty = false;
			break;
		}
	}
	closedir(d);
	return empty;
}

/* --- interval sweeps --- */

int ivl_cmp(const void *a, const void *b)
{
	const struct ivl *x = a, *y = b;
	return x->s < y->s ? -1 : x->s > y->s ? 1 : (x->e < y->e ? -1 : x->e > y->e);
}

void sweep_merge(struct ivl_list *l)
{
	if (l->n > 1) /* an empty list has no array (qsort's NULL is undefined) */
		qsort(l->v, l->n, sizeof *l->v, ivl_cmp);
	size_t m = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].e <= l->v[i].s)
			continue;
		if (m && l->v[i].s <= l->v[m - 1].e) {
			if (l->v[i].e > l->v[m - 1].e)
				l->v[m - 1].e = l->v[i].e;
		} else {
			l->v[m++] = l->v[i];
		}
	}
	l->n = m;
}

void list_push(struct ivl_list *l, int64_t s, int64_t e)
{
	xgrow(&l->v, &l->cap, l->n + 1, sizeof *l->v);
	l->v[l->n++] = (struct ivl){s, e};
}

/* a minus b, both merged. */
void sweep_subtract(const struct ivl_list *a, const struct ivl_list *b, struct ivl_list *out)
{
	size_t j = 0;
	for (size_t i = 0; i < a->n; i++) {
		int64_t s = a->v[i].s, e = a->v[i].e;
		while (j < b->n && b->v[j].e <= s)
			j++;
		size_t k = j;
		while (s < e && k < b->n && b->v[k].s < e) {
			if (b->v[k].s > s)
				list_push(out, s, b->v[k].s);
			s = max64(s, b->v[k].e);
			k++;
		}
		if (s < e)
			list_push(out, s, e);
	}
}

/* Length of a merged list inside [lo, hi). */
int64_t sweep_clip(const struct ivl_list *l, int64_t lo, int64_t hi)
{
	size_t a = 0, b = l->n;
	while (a < b) {
		size_t m = (a + b) / 2;
		if (l->v[m].e <= lo)
			a = m + 1;
		else
			b = m;
	}
	int64_t t = 0;
	for (size_t i = a; i < l->n && l->v[i].s < hi; i++)
		t += clip_len(l->v[i].s, l->v[i].e, lo, hi);
	return t;
}

int64_t sweep_total(const struct ivl_list *l)
{
	return ivl_total(l);
}
