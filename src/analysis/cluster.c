/* SPDX-License-Identifier: MIT */
/* The cluster analysis (cluster.h). */
#include "cluster.h"
#include "cluster_db.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "align.h"
#include "comm.h"
#include "capture.h"
#include "evkind.h"
#include "i18n.h"
#include "num.h"
#include "strtab.h"
#include "xalloc.h"
#include "xsort.h"

const char *cluster_group_of(const char *name, char *buf, size_t size)
{
	if (!evkind_collective_group(name, buf, size))
		snprintf(buf, size, "all");
	return buf;
}

const struct cluster_cell cluster_cell_none = {.dur_ns = -1};

struct inst {
	uint32_t name, occ, rank, group;
	uint32_t step; /* UINT32_MAX: outside every step */
	int64_t dur;
	uint8_t before; /* enum coll_before */
};

static int cmp_inst(const void *a, const void *b)
{
	const struct inst *x = a, *y = b;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	if (x->occ != y->occ)
		return x->occ < y->occ ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int64_t median_of(int64_t *v, size_t n)
{
	return n ? nearest_rank_select(v, n, 0.5) : 0;
}

/* Matches the ranks' collectives and adds wait and transfer to ranks, cells and groups. */
static void match_collectives(const struct analysis *an, struct cluster_analysis *ca)
{
	struct strtab *names = strtab_new();
	size_t total = 0;
	for (size_t r = 0; r < an->n_ranks; r++)
		total += an->n_colls[r];
	struct inst *in = xmalloc((total ? total : 1) * sizeof *in);
	uint32_t *occ = NULL;
	size_t occ_cap = 0, k = 0;
	char gb[64];
	for (size_t r = 0; r < an->n_ranks; r++) {
		const struct rank_analysis *ra = &an->ranks[r];
		size_t hint = 0;
		uint32_t *touched = xmalloc((an->n_colls[r] ? an->n_colls[r] : 1) * sizeof *touched);
		for (size_t i = 0; i < an->n_colls[r]; i++) {
			const struct coll_inst *c = &an->colls[r][i];
			uint32_t id = strtab_intern_cstr(names, c->name);
			if (id >= occ_cap) {
				size_t old = occ_cap;
				xgrow(&occ, &occ_cap, (size_t)id + 1, sizeof *occ);
				memset(occ + old, 0, (occ_cap - old) * sizeof *occ);
			}
			touched[i] = id;
			size_t st = ra->n_steps ? analysis_step_at_near(ra, c->end - c->dur, &hint) : SIZE_MAX;
			in[k++] = (struct inst){id, occ[id]++, (uint32_t)r,
						strtab_intern_cstr(ca->strs, cluster_group_of(c->name, gb, sizeof gb)),
						st == SIZE_MAX ? UINT32_MAX : (uint32_t)st, c->dur, c->before};
		}
		for (size_t i = 0; i < an->n_colls[r]; i++)
			occ[touched[i]] = 0;
		free(touched);
	}
	free(occ);
	xqsort(in, k, sizeof *in, cmp_inst);

	ca->n_groups = strtab_count(ca->strs);
	ca->groups = xcalloc(ca->n_groups ? ca->n_groups : 1, sizeof *ca->groups);
	size_t *last_in_group = xcalloc(ca->n_groups * (an->n_ranks ? an->n_ranks : 1) + 1, sizeof *last_in_group);
	int64_t *cost_in_group = xcalloc(ca->n_groups * (an->n_ranks ? an->n_ranks : 1) + 1, sizeof *cost_in_group);
	bool *rank_in_group = xcalloc(ca->n_groups * (an->n_ranks ? an->n_ranks : 1) + 1, sizeof *rank_in_group);
	for (size_t g = 0; g < ca->n_groups; g++) {
		ca->groups[g].name = strtab_str(ca->strs, (uint32_t)g);
		ca->groups[g].waited_rank = -1;
	}
	for (size_t a = 0; a < k;) {
		size_t b = a + 1;
		while (b < k && in[b].name == in[a].name && in[b].occ == in[a].occ)
			b++;
		if (b - a >= 2) {
			int64_t least = in[a].dur;
			size_t who = a;
			for (size_t i = a + 1; i < b; i++)
				if (in[i].dur < least) {
					least = in[i].dur;
					who = i;
				}
			int64_t waited = 0;
			struct cluster_group *g = &ca->groups[in[a].group];
			for (size_t i = a; i < b; i++) {
				int64_t w = in[i].dur - least;
				struct cluster_rank *cr = &ca->ranks[in[i].rank];
				cr->wait_ns += w;
				cr->transfer_ns += least;
				if (in[i].step != UINT32_MAX && in[i].step < ca->ranks[in[i].rank].n_steps)
					ca->cells[ca->cell_at[in[i].rank] + in[i].step].wait_ns += w;
				g->wait_ns += w;
				g->transfer_ns += least;
				waited += w;
				rank_in_group[in[a].group * an->n_ranks + in[i].rank] = true;
			}
			g->collectives++;
			ca->matched++;
			if (waited > 0) {
				struct cluster_rank *cr = &ca->ranks[in[who].rank];
				cr->last_count++;
				cr->caused_ns += waited;
				cr->before_ns[in[who].before < BEFORE_COUNT ? in[who].before : BEFORE_UNKNOWN] += waited;
				last_in_group[in[a].group * an->n_ranks + in[who].rank]++;
				cost_in_group[in[a].group * an->n_ranks + in[who].rank] += waited;
			}
		}
		a = b;
	}
	for (size_t g = 0; g < ca->n_groups; g++) {
		struct cluster_group *cg = &ca->groups[g];
		for (size_t r = 0; cg->collectives && r < an->n_ranks; r++) {
			size_t c = last_in_group[g * an->n_ranks + r];
			cg->n_ranks += rank_in_group[g * an->n_ranks + r];
			if (c > cg->waited_count) {
				cg->waited_count = c;
				cg->waited_rank = an->ranks[r].rank;
				cg->waited_ns = cost_in_group[g * an->n_ranks + r];
			}
		}
		if (cg->waited_count * 2 <= cg->collectives) /* no rank is last in most */
			cg->waited_rank = -1;
	}
	/* groups without a matched collective (and the string table's empty entry) go */
	size_t kept = 0;
	for (size_t g = 0; g < ca->n_groups; g++)
		if (ca->groups[g].collectives)
			ca->groups[kept++] = ca->groups[g];
	ca->n_groups = kept;
	free(last_in_group);
	free(cost_in_group);
	free(rank_in_group);
	free(in);
	strtab_free(names);
}

static void judge(struct cluster_analysis *ca)
{
	int64_t *x = xmalloc((ca->n_ranks ? ca->n_ranks : 1) * sizeof *x);
	size_t n = 0;
	for (size_t r = 0; r < ca->n_ranks; r++)
		if (ca->ranks[r].has_x)
			x[n++] = ca->ranks[r].own_ns;
	ca->judged = n;
	ca->own_median_ns = median_of(x, n);
	for (size_t i = 0; i < n; i++)
		x[i] = llabs(x[i] - ca->own_median_ns);
	ca->own_mad_ns = median_of(x, n);
	free(x);
	for (size_t r = 0; r < ca->n_ranks; r++) {
		struct cluster_rank *cr = &ca->ranks[r];
		if (!cr->has_x || n < 3) {
			cr->z = NAN;
			cr->excess = NAN;
			continue;
		}
		double d = (double)(cr->own_ns - ca->own_median_ns);
		cr->excess = ca->own_median_ns > 0 ? d / (double)ca->own_median_ns : NAN;
		cr->z = ca->own_mad_ns > 0 ? d / (1.4826 * (double)ca->own_mad_ns) : d > 0 ? INFINITY : d < 0 ? -INFINITY : 0;
		cr->slow = cr->z > CLUSTER_Z_SLOW && cr->excess > CLUSTER_MIN_EXCESS;
		ca->n_slow += cr->slow;
	}
}

/* The others' wait for a rank matters when it is CLUSTER_WAIT_MATTERS of a waiting rank's
 * window or more on average (the median window): a slow link makes the last to arrive
 * change by nanoseconds, and a rank "everyone waits for" for 0.01 % of the window would
 * send the user to balance ranks that are balanced. */
static bool waits_matter(const struct analysis *an, int64_t waited_ns)
{
	if (an->n_ranks < 2)
		return false;
	int64_t *w = xmalloc(an->n_ranks * sizeof *w);
	size_t n = 0;
	for (size_t r = 0; r < an->n_ranks; r++)
		if (an->ranks[r].attr.valid && an->ranks[r].attr.wall_ns > 0)
			w[n++] = an->ranks[r].attr.wall_ns;
	int64_t window = median_of(w, n);
	free(w);
	double per_rank = (double)waited_ns / (double)(an->n_ranks - 1);
	return window > 0 && per_rank >= CLUSTER_WAIT_MATTERS * (double)window;
}

struct cluster_analysis *cluster_analyse(const struct analysis *an)
{
	if (!an || an->n_ranks < 2 || !an->colls)
		return NULL;
	struct cluster_analysis *ca = xcalloc(1, sizeof *ca);
	ca->strs = strtab_new();
	ca->n_ranks = an->n_ranks;
	ca->waited_rank = ca->last_rank = ca->waited_hidden_rank = -1;
	ca->ranks = xcalloc(an->n_ranks, sizeof *ca->ranks);
	for (size_t r = 0; r < an->n_ranks; r++)
		if (an->ranks[r].n_steps > ca->n_steps)
			ca->n_steps = an->ranks[r].n_steps;
	ca->cell_at = xcalloc(an->n_ranks + 1, sizeof *ca->cell_at);
	for (size_t r = 0; r < an->n_ranks; r++)
		ca->cell_at[r + 1] = ca->cell_at[r] + an->ranks[r].n_steps;
	ca->cells = xcalloc(ca->cell_at[an->n_ranks] ? ca->cell_at[an->n_ranks] : 1, sizeof *ca->cells);
	for (size_t r = 0; r < an->n_ranks; r++) {
		const struct rank_analysis *ra = &an->ranks[r];
		ca->ranks[r].rank = ra->rank;
		ca->ranks[r].n_steps = ra->n_steps;
		for (size_t s = 0; s < ra->n_steps; s++) {
			struct cluster_cell *c = &ca->cells[ca->cell_at[r] + s];
			c->dur_ns = ra->steps[s].end - ra->steps[s].start;
			c->exposed_ns = ra->steps[s].comm_not_overlapped_ns;
			ca->ranks[r].exposed_ns = num_sat_add(ca->ranks[r].exposed_ns, c->exposed_ns);
		}
	}
	match_collectives(an, ca);
	/* without collectives (msprof-analyze's cluster table) the wait is unknown: own work is
	 * then the step time less its exposed communication, which holds the wait */
	bool no_colls = true;
	for (size_t r = 0; r < an->n_ranks; r++)
		no_colls = no_colls && !an->n_colls[r];
	/* English (JSON); the text report shows it through _() */
	ca->own_basis = no_colls ? N_("step time - exposed communication (no collectives to measure the wait by)")
				 : N_("step time - collective wait in the step");
	size_t most = 0;
	int64_t *v = xmalloc((ca->n_steps ? ca->n_steps : 1) * sizeof *v);
	for (size_t r = 0; r < an->n_ranks; r++) {
		const struct rank_analysis *ra = &an->ranks[r];
		struct cluster_rank *cr = &ca->ranks[r];
		size_t n = ra->n_steps;
		if (!n)
			continue;
		const struct cluster_cell *row = &ca->cells[ca->cell_at[r]];
		for (size_t s = 0; s < n; s++)
			v[s] = row[s].dur_ns;
		cr->step_ns = median_of(v, n);
		for (size_t s = 0; s < n; s++)
			v[s] = row[s].dur_ns - (no_colls ? row[s].exposed_ns : row[s].wait_ns);
		cr->own_ns = median_of(v, n);
		for (size_t s = 0; s < n; s++)
			v[s] = ra->steps[s].compute_ns;
		cr->compute_ns = median_of(v, n);
		for (size_t s = 0; s < n; s++)
			v[s] = row[s].wait_ns;
		cr->wait_step_ns = median_of(v, n);
		cr->has_x = true;
	}
	free(v);
	for (size_t r = 0; r < an->n_ranks; r++)
		if (ca->ranks[r].last_count > most) {
			most = ca->ranks[r].last_count;
			ca->last_rank = ca->ranks[r].rank;
			ca->waited_count = most;
			ca->waited_ns = ca->ranks[r].caused_ns;
		}
	/* everyone waits for it only when it is last in most collectives: on a balanced run
	 * the last to arrive changes from one collective to the next */
	if (most * 2 > ca->matched && waits_matter(an, ca->waited_ns))
		ca->waited_rank = ca->last_rank;
	/* what the rank everyone waits for did just before it joined, weighed by the wait */
	ca->waited_before = BEFORE_UNKNOWN;
	for (size_t r = 0; ca->waited_rank >= 0 && r < ca->n_ranks; r++) {
		if (ca->ranks[r].rank != ca->waited_rank)
			continue;
		int64_t best = 0;
		for (int b = 0; b < BEFORE_COUNT; b++)
			if (ca->ranks[r].before_ns[b] > best) {
				best = ca->ranks[r].before_ns[b];
				ca->waited_before = b;
			}
		ca->waited_before_pct = ca->ranks[r].caused_ns > 0 ? 100.0 * (double)best / (double)ca->ranks[r].caused_ns : 0;
	}
	judge(ca);
	return ca;
}

void cluster_free(struct cluster_analysis *ca)
{
	if (!ca)
		return;
	free(ca->ranks);
	free(ca->cells);
	free(ca->cell_at);
	free(ca->groups);
	strtab_free(ca->strs);
	free(ca);
}

/* ---- msprof-analyze's cluster_analysis_output ---------------------------------------- */

void cluster_output_ranks(struct analysis *an, const struct cluster_output *co)
{
	struct capture *cap = (struct capture *)an->cap;
	size_t nr = cap->n_ranks;
	const struct cluster_out_row *rows = co->rows;
	const char *src = co->rows_from, *csv = co->csv;
	an->ranks = xcalloc(nr ? nr : 1, sizeof *an->ranks);
	an->colls = xcalloc(nr ? nr : 1, sizeof *an->colls);
	an->n_colls = xcalloc(nr ? nr : 1, sizeof *an->n_colls);
	for (size_t k = 0; k < nr; k++) {
		size_t a = co->rows_of[k], b = co->rows_of[k + 1];
		struct rank_analysis *ra = &an->ranks[k];
		ra->rank = rows[a].rank;
		ra->rank_index = k;
		ra->late_rank = -1;
		ra->aligned_via = -1;
		ra->step_source = STEP_SRC_STEP_TRACE;
		ra->step_evidence = xasprintf(_("%s: one row per step"), src);
		ra->phase_source = PHASE_SRC_NONE;
		ra->phase_conf = CONF_LOW;
		ra->phase_evidence = xstrdup(_("no phase signal in the cluster table"));
		ra->ops_source = xstrdup(_("none: the cluster table has no ops"));
		ra->attr.comm_split = N_("none: no communication.json and no peer ranks");
		ra->n_steps = b - a;
		ra->steps = xcalloc(ra->n_steps, sizeof *ra->steps);
		int64_t comp = 0, cno = 0, fr = 0, wall = 0;
		for (size_t i = a; i < b; i++) {
			struct step *s = &ra->steps[i - a];
			s->index = (int)(i - a);
			s->label = rows[i].step >= 0 ? xasprintf("Step %lld", (long long)rows[i].step) : xstrdup("capture");
			s->start = s->win_start = 0;
			s->end = s->win_end = rows[i].step_ns;
			s->phase_source = PHASE_SRC_NONE;
			s->phase_conf = CONF_LOW;
			s->marker_ev = UINT32_MAX;
			s->compute_ns = rows[i].computing_ns;
			s->comm_not_overlapped_ns = rows[i].comm_not_overlapped_ns;
			s->free_ns = rows[i].free_ns;
			/* each value is within the accepted times, their sum need not be */
			comp = num_sat_add(comp, s->compute_ns);
			cno = num_sat_add(cno, s->comm_not_overlapped_ns);
			fr = num_sat_add(fr, s->free_ns);
			wall = num_sat_add(wall, rows[i].step_ns);
		}
		bool held = false;
		for (int q = 0; q < 4; q++) {
			int64_t v = q == 0 ? comp : q == 1 ? cno : q == 2 ? fr : wall;
			held |= v == INT64_MAX || v == INT64_MIN;
		}
		if (held)
			diag_add(&cap->diags, DIAG_WARN, csv ? csv : an->cluster_db ? an->cluster_db->path : cap->plan.path, -1, -1,
				 _("rank %d: its %zu steps' times add up past the largest time kept (about 292 years): "
				 "its totals are held there, not wrapped; its steps are kept as written"),
				 rows[a].rank, b - a);
		result_set_metric(ra, M_WALL_US, (double)wall / 1e3, CONF_MEDIUM, src);
		result_set_metric(ra, M_COMPUTE_US, (double)comp / 1e3, CONF_MEDIUM, src);
		result_set_metric(ra, M_COMM_NOT_OVERLAPPED_US, (double)cno / 1e3, CONF_MEDIUM, src);
		result_set_metric(ra, M_FREE_US, (double)fr / 1e3, CONF_MEDIUM, src);
		result_set_metric(ra, M_STEPS, (double)ra->n_steps, CONF_MEDIUM, src);
	}
	an->n_ranks = nr;
}
