/* SPDX-License-Identifier: MIT */
/* ascprof-gen: --self-check: an independent, generic sweep over the files actually written. */
#include "gen.h"

#include "cmp.h"

struct kv {
	char *k, *v;
};

struct kvs {
	struct kv *v;
	size_t n, cap;
};

static void kvs_add(struct kvs *m, const char *k, const char *v)
{
	xgrow(&m->v, &m->cap, m->n + 1, sizeof *m->v);
	m->v[m->n].k = xstrdup(k);
	m->v[m->n].v = xstrdup(v);
	m->n++;
}

static void kvs_addi(struct kvs *m, const char *k, int64_t v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%" PRId64, v);
	kvs_add(m, k, buf);
}

static int kv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kv *)a)->k, ((const struct kv *)b)->k);
}

static const char *kvs_get(const struct kvs *m, const char *k)
{
	struct kv key = {(char *)k, NULL};
	const struct kv *hit = bsearch(&key, m->v, m->n, sizeof *m->v, kv_cmp);
	return hit ? hit->v : NULL;
}

static void kvs_free(struct kvs *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].k);
		free(m->v[i].v);
	}
	free(m->v);
	memset(m, 0, sizeof *m);
}

struct chk {
	int errors;
	int64_t verified;
};

static void chk_fail(struct chk *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void chk_fail(struct chk *c, const char *fmt, ...)
{
	if (c->errors++ < 60) {
		va_list ap;
		va_start(ap, fmt);
		fprintf(stderr, "self-check: ");
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
}

struct mapped {
	const char *p;
	size_t n;
	bool ok;
};

static struct mapped map_file(const char *path)
{
	struct mapped m = {NULL, 0, false};
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return m;
	struct stat sb;
	if (fstat(fd, &sb) != 0) {
		close(fd);
		return m;
	}
	m.n = (size_t)sb.st_size;
	m.ok = true;
	if (m.n) {
		void *p = mmap(NULL, m.n, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			die("mmap %s: %s", path, strerror(errno));
		m.p = p;
	} else {
		m.p = "";
	}
	close(fd);
	return m;
}

static void unmap_file(struct mapped *m)
{
	if (m->ok && m->n)
		munmap((void *)m->p, m->n);
	m->ok = false;
}

/* --- a small strict JSON reader --- */

struct jp {
	const char *p, *e;
};

static void jws(struct jp *j)
{
	while (j->p < j->e && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static bool jlit(struct jp *j, char c)
{
	jws(j);
	if (j->p < j->e && *j->p == c) {
		j->p++;
		return true;
	}
	return false;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static bool jhex4(struct jp *j, unsigned *v)
{
	if (j->e - j->p < 4)
		return false;
	*v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval(j->p[i]);
		if (h < 0)
			return false;
		*v = *v * 16 + (unsigned)h;
	}
	j->p += 4;
	return true;
}

static void put_utf8(struct sbuf *b, unsigned cp)
{
	char u[4];
	size_t n;
	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 63));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | (cp >> 6 & 63));
		u[2] = (char)(0x80 | (cp & 63));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | cp >> 18);
		u[1] = (char)(0x80 | (cp >> 12 & 63));
		u[2] = (char)(0x80 | (cp >> 6 & 63));
		u[3] = (char)(0x80 | (cp & 63));
		n = 4;
	}
	sbuf_add(b, u, n);
}

/* A string; decoded into out when out is not NULL. */
static bool jstr(struct jp *j, struct sbuf *out)
{
	jws(j);
	if (j->p >= j->e || *j->p != '"')
		return false;
	j->p++;
	if (out)
		sbuf_reset(out);
	for (;;) {
		const char *run = j->p;
		while (j->p < j->e && *j->p != '"' && *j->p != '\\' && (unsigned char)*j->p >= 0x20)
			j->p++;
		if (out && j->p > run)
			sbuf_add(out, run, (size_t)(j->p - run));
		if (j->p >= j->e || (unsigned char)*j->p < 0x20)
			return false;
		if (*j->p == '"') {
			j->p++;
			if (out && !out->buf)
				sbuf_adds(out, "");
			return true;
		}
		j->p++; /* backslash */
		if (j->p >= j->e)
			return false;
		char c = *j->p++;
		unsigned cp;
		switch (c) {
		case '"': cp = '"'; break;
		case '\\': cp = '\\'; break;
		case '/': cp = '/'; break;
		case 'b': cp = '\b'; break;
		case 'f': cp = '\f'; break;
		case 'n': cp = '\n'; break;
		case 'r': cp = '\r'; break;
		case 't': cp = '\t'; break;
		case 'u':
			if (!jhex4(j, &cp))
				return false;
			if (cp >= 0xd800 && cp < 0xdc00) {
				unsigned lo;
				if (j->e - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u')
					return false;
				j->p += 2;
				if (!jhex4(j, &lo) || lo < 0xdc00 || lo >= 0xe000)
					return false;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			break;
		default: return false;
		}
		if (out)
			put_utf8(out, cp);
	}
}

static bool jnum(struct jp *j, char *buf, size_t n)
{
	jws(j);
	const char *s = j->p;
	if (j->p < j->e && *j->p == '-')
		j->p++;
	const char *d = j->p;
	while (j->p < j->e && *j->p >= '0' && *j->p <= '9')
		j->p++;
	if (j->p == d)
		return false;
	if (j->p < j->e && *j->p == '.') {
		j->p++;
		const char *f = j->p;
		while (j->p < j->e && *j->p >= '0' && *j->p <= '9')
			j->p++;
		if (j->p == f)
			return false;
	}
	if (j->p < j->e && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->e && (*j->p == '+' || *j->p == '-'))
			j->p++;
		const char *x = j->p;
		while (j->p < j->e && *j->p >= '0' && *j->p <= '9')
			j->p++;
		if (j->p == x)
			return false;
	}
	if (buf) {
		size_t l = (size_t)(j->p - s);
		if (l >= n)
			return false;
		memcpy(buf, s, l);
		buf[l] = 0;
	}
	return true;
}

static bool jskip(struct jp *j, int depth)
{
	if (depth > 64)
		return false;
	jws(j);
	if (j->p >= j->e)
		return false;
	char c = *j->p;
	if (c == '"')
		return jstr(j, NULL);
	if (c == '{' || c == '[') {
		char close = c == '{' ? '}' : ']';
		j->p++;
		if (jlit(j, close))
			return true;
		for (;;) {
			if (c == '{') {
				if (!jstr(j, NULL) || !jlit(j, ':'))
					return false;
			}
			if (!jskip(j, depth + 1))
				return false;
			if (jlit(j, ','))
				continue;
			return jlit(j, close);
		}
	}
	static const char *const lits[] = {"true", "false", "null"};
	for (int i = 0; i < 3; i++) {
		size_t l = strlen(lits[i]);
		if ((size_t)(j->e - j->p) >= l && !memcmp(j->p, lits[i], l)) {
			j->p += l;
			return true;
		}
	}
	return jnum(j, NULL, 0);
}

/* --- trace events as the sweep sees them --- */

enum { CAT_NONE, CAT_CPU_OP, CAT_PYFUNC, CAT_OTHER };
enum { TT_NONE, TT_COMPUTE, TT_WAIT, TT_OTHER };

struct xe {
	int64_t ts, end, pid, tid;
	uint32_t name;
	uint8_t cat, tt;
};

struct names {
	char **s;
	size_t n, cap;
	uint32_t *h; /* open addressing: index + 1, 0 empty */
	size_t hcap;
};

static uint64_t hash_str(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static uint32_t intern(struct names *t, const char *s, size_t n)
{
	if (t->n * 2 >= t->hcap) {
		size_t nc = t->hcap ? t->hcap * 2 : 1024;
		uint32_t *nh = xcalloc(nc, sizeof *nh);
		for (size_t i = 0; i < t->n; i++) {
			size_t k = hash_str(t->s[i], strlen(t->s[i])) & (nc - 1);
			while (nh[k])
				k = (k + 1) & (nc - 1);
			nh[k] = (uint32_t)i + 1;
		}
		free(t->h);
		t->h = nh;
		t->hcap = nc;
	}
	size_t k = hash_str(s, n) & (t->hcap - 1);
	while (t->h[k]) {
		const char *c = t->s[t->h[k] - 1];
		if (strlen(c) == n && !memcmp(c, s, n))
			return t->h[k] - 1;
		k = (k + 1) & (t->hcap - 1);
	}
	xgrow(&t->s, &t->cap, t->n + 1, sizeof *t->s);
	char *c = xmalloc(n + 1);
	memcpy(c, s, n);
	c[n] = 0;
	t->s[t->n] = c;
	t->h[k] = (uint32_t)t->n + 1;
	return (uint32_t)t->n++;
}

struct named_id {
	int64_t pid, tid;
	uint32_t name;
};

struct trace_view {
	int64_t n_ph[PH_COUNT], other_ph;
	struct xe *x;
	size_t nx, xcap;
	struct named_id *pn, *tn; /* process_name / thread_name */
	size_t npn, pncap, ntn, tncap;
	struct names names;
	bool complete; /* parsed to the end as valid JSON */
};

static void tv_free(struct trace_view *tv)
{
	free(tv->x);
	free(tv->pn);
	free(tv->tn);
	for (size_t i = 0; i < tv->names.n; i++)
		free(tv->names.s[i]);
	free(tv->names.s);
	free(tv->names.h);
}

static bool dec_ns(const char *s, int64_t *out)
{
	return parse_scaled(s, 3, out);
}

/* One trace element; false when it is malformed or incomplete. */
static bool parse_element(struct jp *j, struct trace_view *tv, struct sbuf *key, struct sbuf *val,
                          struct sbuf *aname, struct sbuf *ttype)
{
	if (!jlit(j, '{'))
		return false;
	char ph = 0;
	uint32_t name = UINT32_MAX;
	uint8_t cat = CAT_NONE, tt = TT_NONE;
	int64_t pid = 0, tid = 0, ts = 0, dur = 0;
	bool has_ts = false, has_dur = false, has_aname = false;
	char num[64];
	if (!jlit(j, '}')) {
		for (;;) {
			if (!jstr(j, key) || !jlit(j, ':'))
				return false;
			const char *k = key->buf;
			if (!strcmp(k, "ph")) {
				if (!jstr(j, val) || val->len != 1)
					return false;
				ph = val->buf[0];
			} else if (!strcmp(k, "name") || !strcmp(k, "processName")) {
				if (!jstr(j, val))
					return false;
				name = intern(&tv->names, val->buf, val->len);
			} else if (!strcmp(k, "cat")) {
				if (!jstr(j, val))
					return false;
				cat = !strcmp(val->buf, "cpu_op")            ? CAT_CPU_OP
				      : !strcmp(val->buf, "python_function") ? CAT_PYFUNC
				                                           : CAT_OTHER;
			} else if (!strcmp(k, "pid") || !strcmp(k, "tid")) {
				int64_t v;
				if (!jnum(j, num, sizeof num) || !parse_i64(num, INT64_MIN, INT64_MAX, &v))
					return false;
				*(k[0] == 'p' ? &pid : &tid) = v;
			} else if (!strcmp(k, "ts")) {
				jws(j);
				if (j->p < j->e && *j->p == '"') {
					if (!jstr(j, val) || val->len >= sizeof num)
						return false;
					memcpy(num, val->buf, val->len + 1);
				} else if (!jnum(j, num, sizeof num)) {
					return false;
				}
				if (!dec_ns(num, &ts))
					return false;
				has_ts = true;
			} else if (!strcmp(k, "dur")) {
				if (!jnum(j, num, sizeof num) || !dec_ns(num, &dur))
					return false;
				has_dur = true;
			} else if (!strcmp(k, "args")) {
				if (!jlit(j, '{'))
					return false;
				if (!jlit(j, '}')) {
					for (;;) {
						if (!jstr(j, key) || !jlit(j, ':'))
							return false;
						if (!strcmp(key->buf, "name")) {
							if (!jstr(j, aname))
								return false;
							has_aname = true;
						} else if (!strcmp(key->buf, "Task Type")) {
							if (!jstr(j, ttype))
								return false;
							tt = !strcmp(ttype->buf, "AI_CORE") ||
							                     !strcmp(ttype->buf,
							                             "AI_VECTOR_CORE") ||
							                     !strcmp(ttype->buf, "MIX_AIC") ||
							                     !strcmp(ttype->buf, "MIX_AIV")
							             ? TT_COMPUTE
							     : !strcmp(ttype->buf, "Notify Wait") ||
							                     !strcmp(ttype->buf,
							                             "EVENT_RECORD_SQE") ||
							                     !strcmp(ttype->buf,
							                             "EVENT_WAIT_SQE")
							             ? TT_WAIT
							             : TT_OTHER;
						} else if (!jskip(j, 1)) {
							return false;
						}
						if (jlit(j, ','))
							continue;
						if (!jlit(j, '}'))
							return false;
						break;
					}
				}
			} else if (!jskip(j, 1)) {
				return false;
			}
			if (jlit(j, ','))
				continue;
			if (!jlit(j, '}'))
				return false;
			break;
		}
	}
	switch (ph) {
	case 'X':
		if (!has_ts || !has_dur || name == UINT32_MAX)
			return false;
		xgrow(&tv->x, &tv->xcap, tv->nx + 1, sizeof *tv->x);
		tv->x[tv->nx++] = (struct xe){ts, ts + dur, pid, tid, name, cat, tt};
		tv->n_ph[PH_X]++;
		break;
	case 'M':
		tv->n_ph[PH_M]++;
		if (has_aname && name != UINT32_MAX) {
			const char *what = tv->names.s[name];
			uint32_t id = intern(&tv->names, aname->buf, aname->len);
			if (!strcmp(what, "process_name")) {
				xgrow(&tv->pn, &tv->pncap, tv->npn + 1, sizeof *tv->pn);
				tv->pn[tv->npn++] = (struct named_id){pid, 0, id};
			} else if (!strcmp(what, "thread_name")) {
				xgrow(&tv->tn, &tv->tncap, tv->ntn + 1, sizeof *tv->tn);
				tv->tn[tv->ntn++] = (struct named_id){pid, tid, id};
			}
		}
		break;
	case 's': tv->n_ph[PH_S]++; break;
	case 'f': tv->n_ph[PH_F]++; break;
	case 'C': tv->n_ph[PH_C]++; break;
	default: tv->other_ph++; break;
	}
	return true;
}

/* Reads every complete element; tv->complete says whether the whole file was valid JSON. */
static void parse_trace(const char *p, size_t n, struct trace_view *tv)
{
	struct jp j = {p, p + n};
	struct sbuf key = {0}, val = {0}, an = {0}, tt = {0};
	bool wrapper = false, ok = false;
	memset(tv, 0, sizeof *tv);
	if (jlit(&j, '{')) {
		wrapper = true;
		for (;;) { /* members before traceEvents */
			if (!jstr(&j, &key) || !jlit(&j, ':'))
				goto out;
			if (!strcmp(key.buf, "traceEvents"))
				break;
			if (!jskip(&j, 1) || !jlit(&j, ','))
				goto out;
		}
	}
	if (!jlit(&j, '['))
		goto out;
	if (!jlit(&j, ']')) {
		for (;;) {
			if (!parse_element(&j, tv, &key, &val, &an, &tt))
				goto out;
			if (jlit(&j, ','))
				continue;
			if (!jlit(&j, ']'))
				goto out;
			break;
		}
	}
	if (wrapper) {
		while (jlit(&j, ',')) {
			if (!jstr(&j, &key) || !jlit(&j, ':') || !jskip(&j, 1))
				goto out;
		}
		if (!jlit(&j, '}'))
			goto out;
	}
	jws(&j);
	ok = j.p == j.e;
out:
	tv->complete = ok;
	free(key.buf);
	free(val.buf);
	free(an.buf);
	free(tt.buf);
}

/* --- CSV reading --- */

struct csvr {
	const char *p, *e;
	int64_t line; /* line of the next record */
};

struct csv_rec {
	struct sbuf *f;
	size_t nf, cap;
	int64_t line;
};

static void rec_field(struct csv_rec *r)
{
	if (r->nf == r->cap) {
		size_t nc = r->cap ? r->cap * 2 : 64;
		r->f = xrealloc(r->f, nc * sizeof *r->f);
		memset(r->f + r->cap, 0, (nc - r->cap) * sizeof *r->f);
		r->cap = nc;
	}
	sbuf_reset(&r->f[r->nf]);
	if (!r->f[r->nf].buf)
		sbuf_adds(&r->f[r->nf], "");
	r->nf++;
}

/* RFC 4180 with CR/LF or LF line ends and quoted cells spanning lines. */
static bool csv_next(struct csvr *c, struct csv_rec *r, bool *bad)
{
	if (c->p >= c->e)
		return false;
	r->nf = 0;
	r->line = c->line;
	rec_field(r);
	for (;;) {
		struct sbuf *f = &r->f[r->nf - 1];
		if (c->p < c->e && *c->p == '"') {
			c->p++;
			for (;;) {
				if (c->p >= c->e) {
					*bad = true;
					return true;
				}
				if (*c->p == '"') {
					if (c->p + 1 < c->e && c->p[1] == '"') {
						sbuf_addc(f, '"');
						c->p += 2;
						continue;
					}
					c->p++;
					break;
				}
				if (*c->p == '\n')
					c->line++;
				sbuf_addc(f, *c->p++);
			}
		}
		const char *s = c->p;
		while (c->p < c->e && *c->p != ',' && *c->p != '\n' && *c->p != '\r')
			c->p++;
		sbuf_add(f, s, (size_t)(c->p - s));
		if (c->p >= c->e)
			return true;
		if (*c->p == ',') {
			c->p++;
			rec_field(r);
			continue;
		}
		if (*c->p == '\r') {
			c->p++;
			if (c->p >= c->e || *c->p != '\n') {
				*bad = true;
				return true;
			}
		}
		c->p++;
		c->line++;
		return true;
	}
}

static void rec_free(struct csv_rec *r)
{
	for (size_t i = 0; i < r->cap; i++)
		free(r->f[i].buf);
	free(r->f);
}

struct csv_file {
	struct mapped m;
	struct csvr rd;
	struct csv_rec hdr, rec;
	bool present;
};

static bool csv_open(struct csv_file *cf, const char *path, struct chk *c)
{
	memset(cf, 0, sizeof *cf);
	cf->m = map_file(path);
	if (!cf->m.ok)
		return false;
	cf->present = true;
	const char *p = cf->m.p;
	size_t n = cf->m.n;
	if (n >= 3 && !memcmp(p, "\xef\xbb\xbf", 3)) {
		p += 3;
		n -= 3;
	}
	cf->rd = (struct csvr){p, p + n, 1};
	bool bad = false;
	if (!csv_next(&cf->rd, &cf->hdr, &bad) || bad) {
		chk_fail(c, "%s: no header", path);
		return false;
	}
	return true;
}

static void csv_close(struct csv_file *cf)
{
	unmap_file(&cf->m);
	rec_free(&cf->hdr);
	rec_free(&cf->rec);
}

static int csv_col(const struct csv_file *cf, const char *name)
{
	for (size_t i = 0; i < cf->hdr.nf; i++)
		if (!strcmp(cf->hdr.f[i].buf, name))
			return (int)i;
	return -1;
}

static bool valid_utf8(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t l = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
		if (!l || i + l > n)
			return false;
		for (size_t k = 1; k < l; k++)
			if (((unsigned char)s[i + k] >> 6) != 2)
				return false;
		i += l;
	}
	return true;
}

/* A CSV text cell as UTF-8: GBK cells (never valid UTF-8 here) are decoded. */
static const char *cell_utf8(const struct sbuf *f, struct sbuf *tmp)
{
	if (valid_utf8(f->buf, f->len))
		return f->buf;
	from_gbk(tmp, f->buf, f->len);
	return tmp->buf;
}

static void strip_tab(char *s)
{
	size_t n = strlen(s);
	while (n && s[n - 1] == '\t')
		s[--n] = 0;
}

static bool excel_like(const char *s)
{
	/* d.dddddE+dd */
	if (strlen(s) != 11)
		return false;
	for (int i = 0; i < 11; i++) {
		char c = s[i];
		bool ok = i == 1 ? c == '.' : i == 7 ? c == 'E' : i == 8 ? c == '+' : (c >= '0' && c <= '9');
		if (!ok)
			return false;
	}
	return true;
}

static bool in_list(const char *list, int64_t v)
{
	if (!list)
		return false;
	for (const char *p = list; *p;) {
		char *end;
		long long x = strtoll(p, &end, 10);
		if (end == p)
			return false;
		if (x == v)
			return true;
		p = *end == ',' ? end + 1 : end;
	}
	return false;
}

static int64_t list_count(const char *list)
{
	if (!list || !*list)
		return 0;
	int64_t n = 1;
	for (const char *p = list; *p; p++)
		n += *p == ',';
	return n;
}

static bool i64_find(const int64_t *v, size_t n, int64_t x)
{
	return bsearch(&x, v, n, sizeof *v, cmp_i64) != NULL;
}

/* Count of sorted values in [lo, hi). */
static int64_t i64_count(const int64_t *v, size_t n, int64_t lo, int64_t hi)
{
	size_t a = 0, b = n;
	while (a < b) {
		size_t m = (a + b) / 2;
		if (v[m] < lo)
			a = m + 1;
		else
			b = m;
	}
	size_t s = a;
	b = n;
	while (a < b) {
		size_t m = (a + b) / 2;
		if (v[m] < hi)
			a = m + 1;
		else
			b = m;
	}
	return (int64_t)(a - s);
}

/* --- per-rank sweep --- */

struct lane_acc {
	int64_t pid, tid, nx;
	int64_t tname; /* name id or -1 */
};

struct sweep {
	struct ivl_list comp, comm, busy, host, cc, expo;
	int64_t first, last;
	bool have_x;
	struct ivl *steps; /* windows: [s, next s) */
	size_t nsteps;
	int64_t *devts; /* ts of Ascend Hardware and HCCL X events, sorted (CSV cross-check) */
	size_t ndevts;
	int64_t cpu_ops, cann_x;
};

static void sweep_free(struct sweep *s)
{
	free(s->comp.v);
	free(s->comm.v);
	free(s->busy.v);
	free(s->host.v);
	free(s->cc.v);
	free(s->expo.v);
	free(s->steps);
	free(s->devts);
}

static int64_t window_end(const struct sweep *s, size_t k)
{
	return k + 1 < s->nsteps ? s->steps[k + 1].s : s->last + 1;
}

/* The --memory files, read back: row counts, peaks by component, allocation counts. */
static void check_memory(struct chk *c, struct kvs *got, int r, const char *od)
{
	char path[4096], key[512];
	struct csv_file cf;
	bool bad = false;
	path_join(path, sizeof path, od, "memory_record.csv");
	if (!csv_open(&cf, path, c))
		return; /* not asked for: no truth keys to match */
	int comp = csv_col(&cf, "Component"), al = csv_col(&cf, "Total Allocated(MB)"),
	    re = csv_col(&cf, "Total Reserved(MB)");
	int64_t rows = 0, pta_a = 0, pta_r = 0, app_r = 0, v;
	while (csv_next(&cf.rd, &cf.rec, &bad)) {
		rows++;
		const char *cp = cf.rec.f[comp].buf;
		if (!strcmp(cp, "PTA") && parse_i64(cf.rec.f[al].buf, 0, INT64_MAX, &v) && v > pta_a)
			pta_a = v;
		if (!strcmp(cp, "PTA") && parse_i64(cf.rec.f[re].buf, 0, INT64_MAX, &v) && v > pta_r)
			pta_r = v;
		if (!strcmp(cp, "APP") && parse_i64(cf.rec.f[re].buf, 0, INT64_MAX, &v) && v > app_r)
			app_r = v;
	}
	csv_close(&cf);
	static const char *const names[] = {"csv.memory_record.rows", "mem.pta_peak_allocated_mb",
					    "mem.pta_peak_reserved_mb", "mem.app_peak_reserved_mb"};
	int64_t vals[] = {rows, pta_a, pta_r, app_r};
	for (int i = 0; i < 4; i++) {
		snprintf(key, sizeof key, "rank.%d.%s", r, names[i]);
		kvs_addi(got, key, vals[i]);
	}
	path_join(path, sizeof path, od, "npu_module_mem.csv");
	if (csv_open(&cf, path, c)) {
		int mc = csv_col(&cf, "Component"), mr = csv_col(&cf, "Total Reserved(MB)");
		int64_t mrows = 0, hccl = 0;
		while (csv_next(&cf.rd, &cf.rec, &bad)) {
			mrows++;
			if (!strcmp(cf.rec.f[mc].buf, "HCCL") && parse_i64(cf.rec.f[mr].buf, 0, INT64_MAX, &v) && v > hccl)
				hccl = v;
		}
		csv_close(&cf);
		snprintf(key, sizeof key, "rank.%d.csv.npu_module_mem.rows", r);
		kvs_addi(got, key, mrows);
		snprintf(key, sizeof key, "rank.%d.mem.hccl_peak_reserved_mb", r);
		kvs_addi(got, key, hccl);
	} else {
		chk_fail(c, "%s missing", path);
	}
	path_join(path, sizeof path, od, "operator_memory.csv");
	if (csv_open(&cf, path, c)) {
		int sz = csv_col(&cf, "Size(KB)"), rel = csv_col(&cf, "Release Time(us)");
		int64_t orows = 0, allocs = 0, neg = 0, open_ = 0;
		while (csv_next(&cf.rd, &cf.rec, &bad)) {
			orows++;
			if (!parse_i64(cf.rec.f[sz].buf, INT64_MIN, INT64_MAX, &v))
				continue;
			allocs++;
			neg += v < 0;
			open_ += cf.rec.f[rel].buf[0] == '\0';
		}
		csv_close(&cf);
		static const char *const onames[] = {"csv.operator_memory.rows", "mem.allocs", "mem.negative_sizes",
						     "mem.never_released"};
		int64_t ovals[] = {orows, allocs, neg, open_};
		for (int i = 0; i < 4; i++) {
			snprintf(key, sizeof key, "rank.%d.%s", r, onames[i]);
			kvs_addi(got, key, ovals[i]);
		}
	} else {
		chk_fail(c, "%s missing", path);
	}
}

/* The kernel types kernel_details.csv holds, with their counts and times (op_statistic.csv
 * must agree). */
struct kernel_types {
	struct agg *aggs;
	size_t n, cap;
	char **names; /* owned, n */
};

/* kernel_details.csv: rows, ragged and Excel-mangled lines where the ground truth lists
 * them, starts on device events, durations by type (kt). bad: the CSV was malformed, kept
 * from file to file; tmp: scratch. */
static void check_kernel_details(struct chk *c, const struct kvs *truth, struct kvs *got, int r, const char *od,
                                 const struct sweep *sw, bool trace_ok, struct kernel_types *kt, struct sbuf *tmp,
                                 bool *bad)
{
	char path[4096], key[512], pre[32];
	snprintf(pre, sizeof pre, "rank.%d.", r);
	struct csv_file cf;
	path_join(path, sizeof path, od, "kernel_details.csv");
	snprintf(key, sizeof key, "%skernel_details.ragged_lines", pre);
	const char *ragged = kvs_get(truth, key);
	snprintf(key, sizeof key, "%skernel_details.excel_lines", pre);
	const char *excel = kvs_get(truth, key);
	if (csv_open(&cf, path, c)) {
		int cst = csv_col(&cf, "Start Time(us)"), cdu = csv_col(&cf, "Duration(us)"),
		    cty = csv_col(&cf, "Type");
		if (cst < 0 || cdu < 0 || cty < 0)
			chk_fail(c, "%s: missing columns", path);
		int64_t rows = 0, nrag = 0, nexc = 0;
		while (cst >= 0 && cdu >= 0 && cty >= 0 && csv_next(&cf.rd, &cf.rec, bad)) {
			rows++;
			int64_t ln = cf.rec.line;
			bool is_rag = in_list(ragged, ln), is_exc = in_list(excel, ln);
			size_t want = cf.hdr.nf - (is_rag ? 1 : 0);
			if (cf.rec.nf != want) {
				chk_fail(c, "%s line %" PRId64 ": %zu fields, expected %zu", path, ln,
				         cf.rec.nf, want);
				continue;
			}
			nrag += is_rag;
			char *st = cf.rec.f[cst].buf;
			strip_tab(st);
			if (is_exc) {
				nexc++;
				if (!excel_like(st))
					chk_fail(c, "%s line %" PRId64 ": '%s' is not Excel-mangled", path,
					         ln, st);
			} else {
				int64_t ns;
				char again[32];
				if (!dec_ns(st, &ns) || (fmt_us3(again, ns), strcmp(again, st)))
					chk_fail(c, "%s line %" PRId64 ": bad Start Time '%s'", path, ln, st);
				else if (trace_ok && !i64_find(sw->devts, sw->ndevts, ns))
					chk_fail(c,
					         "%s line %" PRId64
					         ": Start Time %s matches no device event ts",
					         path, ln, st);
			}
			int64_t d;
			if (!dec_ns(cf.rec.f[cdu].buf, &d)) {
				chk_fail(c, "%s line %" PRId64 ": bad Duration", path, ln);
				continue;
			}
			const char *ty = cell_utf8(&cf.rec.f[cty], tmp);
			size_t t;
			for (t = 0; t < kt->n && strcmp(kt->names[t], ty); t++)
				;
			if (t == kt->n) {
				kt->names = xrealloc(kt->names, (kt->n + 1) * sizeof *kt->names);
				kt->names[kt->n] = xstrdup(ty);
				agg_find(&kt->aggs, &kt->n, &kt->cap, kt->names[kt->n], "");
			}
			agg_add(&kt->aggs[t], d);
		}
		if (*bad)
			chk_fail(c, "%s: malformed CSV", path);
		if (nrag != list_count(ragged) || nexc != list_count(excel))
			chk_fail(c,
			         "%s: found %" PRId64 " ragged / %" PRId64
			         " excel rows, ground truth lists %" PRId64 " / %" PRId64,
			         path, nrag, nexc, list_count(ragged), list_count(excel));
		snprintf(key, sizeof key, "%scsv.kernel_details.rows", pre);
		kvs_addi(got, key, rows);
		for (size_t t = 0; t < kt->n; t++) {
			snprintf(key, sizeof key, "optype.%d.%s.count", r, kt->names[t]);
			kvs_addi(got, key, kt->aggs[t].n);
			snprintf(key, sizeof key, "optype.%d.%s.total_ns", r, kt->names[t]);
			kvs_addi(got, key, kt->aggs[t].total);
		}
		csv_close(&cf);
	} else {
		chk_fail(c, "%s missing", path);
	}
}

/* operator_details.csv: one row per cpu_op instance */
static void check_operator_details(struct chk *c, const struct kvs *truth, struct kvs *got, int r,
                                   const char *od, const struct sweep *sw, bool trace_ok, bool *bad)
{
	char path[4096], key[512];
	struct csv_file cf;
	path_join(path, sizeof path, od, "operator_details.csv");
	snprintf(key, sizeof key, "rank.%d.csv.operator_details.rows", r);
	if (csv_open(&cf, path, c)) {
		int64_t rows = 0;
		while (csv_next(&cf.rd, &cf.rec, bad)) {
			rows++;
			if (cf.rec.nf != cf.hdr.nf || cf.hdr.nf != 9)
				chk_fail(c, "%s line %" PRId64 ": %zu fields", path, cf.rec.line, cf.rec.nf);
		}
		if (*bad)
			chk_fail(c, "%s: malformed CSV", path);
		kvs_addi(got, key, rows);
		if (trace_ok && rows != sw->cpu_ops)
			chk_fail(c, "%s: %" PRId64 " rows but the trace has %" PRId64 " cpu_op events", path,
			         rows, sw->cpu_ops);
		csv_close(&cf);
	} else if (kvs_get(truth, key)) { /* --default-export writes none */
		chk_fail(c, "%s missing", path);
	}
}

/* op_statistic.csv: must agree with kernel_details.csv */
static void check_op_statistic(struct chk *c, struct kvs *got, int r, const char *od,
                               const struct kernel_types *kt, struct sbuf *tmp, bool *bad)
{
	char path[4096], key[512];
	struct csv_file cf;
	path_join(path, sizeof path, od, "op_statistic.csv");
	if (csv_open(&cf, path, c)) {
		int64_t rows = 0;
		while (csv_next(&cf.rd, &cf.rec, bad)) {
			rows++;
			if (cf.rec.nf != 8 || cf.hdr.nf != 8) {
				chk_fail(c, "%s line %" PRId64 ": %zu fields", path, cf.rec.line, cf.rec.nf);
				continue;
			}
			const char *ty = cell_utf8(&cf.rec.f[0], tmp);
			int64_t cnt, tot;
			size_t t;
			for (t = 0; t < kt->n && strcmp(kt->names[t], ty); t++)
				;
			if (t == kt->n || !parse_i64(cf.rec.f[2].buf, 0, INT64_MAX, &cnt) ||
			    !dec_ns(cf.rec.f[3].buf, &tot) || cnt != kt->aggs[t].n || tot != kt->aggs[t].total)
				chk_fail(c, "%s line %" PRId64 ": %s disagrees with kernel_details.csv", path,
				         cf.rec.line, ty);
		}
		if (rows != (int64_t)kt->n)
			chk_fail(c, "%s: %" PRId64 " rows for %zu kernel types", path, rows, kt->n);
		snprintf(key, sizeof key, "rank.%d.csv.op_statistic.rows", r);
		kvs_addi(got, key, rows);
		csv_close(&cf);
	} else {
		chk_fail(c, "%s missing", path);
	}
}

/* api_statistic.csv: counts add up to the CANN events */
static void check_api_statistic(struct chk *c, struct kvs *got, int r, const char *od, const struct sweep *sw,
                                bool trace_ok, bool *bad)
{
	char path[4096], key[512];
	struct csv_file cf;
	path_join(path, sizeof path, od, "api_statistic.csv");
	if (csv_open(&cf, path, c)) {
		int64_t rows = 0, calls = 0;
		while (csv_next(&cf.rd, &cf.rec, bad)) {
			rows++;
			int64_t cnt;
			if (cf.rec.nf != 8 || !parse_i64(cf.rec.f[3].buf, 1, INT64_MAX, &cnt))
				chk_fail(c, "%s line %" PRId64 ": bad row", path, cf.rec.line);
			else
				calls += cnt;
		}
		if (trace_ok && calls != sw->cann_x)
			chk_fail(c, "%s: %" PRId64 " calls but %" PRId64 " CANN events", path, calls,
			         sw->cann_x);
		snprintf(key, sizeof key, "rank.%d.csv.api_statistic.rows", r);
		kvs_addi(got, key, rows);
		csv_close(&cf);
	} else {
		chk_fail(c, "%s missing", path);
	}
}

/* step_trace_time.csv: per row (or the whole span) as the sweep splits it */
static void check_step_trace_time(struct chk *c, const struct kvs *truth, struct kvs *got, int r,
                                  const char *od, const struct sweep *sw, bool trace_ok, bool *bad)
{
	char path[4096], key[512];
	struct csv_file cf;
	path_join(path, sizeof path, od, "step_trace_time.csv");
	const char *mode = kvs_get(truth, "step_trace");
	bool want = mode && strcmp(mode, "none");
	if (csv_open(&cf, path, c)) {
		if (!want)
			chk_fail(c, "%s exists although step_trace=none", path);
		int64_t rows = 0;
		while (csv_next(&cf.rd, &cf.rec, bad)) {
			int64_t v[10];
			bool okrow = cf.rec.nf == 10 && cf.hdr.nf == 10;
			for (int i = 1; okrow && i < 10; i++)
				okrow = dec_ns(cf.rec.f[i].buf, &v[i]);
			if (!okrow) {
				chk_fail(c, "%s line %" PRId64 ": bad row", path, cf.rec.line);
				rows++;
				continue;
			}
			if (trace_ok) {
				int64_t lo = sw->first, hi = sw->last;
				if (!strcmp(mode, "rows")) {
					if ((size_t)rows >= sw->nsteps) {
						chk_fail(c, "%s: more rows than steps", path);
						break;
					}
					lo = sw->steps[rows].s;
					hi = min64(window_end(sw, (size_t)rows), sw->last);
				}
				int64_t comp = sweep_clip(&sw->comp, lo, hi),
				        comm = sweep_clip(&sw->comm, lo, hi);
				int64_t expo = sweep_clip(&sw->expo, lo, hi),
				        cc = sweep_clip(&sw->cc, lo, hi);
				int64_t exp[10] = {0, comp, expo, comm - expo, comm, (hi - lo) - cc, hi - lo,
				                   0, expo, 0};
				for (int i = 1; i < 9; i++)
					if (v[i] != exp[i])
						chk_fail(c,
						         "%s line %" PRId64 " column %s: %" PRId64
						         " ns, sweep says %" PRId64,
						         path, cf.rec.line, cf.hdr.f[i].buf, v[i], exp[i]);
			}
			rows++;
		}
		snprintf(key, sizeof key, "rank.%d.csv.step_trace_time.rows", r);
		kvs_addi(got, key, rows);
		csv_close(&cf);
	} else if (want) {
		chk_fail(c, "%s missing", path);
	}
}

static void check_csvs(struct chk *c, const struct kvs *truth, struct kvs *got, int r, const char *od,
                       const struct sweep *sw, bool trace_ok)
{
	struct sbuf tmp = {0};
	bool bad = false;
	struct kernel_types kt = {0};
	check_kernel_details(c, truth, got, r, od, sw, trace_ok, &kt, &tmp, &bad);
	check_operator_details(c, truth, got, r, od, sw, trace_ok, &bad);
	check_op_statistic(c, got, r, od, &kt, &tmp, &bad);
	check_api_statistic(c, got, r, od, sw, trace_ok, &bad);
	check_step_trace_time(c, truth, got, r, od, sw, trace_ok, &bad);
	for (size_t t = 0; t < kt.n; t++)
		free(kt.names[t]);
	free(kt.names);
	free(kt.aggs);
	free(tmp.buf);
}

static void check_json_file(struct chk *c, const char *path)
{
	struct mapped m = map_file(path);
	if (!m.ok) {
		chk_fail(c, "%s missing", path);
		return;
	}
	struct jp j = {m.p, m.p + m.n};
	if (!jskip(&j, 0) || (jws(&j), j.p != j.e))
		chk_fail(c, "%s is not valid JSON", path);
	unmap_file(&m);
}

static int64_t lookup_name(const struct named_id *v, size_t n, int64_t pid, int64_t tid, bool use_tid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].pid == pid && (!use_tid || v[i].tid == tid))
			return v[i].name;
	return -1;
}

/* The rank's directory and the files around its trace; false when no trace is to be read
 * (no directory in the ground truth, or the raw layout). od receives the output folder. */
static bool check_rank_dir(struct chk *c, const struct kvs *truth, int r, const char *outdir, char *od,
                           size_t odsz)
{
	char key[512], rdir[4096], path[4096];
	snprintf(key, sizeof key, "rank.%d.dir", r);
	const char *dir = kvs_get(truth, key);
	if (!dir) {
		chk_fail(c, "ground truth has no %s", key);
		return false;
	}
	path_join(rdir, sizeof rdir, outdir, dir);
	snprintf(key, sizeof key, "profiler_info_%d.json", r);
	path_join(path, sizeof path, rdir, key);
	if (access(path, F_OK) == 0)
		check_json_file(c, path);
	path_join(path, sizeof path, rdir, "profiler_metadata.json");
	check_json_file(c, path);
	const char *raw = kvs_get(truth, "raw");
	if (raw && !strcmp(raw, "1")) {
		path_join(path, sizeof path, rdir, "FRAMEWORK");
		path_join(od, odsz, rdir, "ASCEND_PROFILER_OUTPUT");
		if (access(path, F_OK) != 0 || access(od, F_OK) == 0)
			chk_fail(c, "%s: raw layout expected", rdir);
		return false;
	}
	path_join(od, odsz, rdir, "ASCEND_PROFILER_OUTPUT");
	return true;
}

/* The trace's size and its events by ph. */
static void count_events(struct kvs *got, const char *pre, const struct trace_view *tv, size_t bytes)
{
	char key[512];
	snprintf(key, sizeof key, "%strace_bytes", pre);
	kvs_addi(got, key, (int64_t)bytes);
	int64_t total = 0;
	for (int p = 0; p < PH_COUNT; p++) {
		snprintf(key, sizeof key, "%sevents.%c", pre, ph_chars[p]);
		kvs_addi(got, key, tv->n_ph[p]);
		total += tv->n_ph[p];
	}
	snprintf(key, sizeof key, "%sevents.total", pre);
	kvs_addi(got, key, total + tv->other_ph);
}

/* lanes: every (pid, tid) with X events or a thread_name, under a named process; and the
 * X events' span (sw->first, sw->last) */
static void count_lanes(struct kvs *got, const char *pre, const struct trace_view *tv, struct sweep *sw)
{
	char key[512];
	struct lane_acc *la = NULL;
	size_t nla = 0, lacap = 0, hit = 0;
	for (size_t i = 0; i < tv->nx; i++) {
		const struct xe *x = &tv->x[i];
		if (!sw->have_x || x->ts < sw->first)
			sw->first = x->ts;
		if (!sw->have_x || x->end > sw->last)
			sw->last = x->end;
		sw->have_x = true;
		if (!(hit < nla && la[hit].pid == x->pid && la[hit].tid == x->tid)) {
			for (hit = 0; hit < nla && !(la[hit].pid == x->pid && la[hit].tid == x->tid); hit++)
				;
			if (hit == nla) {
				xgrow(&la, &lacap, nla + 1, sizeof *la);
				la[nla++] = (struct lane_acc){x->pid, x->tid, 0, -1};
			}
		}
		la[hit].nx++;
	}
	for (size_t i = 0; i < tv->ntn; i++) {
		for (hit = 0; hit < nla && !(la[hit].pid == tv->tn[i].pid && la[hit].tid == tv->tn[i].tid);
		     hit++)
			;
		if (hit == nla) {
			xgrow(&la, &lacap, nla + 1, sizeof *la);
			la[nla++] = (struct lane_acc){tv->tn[i].pid, tv->tn[i].tid, 0, -1};
		}
		la[hit].tname = tv->tn[i].name;
	}
	for (size_t p = 0; p < tv->npn; p++) {
		const char *pname = tv->names.s[tv->pn[p].name];
		int64_t n = 0;
		for (size_t i = 0; i < nla; i++) {
			if (la[i].pid != tv->pn[p].pid)
				continue;
			n++;
			if (la[i].tname >= 0) {
				snprintf(key, sizeof key, "%slane.%s/%s", pre, pname,
				         tv->names.s[la[i].tname]);
				kvs_addi(got, key, la[i].nx);
			}
		}
		snprintf(key, sizeof key, "%slanes.%s", pre, pname);
		kvs_addi(got, key, n);
	}
	free(la);
	if (sw->have_x) {
		snprintf(key, sizeof key, "%sfirst_ts_ns", pre);
		kvs_addi(got, key, sw->first);
		snprintf(key, sizeof key, "%slast_end_ns", pre);
		kvs_addi(got, key, sw->last);
		snprintf(key, sizeof key, "%swall_ns", pre);
		kvs_addi(got, key, sw->last - sw->first);
	}
}

/* What the classification of a complete trace's X events sums beside the sweep's lists. */
struct trace_sums {
	int64_t copy, ncoll, cxfer, cspan;
	int64_t *cpu_ts; /* host cpu_op starts (not ProfilerStep#), sorted once classified */
	size_t ncpu;
	struct agg *ops; /* device compute ops by name */
	size_t nops;
};

/* The last process looked up: the X events come a process at a time. */
struct pname_cache {
	int64_t pid;
	const char *name;
};

/* The name a pid's process_name declares ("" for none). */
static const char *process_name(const struct trace_view *tv, int64_t pid, struct pname_cache *pc)
{
	if (pid != pc->pid) {
		int64_t id = lookup_name(tv->pn, tv->npn, pid, 0, false);
		pc->name = id >= 0 ? tv->names.s[id] : "";
		pc->pid = pid;
	}
	return pc->name;
}

/* classify by the process / thread names the trace itself declares */
static void classify_trace(const struct kvs *truth, const struct trace_view *tv, struct sweep *sw,
                           struct trace_sums *t)
{
	size_t cpucap = 0, opcap = 0;
	const char *marks = kvs_get(truth, "step_marks");
	struct pname_cache pc = {INT64_MIN, ""};
	for (size_t i = 0; i < tv->nx; i++) {
		const struct xe *x = &tv->x[i];
		const char *pname = process_name(tv, x->pid, &pc);
		const char *nm = tv->names.s[x->name];
		if (!strcmp(pname, "Ascend Hardware")) {
			/* MC2 dispatch and combine wait for the peers: communication */
			if (x->tt == TT_COMPUTE && strstr(nm, "MoeDistribute")) {
				list_push(&sw->comm, x->ts, x->end);
				agg_add(agg_find(&t->ops, &t->nops, &opcap, nm, ""), x->end - x->ts);
			} else if (x->tt == TT_COMPUTE) {
				list_push(&sw->comp, x->ts, x->end);
				agg_add(agg_find(&t->ops, &t->nops, &opcap, nm, ""), x->end - x->ts);
			}
			if (x->tt != TT_WAIT)
				list_push(&sw->busy, x->ts, x->end);
			if (!strcmp(nm, "MEMCPY_ASYNC"))
				t->copy += x->end - x->ts;
			if (!strcmp(nm, "SDMA")) /* a collective's transfer */
				t->cxfer += x->end - x->ts;
		} else if (!strcmp(pname, "HCCL")) {
			int64_t tn = lookup_name(tv->tn, tv->ntn, x->pid, x->tid, true);
			if (tn >= 0 && !strcmp(tv->names.s[tn], "Group 0 Communication")) {
				list_push(&sw->comm, x->ts, x->end);
				t->ncoll++;
				t->cspan += x->end - x->ts;
			}
		} else if (!strcmp(pname, "Python") || !strcmp(pname, "CANN")) {
			list_push(&sw->host, x->ts, x->end);
			sw->cann_x += !strcmp(pname, "CANN");
			bool pstep = x->cat == CAT_CPU_OP && !strncmp(nm, "ProfilerStep#", 13);
			if (x->cat == CAT_CPU_OP && !pstep) {
				xgrow(&t->cpu_ts, &cpucap, t->ncpu + 1, sizeof *t->cpu_ts);
				t->cpu_ts[t->ncpu++] = x->ts;
			}
			size_t nl = strlen(nm);
			bool engine = x->cat == CAT_PYFUNC && nl > 15 &&
			              !strcmp(nm + nl - 15, ": execute_model");
			if ((marks && !strcmp(marks, "engine") && engine) ||
			    (marks && !strcmp(marks, "profilerstep") && pstep)) {
				sw->steps = xrealloc(sw->steps, (sw->nsteps + 1) * sizeof *sw->steps);
				sw->steps[sw->nsteps++] = (struct ivl){x->ts, x->end};
			}
		}
	}
	/* device and HCCL start times, for matching kernel_details.csv rows */
	sw->devts = xmalloc(sizeof *sw->devts * (tv->nx ? tv->nx : 1));
	sw->ndevts = 0;
	pc = (struct pname_cache){INT64_MIN, ""};
	for (size_t i = 0; i < tv->nx; i++) {
		const struct xe *x = &tv->x[i];
		const char *pname = process_name(tv, x->pid, &pc);
		if (!strcmp(pname, "Ascend Hardware") || !strcmp(pname, "HCCL"))
			sw->devts[sw->ndevts++] = x->ts;
	}
	qsort(sw->devts, sw->ndevts, sizeof *sw->devts, cmp_i64);
	qsort(t->cpu_ts, t->ncpu, sizeof *t->cpu_ts, cmp_i64);
	sw->cpu_ops = (int64_t)t->ncpu;
}

/* no markers in the file: take the windows the ground truth states */
static void truth_step_windows(struct chk *c, const struct kvs *truth, int r, const char *pre, struct sweep *sw)
{
	char key[512];
	snprintf(key, sizeof key, "%ssteps", pre);
	const char *ns = kvs_get(truth, key);
	int64_t n = 0;
	if (ns)
		parse_i64(ns, 0, INT32_MAX, &n);
	for (int64_t k = 0; k < n; k++) {
		int64_t s = 0, e = 0;
		snprintf(key, sizeof key, "%sstep.%" PRId64 ".start_ns", pre, k);
		const char *vs = kvs_get(truth, key);
		snprintf(key, sizeof key, "%sstep.%" PRId64 ".end_ns", pre, k);
		const char *ve = kvs_get(truth, key);
		if (!vs || !ve || !parse_i64(vs, INT64_MIN, INT64_MAX, &s) ||
		    !parse_i64(ve, INT64_MIN, INT64_MAX, &e)) {
			chk_fail(c,
			         "rank %d: step %" PRId64 " window missing from ground truth",
			         r, k);
			continue;
		}
		sw->steps = xrealloc(sw->steps, (sw->nsteps + 1) * sizeof *sw->steps);
		sw->steps[sw->nsteps++] = (struct ivl){s, e};
	}
}

/* The sweep's figures: the lists merged, the rank's totals and each step's. */
static void sweep_figures(struct kvs *got, const char *pre, struct sweep *sw, const struct trace_sums *t)
{
	char key[512];
	if (sw->nsteps > 1)
		qsort(sw->steps, sw->nsteps, sizeof *sw->steps, ivl_cmp);
	sweep_merge(&sw->comp);
	sweep_merge(&sw->comm);
	sweep_merge(&sw->busy);
	sweep_merge(&sw->host);
	for (size_t i = 0; i < sw->comp.n; i++)
		list_push(&sw->cc, sw->comp.v[i].s, sw->comp.v[i].e);
	for (size_t i = 0; i < sw->comm.n; i++)
		list_push(&sw->cc, sw->comm.v[i].s, sw->comm.v[i].e);
	sweep_merge(&sw->cc);
	sweep_subtract(&sw->comm, &sw->comp, &sw->expo);
	/* occupied: busy or in a collective; idle and host-only are measured against it */
	struct ivl_list occ = {0}, honly = {0};
	for (size_t i = 0; i < sw->busy.n; i++)
		list_push(&occ, sw->busy.v[i].s, sw->busy.v[i].e);
	for (size_t i = 0; i < sw->comm.n; i++)
		list_push(&occ, sw->comm.v[i].s, sw->comm.v[i].e);
	sweep_merge(&occ);
	sweep_subtract(&sw->host, &occ, &honly);
	int64_t comm = sweep_total(&sw->comm), expo = sweep_total(&sw->expo);
	int64_t idle = 0, gaps = 0, prev = sw->first;
	for (size_t i = 0; i <= occ.n; i++) {
		int64_t s = i < occ.n ? occ.v[i].s : sw->last;
		if (s - prev >= IDLE_MIN) {
			idle += s - prev;
			gaps++;
		}
		if (i < occ.n)
			prev = occ.v[i].e;
	}
	struct {
		const char *k;
		int64_t v;
	} vals[] = {
	        {"compute_ns", sweep_total(&sw->comp)},
	        {"copy_ns", t->copy},
	        {"collectives", t->ncoll},
	        {"coll_transfer_ns", t->cxfer},
	        {"coll_wait_ns", t->cspan - t->cxfer},
	        {"comm_ns", comm},
	        {"comm_overlapped_ns", comm - expo},
	        {"comm_not_overlapped_ns", expo},
	        {"npu_busy_ns", sweep_total(&sw->busy)},
	        {"npu_idle_ns", idle},
	        {"npu_idle_gaps", gaps},
	        {"free_ns", (sw->last - sw->first) - sweep_total(&sw->cc)},
	        {"host_busy_ns", sweep_total(&sw->host)},
	        {"host_only_ns", sweep_total(&honly)},
	        {"edge_idle_ns", occ.n ? (occ.v[0].s - sw->first) + (sw->last - occ.v[occ.n - 1].e)
	                               : sw->last - sw->first},
	        {"steps", (int64_t)sw->nsteps},
	        {"dispatch_ops_total", (int64_t)t->ncpu},
	};
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
		snprintf(key, sizeof key, "%s%s", pre, vals[i].k);
		kvs_addi(got, key, vals[i].v);
	}
	for (size_t k = 0; k < sw->nsteps; k++) {
		int64_t lo = sw->steps[k].s, hi = window_end(sw, k);
		int64_t chi = min64(hi, sw->last);
		snprintf(key, sizeof key, "%sstep.%zu.start_ns", pre, k);
		kvs_addi(got, key, sw->steps[k].s);
		snprintf(key, sizeof key, "%sstep.%zu.end_ns", pre, k);
		kvs_addi(got, key, sw->steps[k].e);
		snprintf(key, sizeof key, "%sstep.%zu.dispatch_ops", pre, k);
		kvs_addi(got, key, i64_count(t->cpu_ts, t->ncpu, lo, hi));
		snprintf(key, sizeof key, "%sstep.%zu.compute_ns", pre, k);
		kvs_addi(got, key, sweep_clip(&sw->comp, lo, chi));
		snprintf(key, sizeof key, "%sstep.%zu.comm_not_overlapped_ns", pre, k);
		kvs_addi(got, key, sweep_clip(&sw->expo, lo, chi));
		snprintf(key, sizeof key, "%sstep.%zu.host_only_ns", pre, k);
		kvs_addi(got, key, sweep_clip(&honly, lo, chi));
	}
	free(honly.v);
	free(occ.v);
}

/* keys only the generator can state, checked for consistency */
static void check_stated_keys(struct chk *c, const struct kvs *truth, int r, const char *pre, int64_t copy,
                              size_t nsteps)
{
	char key[512];
	int64_t a = 0, b = 0, s = 0, t = 0;
	snprintf(key, sizeof key, "%scopy_h2d_ns", pre);
	const char *v1 = kvs_get(truth, key);
	snprintf(key, sizeof key, "%scopy_d2h_ns", pre);
	const char *v2 = kvs_get(truth, key);
	if (!v1 || !v2 || !parse_i64(v1, 0, INT64_MAX, &a) || !parse_i64(v2, 0, INT64_MAX, &b) ||
	    a + b != copy)
		chk_fail(c, "rank %d: copy_h2d_ns + copy_d2h_ns != copy_ns", r);
	snprintf(key, sizeof key, "%sprefill_steps", pre);
	v1 = kvs_get(truth, key);
	snprintf(key, sizeof key, "%sdecode_steps", pre);
	v2 = kvs_get(truth, key);
	int64_t others = 0, x = 0; /* --shape: mixed and training steps */
	for (int w = 0; w < 2; w++) {
		snprintf(key, sizeof key, "%s%s_steps", pre, w ? "train" : "mixed");
		const char *v3 = kvs_get(truth, key);
		if (v3 && parse_i64(v3, 0, INT64_MAX, &x))
			others += x;
	}
	if (!v1 || !v2 || !parse_i64(v1, 0, INT64_MAX, &s) || !parse_i64(v2, 0, INT64_MAX, &t) ||
	    s + t + others != (int64_t)nsteps)
		chk_fail(c, "rank %d: prefill_steps + decode_steps (+ mixed, train) != steps", r);
	int64_t np = 0;
	for (size_t k = 0; k < nsteps; k++) {
		snprintf(key, sizeof key, "%sstep.%zu.phase", pre, k);
		const char *ph = kvs_get(truth, key);
		if (!ph || (strcmp(ph, "prefill") && strcmp(ph, "decode") && strcmp(ph, "mixed") &&
		            strcmp(ph, "train")))
			chk_fail(c, "rank %d: step %zu has no phase", r, k);
		else
			np += !strcmp(ph, "prefill");
	}
	if (np != s)
		chk_fail(c, "rank %d: %" PRId64 " steps marked prefill, prefill_steps=%" PRId64, r,
		         np, s);
}

/* A complete trace swept: its figures into got, the stated keys checked. */
static void sweep_trace(struct chk *c, const struct kvs *truth, struct kvs *got, int r, const char *pre,
                        const struct trace_view *tv, struct sweep *sw)
{
	char key[512];
	struct trace_sums t = {0};
	classify_trace(truth, tv, sw, &t);
	const char *marks = kvs_get(truth, "step_marks");
	if (marks && !strcmp(marks, "none"))
		truth_step_windows(c, truth, r, pre, sw);
	sweep_figures(got, pre, sw, &t);
	for (size_t i = 0; i < t.nops; i++) {
		snprintf(key, sizeof key, "op.%d.%s.count", r, t.ops[i].key);
		kvs_addi(got, key, t.ops[i].n);
		snprintf(key, sizeof key, "op.%d.%s.total_ns", r, t.ops[i].key);
		kvs_addi(got, key, t.ops[i].total);
	}
	check_stated_keys(c, truth, r, pre, t.copy, sw->nsteps);
	free(t.cpu_ts);
	free(t.ops);
}

/* compare: everything the sweep derived must be in the ground truth with the same value, and
 * every verifiable truth key of this rank must have been derived */
static void compare_with_truth(struct chk *c, const struct kvs *truth, struct kvs *got, int r, const char *pre)
{
	qsort(got->v, got->n, sizeof *got->v, kv_cmp);
	for (size_t i = 0; i < got->n; i++) {
		const char *tv_ = kvs_get(truth, got->v[i].k);
		if (!tv_)
			chk_fail(c, "%s=%s found by the sweep, absent from ground truth", got->v[i].k,
			         got->v[i].v);
		else if (strcmp(tv_, got->v[i].v))
			chk_fail(c, "%s: ground truth %s, sweep %s", got->v[i].k, tv_, got->v[i].v);
		else
			c->verified++;
	}
	static const char *const unverifiable[] = {
	        "dir",
	        "offset_ns",
	        "pid",
	        "device_id",
	        "truncated",
	        "cut_at",
	        "prefill_steps",
	        "decode_steps",
	        "mixed_steps",
	        "train_steps",
	        "copy_h2d_ns",
	        "copy_d2h_ns",
	        "kernel_details.ragged_lines",
	        "kernel_details.excel_lines",
	        /* the advice plants' figures: what the rules read back, tests/test_advice_kernel */
	        "advice.alloc_calls",
	        "advice.alloc_ns",
	        "advice.new_shapes",
	        "advice.pmu_ns",
	        "advice.latency_bound_ns",
	        "advice.small_block_kernels",
	        "advice.small_block_ns",
	};
	char opre[32], tpre[32];
	snprintf(opre, sizeof opre, "op.%d.", r);
	snprintf(tpre, sizeof tpre, "optype.%d.", r);
	for (size_t i = 0; i < truth->n; i++) {
		const char *k = truth->v[i].k;
		const char *rest = NULL;
		if (!strncmp(k, pre, strlen(pre)))
			rest = k + strlen(pre);
		else if (strncmp(k, opre, strlen(opre)) && strncmp(k, tpre, strlen(tpre)))
			continue;
		bool skip = false;
		for (size_t u = 0; rest && u < sizeof unverifiable / sizeof unverifiable[0]; u++)
			skip |= !strcmp(rest, unverifiable[u]);
		static const char *const step_only[] = {".phase", ".dev_start_ns", ".dev_end_ns", ".tokens",
		                                        ".seqs",  ".graph",        ".replays"};
		for (size_t u = 0; rest && !strncmp(rest, "step.", 5) && u < sizeof step_only / sizeof *step_only; u++)
			skip |= strlen(rest) > strlen(step_only[u]) &&
			        !strcmp(rest + strlen(rest) - strlen(step_only[u]), step_only[u]);
		if (!skip && !kvs_get(got, k))
			chk_fail(c, "%s=%s in ground truth was not re-derived by the sweep", k,
			         truth->v[i].v);
	}
}

static void check_rank(struct chk *c, const struct kvs *truth, int r, const char *outdir)
{
	char key[512], pre[32], od[4096], path[4096];
	snprintf(pre, sizeof pre, "rank.%d.", r);
	if (!check_rank_dir(c, truth, r, outdir, od, sizeof od))
		return;
	path_join(path, sizeof path, od, "trace_view.json");
	struct mapped m = map_file(path);
	if (!m.ok) {
		chk_fail(c, "%s missing", path);
		return;
	}
	snprintf(key, sizeof key, "%struncated", pre);
	const char *tr = kvs_get(truth, key);
	bool truncated = tr && !strcmp(tr, "1");
	struct trace_view tv;
	parse_trace(m.p, m.n, &tv);
	if (!truncated && !tv.complete)
		chk_fail(c, "%s is not valid JSON (or not a trace)", path);
	if (truncated && tv.complete)
		chk_fail(c, "%s should be cut but parses completely", path);
	if (tv.other_ph)
		chk_fail(c, "%s: %" PRId64 " elements with an unexpected ph", path, tv.other_ph);
	struct kvs got = {0};
	count_events(&got, pre, &tv, m.n);

	struct sweep sw;
	memset(&sw, 0, sizeof sw);
	count_lanes(&got, pre, &tv, &sw);
	bool trace_ok = !truncated && tv.complete;
	if (trace_ok)
		sweep_trace(c, truth, &got, r, pre, &tv, &sw);
	check_csvs(c, truth, &got, r, od, &sw, trace_ok);
	check_memory(c, &got, r, od);
	compare_with_truth(c, truth, &got, r, pre);
	kvs_free(&got);
	sweep_free(&sw);
	tv_free(&tv);
	unmap_file(&m);
}

int self_check(const char *outdir)
{
	char path[4096];
	path_join(path, sizeof path, outdir, "ground_truth.txt");
	struct mapped m = map_file(path);
	if (!m.ok) {
		fprintf(stderr, "self-check: %s missing\n", path);
		return 1;
	}
	struct kvs truth = {0};
	struct chk c = {0, 0};
	const char *p = m.p, *e = m.p + m.n;
	while (p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		const char *le = nl ? nl : e;
		if (le > p && *p != '#') {
			const char *eq = memchr(p, '=', (size_t)(le - p));
			if (!eq) {
				chk_fail(&c, "ground truth line without '=': %.*s", (int)(le - p), p);
			} else {
				char *k = xmalloc((size_t)(eq - p) + 1), *v = xmalloc((size_t)(le - eq));
				memcpy(k, p, (size_t)(eq - p));
				k[eq - p] = 0;
				memcpy(v, eq + 1, (size_t)(le - eq - 1));
				v[le - eq - 1] = 0;
				kvs_add(&truth, k, v);
				free(k);
				free(v);
			}
		}
		p = nl ? nl + 1 : e;
	}
	unmap_file(&m);
	qsort(truth.v, truth.n, sizeof *truth.v, kv_cmp);
	for (size_t i = 1; i < truth.n; i++)
		if (!strcmp(truth.v[i].k, truth.v[i - 1].k))
			chk_fail(&c, "duplicate ground-truth key %s", truth.v[i].k);
	int64_t ranks = 0;
	const char *rv = kvs_get(&truth, "ranks");
	if (!rv || !parse_i64(rv, 1, MAX_RANKS, &ranks))
		chk_fail(&c, "ground truth has no valid ranks=");
	for (int r = 0; r < ranks; r++)
		check_rank(&c, &truth, r, outdir);
	kvs_free(&truth);
	if (c.errors) {
		fprintf(stderr, "self-check: FAILED with %d mismatch(es)\n", c.errors);
		return 1;
	}
	fprintf(stderr, "self-check: ok, %" PRId64 " ground-truth values re-derived from the files\n",
	        c.verified);
	return 0;
}
