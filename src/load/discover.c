/* SPDX-License-Identifier: MIT */
/* Directory walking and rank identification for Class A and Class B captures. */
#include "discover.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "i18n.h"
#include "serving.h"
#include "sanitize.h"
#include "sbuf.h"
#include "xalloc.h"

#define MAX_DEPTH 5
#define MAX_VISITED 4096

struct walk {
	struct capture_plan *plan;
	struct diag_list *dl;
	size_t cap_ranks;
	dev_t vdev[MAX_VISITED];
	ino_t vino[MAX_VISITED];
	size_t nvisited;
	bool loop_warned;
	/* the capture's real path: a symbolic link that leads out of it is not followed, so that
	 * nothing from elsewhere (/etc/shadow, /proc) is read or echoed into a report */
	char *root; /* owned; NULL: no check (the root could not be resolved) */
	size_t empty; /* profiling files skipped for being empty: "found none" would mislead */
};

const char *discover_role_name(enum file_role role)
{
	switch (role) {
	case ROLE_TRACE: return "trace";
	case ROLE_CSV: return "csv";
	case ROLE_COMM: return "communication";
	case ROLE_COMM_MATRIX: return "communication_matrix";
	case ROLE_DB: return "db";
	case ROLE_DONE: return "done-marker";
	case ROLE_OTHER: return "other";
	}
	return "?";
}

const char *discover_class_name(enum capture_class cls)
{
	switch (cls) {
	case CAPTURE_CLASS_A: return "A (torch_npu profiler)";
	case CAPTURE_CLASS_B: return "B (msprof)";
	case CAPTURE_LOOSE_FILES: return "loose files";
	}
	return "?";
}

const char *discover_rank_source_name(enum rank_source src)
{
	switch (src) {
	case RANK_FROM_INFO: return "profiler_info";
	case RANK_FROM_NAME: return "directory name";
	case RANK_FROM_DEVICE: return "device directory";
	case RANK_FROM_ORDER: return "order";
	}
	return "?";
}

static char *join(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	return xasprintf("%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
}

static const char *base_name(const char *path)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	const char *p = path + n;
	while (p > path && p[-1] != '/')
		p--;
	return p;
}

/* basename without trailing slashes, owned */
static char *base_dup(const char *path)
{
	const char *b = base_name(path);
	size_t n = strlen(b);
	while (n > 1 && b[n - 1] == '/')
		n--;
	return xstrndup(b, n);
}

static char *parent_dir(const char *path)
{
	char *p = xstrdup(path);
	size_t n = strlen(p);
	while (n > 1 && p[n - 1] == '/')
		p[--n] = '\0';
	char *slash = strrchr(p, '/');
	if (!slash) {
		free(p);
		return xstrdup(".");
	}
	if (slash == p)
		slash[1] = '\0';
	else
		*slash = '\0';
	return p;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int discover_rank_from_name(const char *name)
{
	/* the last "rank" followed by an optional '_' and digits */
	int found = -1;
	for (const char *p = name; (p = strstr(p, "rank")) != NULL; p += 4) {
		const char *d = p + 4;
		if (*d == '_' || *d == '-')
			d++;
		if (*d < '0' || *d > '9')
			continue;
		long v = 0;
		while (*d >= '0' && *d <= '9' && v < 1000000)
			v = v * 10 + (*d++ - '0');
		if (*d == '\0' || *d == '_' || *d == '-' || *d == '.')
			found = (int)v;
	}
	return found;
}

/* True (with a warning naming the path) when path resolves outside the capture's root:
 * some link on the way leads out of it. A path that does not resolve is left to the
 * caller's stat, which says why. */
static bool leaves_root(struct walk *w, const char *path)
{
	if (!w->root)
		return false;
	char *real = realpath(path, NULL);
	if (!real)
		return false;
	size_t n = strlen(w->root);
	bool inside = !strncmp(real, w->root, n) &&
		      (real[n] == '\0' || real[n] == '/' || (n == 1 && w->root[0] == '/'));
	free(real);
	if (!inside)
		diag_add(w->dl, DIAG_WARN, path, 0, -1,
			 _("a symbolic link leads outside the capture here; not followed (only files "
			 "under the opened directory are read)"));
	return !inside;
}

/* A directory inside the capture. */
static bool is_dir_inside(struct walk *w, const char *path)
{
	return is_dir(path) && !leaves_root(w, path);
}

static bool visited(struct walk *w, const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return true;
	for (size_t i = 0; i < w->nvisited; i++)
		if (w->vdev[i] == st.st_dev && w->vino[i] == st.st_ino) {
			if (!w->loop_warned) {
				char *clean = sanitize_dup(path, strlen(path));
				diag_add(w->dl, DIAG_WARN, clean, 0, -1,
					 _("directory seen before (a symlink loop?); not walked again"));
				free(clean);
				w->loop_warned = true;
			}
			return true;
		}
	if (w->nvisited < MAX_VISITED) {
		w->vdev[w->nvisited] = st.st_dev;
		w->vino[w->nvisited] = st.st_ino;
		w->nvisited++;
	}
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted entry names of a directory (no . and ..); NULL and a warning when unreadable. */
static char **list_dir(const char *path, size_t *n, struct diag_list *dl)
{
	DIR *d = opendir(path);
	*n = 0;
	if (!d) {
		diag_add(dl, DIAG_WARN, path, 0, -1, _("cannot read directory: %s; skipped"), strerror(errno));
		return NULL;
	}
	char **names = NULL;
	size_t cap = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		xgrow(&names, &cap, *n + 1, sizeof *names);
		names[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	xqsort(names, *n, sizeof *names, cmp_str);
	return names;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static bool has_entry(char **names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

static bool has_prof_dir(const char *dir, char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strncmp(names[i], "PROF_", 5)) {
			char *p = join(dir, names[i]);
			bool d = is_dir(p);
			free(p);
			if (d)
				return true;
		}
	return false;
}

static enum file_role role_for_name(const char *name, enum capture_class cls)
{
	if (!strcmp(name, "trace_view.json"))
		return ROLE_TRACE;
	if (!fnmatch("msprof_*.json", name, 0) && fnmatch("msprof_tx_*", name, 0))
		return ROLE_TRACE;
	if (!strcmp(name, "communication.json") || !strcmp(name, "cluster_communication.json"))
		return ROLE_COMM;
	if (!strcmp(name, "communication_matrix.json") || !strcmp(name, "cluster_communication_matrix.json"))
		return ROLE_COMM_MATRIX;
	if (!fnmatch("*.csv", name, 0))
		return ROLE_CSV;
	if (!fnmatch("*.db", name, 0))
		return ROLE_DB;
	if (!strcmp(name, "analyse.done"))
		return ROLE_DONE;
	(void)cls;
	return ROLE_OTHER;
}

static struct rank_plan *new_rank(struct walk *w)
{
	struct capture_plan *plan = w->plan;
	xgrow(&plan->ranks, &w->cap_ranks, plan->n_ranks + 1, sizeof *plan->ranks);
	struct rank_plan *rp = &plan->ranks[plan->n_ranks++];
	memset(rp, 0, sizeof *rp);
	rp->rank = -1;
	rp->device_id = -1;
	return rp;
}

static bool is_comm_role(enum file_role role) { return role == ROLE_COMM || role == ROLE_COMM_MATRIX; }

/* A communication file is a JSON object: its first byte after spaces is '{'. Cheap enough to
 * check here, so that a file of that name holding something else is named once, up front. */
static bool comm_content_ok(const char *path, struct diag_list *dl)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		diag_add(dl, DIAG_WARN, path, 0, -1, _("cannot open: %s; skipped"), strerror(errno));
		return false;
	}
	int c;
	long at = 0;
	while ((c = getc(f)) == ' ' || c == '\n' || c == '\r' || c == '\t')
		at++;
	fclose(f);
	if (c == '{')
		return true;
	diag_add(dl, DIAG_WARN, path, 0, at,
		 _("not communication data (a JSON object keyed by step or group was expected); skipped"));
	return false;
}

/* Appends a regular, non-empty file to files; false (and a warning) when it is not one, or
 * when check is set and it lies outside the capture. */
static bool push_file(struct walk *w, struct found_file **files, size_t *n, size_t *cap,
		      const char *path, enum file_role role, bool check)
{
	struct diag_list *dl = w->dl;
	if (check && leaves_root(w, path))
		return false;
	struct stat st;
	if (stat(path, &st) != 0) {
		diag_add(dl, DIAG_WARN, path, 0, -1, _("cannot stat: %s; skipped"), strerror(errno));
		return false;
	}
	if (!S_ISREG(st.st_mode)) {
		diag_add(dl, DIAG_WARN, path, 0, -1, _("is a %s, not a file; skipped"),
			 S_ISDIR(st.st_mode) ? "directory" : S_ISFIFO(st.st_mode) ? "FIFO" : "special file");
		return false;
	}
	if (st.st_size == 0 && role != ROLE_DONE) {
		diag_add(dl, DIAG_WARN, path, 0, -1, _("empty file (0 bytes); skipped"));
		w->empty++;
		return false;
	}
	if (is_comm_role(role) && !comm_content_ok(path, dl))
		return false;
	xgrow(files, cap, *n + 1, sizeof **files);
	(*files)[(*n)++] = (struct found_file){xstrdup(path), role, (uint64_t)st.st_size};
	return true;
}

static void add_file(struct walk *w, struct rank_plan *rp, size_t *cap, const char *path,
		     enum file_role role, bool check)
{
	push_file(w, &rp->files, &rp->n_files, cap, path, role, check);
}

/* The communication files of a directory (msprof's analyze/ or cluster_analysis_output/). */
static void collect_comm(struct walk *w, const char *dir, struct found_file **files, size_t *n, size_t *cap)
{
	size_t nn;
	char **names = list_dir(dir, &nn, w->dl);
	for (size_t i = 0; i < nn; i++) {
		enum file_role role = role_for_name(names[i], CAPTURE_CLASS_B);
		if (!is_comm_role(role))
			continue;
		char *p = join(dir, names[i]);
		push_file(w, files, n, cap, p, role, true);
		free(p);
	}
	free_names(names, nn);
}

/* CSV tables one output directory gives its rank at most: an export writes a few dozen,
 * sliced ones a few hundred; 100,000 two-line files took 1.1 GB (a table's fixed cost)
 * and a summary line each. The rest are named in one message, not read. */
#define DISCOVER_MAX_CSV 4096

/* Collects the exported files of one output directory into rp. */
static void collect_output(struct walk *w, struct rank_plan *rp, const char *out_dir)
{
	size_t n, cap = 0, n_csv = 0, csv_left = 0;
	char **names = list_dir(out_dir, &n, w->dl);
	bool have_trace_view = has_entry(names, n, "trace_view.json");
	for (size_t i = 0; i < n; i++) {
		enum file_role role = role_for_name(names[i], rp->cls);
		if (role == ROLE_OTHER)
			continue;
		if (role == ROLE_CSV && n_csv >= DISCOVER_MAX_CSV) {
			csv_left++;
			continue;
		}
		n_csv += role == ROLE_CSV;
		/* Class A exports may also hold msprof_*.json: trace_view.json is the full one */
		if (role == ROLE_TRACE && have_trace_view && strcmp(names[i], "trace_view.json") != 0)
			continue;
		char *p = join(out_dir, names[i]);
		if (role == ROLE_DONE)
			rp->export_done = true;
		else
			add_file(w, rp, &cap, p, role, true);
		free(p);
	}
	free_names(names, n);
	if (csv_left)
		diag_add(w->dl, DIAG_WARN, out_dir, 0, -1,
			 _("%zu more CSV files here are not read: a rank reads at most %d (an export writes a few "
			 "dozen); the first %d by name are"),
			 csv_left, DISCOVER_MAX_CSV, DISCOVER_MAX_CSV);
}

/* Reads the rank from profiler_info*.json in a worker directory. */
static void read_worker_info(struct walk *w, struct rank_plan *rp)
{
	if (!rp->worker_dir)
		return;
	size_t n;
	char **names = list_dir(rp->worker_dir, &n, w->dl);
	for (size_t i = 0; i < n; i++) {
		if (!rp->info.loaded && (!strcmp(names[i], "profiler_info.json") ||
					 !fnmatch("profiler_info_*.json", names[i], 0))) {
			char *p = join(rp->worker_dir, names[i]);
			if (!leaves_root(w, p)) {
				profinfo_free(&rp->info); /* what a broken one before it left (fuzz_discover) */
				profinfo_load(&rp->info, p, w->dl);
			}
			free(p);
		} else if (!strcmp(names[i], "profiler_metadata.json") && !rp->metadata_path) {
			char *p = join(rp->worker_dir, names[i]);
			struct stat st;
			if (leaves_root(w, p)) {
				free(p);
			} else if (stat(p, &st) == 0 && !S_ISREG(st.st_mode)) {
				/* a FIFO would block its reader; skipped, and said (it was silent) */
				diag_add(w->dl, DIAG_WARN, p, 0, -1, _("is a %s, not a file; skipped"),
					 S_ISDIR(st.st_mode) ? "directory" : S_ISFIFO(st.st_mode) ? "FIFO" : "special file");
				free(p);
			} else {
				rp->metadata_path = p;
				rp->par_groups = parallel_groups_load(p, &rp->n_par_groups, w->dl);
				rp->env = env_vars_load(p, &rp->n_env, &rp->has_env, NULL); /* its faults said once above */
			}
		}
	}
	free_names(names, n);
}

static bool dir_readable(const char *path)
{
	DIR *d = opendir(path);
	if (d)
		closedir(d);
	return d != NULL;
}

static void add_class_a(struct walk *w, const char *worker, const char *out_dir)
{
	struct rank_plan *rp = new_rank(w);
	rp->cls = CAPTURE_CLASS_A;
	rp->worker_dir = worker ? xstrdup(worker) : NULL;
	rp->output_dir = xstrdup(out_dir);
	rp->label = base_dup(worker ? worker : out_dir);
	collect_output(w, rp, out_dir);
	read_worker_info(w, rp);
	if (!rp->export_done && dir_readable(out_dir)) /* else its listing was named */
		diag_add(w->dl, DIAG_WARN, out_dir, 0, -1,
			 _("no analyse.done here: the export may be incomplete (interrupted analyse()?)"));
}

/* The id of a "device_<id>" directory name, or -1. */
static int device_dir_id(const char *name)
{
	if (strncmp(name, "device_", 7) != 0 || name[7] < '0' || name[7] > '9')
		return -1;
	char *end;
	long v = strtol(name + 7, &end, 10);
	return *end == '\0' && v < 100000 ? (int)v : -1;
}

/* A label for a PROF_* directory: msprof runs of different metric groups are often kept as
 * PROF_GROUP_x/PROF_<Metric>/PROF_000001_..., so the wrapper's name says which run it is. */
static char *prof_label(const char *prof_dir)
{
	char *base = base_dup(prof_dir);
	char *parent = parent_dir(prof_dir);
	char *pbase = base_dup(parent);
	free(parent);
	bool wrapper = !strncmp(pbase, "PROF_", 5) && !(pbase[5] >= '0' && pbase[5] <= '9');
	char *label = wrapper ? xasprintf("%s/%s", pbase, base) : xstrdup(base);
	free(base);
	free(pbase);
	return label;
}

static struct rank_plan *new_class_b_rank(struct walk *w, const char *prof_dir, const char *out_dir,
					  int device_id)
{
	struct rank_plan *rp = new_rank(w);
	rp->cls = CAPTURE_CLASS_B;
	rp->worker_dir = xstrdup(prof_dir);
	rp->output_dir = xstrdup(out_dir);
	rp->label = prof_label(prof_dir);
	rp->device_id = device_id;
	rp->export_done = true; /* Class B has no marker; its export writes these files last */
	return rp;
}

/* msprof_<timestamp>.db at the PROF_* directory's top (CANN 8.3 writes it after every run):
 * it joins the directory's one rank, or is a rank of its own when there is no text export. */
static bool add_prof_db(struct walk *w, const char *prof_dir, char **names, size_t n, size_t first_rank,
			bool found, int device)
{
	for (size_t i = 0; i < n; i++) {
		if (fnmatch("msprof_*.db", names[i], 0))
			continue;
		if (found && w->plan->n_ranks != first_rank + 1) {
			diag_add(w->dl, DIAG_WARN, prof_dir, 0, -1,
				 _("%s beside the exports of several devices: not read"), names[i]);
			continue;
		}
		if (!found) {
			new_class_b_rank(w, prof_dir, prof_dir, device);
			found = true;
		}
		struct rank_plan *rp = &w->plan->ranks[first_rank];
		size_t cap = rp->n_files;
		char *p = join(prof_dir, names[i]);
		add_file(w, rp, &cap, p, ROLE_DB, true);
		free(p);
	}
	return found;
}

/* Returns false when prof_dir holds no text export (a PROF_GROUP, or raw data only).
 * The export is mindstudio_profiler_output/; older CANN put the same files in each
 * device_<id>/summary/ and device_<id>/timeline/, one rank per device. */
static bool add_class_b(struct walk *w, const char *prof_dir)
{
	size_t n;
	char **names = list_dir(prof_dir, &n, w->dl);
	int one_device = -1, devices = 0;
	for (size_t i = 0; i < n; i++)
		if (device_dir_id(names[i]) >= 0) {
			one_device = device_dir_id(names[i]);
			devices++;
		}
	bool found = false;
	size_t first_rank = w->plan->n_ranks;
	char *out = join(prof_dir, "mindstudio_profiler_output");
	if (is_dir_inside(w, out)) {
		struct rank_plan *rp = new_class_b_rank(w, prof_dir, out, devices == 1 ? one_device : -1);
		collect_output(w, rp, out);
		found = true;
	} else {
		for (size_t i = 0; i < n; i++) {
			int dev = device_dir_id(names[i]);
			if (dev < 0)
				continue;
			char *ddir = join(prof_dir, names[i]);
			char *summary = join(ddir, "summary"), *timeline = join(ddir, "timeline");
			bool has_summary = is_dir_inside(w, summary), has_timeline = is_dir_inside(w, timeline);
			if (!leaves_root(w, ddir) && (has_summary || has_timeline)) {
				struct rank_plan *rp = new_class_b_rank(w, prof_dir, ddir, dev);
				if (devices > 1) {
					char *l = xasprintf("%s/%s", rp->label, names[i]);
					free(rp->label);
					rp->label = l;
				}
				if (has_summary)
					collect_output(w, rp, summary);
				if (has_timeline)
					collect_output(w, rp, timeline);
				diag_add(w->dl, DIAG_INFO, ddir, 0, -1,
					 _("no mindstudio_profiler_output/: read the legacy summary/ and timeline/ "
					 "of this device"));
				found = true;
			}
			free(summary);
			free(timeline);
			free(ddir);
		}
	}
	free(out);
	found = add_prof_db(w, prof_dir, names, n, first_rank, found, devices == 1 ? one_device : -1);
	free_names(names, n);
	/* msprof --analyze=on writes the communication files to analyze/, not beside the rest;
	 * they belong to the PROF_* directory's one rank (not to one of several devices) */
	char *analyze = join(prof_dir, "analyze");
	if (found && !is_dir_inside(w, analyze)) {
		/* nothing to read (absent, or outside the capture) */
	} else if (found && w->plan->n_ranks == first_rank + 1) {
		struct rank_plan *rp = &w->plan->ranks[first_rank];
		size_t cap = rp->n_files;
		collect_comm(w, analyze, &rp->files, &rp->n_files, &cap);
	} else if (found) {
		diag_add(w->dl, DIAG_WARN, analyze, 0, -1,
			 _("communication files of several devices in one directory: not read"));
	}
	free(analyze);
	return found;
}

/* cluster_analysis_output/: msprof-analyze's view of every rank at once. Its communication
 * files belong to the capture; its other files (cluster_step_trace_time.csv, ...) repeat
 * what the ranks' own exports hold and are not read. */
static void add_cluster_dir(struct walk *w, const char *dir)
{
	struct capture_plan *plan = w->plan;
	if (plan->cluster_dir) {
		diag_add(w->dl, DIAG_WARN, dir, 0, -1,
			 _("a second cluster_analysis_output (the first is %s); not read"), plan->cluster_dir);
		return;
	}
	size_t cap = 0;
	collect_comm(w, dir, &plan->cluster_files, &plan->n_cluster_files, &cap);
	if (plan->n_cluster_files)
		plan->cluster_dir = xstrdup(dir);
	else
		diag_add(w->dl, DIAG_INFO, dir, 0, -1, _("no cluster_communication*.json here; nothing read"));
}

static void raw_capture(struct walk *w, const char *dir)
{
	w->plan->raw_captures++;
	char *clean = sanitize_dup(dir, strlen(dir));
	diag_add(w->dl, DIAG_ERROR, clean, 0, -1,
		 _("raw capture (FRAMEWORK/ and PROF_* but no ASCEND_PROFILER_OUTPUT/): it was never "
		 "analysed. Run: python3 -c \"from torch_npu.profiler.profiler import analyse; "
		 "analyse('%s')\" and open it again"),
		 clean);
	free(clean);
}

/* Exported files by name: Class A's fixed names, Class B's timestamped ones. */
static enum capture_class export_file_class(const char *name, bool *found)
{
	static const char *class_a[] = {"trace_view.json", "kernel_details.csv", "operator_details.csv",
					"op_statistic.csv", "step_trace_time.csv"};
	static const char *class_b[] = {"msprof_*.json", "op_summary_*.csv", "op_statistic_*.csv",
					"step_trace_*.csv", "task_time_*.csv", "api_statistic_*.csv",
					"msprof_*.db"};
	if (!fnmatch("ascend_pytorch_profiler*.db", name, 0)) {
		*found = true;
		return CAPTURE_CLASS_A;
	}
	*found = true;
	for (size_t i = 0; i < sizeof class_a / sizeof class_a[0]; i++)
		if (!strcmp(name, class_a[i]))
			return CAPTURE_CLASS_A;
	for (size_t i = 0; i < sizeof class_b / sizeof class_b[0]; i++)
		if (!fnmatch(class_b[i], name, 0))
			return CAPTURE_CLASS_B;
	*found = false;
	return CAPTURE_LOOSE_FILES;
}

static void add_output_dir(struct walk *w, const char *worker, const char *out_dir,
			   enum capture_class cls)
{
	if (cls == CAPTURE_CLASS_A) {
		add_class_a(w, worker, out_dir);
		return;
	}
	struct rank_plan *rp = new_rank(w);
	rp->cls = cls;
	rp->worker_dir = worker ? xstrdup(worker) : NULL;
	rp->output_dir = xstrdup(out_dir);
	rp->label = base_dup(worker ? worker : out_dir);
	rp->export_done = true;
	collect_output(w, rp, out_dir);
}

/* MS Service Profiler output (serving.h): the first one found is the capture's. A raw one
 * (never parsed) is named with the command that parses it. */
static bool add_serving(struct walk *w, const char *path)
{
	enum serving_gen g = serving_probe(path);
	if (g == SERVING_NONE)
		return false;
	if (g == SERVING_RAW) {
		diag_add(w->dl, DIAG_ERROR, path, 0, -1,
			 _("raw MS Service Profiler data (ms_service_*.db), never parsed: run msserviceprofiler "
			   "parse --input-path %s --output-path OUT, then open OUT"),
			 path);
		return true;
	}
	if (w->plan->serving_path) {
		diag_add(w->dl, DIAG_WARN, path, 0, -1, _("a second serving output (the first is %s); not read"),
			 w->plan->serving_path);
		return true;
	}
	w->plan->serving_path = xstrdup(path);
	w->plan->serving_gen = g;
	return true;
}

static void walk_dir(struct walk *w, const char *dir, int depth)
{
	if (depth > MAX_DEPTH || visited(w, dir))
		return;
	char *base = base_dup(dir);
	if (!strcmp(base, "ASCEND_PROFILER_OUTPUT")) {
		char *parent = parent_dir(dir);
		add_class_a(w, parent, dir);
		free(parent);
		free(base);
		return;
	}
	size_t n;
	char **names = list_dir(dir, &n, w->dl);
	if (has_entry(names, n, "ASCEND_PROFILER_OUTPUT")) {
		char *out = join(dir, "ASCEND_PROFILER_OUTPUT");
		if (is_dir_inside(w, out))
			add_class_a(w, dir, out);
		free(out);
		goto done;
	}
	bool worker_name = !fnmatch("*_ascend_pt", base, 0) || !fnmatch("*_ascend_ms", base, 0);
	if (has_entry(names, n, "FRAMEWORK") || (worker_name && has_prof_dir(dir, names, n))) {
		/* never analysed by torch_npu; msprof may still have exported its PROF_* */
		bool exported = false;
		for (size_t i = 0; i < n; i++)
			if (!strncmp(names[i], "PROF_", 5)) {
				char *p = join(dir, names[i]);
				exported |= is_dir_inside(w, p) && add_class_b(w, p);
				free(p);
			}
		if (exported)
			diag_add(w->dl, DIAG_WARN, dir, 0, -1,
				 _("no ASCEND_PROFILER_OUTPUT/ (torch_npu's analyse() was not run): read msprof's "
				 "export in PROF_* instead; framework (Python) events are missing"));
		else
			raw_capture(w, dir);
		goto done;
	}
	if (!strncmp(base, "PROF_", 5) && add_class_b(w, dir))
		goto done;
	if (!strcmp(base, "cluster_analysis_output")) {
		add_cluster_dir(w, dir);
		goto done;
	}
	if (!strcmp(base, "mindstudio_profiler_output")) {
		char *parent = parent_dir(dir);
		add_output_dir(w, parent, dir, CAPTURE_CLASS_B);
		free(parent);
		goto done;
	}
	/* a serving output; the ranks of the same run may lie beside it, in subdirectories */
	add_serving(w, dir);
	for (size_t i = 0; i < n; i++) {
		bool found;
		enum capture_class cls = export_file_class(names[i], &found);
		if (found) {
			add_output_dir(w, NULL, dir, cls);
			goto done;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (names[i][0] == '.')
			continue;
		char *p = join(dir, names[i]);
		if (is_dir_inside(w, p))
			walk_dir(w, p, depth + 1);
		free(p);
	}
done:
	free_names(names, n);
	free(base);
}

static void single_file(struct walk *w, const char *path)
{
	if (add_serving(w, path))
		return;
	struct rank_plan *rp = new_rank(w);
	rp->cls = CAPTURE_LOOSE_FILES;
	char *dir = parent_dir(path);
	rp->output_dir = dir;
	rp->label = base_dup(path);
	rp->export_done = true;
	size_t cap = 0;
	enum file_role role = role_for_name(base_name(path), CAPTURE_LOOSE_FILES);
	if (role == ROLE_OTHER) {
		/* an unknown name: guess from the extension, then the content decides */
		const char *dot = strrchr(path, '.');
		role = dot && !strcmp(dot, ".csv") ? ROLE_CSV : ROLE_TRACE;
	}
	add_file(w, rp, &cap, path, role, false); /* the file the user named, wherever it is */
	/* a file inside ASCEND_PROFILER_OUTPUT: its worker's profiler_info names the rank */
	if (!strcmp(base_name(dir), "ASCEND_PROFILER_OUTPUT")) {
		rp->worker_dir = parent_dir(dir);
		free(w->root);
		w->root = realpath(rp->worker_dir, NULL);
		read_worker_info(w, rp);
	}
}

static int cmp_rank(const void *pa, const void *pb)
{
	const struct rank_plan *a = pa, *b = pb;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return strcmp(a->label, b->label);
}

static void assign_ranks(struct walk *w)
{
	struct capture_plan *plan = w->plan;
	/* sort by label first so that "order" is the order of names */
	for (size_t i = 0; i < plan->n_ranks; i++)
		plan->ranks[i].rank = -1;
	xqsort(plan->ranks, plan->n_ranks, sizeof *plan->ranks, cmp_rank);
	int next = 0;
	for (size_t i = 0; i < plan->n_ranks; i++) {
		struct rank_plan *rp = &plan->ranks[i];
		int from_name = discover_rank_from_name(rp->label);
		if (rp->info.loaded && rp->info.has_rank) {
			rp->rank = rp->info.rank;
			rp->rank_source = RANK_FROM_INFO;
		} else if (from_name >= 0) {
			rp->rank = from_name;
			rp->rank_source = RANK_FROM_NAME;
		} else if (rp->device_id >= 0) {
			rp->rank = rp->device_id;
			rp->rank_source = RANK_FROM_DEVICE;
		} else {
			rp->rank = -1;
			rp->rank_source = RANK_FROM_ORDER;
		}
	}
	/* ranks by order take numbers not claimed by the others */
	for (size_t i = 0; i < plan->n_ranks; i++) {
		struct rank_plan *rp = &plan->ranks[i];
		if (rp->rank >= 0)
			continue;
		for (;;) {
			bool taken = false;
			for (size_t j = 0; j < plan->n_ranks; j++)
				taken |= plan->ranks[j].rank == next;
			if (!taken)
				break;
			next++;
		}
		rp->rank = next++;
	}
	xqsort(plan->ranks, plan->n_ranks, sizeof *plan->ranks, cmp_rank);
	for (size_t i = 1; i < plan->n_ranks; i++)
		if (plan->ranks[i].rank == plan->ranks[i - 1].rank)
			diag_add(w->dl, DIAG_WARN, NULL, 0, -1,
				 _("two captures claim rank %d (%s and %s); both are kept"),
				 plan->ranks[i].rank, plan->ranks[i - 1].label, plan->ranks[i].label);
}

/* When a rank's collection ended: profiler_info's collectionTimeEnd, else the stamp in a
 * torch_npu worker name (<host>_<pid>_<YYYYMMDDhhmmssmmm>_ascend_pt, local time; its start,
 * close enough for runs an hour apart); 0 when neither says. */
static int64_t rank_time_ns(const struct rank_plan *rp)
{
	if (rp->info.loaded && rp->info.collection_end_ns > 0)
		return rp->info.collection_end_ns;
	const char *l = rp->label, *end = l ? strstr(l, "_ascend_pt") : NULL;
	if (!end || end - l < 18 || end[-18] != '_')
		return 0;
	struct tm tm = {0};
	int ms;
	if (sscanf(end - 17, "%4d%2d%2d%2d%2d%2d%3d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
		   &tm.tm_min, &tm.tm_sec, &ms) != 7)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	time_t t = timegm(&tm);
	return t > 0 ? (int64_t)t * 1000000000 + (int64_t)ms * 1000000 : 0;
}

struct run_key {
	int64_t t;
	size_t rank; /* index into plan->ranks */
};

static int cmp_run_key(const void *a, const void *b)
{
	const struct run_key *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t ? 1 : x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Separate runs: the ranks' times (rank_time_ns) in groups split where two are more than
 * DISCOVER_RUN_GAP_NS apart. A folder of unrelated captures would otherwise be analysed as
 * one job (its ranks aligned, compared and waited for as peers). */
static void find_runs(struct capture_plan *plan, struct diag_list *dl)
{
	plan->n_runs = plan->n_ranks ? 1 : 0;
	struct run_key *k = xcalloc(plan->n_ranks + 1, sizeof *k);
	size_t n = 0;
	for (size_t i = 0; i < plan->n_ranks; i++) {
		int64_t t = rank_time_ns(&plan->ranks[i]);
		if (t > 0)
			k[n++] = (struct run_key){t, i};
	}
	xqsort(k, n, sizeof *k, cmp_run_key);
	size_t runs = n ? 1 : 0;
	for (size_t i = 1; i < n; i++)
		runs += k[i].t - k[i - 1].t > DISCOVER_RUN_GAP_NS;
	if (runs < 2) {
		free(k);
		return;
	}
	plan->n_runs = runs;
	struct sbuf sb = SBUF_INIT;
	sbuf_addf(&sb, _("%zu separate profiling runs here, their collections ended %.1f hours apart in all: "), runs,
		  (double)(k[n - 1].t - k[0].t) / 3.6e12);
	for (size_t i = 0, run = 0; i < n; i++) {
		bool first = !i || k[i].t - k[i - 1].t > DISCOVER_RUN_GAP_NS;
		if (first)
			sbuf_addf(&sb, "%s%s ", run++ ? "; " : "", _("run"));
		else
			sbuf_adds(&sb, ", ");
		const struct rank_plan *rp = &plan->ranks[k[i].rank];
		sbuf_addf(&sb, _("rank %d (%s)"), rp->rank, rp->worker_dir ? rp->worker_dir : rp->output_dir);
	}
	if (n < plan->n_ranks)
		sbuf_addf(&sb, _("; %zu rank(s) without a time"), plan->n_ranks - n);
	sbuf_adds(&sb, _(". They are analysed side by side as if one job (aligned, compared, waiting for each "
			 "other), which they are not: open each run's folder on its own"));
	plan->runs_note = sbuf_detach(&sb);
	diag_add(dl, DIAG_WARN, NULL, 0, -1, "%s", plan->runs_note);
	free(k);
}

int discover(const char *path, struct capture_plan *plan, struct diag_list *dl)
{
	memset(plan, 0, sizeof *plan);
	plan->path = xstrdup(path);
	struct walk *w = xcalloc(1, sizeof *w);
	w->plan = plan;
	w->dl = dl;
	struct stat st;
	int rc = -1;
	if (stat(path, &st) != 0) {
		diag_add(dl, DIAG_ERROR, path, 0, -1, _("cannot open: %s"), strerror(errno));
		goto out;
	}
	if (S_ISREG(st.st_mode)) {
		single_file(w, path);
	} else if (S_ISDIR(st.st_mode)) {
		/* an output directory opened on its own belongs to its worker (profiler_info) */
		char *base = base_dup(path);
		bool output = !strcmp(base, "ASCEND_PROFILER_OUTPUT") || !strcmp(base, "mindstudio_profiler_output");
		char *top = output ? parent_dir(path) : xstrdup(path);
		w->root = realpath(top, NULL);
		free(top);
		free(base);
		walk_dir(w, path, 0);
	} else {
		diag_add(dl, DIAG_ERROR, path, 0, -1, _("neither a file nor a directory"));
		goto out;
	}
	assign_ranks(w);
	find_runs(plan, dl);
	size_t with_files = plan->n_cluster_files > 0 || plan->serving_path;
	for (size_t i = 0; i < plan->n_ranks; i++)
		with_files += plan->ranks[i].n_files > 0;
	if (with_files > 0) {
		rc = 0;
	} else if (!plan->raw_captures && w->empty) {
		diag_add(dl, DIAG_ERROR, path, 0, -1,
			 _("nothing to read here: the %zu profiling file(s) found are all empty (0 bytes; an export "
			   "that was interrupted or copied without its contents)"),
			 w->empty);
	} else if (!plan->raw_captures && !diag_count(dl, DIAG_ERROR)) {
		diag_add(dl, DIAG_ERROR, path, 0, -1,
			 _("no profiling data found here (looked for *_ascend_pt/ASCEND_PROFILER_OUTPUT, "
			 "trace_view.json, kernel_details.csv, PROF_*/mindstudio_profiler_output)"));
	}
out:
	free(w->root);
	free(w);
	return rc;
}

void discover_free(struct capture_plan *plan)
{
	if (!plan)
		return;
	for (size_t i = 0; i < plan->n_ranks; i++) {
		struct rank_plan *rp = &plan->ranks[i];
		for (size_t k = 0; k < rp->n_files; k++)
			free(rp->files[k].path);
		free(rp->files);
		free(rp->label);
		free(rp->worker_dir);
		free(rp->output_dir);
		free(rp->metadata_path);
		parallel_groups_free(rp->par_groups, rp->n_par_groups);
		env_vars_free(rp->env, rp->n_env);
		profinfo_free(&rp->info);
	}
	for (size_t k = 0; k < plan->n_cluster_files; k++)
		free(plan->cluster_files[k].path);
	free(plan->serving_path);
	free(plan->cluster_files);
	free(plan->cluster_dir);
	free(plan->runs_note);
	free(plan->ranks);
	free(plan->path);
	memset(plan, 0, sizeof *plan);
}

const struct found_file *discover_find(const struct rank_plan *rp, enum file_role role)
{
	for (size_t i = 0; i < rp->n_files; i++)
		if (rp->files[i].role == role)
			return &rp->files[i];
	return NULL;
}

bool discover_parallel_coords(const char *label, int coord[PAR_COUNT])
{
	bool seen[PAR_COUNT] = {false};
	const char *p = label ? strrchr(label, '/') : NULL;
	p = p ? p + 1 : label;
	while (p && *p && strncmp(p, "rank", 4)) {
		size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz");
		int d = -1;
		for (int k = 0; k < PAR_COUNT; k++)
			if (strlen(parallel_dim_name((enum parallel_dim)k)) == n && !strncmp(p, parallel_dim_name((enum parallel_dim)k), n))
				d = k;
		if (d < 0 || seen[d] || p[n] < '0' || p[n] > '9')
			return false;
		char *end;
		long v = strtol(p + n, &end, 10);
		if (*end != '_' || v > 1 << 20)
			return false;
		seen[d] = true;
		coord[d] = (int)v;
		p = end + 1;
	}
	for (int k = 0; k < PAR_COUNT; k++)
		if (!seen[k])
			return false;
	return p && !strncmp(p, "rank", 4);
}

long discover_slice_number(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *p = strstr(base, "_slice_");
	if (!p)
		return -1;
	char *end;
	long n = strtol(p + 7, &end, 10);
	return end > p + 7 && n >= 0 ? n : -1;
}
