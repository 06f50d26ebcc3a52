/* SPDX-License-Identifier: MIT */
/* Communication figures of the ranks (comm_ranks.h): from the communication analysis and
 * the cluster analysis into each rank's metrics and late rank. */
#include "config.h"
#include "comm_ranks.h"

#include <string.h>

#include "cluster.h"
#include "comm.h"
#include "comm_split.h"
#include "i18n.h"

void comm_ranks_metrics(struct analysis *an)
{
	const struct comm_analysis *ca = an->comm;
	const char *src = ca->from_cluster ? "cluster_communication.json" : "communication.json";
	for (size_t i = 0; i < an->n_ranks; i++) {
		struct rank_analysis *ra = &an->ranks[i];
		const struct comm_rank_stat *rs = comm_rank(ca, ra->rank);
		if (rs) {
			result_set_metric(ra, M_COMM_WAIT_RATIO, comm_ratio(rs->t[COMM_T_WAIT], rs->t[COMM_T_TRANSIT]),
					    CONF_HIGH, src);
			result_set_metric(ra, M_COMM_SYNC_RATIO, comm_ratio(rs->t[COMM_T_SYNC], rs->t[COMM_T_TRANSIT]),
					    CONF_HIGH, src);
			result_set_metric(ra, M_COMM_TRANSIT_MB, rs->size_mb, CONF_HIGH, src);
			if (rs->packets > 0)
				result_set_metric(ra, M_COMM_SMALL_PACKET_PCT, 100.0 * rs->small_packets / rs->packets,
						    CONF_HIGH, ca->from_cluster ? N_("Size Distribution of cluster_communication.json")
										: N_("Size Distribution of communication.json"));
		}
		if (ca->n_links)
			result_set_metric(ra, M_COMM_SLOW_LINKS, (double)comm_slow_links_of(ca, ra->rank),
					    CONF_MEDIUM, ca->from_cluster ? "cluster_communication_matrix.json"
									  : "communication_matrix.json");
	}
}

bool comm_ranks_wait_known(const struct rank_analysis *ra)
{
	const struct attribution *a = &ra->attr;
	if (!a->valid)
		return false;
	if (!(a->ns[ATTR_COMM_WAIT] + a->ns[ATTR_COMM_TRANSFER] + a->ns[ATTR_COMM_SETUP] + a->ns[ATTR_COMM_UNSPLIT]))
		return true;
	/* split by communication.json or by the peers: a wait of 0 is known too */
	return a->comm_split && strncmp(a->comm_split, "per collective", 14) == 0;
}

void comm_ranks_late_rank(struct analysis *an)
{
	/* one answer: the cluster analysis's, the rank last to arrive in most of the matched
	 * collectives (cluster.h), unless the others' wait for it hides under their compute: a
	 * rank "everyone waits for" whose peers lose no exposed time sends the user to balance
	 * what holds nothing back (the demo: 13.6 ms of rank 1's collectives wait for rank 0,
	 * 0.45 % of its window exposed). Decided here, after the split, for every view */
	struct cluster_analysis *ca = an->cluster;
	if (ca && ca->waited_rank >= 0) {
		double sum = 0;
		size_t n = 0;
		for (size_t i = 0; i < an->n_ranks; i++) {
			const struct attribution *a = &an->ranks[i].attr;
			if (an->ranks[i].rank == ca->waited_rank || !a->valid)
				continue;
			sum += attribution_pct(a, a->ns[ATTR_COMM_WAIT]);
			n++;
		}
		ca->waited_exposed_pct = n ? sum / (double)n : 0;
		if (ca->waited_exposed_pct < CLUSTER_EXPOSED_MATTERS_PCT) {
			ca->waited_hidden_rank = ca->waited_rank;
			ca->waited_rank = -1;
		}
	}
	int late = ca ? ca->waited_rank : -1;
	for (size_t i = 0; i < an->n_ranks; i++)
		an->ranks[i].late_rank = late;
}
