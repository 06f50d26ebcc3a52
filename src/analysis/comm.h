/* SPDX-License-Identifier: MIT */
/* The communication analysis: what communication*.json says about every group and op,
 * every transport and every link of a capture.
 *
 * Definitions (metrics-definitions.zh.md defines no communication ratios; these are the
 * exporter's own, from msprof's HcclAnalysisTool.update_time_ratio and msprof-analyze's
 * compute_time_ratio, applied to summed times):
 *   wait ratio  = wait / (wait + transit)
 *   sync ratio  = synchronization / (synchronization + transit)
 *   bandwidth   = transit size / transit time (MB / ms = GB/s)
 * Synchronization is the wait before the first transfer (peers arriving late); idle is
 * elapse minus transit and wait. Sizes add over transports except SDMA, which the exporter
 * fills with the sum of HCCS, PCIE and SIO (it counts only when those three are empty).
 * Links are the matrix's "<src>-<dst>" entries summed over steps and ops, leaving out the
 * matrix's per-type picks (-top1, -middle, -bottomN) and the exporter's "Total Op Info". */
#ifndef ASCPROF_COMM_H
#define ASCPROF_COMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "comm_json.h"
#include "i18n.h"

/* Packets below this are latency bound: 1 MB at the 18 GB/s HCCS reference takes about
 * 56 us, under the 60 us that metrics-definitions.zh.md calls latency bound. */
#define COMM_SMALL_PACKET_MB 1.0
/* A link is slow below this fraction of the median of its group and transport ... */
#define COMM_SLOW_LINK_FACTOR 0.5
/* ... among at least this many links of 1 MB or more (COMM_SMALL_PACKET_MB: below, a link's
 * bandwidth measures its latency; and a median of two says little). */
#define COMM_SLOW_LINK_MIN 3

/* Reference figures, the one table (sources and assumptions in the man page, INPUT FILES). */
struct comm_ref {
	double gbps;     /* nominal bandwidth of one link, GB/s; 0 when there is no single figure */
	double large_mb; /* msprof's large-packet threshold, MB; 0 when it defines none */
	const char *basis; /* static */
};
extern const struct comm_ref comm_refs[COMM_TR_COUNT];

/* One op or link of a comm_data, for drill-down. */
struct comm_item {
	const struct comm_data *cd; /* borrowed from the capture */
	uint32_t index;             /* into cd->ops, or cd->links when link */
	bool link;
};

/* A transport's traffic over some entries. */
struct comm_tstat {
	double size_mb;
	int64_t time_ns;
	double bw_gbps;   /* size / time; NAN without time */
	double util;      /* bw / reference; NAN without a reference figure */
	double packets, small_packets, large_packets; /* from Size Distribution counts */
	size_t entries;   /* entries with traffic on it */
	size_t item0, n_items; /* the entries, into comm_analysis.items */
};

/* One (group, kind, op type) summed over steps and ranks. */
struct comm_opagg {
	/* borrowed from comm_analysis strs: the communication-domain hash (or a cluster
	 * file's rank list) */
	const char *group;
	const char *type;   /* borrowed from comm_analysis strs: "allReduce" */
	uint8_t kind;       /* enum comm_kind */
	size_t count;       /* entries: one per op, rank and step */
	size_t n_ranks, n_steps;
	int64_t t[COMM_T_COUNT];
	double size_mb;     /* over the transports that count (SDMA rule above) */
	int64_t bw_time_ns;
	double packets, small_packets;
	double wait_ratio, sync_ratio, bw_gbps, small_pct; /* NAN when undefined */
	size_t item0, n_items;
};

/* A link summed over steps and ops. */
struct comm_linkagg {
	const char *group;    /* borrowed from comm_analysis strs */
	int32_t src, dst;     /* as the matrix names them (local to the group in recent files) */
	uint8_t transport, kind;
	double size_mb;
	int64_t time_ns;
	double bw_gbps;       /* NAN without time */
	double median_gbps;   /* of its group and transport; NAN below COMM_SLOW_LINK_MIN links */
	bool slow;
	int32_t rank;         /* the rank whose matrix file holds it; -1 for cluster files */
	size_t item0, n_items;
};

/* The links of one group, ready for a heatmap. */
struct comm_group {
	const char *name;       /* borrowed from comm_analysis strs */
	uint8_t kind;
	size_t link0, n_links;  /* into comm_analysis.links (sorted by group, src, dst) */
	int32_t *ranks;         /* owned: the src and dst ids, ascending */
	int32_t *global;        /* owned, parallel: the global rank when a self-link tells it, else -1 */
	size_t n_ranks;         /* the group's size as the matrix names it */
	/* the ranks of the group this capture holds: owners of a matrix file naming the group
	 * (cluster files: the group's global ranks among the loaded ones); a group of 8 with
	 * 2 captured is judged on those 2 */
	size_t n_captured;
	/* the layout dimension (enum parallel_dim) whose group this is, from the captured
	 * members' directory names (they share every coordinate but that one), or -1 */
	int parallel;
	double max_gbps;        /* over its links other than LOCAL */
};

struct comm_rank_stat {
	int rank;
	int64_t t[COMM_T_COUNT];
	size_t entries;
	double size_mb, packets, small_packets;
	struct comm_tstat tr[COMM_TR_COUNT];
};

struct comm_analysis {
	/* ops sorted by elapse, longest first; links by group, src, dst, transport */
	bool present;           /* any communication entry or link */
	bool from_cluster;      /* from cluster_communication*.json (no per-rank files) */
	char *source;           /* owned: which files, in words */
	struct strtab *strs;    /* owned: group and type names */
	struct comm_opagg *ops; /* owned, like the arrays below */
	size_t n_ops;
	struct comm_tstat tr[COMM_TR_COUNT]; /* every rank */
	struct comm_rank_stat *ranks;        /* owned; sorted by rank */
	size_t n_ranks;
	struct comm_linkagg *links;   /* owned */
	size_t n_links, n_slow;
	struct comm_group *groups;    /* owned */
	size_t n_groups;
	struct comm_item *items;      /* owned */
	size_t n_items, cap_items;
	size_t entries, steps;
	int64_t t[COMM_T_COUNT];
	double wait_ratio, sync_ratio, small_pct;
};

struct capture;
/* Builds the analysis from the capture's communication data (per-rank files, else the
 * cluster's). Never NULL; owned (comm_analysis_free), borrowing strings of cap's
 * communication data; `present` says whether there was anything. */
struct comm_analysis *comm_analyse(const struct capture *cap);
void comm_analysis_free(struct comm_analysis *ca);
/* A rank's figures (borrowed from ca), or NULL. */
const struct comm_rank_stat *comm_rank(const struct comm_analysis *ca, int rank);
/* The rank a link belongs to: the owner of the matrix file that holds it, else (cluster
 * files, global ranks) its source. */
static inline int comm_link_owner(const struct comm_linkagg *l) { return l->rank >= 0 ? l->rank : l->src; }
size_t comm_slow_links_of(const struct comm_analysis *ca, int rank);
/* The group's link from src to dst (the first transport when there are several; borrowed
 * from ca), or NULL;
 * a binary search, links being sorted by group, src, dst. */
const struct comm_linkagg *comm_group_link(const struct comm_analysis *ca, const struct comm_group *g, int32_t src,
					   int32_t dst);
/* The groups the capture holds only part of (n_captured < n_ranks); *largest (may be NULL)
 * the one with the most ranks, borrowed from ca. Waits and slow ranks are then judged among
 * the captured ranks: a late rank outside the capture is not seen. */
size_t comm_groups_partial(const struct comm_analysis *ca, const struct comm_group **largest);
/* The layout as the groups show it: "tp 2, pp 6" (groups per dimension, in enum order),
 * written to buf, which is returned; "" when no group has a dimension. */
char *comm_layout_text(const struct comm_analysis *ca, char *buf, size_t size);
/* wait / (wait + transit) and its kin, NAN when both are 0. */
double comm_ratio(int64_t part, int64_t transit);

/* Heat of a link, 0 (no traffic) to 4: its bandwidth against the reference figure of its
 * transport, else against the median of its group and transport: 1 below 25 %, 2 below
 * 50 %, 3 below 80 %, 4 from 80 %. */
int comm_heat_level(const struct comm_linkagg *l);
/* The heatmap legend in words (with the ASCII glyphs the text report uses). */
extern const char comm_heat_ascii[5];
extern const char *const comm_heat_legend;

#endif
