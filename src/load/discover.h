/* SPDX-License-Identifier: MIT */
/* Discovery: from the path a user typed to a plan of ranks and files.
 *
 * The path may be a torch_profiler_dir holding several `*_ascend_pt` (or `_ascend_ms`)
 * worker directories, one worker, its ASCEND_PROFILER_OUTPUT, a PROF_* directory (Class
 * B, msprof), or a single file. Ranks come from profiler_info*.json, else from the name
 * (`rank<N>`), else from the order of the names. Communication files are Class A's
 * communication*.json beside the trace, Class B's PROF_x/analyze/communication*.json, and
 * a cluster_analysis_output/cluster_communication*.json for the whole capture. Nothing is
 * read beyond directory listings, the small profiler_info files and the first bytes of
 * communication files; nothing is ever written. */
#ifndef ASCPROF_DISCOVER_H
#define ASCPROF_DISCOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "profinfo.h"

enum capture_class { CAPTURE_CLASS_A, CAPTURE_CLASS_B, CAPTURE_LOOSE_FILES };

enum file_role {
	ROLE_TRACE,       /* trace_view.json, msprof_*.json */
	ROLE_CSV,
	ROLE_COMM,        /* communication.json, cluster_communication.json */
	ROLE_COMM_MATRIX, /* communication_matrix.json, cluster_communication_matrix.json */
	ROLE_DB,          /* *.db: read when it is the rank's source (capture.h, db.h) */
	ROLE_DONE,        /* analyse.done */
	ROLE_OTHER,
};

enum rank_source { RANK_FROM_INFO, RANK_FROM_NAME, RANK_FROM_DEVICE, RANK_FROM_ORDER };

struct found_file {
	char *path; /* owned */
	enum file_role role;
	uint64_t size;
};

struct rank_plan {
	int rank;
	enum rank_source rank_source;
	enum capture_class cls;
	char *label;      /* owned: the worker directory's name, or the output dir's */
	char *worker_dir; /* owned; NULL for a bare output directory or a single file */
	char *output_dir; /* owned; where the exported files are */
	struct found_file *files; /* owned */
	size_t n_files;
	bool export_done;       /* analyse.done was found */
	struct profinfo info;   /* loaded when a profiler_info file exists */
	char *metadata_path;    /* owned; profiler_metadata.json or NULL */
	struct parallel_group_info *par_groups; /* owned: its parallel_group_info's tp, dp, pp, ep, dcp */
	size_t n_par_groups;
	struct env_var *env; /* owned: profiler_metadata.json's ENV_VARIABLES */
	size_t n_env;
	bool has_env;        /* that object was there */
	int device_id;          /* Class B: from the PROF_*'s one device_<id>/ directory, else -1 */
};

/* A directory name's coordinates: true when it names every dimension (dp, pp, tp, dcp and
 * ep, each once, before rank<N>), filling coord[PAR_COUNT]. */
bool discover_parallel_coords(const char *label, int coord[PAR_COUNT]);

/* Ranks of one job end their collection within seconds of each other; runs of the same
 * script an hour apart are other jobs. */
#define DISCOVER_RUN_GAP_NS (600 * (int64_t)1000000000)

struct capture_plan {
	char *path; /* owned: as given */
	struct rank_plan *ranks; /* owned */
	size_t n_ranks;
	size_t raw_captures; /* workers that were never exported (analyse() not run) */
	/* msprof-analyze's cluster_analysis_output: communication files about every rank at
	 * once, attached to the capture rather than to a rank (only the first such directory) */
	/* Separate profiling runs in one folder (their ranks' collections ended more than
	 * DISCOVER_RUN_GAP_NS apart): more than 1 when the ranks are no one job. */
	size_t n_runs;
	char *runs_note; /* owned; what the runs are, NULL with one run */
	char *cluster_dir;         /* owned; NULL when none */
	/* MS Service Profiler output (serving.h): a directory, or chrome_tracing.json named
	 * alone; owned, NULL when none. The ranks of the same run may lie beside it. */
	char *serving_path;
	int serving_gen; /* enum serving_gen */
	struct found_file *cluster_files; /* owned */
	size_t n_cluster_files;
};

/* Fills plan. Returns 0 when at least one rank has files to load; -1 otherwise, with
 * an error diagnostic that says what was found and what to do. */
int discover(const char *path, struct capture_plan *plan, struct diag_list *dl);
void discover_free(struct capture_plan *plan);
const char *discover_role_name(enum file_role role); /* static */
const char *discover_class_name(enum capture_class cls); /* static */
const char *discover_rank_source_name(enum rank_source src); /* static */
/* The plan's file with this role (the first; borrowed from rp), or NULL. */
const struct found_file *discover_find(const struct rank_plan *rp, enum file_role role);
/* The rank number in a worker name ("..._rank3_2026..._ascend_pt", "rank_3_ascend_pt"),
 * or -1. */
int discover_rank_from_name(const char *name);
/* The slice number of msprof_slice_<n>_<ts>.json (or a CSV's _slice_<n>), or -1 for a
 * file that is not a slice. */
long discover_slice_number(const char *path);

#endif
