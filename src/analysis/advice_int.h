/* SPDX-License-Identifier: MIT */
/* What advice.c and advice_kernel.c share: a rule's instances (struct hits), a finding's
 * start, and where exposed host time sits. Not for other files; it includes no advice.h,
 * which advice.c includes above it. */
#ifndef ASCPROF_ADVICE_INT_H
#define ASCPROF_ADVICE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "intervals.h"
#include "result.h"

struct hits {
	struct ivset spans;
	uint64_t count;
	int64_t sum_ns;
	uint32_t longest;
	int64_t longest_ns;
	int64_t *by_name; /* per name id, for the top names (device rules), or NULL */
};

/* A finding of rule r (enum advice_rule_id) appended to ra (value thresholded; the event
 * the longest hit). */
struct advice_finding *advice_add_finding(struct rank_analysis *ra, int r, const struct hits *h, double value);
/* The part of h's spans with the device idle, split by the host bucket it sits in. */
struct rank_sets;
void advice_exposed(struct hits *h, struct rank_sets *s, const struct attribution *a, struct advice_finding *f);
/* " (in host_dispatch 1.2 ms, ...)" */
struct sbuf;
void advice_in_buckets(struct sbuf *sb, const struct advice_finding *f);
/* The instance to show: the longer (key), of equal ones the earlier, then by name. */
bool advice_better(const struct rank_store *rs, uint32_t cand, int64_t cand_key, uint32_t cur, int64_t cur_key);

#endif
