/* SPDX-License-Identifier: MIT */
/* Reads profiler_info JSON with jsmn (the file is small). */
#include "profinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "i18n.h"
#include "json_tok.h"
#include "num.h"
#include "sbuf.h"
#include "xalloc.h"

#define MAX_INFO_BYTES (16u << 20)

static const char *kind_of_file(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket"
	       : S_ISCHR(m) || S_ISBLK(m) ? "a device" : "not a regular file";
}

/* What is lost when the file is not read. */
#define INFO_LOST "ignored: no versions, level or rank from it"

static char *read_small_file(const char *path, size_t *len, struct diag_list *dl)
{
	/* the kind first: a socket cannot be opened at all (ENXIO), a FIFO would block
	 * discovery without O_NONBLOCK (found by tests/fuzz/fuzz_discover) */
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		diag_add(dl, DIAG_WARN, path, 0, -1, "%s, not a regular file; " INFO_LOST, kind_of_file(st.st_mode));
		return NULL;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		diag_add(dl, DIAG_WARN, path, 0, -1, "cannot open: %s; " INFO_LOST, strerror(errno));
		return NULL;
	}
	FILE *f = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "rb") : NULL;
	if (!f) {
		close(fd);
		diag_add(dl, DIAG_WARN, path, 0, -1, "not a regular file; " INFO_LOST);
		return NULL;
	}
	struct sbuf sb = SBUF_INIT;
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		sbuf_add(&sb, chunk, n);
		if (sb.len > MAX_INFO_BYTES) {
			diag_add(dl, DIAG_WARN, path, 0, -1, _("larger than %u bytes; ignored"), MAX_INFO_BYTES);
			sbuf_free(&sb);
			fclose(f);
			return NULL;
		}
	}
	fclose(f);
	*len = sb.len;
	return sbuf_detach(&sb);
}

/* Value token at a dotted path of object keys, or -1. */
static int get_path(const struct jtok *jt, const char *js, const char *path)
{
	int cur = 0;
	char key[128];
	while (*path && cur >= 0) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);
		if (n >= sizeof key)
			return -1;
		memcpy(key, path, n);
		key[n] = '\0';
		cur = jtok_obj_get(jt, js, cur, key);
		path += n + (dot ? 1 : 0);
	}
	return cur;
}

static char *get_str(const struct jtok *jt, const char *js, const char *path)
{
	int v = get_path(jt, js, path);
	if (v < 0 || (jt->t[v].type != JSMN_STRING && jt->t[v].type != JSMN_PRIMITIVE))
		return NULL;
	struct sbuf sb = SBUF_INIT;
	jtok_unescape(js, &jt->t[v], &sb);
	if (jt->t[v].type == JSMN_PRIMITIVE && strcmp(sbuf_str(&sb), "null") == 0) {
		sbuf_free(&sb);
		return NULL;
	}
	return sbuf_detach(&sb);
}

static bool get_bool(const struct jtok *jt, const char *js, const char *path)
{
	int v = get_path(jt, js, path);
	return v >= 0 && jtok_eq(js, &jt->t[v], "true");
}

int profinfo_load(struct profinfo *pi, const char *path, struct diag_list *dl)
{
	memset(pi, 0, sizeof *pi);
	pi->path = xstrdup(path);
	size_t len;
	char *js = read_small_file(path, &len, dl);
	if (!js)
		return -1;
	struct jtok jt;
	jtok_init(&jt);
	int r = jtok_parse(&jt, js, len);
	if (r == JTOK_ERROR_DEPTH) {
		/* the fields read here are a few levels down: blank what is deeper (js is ours)
		 * and read the rest */
		size_t n = jtok_flatten_deep(js, len, JTOK_MAX_DEPTH);
		r = jtok_parse(&jt, js, len);
		if (r > 0)
			diag_add(dl, DIAG_WARN, path, 0, -1,
				 _("%zu value%s nested more than %d deep not read; the rest is kept"), n,
				 n == 1 ? "" : "s", JTOK_MAX_DEPTH);
	}
	if (r <= 0 || jt.t[0].type != JSMN_OBJECT) {
		diag_add(dl, DIAG_WARN, path, 0, -1, _("not a JSON object (%s); ignored"),
			 r < 0 ? jtok_error_name(r) : "empty");
		jtok_free(&jt);
		free(js);
		return -1;
	}
	char *rank = get_str(&jt, js, "rank_id");
	if (rank) {
		int64_t v;
		if (num_int64(rank, strlen(rank), &v) == NUM_OK && v >= 0 && v < 1000000) {
			pi->has_rank = true;
			pi->rank = (int)v;
		} else {
			diag_add(dl, DIAG_WARN, path, 0, -1, _("rank_id \"%.40s\" is not a rank number; ignored"),
				 rank);
		}
		free(rank);
	}
	pi->torch_npu_version = get_str(&jt, js, "torch_npu_version");
	pi->cann_version = get_str(&jt, js, "cann_version");
	pi->profiler_level = get_str(&jt, js, "config.experimental_config._profiler_level");
	pi->aic_metrics = get_str(&jt, js, "config.experimental_config._aic_metrics");
	pi->export_type = get_str(&jt, js, "config.experimental_config._export_type");
	pi->data_simplification = get_bool(&jt, js, "config.experimental_config._data_simplification");
	int sched = get_path(&jt, js, "config.common_config.schedule");
	pi->has_schedule = sched >= 0 && jt.t[sched].type == JSMN_OBJECT;
	pi->record_shapes = get_bool(&jt, js, "config.common_config.record_shapes");
	pi->profile_memory = get_bool(&jt, js, "config.common_config.profile_memory");
	pi->with_stack = get_bool(&jt, js, "config.common_config.with_stack");
	pi->with_modules = get_bool(&jt, js, "config.common_config.with_modules");
	char *end = get_str(&jt, js, "end_info.collectionTimeEnd");
	if (end) {
		int64_t v;
		if (num_int64(end, strlen(end), &v) == NUM_OK)
			pi->collection_end_ns = v;
		free(end);
	}
	pi->loaded = true;
	jtok_free(&jt);
	free(js);
	return 0;
}

void profinfo_free(struct profinfo *pi)
{
	if (!pi)
		return;
	free(pi->path);
	free(pi->torch_npu_version);
	free(pi->cann_version);
	free(pi->profiler_level);
	free(pi->aic_metrics);
	free(pi->export_type);
	memset(pi, 0, sizeof *pi);
}

const char *parallel_dim_name(enum parallel_dim d)
{
	static const char *const names[PAR_COUNT] = {"tp", "dp", "pp", "ep", "dcp"};
	return d < PAR_COUNT ? names[d] : NULL;
}

static int cmp_rank(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return x < y ? -1 : x > y;
}

/* profiler_metadata.json's top-level object under key: its token in *jt over the text *js
 * (both owned by the caller, freed with jtok_free and free, also when -1 is returned). */
static int metadata_object(const char *path, const char *key, struct jtok *jt, char **js, struct diag_list *dl)
{
	size_t len = 0;
	jtok_init(jt);
	*js = read_small_file(path, &len, dl);
	if (!*js)
		return -1;
	int at = jtok_parse(jt, *js, len) > 0 && jt->t[0].type == JSMN_OBJECT ? jtok_obj_get(jt, *js, 0, key) : -1;
	return at >= 0 && jt->t[at].type == JSMN_OBJECT ? at : -1;
}

struct parallel_group_info *parallel_groups_load(const char *path, size_t *n, struct diag_list *dl)
{
	*n = 0;
	struct jtok jt;
	char *js;
	/* a broken metadata file says nothing of the layout: profinfo's own reader names it */
	int info = metadata_object(path, "parallel_group_info", &jt, &js, dl);
	struct parallel_group_info *out = NULL;
	size_t cap = 0;
	if (info >= 0) {
		int i = info + 1;
		for (int k = 0; k < jt.t[info].size; k++) {
			int v = i + 1; /* key at i */
			i = jtok_skip(&jt, v);
			if (jt.t[v].type != JSMN_OBJECT)
				continue;
			int name = jtok_obj_get(&jt, js, v, "group_name"), ranks = jtok_obj_get(&jt, js, v, "global_ranks");
			if (name < 0 || ranks < 0 || jt.t[ranks].type != JSMN_ARRAY || !jt.t[ranks].size)
				continue;
			int dim = -1;
			for (int d = 0; d < PAR_COUNT; d++)
				if (jt.t[name].type == JSMN_STRING && jtok_eq(js, &jt.t[name], parallel_dim_name((enum parallel_dim)d)))
					dim = d;
			if (dim < 0)
				continue;
			xgrow(&out, &cap, *n + 1, sizeof *out);
			struct parallel_group_info *g = &out[*n];
			g->dim = dim;
			g->ranks = xmalloc((size_t)jt.t[ranks].size * sizeof *g->ranks);
			g->n_ranks = 0;
			for (int e = 0, t = ranks + 1; e < jt.t[ranks].size; e++, t = jtok_skip(&jt, t)) {
				int64_t r;
				if (jt.t[t].type == JSMN_PRIMITIVE &&
				    num_int64(js + jt.t[t].start, (size_t)(jt.t[t].end - jt.t[t].start), &r) == NUM_OK && r >= 0 &&
				    r < INT32_MAX)
					g->ranks[g->n_ranks++] = (int32_t)r;
			}
			if (!g->n_ranks) {
				free(g->ranks);
				continue;
			}
			xqsort(g->ranks, g->n_ranks, sizeof *g->ranks, cmp_rank);
			(*n)++;
		}
	}
	jtok_free(&jt);
	free(js);
	return out;
}

struct env_var *env_vars_load(const char *path, size_t *n, bool *present, struct diag_list *dl)
{
	*n = 0;
	*present = false;
	struct jtok jt;
	char *js;
	int env = metadata_object(path, "ENV_VARIABLES", &jt, &js, dl);
	struct env_var *out = NULL;
	size_t cap = 0;
	if (env >= 0) {
		*present = true;
		int i = env + 1;
		for (int k = 0; k < jt.t[env].size; k++) {
			int key = i, v = i + 1;
			i = jtok_skip(&jt, v);
			/* a value that is no string (a number, an object) is no setting we can quote */
			if (jt.t[key].type != JSMN_STRING || jt.t[v].type != JSMN_STRING)
				continue;
			xgrow(&out, &cap, *n + 1, sizeof *out);
			out[*n].key = xstrndup(js + jt.t[key].start, (size_t)(jt.t[key].end - jt.t[key].start));
			out[*n].value = xstrndup(js + jt.t[v].start, (size_t)(jt.t[v].end - jt.t[v].start));
			(*n)++;
		}
	}
	jtok_free(&jt);
	free(js);
	return out;
}

void env_vars_free(struct env_var *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].key);
		free(v[i].value);
	}
	free(v);
}

const char *env_vars_get(const struct env_var *v, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].key, key))
			return v[i].value;
	return NULL;
}

void parallel_groups_free(struct parallel_group_info *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(g[i].ranks);
	free(g);
}

char *parallel_groups_format(const struct parallel_group_info *g, size_t n)
{
	if (!n)
		return NULL;
	struct sbuf b = SBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		sbuf_addf(&b, "%s%s:", i ? ";" : "", parallel_dim_name((enum parallel_dim)g[i].dim));
		for (size_t k = 0; k < g[i].n_ranks; k++)
			sbuf_addf(&b, "%s%d", k ? "," : "", g[i].ranks[k]);
	}
	return sbuf_detach(&b);
}

struct parallel_group_info *parallel_groups_parse(const char *s, size_t *n)
{
	*n = 0;
	struct parallel_group_info *out = NULL;
	size_t cap = 0;
	while (s && *s) {
		const char *colon = strchr(s, ':');
		if (!colon)
			break;
		int dim = -1;
		for (int d = 0; d < PAR_COUNT; d++)
			if (strlen(parallel_dim_name((enum parallel_dim)d)) == (size_t)(colon - s) &&
			    !strncmp(s, parallel_dim_name((enum parallel_dim)d), (size_t)(colon - s)))
				dim = d;
		size_t end = strcspn(colon + 1, ";");
		if (dim < 0 || !end)
			break;
		xgrow(&out, &cap, *n + 1, sizeof *out);
		struct parallel_group_info *g = &out[(*n)++];
		g->dim = dim;
		g->ranks = xmalloc((end / 2 + 1) * sizeof *g->ranks);
		g->n_ranks = 0;
		for (const char *p = colon + 1; p < colon + 1 + end;) {
			char *e;
			long v = strtol(p, &e, 10);
			if (e == p || v < 0 || v >= INT32_MAX)
				break;
			g->ranks[g->n_ranks++] = (int32_t)v;
			p = *e == ',' ? e + 1 : e;
			if (e == colon + 1 + end)
				break;
		}
		s = colon + 1 + end;
		if (*s == ';')
			s++;
	}
	return out;
}
