/* SPDX-License-Identifier: MIT */
/* ascprof-gen: --comm: communication.json and communication_matrix.json. */
#include "gen.h"

/* The communication-domain id after '@' (a 20-digit hash in real files). */
static uint64_t comm_group_id(const struct gen *G)
{
	return 17522688603477080000ULL + (uint64_t)G->coll_group;
}

/* n / 10^6 with six decimals: ns as ms, bytes as MB (exact). */
static void sb_e6(struct sbuf *b, int64_t n)
{
	sbuf_addf(b, "%" PRId64 ".%06" PRId64, (int64_t)(n / MS), (int64_t)(n % MS));
}

static bool comm_slow(const struct gen *G, int src, int dst)
{
	return G->o->ranks >= 3 && src == 0 && dst == 1;
}

/* One collective as a rank sees it: every peer gets bytes / n over HCCS in about 0.3 T (the
 * planes run in parallel); the slow link takes three times as long. */
struct comm_coll {
	const struct unit *u;
	int64_t a, elapse, transit, wait, peer_bytes;
	int64_t link_time[MAX_RANKS];
	int64_t hccs_time;
};

static void comm_coll(const struct gen *G, const struct rank_model *R, const struct step *st, const struct unit *u,
		      struct rng *rr, struct comm_coll *c)
{
	int n = G->o->ranks;
	memset(c, 0, sizeof *c);
	c->u = u;
	c->a = u->k_ts + R->off;
	c->elapse = u->k_dur;
	c->transit = u->xfer;
	c->wait = u->k_dur - u->xfer;
	c->peer_bytes = G->o->packet_bytes ? G->o->packet_bytes : step_coll_tokens(G, st) * 4096 * 2 / n;
	for (int j = 0; j < n; j++) {
		int64_t permille = rng_range(rr, 280, 320);
		if (j == R->r)
			c->link_time[j] = US; /* the local copy */
		else if (comm_slow(G, R->r, j))
			c->link_time[j] = u->xfer * permille * 10 / 3000;
		else
			c->link_time[j] = u->xfer * permille / 1000;
		if (j != R->r)
			c->hccs_time += c->link_time[j];
	}
}

static void comm_bw_zero(struct sbuf *b, const char *name, bool comma)
{
	sbuf_addf(b, "%s\"%s\": {\"Transit Size(MB)\": 0, \"Transit Time(ms)\": 0, \"Bandwidth(GB/s)\": 0, "
	          "\"Large Packet Ratio\": 0, \"Size Distribution\": {}}",
	       comma ? ", " : "", name);
}

static void comm_bw(struct sbuf *b, const char *name, int64_t bytes, int64_t time_ns, int64_t pkt_bytes,
		    int64_t pkts)
{
	sbuf_addf(b, ", \"%s\": {\"Transit Size(MB)\": ", name);
	sb_e6(b, bytes);
	sbuf_adds(b, ", \"Transit Time(ms)\": ");
	sb_e6(b, time_ns);
	sbuf_addf(b, ", \"Bandwidth(GB/s)\": %.4f, \"Large Packet Ratio\": 0.0, \"Size Distribution\": {",
	       time_ns ? (double)bytes / (double)time_ns : 0.0);
	if (pkts) {
		sbuf_addc(b, '"');
		sb_e6(b, pkt_bytes);
		sbuf_addf(b, "\": [%" PRId64 ", ", pkts);
		sb_e6(b, time_ns);
		sbuf_addc(b, ']');
	}
	sbuf_adds(b, "}}");
}

/* An entry: its time info (the start is omitted for "Total Op Info") and bandwidth info. */
static void comm_entry(struct sbuf *b, const char *key, bool first, int64_t start, const int64_t t[5],
		       int64_t bytes, int64_t hccs_time, int64_t pkt_bytes, int64_t pkts)
{
	static const char *const names[5] = {"Elapse", "Transit", "Wait", "Synchronization", "Idle"};
	sbuf_addf(b, "%s\"%s\": {\"Communication Time Info\": {", first ? "" : ", ", key);
	if (start >= 0) {
		char us[32];
		fmt_us3(us, start);
		sbuf_addf(b, "\"Start Timestamp(us)\": %s, ", us);
	}
	for (int k = 0; k < 5; k++) {
		sbuf_addf(b, "\"%s Time(ms)\": ", names[k]);
		sb_e6(b, t[k]);
		sbuf_adds(b, ", ");
	}
	double w = t[1] + t[2] ? (double)t[2] / (double)(t[1] + t[2]) : 0;
	double y = t[1] + t[3] ? (double)t[3] / (double)(t[1] + t[3]) : 0;
	sbuf_addf(b, "\"Wait Time Ratio\": %.4f, \"Synchronization Time Ratio\": %.4f}, ", w, y);
	sbuf_adds(b, "\"Communication Bandwidth Info\": {");
	comm_bw_zero(b, "RDMA", false);
	comm_bw(b, "HCCS", bytes, hccs_time, pkt_bytes, pkts);
	comm_bw_zero(b, "PCIE", true);
	comm_bw(b, "SDMA", bytes, hccs_time, 0, 0);
	comm_bw_zero(b, "SIO", true);
	sbuf_adds(b, "}}");
}

static void comm_link(struct sbuf *b, int src, int dst, int64_t bytes, int64_t time_ns, const char *op, bool first)
{
	sbuf_addf(b, "%s\"%d-%d\": {\"Transport Type\": \"%s\", \"Transit Size(MB)\": ", first ? "" : ", ", src, dst,
	       src == dst ? "LOCAL" : "HCCS");
	sb_e6(b, bytes);
	sbuf_adds(b, ", \"Transit Time(ms)\": ");
	sb_e6(b, time_ns);
	sbuf_addf(b, ", \"Bandwidth(GB/s)\": %.4f, \"Op Name\": \"%s\"}", time_ns ? (double)bytes / (double)time_ns : 0.0,
	       op);
}

void write_comm(const struct gen *G, const struct rank_model *R, const char *od, struct comm_truth *ct)
{
	int n = G->o->ranks;
	uint64_t gid = comm_group_id(G);
	struct sbuf cj = {0}, mj = {0};
	struct comm_coll *cc = xcalloc(64, sizeof *cc);
	size_t cap = 64;
	sbuf_addc(&cj, '{');
	sbuf_addc(&mj, '{');
	for (int k = 0; k < R->nst; k++) {
		const struct step *st = &R->st[k];
		struct rng rr;
		rng_init(&rr, G->o->seed, 'C', (uint64_t)R->r, (uint64_t)k);
		size_t nc = 0;
		for (size_t i = 0; i < st->nu; i++) {
			const struct unit *u = &R->u[st->u0 + i];
			if (kinds[u->kind].dc != DC_COMM)
				continue;
			if (nc == cap) {
				cap *= 2;
				cc = xrealloc(cc, cap * sizeof *cc);
			}
			comm_coll(G, R, st, u, &rr, &cc[nc++]);
		}
		sbuf_addf(&cj, "%s\"step%d\": {\"p2p\": {}, \"collective\": {", k ? ", " : "", k + 1);
		int64_t tot[5] = {0}, tot_bytes = 0, tot_time = 0;
		size_t longest = 0;
		for (size_t i = 0; i < nc; i++) {
			const struct comm_coll *c = &cc[i];
			/* HCCL records the communicator's link setup, in its first collective, as
			 * Idle Time (msinsight's level1: 73 of 79 ms on both ranks), not as a wait */
			int64_t setup = c->u->coll_seq == 0 && G->o->setup_ns <= c->wait ? G->o->setup_ns : 0;
			int64_t t[5] = {c->elapse, c->transit, c->wait - setup, c->wait - setup, setup};
			int64_t bytes = c->peer_bytes * (n - 1);
			char key[96];
			coll_name(key, sizeof key, G, c->u);
			snprintf(key + strlen(key), sizeof key - strlen(key), "@%" PRIu64, gid);
			comm_entry(&cj, key, i == 0, c->a, t, bytes, c->hccs_time, c->peer_bytes, n - 1);
			for (int x = 0; x < 5; x++) {
				tot[x] += t[x];
				ct->t[x] += t[x];
			}
			tot_bytes += bytes;
			tot_time += c->hccs_time;
			ct->ops++;
			ct->hccs_bytes += bytes;
			ct->hccs_time += c->hccs_time;
			ct->packets += n - 1;
			ct->small_packets += c->peer_bytes < MS ? n - 1 : 0;
			if (c->elapse > cc[longest].elapse)
				longest = i;
		}
		if (nc)
			comm_entry(&cj, "Total Op Info", false, -1, tot, tot_bytes, tot_time, 0, 0);
		sbuf_adds(&cj, "}}");
		/* the matrix: the longest collective's links (a pick, never added) and the step's sum */
		sbuf_addf(&mj, "%s\"step%d\": {\"p2p\": {}, \"collective\": {", k ? ", " : "", k + 1);
		if (nc) {
			char op[64];
			coll_name(op, sizeof op, G, cc[longest].u);
			const char *type = cc[longest].u->kind == K_ALLTOALL ? "alltoallv" : "allreduce";
			sbuf_addf(&mj, "\"%s-top1@%" PRIu64 "\": {", type, gid);
			for (int j = 0; j < n; j++)
				comm_link(&mj, R->r, j, cc[longest].peer_bytes, cc[longest].link_time[j], op, j == 0);
			sbuf_addf(&mj, "}, \"%s-total@%" PRIu64 "\": {", type, gid);
			for (int j = 0; j < n; j++) {
				int64_t bytes = 0, time = 0;
				for (size_t i = 0; i < nc; i++) {
					bytes += cc[i].peer_bytes;
					time += cc[i].link_time[j];
				}
				comm_link(&mj, R->r, j, bytes, time, op, j == 0);
				ct->link_bytes[j] += bytes;
				ct->link_time[j] += time;
			}
			sbuf_addc(&mj, '}');
		}
		sbuf_adds(&mj, "}}");
	}
	sbuf_addc(&cj, '}');
	sbuf_addc(&mj, '}');
	char p[4096];
	path_join(p, sizeof p, od, "communication.json");
	write_file(p, cj.buf, cj.len);
	path_join(p, sizeof p, od, "communication_matrix.json");
	write_file(p, mj.buf, mj.len);
	free(cj.buf);
	free(mj.buf);
	free(cc);
}

void truth_comm(struct sbuf *b, const struct gen *G, const struct rank_out *ro)
{
	int n = G->o->ranks;
	sbuf_addf(b, "\n# ---- communication files ----\ncomm=1\ncomm.group=%" PRIu64 "\n", comm_group_id(G));
	sbuf_adds(b, n >= 3 ? "comm.slow_link=0-1\n" : "comm.slow_link=none\n");
	sbuf_addf(b, "comm.links=%d\n", n * n);
	static const char *const tn[5] = {"elapse", "transit", "wait", "sync", "idle"};
	for (int r = 0; r < n; r++) {
		const struct comm_truth *ct = &ro[r].comm;
		sbuf_addf(b, "comm.%d.ops=%" PRId64 "\n", r, ct->ops);
		for (int x = 0; x < 5; x++)
			sbuf_addf(b, "comm.%d.%s_ns=%" PRId64 "\n", r, tn[x], ct->t[x]);
		sbuf_addf(b, "comm.%d.hccs_bytes=%" PRId64 "\ncomm.%d.hccs_time_ns=%" PRId64 "\n", r, ct->hccs_bytes, r,
		       ct->hccs_time);
		sbuf_addf(b, "comm.%d.packets=%" PRId64 "\ncomm.%d.small_packets=%" PRId64 "\n", r, ct->packets, r,
		       ct->small_packets);
		for (int j = 0; j < n; j++)
			if (j != r)
				sbuf_addf(b, "comm.link.%d-%d.bytes=%" PRId64 "\ncomm.link.%d-%d.time_ns=%" PRId64 "\n", r, j,
				       ct->link_bytes[j], r, j, ct->link_time[j]);
	}
}
