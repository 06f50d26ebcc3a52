/* SPDX-License-Identifier: MIT */
/* Communication files into plain records: communication.json and communication_matrix.json
 * (torch_npu's ASCEND_PROFILER_OUTPUT, msprof's PROF_x/analyze) and msprof-analyze's
 * cluster_communication*.json.
 *
 * Layouts, told apart by content (the file name is only a hint):
 *   per rank  {"stepN": {"p2p"|"collective": {"<op>@<group>": ENTRY | LINKS}}}
 *   cluster   {"<group ranks>"|"p2p": {"stepN": {"<op>@<group>": {"<rank>": ENTRY} | LINKS}}}
 * ENTRY is {"Communication Time Info": {times}, "Communication Bandwidth Info":
 * {"<transport>": {"Transit Size(MB)", "Transit Time(ms)", "Bandwidth(GB/s)", "Large Packet
 * Ratio", "Size Distribution": {"<MB>": [count, ms] or count}}}}; LINKS is {"<src>-<dst>":
 * {"Transport Type", "Transit Size(MB)", "Transit Time(ms)", "Bandwidth(GB/s)", "Op Name"}}.
 *
 * Units: every time becomes int64 ns, converted exactly from the decimal text (a "(ms)" key
 * is scaled by 10^6, "(us)" by 10^3; digits below 1 ns are rounded). Sizes stay MB and
 * bandwidths GB/s, as the exporter wrote them (doubles): recent exporters count 10^6 bytes
 * per MB, older ones 2^20. The upper levels are walked with json_scan (strings and nesting
 * only) and each entry is tokenised alone with jsmn, so memory follows the largest entry,
 * not the file. A damaged entry is skipped and named with its byte offset; the rest is kept.
 * Another reader (a Db's tables) builds the same records without text (comm_json_build_*). */
#ifndef ASCPROF_COMM_JSON_H
#define ASCPROF_COMM_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "sbuf.h"
#include "strtab.h"

/* Transports as the files name them. SDMA is the sum of HCCS, PCIE and SIO (msprof's
 * communication parser): it is never added to them again. */
enum comm_transport {
	COMM_TR_RDMA,  /* also RoCE */
	COMM_TR_HCCS,  /* also HCCS_SW */
	COMM_TR_PCIE,
	COMM_TR_SIO,
	COMM_TR_UB,    /* also UBoE */
	COMM_TR_SDMA,
	COMM_TR_LOCAL, /* a rank's copy to itself (also ON_CHIP) */
	COMM_TR_OTHER,
	COMM_TR_COUNT
};
const char *comm_transport_name(enum comm_transport t); /* static */
enum comm_transport comm_transport_parse(const char *s, size_t len);

enum comm_kind { COMM_KIND_P2P, COMM_KIND_COLLECTIVE, COMM_KIND_OTHER };
const char *comm_kind_name(enum comm_kind k); /* static */

/* What an "<op>@<group>" key stands for. */
enum comm_entry {
	COMM_ENTRY_OP,         /* one operation: hcom_allReduce__586_0_1 */
	COMM_ENTRY_SAMPLE,     /* the matrix's picks of one op type: allreduce-top1, -middle, -bottom2 */
	COMM_ENTRY_TYPE_TOTAL, /* the matrix's sum over one op type: allreduce-total */
	COMM_ENTRY_TOTAL,      /* the exporter's own "Total Op Info" */
};
enum comm_entry comm_entry_of(const char *name, size_t len);

enum comm_time { COMM_T_ELAPSE, COMM_T_TRANSIT, COMM_T_WAIT, COMM_T_SYNC, COMM_T_IDLE, COMM_T_COUNT };

struct comm_bin { /* one "Size Distribution" entry */
	double size_mb;
	double count;
	int64_t time_ns; /* -1: older files give counts only */
};

struct comm_bw { /* one transport of one entry */
	double size_mb;     /* NAN when absent */
	double bw_gbps;     /* as written; NAN when absent */
	double large_ratio; /* as written; NAN when absent */
	int64_t time_ns;    /* -1 when absent */
	uint32_t bin0, n_bins; /* into comm_data.bins */
	uint8_t transport;     /* enum comm_transport */
};

struct comm_op { /* one entry of a communication.json */
	int64_t t[COMM_T_COUNT]; /* ns; valid where has & (1 << i) */
	int64_t start_ns;        /* Start Timestamp on the rank's clock; valid with has_start */
	int64_t off;             /* the entry's JSON value in its file */
	double wait_ratio, sync_ratio; /* as the file states them; NAN when absent */
	uint32_t len;
	uint32_t step, name, group, members; /* strtab ids; members: a cluster file's group key */
	uint32_t bw0, n_bw;      /* into comm_data.bws */
	int32_t rank;            /* the rank described: the file's owner or a cluster file's key; -1 */
	uint16_t file;
	uint8_t kind, entry, has; /* enum comm_kind, enum comm_entry, bits of enum comm_time */
	bool has_start;
};

struct comm_link { /* one "<src>-<dst>" of a communication_matrix.json */
	double size_mb, bw_gbps; /* NAN when absent */
	int64_t time_ns;         /* -1 when absent */
	int64_t off;
	uint32_t len;
	uint32_t step, name, group, members, op_name; /* op_name: "Op Name", 0 when absent */
	int32_t src, dst;        /* ranks as the key gives them (local to the group in recent files) */
	int32_t rank;            /* the file's owner; -1 for cluster files */
	uint16_t file;
	uint8_t kind, entry, transport;
};

struct comm_file {
	char *path;       /* owned */
	int owner_rank;   /* -1 for cluster files */
	bool matrix;      /* holds links (from content) */
	bool cluster;     /* the group -> step -> op layout */
	size_t n_steps, n_ops, n_links;
	size_t skipped;   /* entries or values not kept; each named in the diagnostics */
	/* owned: the file's text when it is no file on disk (a Db's tables as the text export
	 * writes them, db_comm.c); drill-down reads the entries here */
	char *text;
	size_t text_len;
};

struct comm_data {
	struct strtab *strs; /* owned; NULL until something is loaded */
	struct comm_file *files; /* owned, like the arrays below */
	size_t n_files;
	struct comm_op *ops;     /* owned */
	size_t n_ops;
	struct comm_bw *bws;     /* owned */
	size_t n_bws;
	struct comm_bin *bins;   /* owned */
	size_t n_bins;
	struct comm_link *links; /* owned */
	size_t n_links;
	size_t cap_files, cap_ops, cap_bws, cap_bins, cap_links;
};

void comm_data_free(struct comm_data *cd);
static inline const char *comm_str(const struct comm_data *cd, uint32_t id)
{
	return cd->strs ? strtab_str(cd->strs, id) : "";
}

/* Reads one file into cd. owner_rank is the rank whose export holds it (-1 for cluster
 * files). Returns 0 when it held communication data (possibly with skipped parts, each
 * named in dl), -1 when nothing could be read. */
int comm_json_load(struct comm_data *cd, const char *path, int owner_rank, struct diag_list *dl);
/* The same over bytes in memory (tests, fuzzing); `name` labels the diagnostics. */
int comm_json_load_buffer(struct comm_data *cd, const char *name, const char *buf, size_t len,
			  int owner_rank, struct diag_list *dl);
/* Records made by a reader of another form (a Db's communication tables, db_comm.c): the
 * records a communication file of the same content gives, without text to parse. Entries
 * come in the file's order, each with the offset of its text in the file's text, which
 * the reader writes beside them for drill-down and hands over at the end; messages go to
 * dl as the file's reader words them (values that are no number are the caller's to name
 * through comm_json_build_problem). One file at a time per comm_data. */
struct comm_json_build;
/* NULL, named, when cd holds as many files as it can. */
struct comm_json_build *comm_json_build_begin(struct comm_data *cd, const char *name, int owner_rank,
					      struct diag_list *dl);
/* A problem at byte off of the file's text (listed up to a limit, then counted); skipped:
 * what it names is not kept. */
void comm_json_build_problem(struct comm_json_build *b, int64_t off, bool skipped, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* How a step of a per-rank file is read, from the first kind below it: as the rank's step
 * holding kinds, as a cluster file's group holding steps (the kinds), or skipped (named). */
enum comm_step_as { COMM_STEP_RANK, COMM_STEP_GROUPS, COMM_STEP_SKIP };
enum comm_step_as comm_json_build_step(struct comm_json_build *b, const char *step, const char *first_kind,
				       int64_t step_off);
/* The entry "<op>@<group>" (key) that the next op or links belong to: under kind (its key
 * at kind_off) of step in a per-rank file (members NULL), or under step of group members
 * in a cluster file (kind unused). */
void comm_json_build_entry(struct comm_json_build *b, const char *members, const char *step, const char *kind,
			   int64_t kind_off, const char *key);
/* An op of the entry whose figures' text starts at off: the file owner's (rank_key NULL)
 * or the rank named by rank_key (at key_off; NULL, named, when it names none). The caller
 * sets its times and ratios; transports follow; comm_json_build_op_end ends it. */
struct comm_op *comm_json_build_op(struct comm_json_build *b, const char *rank_key, int64_t key_off,
				   int64_t off);
/* A transport of the op (its key at key_off): the caller sets its figures; its bins follow. */
struct comm_bw *comm_json_build_transport(struct comm_json_build *b, const char *name, int64_t key_off);
void comm_json_build_bin(struct comm_json_build *b, const struct comm_bin *bin);
/* len: the length of the op's text. */
void comm_json_build_op_end(struct comm_json_build *b, uint32_t len);
/* A link "<src>-<dst>" (key at key_off, its text from off) of the entry; NULL, named, when
 * key is none. Its transport type (as written, at off) and figures follow, then its end. */
struct comm_link *comm_json_build_link(struct comm_json_build *b, const char *key, int64_t key_off,
				       int64_t off);
void comm_json_build_link_type(struct comm_json_build *b, const char *type, size_t len, int64_t off);
void comm_json_build_link_end(struct comm_json_build *b, uint32_t len, const char *op_name);
/* The file complete: repeats dropped (as a file's reader drops them), counts set; it keeps
 * text (owned) for drill-down. Frees b; 0. */
int comm_json_build_end(struct comm_json_build *b, char *text, size_t len);

/* The raw JSON text of an entry of file path of cd, for drill-down (at most max_bytes; a
 * note says what was left out): from the text cd keeps for it (comm_json_build_end), else
 * read again from the file (cd may be NULL). Returns 0, or -1 with a message in out. */
int comm_json_entry_text(const struct comm_data *cd, const char *path, int64_t off, uint32_t len,
			 size_t max_bytes, struct sbuf *out);
/* The same, one "key: value" line per value, nested objects indented by two spaces; values
 * are the file's text as written (arrays of numbers stay on one line). */
int comm_json_entry_lines(const struct comm_data *cd, const char *path, int64_t off, uint32_t len,
			  size_t max_bytes, struct sbuf *out);
/* The op type in an op name: "allReduce" in "hcom_allReduce__586_0_1", "allreduce" in
 * "allreduce-top1"; the whole name when it follows neither pattern. */
void comm_op_type(const char *name, size_t len, size_t *type_start, size_t *type_len);

#endif
