/* SPDX-License-Identifier: MIT */
/* The report's cluster section (cluster.h): ranks x steps, slow ranks and their evidence,
 * wait against transfer per communication group, the rank everyone waits for. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "cluster.h"
#include "comm_split.h"
#include "cluster_db.h"
#include "i18n.h"
#include "jsonw.h"
#include "report.h"
#include "summary.h"

/* Text tables stop here; --json has everything. */
#define TEXT_STEPS 8
#define TEXT_GROUPS 20

static double ms(int64_t ns) { return (double)ns / 1e6; }

static const char *z_text(double z, char *buf, size_t size)
{
	if (isnan(z))
		snprintf(buf, size, "-");
	else if (isinf(z))
		snprintf(buf, size, "%s", z > 0 ? "inf" : "-inf");
	else
		snprintf(buf, size, "%.1f", z);
	return buf;
}

/* Per rank, the summed wait and transmit of cluster_analysis.db's ClusterTimeSummary rows
 * (rows sorted by rank): calls fn once per rank that has them. */
static void db_rank_waits(const struct cluster_db *db, void (*fn)(void *, int, int64_t, int64_t), void *ctx)
{
	for (size_t a = 0; a < db->n_rows;) {
		size_t b = a;
		int64_t wait = 0, trans = 0;
		bool any = false;
		for (; b < db->n_rows && db->rows[b].rank == db->rows[a].rank; b++)
			if (db->rows[b].wait_ns >= 0 && db->rows[b].transmit_ns >= 0) {
				wait += db->rows[b].wait_ns;
				trans += db->rows[b].transmit_ns;
				any = true;
			}
		if (any)
			fn(ctx, db->rows[a].rank, wait, trans);
		a = b;
	}
}

static void text_wait_row(void *ctx, int rank, int64_t wait, int64_t trans)
{
	fprintf((FILE *)ctx, "    rank %-5d wait %10.3f ms  transmit %10.3f ms\n", rank, ms(wait), ms(trans));
}

/* What msprof-analyze itself concluded, from its cluster_analysis.db: shown beside our own
 * figures (which come from its rank rows), never merged into them. */
static void text_db(const struct cluster_db *db, FILE *out)
{
	fputs("  msprof-analyze's own results: ", out);
	summary_put_clean(out, db->path);
	fputc('\n', out);
	if (db->rows_table)
		fprintf(out, "    rank rows from %s\n", db->rows_table);
	if (db->has_slow) {
		fputs("    its slow ranks (SlowRank: collectives each one slowed):", out);
		if (!db->n_slow)
			fputs(" none", out);
		for (size_t i = 0; i < db->n_slow; i++)
			fprintf(out, "%s rank %d (%lld)", i ? "," : "", db->slow[i].rank, (long long)db->slow[i].affect_count);
		fputc('\n', out);
	}
	bool waits = false;
	for (size_t i = 0; i < db->n_rows && !waits; i++)
		waits = db->rows[i].wait_ns >= 0;
	if (waits) {
		fputs("    communication wait and transmit per rank (ClusterTimeSummary, summed over steps)\n", out);
		db_rank_waits(db, text_wait_row, out);
	}
	if (db->n_top) {
		fputs("    collectives with the longest mean (HcclTopOpStats)\n"
		      "      count    mean ms     min ms (rank)     max ms (rank)  op\n",
		      out);
		for (size_t i = 0; i < db->n_top && i < TEXT_GROUPS; i++) {
			const struct cluster_db_top *t = &db->top[i];
			fprintf(out, "      %5lld %10.3f %10.3f (%4d) %10.3f (%4d)  ", (long long)t->count, t->mean_ns / 1e6,
				t->min_ns / 1e6, t->min_rank, t->max_ns / 1e6, t->max_rank);
			summary_put_clean(out, t->name);
			fputc('\n', out);
		}
	}
	if (db->n_groups) {
		fputs("    communication groups (CommunicationGroupMapping): type, name, ranks\n", out);
		for (size_t i = 0; i < db->n_groups && i < TEXT_GROUPS; i++) {
			const struct cluster_db_group *g = &db->groups[i];
			fputs("      ", out);
			summary_put_clean(out, g->type);
			fputs("  ", out);
			summary_put_clean(out, g->pg_name[0] ? g->pg_name : g->name);
			fputs("  ", out);
			summary_put_clean(out, g->rank_set);
			fputc('\n', out);
		}
	}
}

static void text_slow(const struct cluster_analysis *ca, FILE *out)
{
	fprintf(out,
		_("  slow ranks: x = own work per step, the median over a rank's steps of\n"
		  "  (%s); over %zu ranks median %.3f ms, MAD %.3f ms; robust z = (x - median) / (1.4826 x MAD);\n"
		  "  slow when z > %.1f and x > %.0f %% over the median\n"),
		_(ca->own_basis), ca->judged, ms(ca->own_median_ns), ms(ca->own_mad_ns), CLUSTER_Z_SLOW,
		CLUSTER_MIN_EXCESS * 100);
	if (ca->judged < 3) {
		fputs(_("    not judged: fewer than 3 ranks with steps\n"), out);
		return;
	}
	if (!ca->n_slow) {
		fputs(_("    no slow rank\n"), out);
		return;
	}
	/* the medians of the evidence across ranks */
	for (size_t r = 0; r < ca->n_ranks; r++) {
		const struct cluster_rank *cr = &ca->ranks[r];
		if (!cr->slow)
			continue;
		char z[32];
		fprintf(out,
			_("    rank %d: own work %.3f ms per step (+%.1f %% over the median, z %s); compute %.3f ms per "
			  "step, waits %.3f ms per step; last to arrive in %zu collectives (the others waited %.3f ms)\n"),
			cr->rank, ms(cr->own_ns), cr->excess * 100, z_text(cr->z, z, sizeof z), ms(cr->compute_ns),
			ms(cr->wait_step_ns), cr->last_count, ms(cr->caused_ns));
	}
}

void report_cluster_text(const struct analysis *an, FILE *out)
{
	const struct cluster_analysis *ca = an->cluster;
	if (!ca)
		return;
	fprintf(out, _("\ncluster: %zu ranks, up to %zu steps, %zu collectives matched across ranks (by name and "
		       "occurrence)\n"),
		ca->n_ranks, ca->n_steps, ca->matched);
	const struct comm_group *big;
	size_t partial = comm_groups_partial(an->comm, &big);
	if (partial)
		fprintf(out, _("  %zu communication group(s) larger than the capture (the largest: group of %zu ranks, %zu "
			       "captured): waits, the rank waited for and slow ranks are judged among the captured ranks; "
			       "a late rank outside the capture is not seen\n"),
			partial, big->n_ranks, big->n_captured);
	char layout[96];
	if (*comm_layout_text(an->comm, layout, sizeof layout))
		/* TRANSLATORS: %s lists tp, dp, pp, ep, dcp with a count each, kept as they are */
		fprintf(out, _("  communication groups by parallel dimension: %s\n"), layout);
	text_slow(ca, out);
	if (ca->waited_rank >= 0)
		fprintf(out, _("  the rank everyone waits for: rank %d (last to arrive in %zu of %zu matched collectives; "
			       "the others waited %.3f ms in them)\n"),
			ca->waited_rank, ca->waited_count, ca->matched, ms(ca->waited_ns));
	if (ca->waited_rank >= 0 && ca->waited_before != BEFORE_UNKNOWN)
		fprintf(out, _("    just before it joined them it was running: %s (%.0f %% of that wait)\n"),
			_(comm_before_name(ca->waited_before)), ca->waited_before_pct);
	if (ca->waited_rank >= 0)
		;
	else if (ca->waited_hidden_rank >= 0)
		fprintf(out, _("  the rank everyone waits for: none (rank %d is last to arrive in %zu of %zu matched "
			       "collectives, but the others' wait for it hides under their compute: %.2f %% of their "
			       "window exposed)\n"),
			ca->waited_hidden_rank, ca->waited_count, ca->matched, ca->waited_exposed_pct);
	else if (ca->waited_count && ca->last_rank >= 0 && ca->waited_count * 2 > ca->matched)
		fprintf(out, _("  the rank everyone waits for: none (rank %d is last to arrive in %zu of %zu matched "
			       "collectives, but the others wait for it under %.0f %% of their window)\n"),
			ca->last_rank, ca->waited_count, ca->matched, 100 * CLUSTER_WAIT_MATTERS);
	else if (ca->last_rank >= 0)
		fprintf(out, _("  the rank everyone waits for: none (the last to arrive changes; most often rank %d, in %zu "
			       "of %zu matched collectives)\n"),
			ca->last_rank, ca->waited_count, ca->matched);
	else
		fputs(_("  the rank everyone waits for: none (no matched collective with a wait)\n"), out);
	if (ca->n_groups) {
		/* not "transfer": the fastest rank's duration may hold a wait every rank shares, and
		 * the attribution's comm_transfer on the same report is another figure */
		fputs(_("  communication groups (fastest = the shortest duration of each collective over the group's\n"
			"  ranks: its transfer plus any wait every rank shares; wait = own duration - fastest)\n"),
		      out);
		fputs("    ", out);
		/* TRANSLATORS: column titles: each keeps the cells of its column */
		fputs(_("group             collectives  ranks    fastest ms       wait ms  wait %  waited for"), out);
		fputc('\n', out);
		for (size_t g = 0; g < ca->n_groups && g < TEXT_GROUPS; g++) {
			const struct cluster_group *cg = &ca->groups[g];
			int64_t all = cg->wait_ns + cg->transfer_ns;
			fputs("    ", out);
			summary_put_clean(out, cg->name);
			int pad = 18 - (int)strlen(cg->name);
			fprintf(out, "%*s%11zu %6zu %13.3f %13.3f %6.1f  ", pad > 0 ? pad : 1, "", cg->collectives,
				cg->n_ranks, ms(cg->transfer_ns), ms(cg->wait_ns),
				all > 0 ? 100.0 * (double)cg->wait_ns / (double)all : 0.0);
			if (cg->waited_rank >= 0)
				fprintf(out, _("rank %d (%zu times)\n"), cg->waited_rank, cg->waited_count);
			else
				fputs("-\n", out);
		}
		if (ca->n_groups > TEXT_GROUPS)
			fprintf(out, _("    ... %zu more groups (see --json)\n"), ca->n_groups - TEXT_GROUPS);
	}
	fputs(_("  ranks (medians per step; totals over the capture)\n"), out);
	fputs("    ", out);
	/* TRANSLATORS: column titles: each keeps the cells of its column */
	fputs(_("rank  steps   step ms    own ms  compute ms  exposed comm ms   wait ms   fastest ms      z  last"), out);
	fputc('\n', out);
	for (size_t r = 0; r < ca->n_ranks; r++) {
		const struct cluster_rank *cr = &ca->ranks[r];
		char z[32];
		fprintf(out, "    %-5d %5zu %9.3f %9.3f %11.3f %16.3f %9.3f %12.3f %6s %5zu%s\n", cr->rank, cr->n_steps,
			ms(cr->step_ns), ms(cr->own_ns), ms(cr->compute_ns), ms(cr->exposed_ns), ms(cr->wait_ns),
			ms(cr->transfer_ns), z_text(cr->z, z, sizeof z), cr->last_count, cr->slow ? _("  SLOW") : "");
	}
	if (ca->n_steps) {
		size_t shown = ca->n_steps < TEXT_STEPS ? ca->n_steps : TEXT_STEPS;
		fprintf(out, _("  ranks x steps: step ms / exposed comm ms / wait ms (the first %zu steps)\n"), shown);
		fputs("    rank ", out);
		for (size_t s = 0; s < shown; s++)
			fprintf(out, " %20zu", s + 1);
		fputc('\n', out);
		for (size_t r = 0; r < ca->n_ranks; r++) {
			fprintf(out, "    %-5d", ca->ranks[r].rank);
			for (size_t s = 0; s < shown; s++) {
				const struct cluster_cell *c = cluster_cell(ca, r, s);
				if (c->dur_ns < 0) {
					fprintf(out, " %20s", "-");
					continue;
				}
				char cell[64];
				snprintf(cell, sizeof cell, "%.2f/%.2f/%.2f", ms(c->dur_ns), ms(c->exposed_ns), ms(c->wait_ns));
				fprintf(out, " %20s", cell);
			}
			fputc('\n', out);
		}
	}
	if (an->cluster_db)
		text_db(an->cluster_db, out);
	if (an->from_cluster_output)
		fputs(_("  (read from msprof-analyze's cluster output: it holds no events; open each rank's own capture "
			"to drill down)\n"),
		      out);
	else if (an->from_digests)
		fputs(_("  (read from digests: the raw events stay in each rank's capture; open it there to drill down)\n"),
		      out);
}



static void json_wait_row(void *ctx, int rank, int64_t wait, int64_t trans)
{
	struct jsonw *w = ctx;
	jsonw_obj_begin(w);
	jsonw_kint(w, "rank", rank);
	jsonw_kus(w, "wait_us", wait);
	jsonw_kus(w, "transmit_us", trans);
	jsonw_obj_end(w);
}

static void json_db(struct jsonw *w, const struct cluster_db *db)
{
	jsonw_key(w, "msprof_analyze_db");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "path", db->path);
	jsonw_kstr(w, "rank_rows_table", db->rows_table);
	jsonw_key(w, "slow_ranks");
	if (!db->has_slow)
		jsonw_null(w);
	else {
		jsonw_arr_begin(w);
		for (size_t i = 0; i < db->n_slow; i++) {
			jsonw_obj_begin(w);
			jsonw_kint(w, "rank", db->slow[i].rank);
			jsonw_kint(w, "slow_affect_count", db->slow[i].affect_count);
			jsonw_obj_end(w);
		}
		jsonw_arr_end(w);
	}
	jsonw_key(w, "rank_waits");
	jsonw_arr_begin(w);
	db_rank_waits(db, json_wait_row, w);
	jsonw_arr_end(w);
	jsonw_key(w, "top_collectives");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < db->n_top; i++) {
		const struct cluster_db_top *t = &db->top[i];
		jsonw_obj_begin(w);
		jsonw_kstr(w, "op", t->name);
		jsonw_kint(w, "count", t->count);
		jsonw_kdouble(w, "mean_us", t->mean_ns / 1e3, 3);
		jsonw_kdouble(w, "min_us", t->min_ns / 1e3, 3);
		jsonw_kdouble(w, "max_us", t->max_ns / 1e3, 3);
		jsonw_kdouble(w, "sum_us", t->sum_ns / 1e3, 3);
		jsonw_kint(w, "min_rank", t->min_rank);
		jsonw_kint(w, "max_rank", t->max_rank);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "groups");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < db->n_groups; i++) {
		const struct cluster_db_group *g = &db->groups[i];
		jsonw_obj_begin(w);
		jsonw_kstr(w, "type", g->type);
		jsonw_kstr(w, "rank_set", g->rank_set);
		jsonw_kstr(w, "group_name", g->name);
		jsonw_kstr(w, "group_id", g->id);
		jsonw_kstr(w, "pg_name", g->pg_name);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

void report_cluster_json(struct jsonw *w, const struct analysis *an)
{
	const struct cluster_analysis *ca = an->cluster;
	jsonw_key(w, "cluster");
	if (!ca) {
		jsonw_null(w);
		return;
	}
	jsonw_obj_begin(w);
	jsonw_kbool(w, "from_digests", an->from_digests);
	jsonw_kuint(w, "ranks_n", ca->n_ranks);
	jsonw_kuint(w, "steps_n", ca->n_steps);
	jsonw_kuint(w, "matched_collectives", ca->matched);
	jsonw_key(w, "slow_rank_rule");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "statistic", ca->own_basis);
	jsonw_kus(w, "median_us", ca->own_median_ns);
	jsonw_kus(w, "mad_us", ca->own_mad_ns);
	jsonw_kdouble_inf(w, "z_above", CLUSTER_Z_SLOW, 2);
	jsonw_kdouble_inf(w, "excess_above", CLUSTER_MIN_EXCESS, 3);
	jsonw_kuint(w, "judged", ca->judged);
	jsonw_obj_end(w);
	jsonw_key(w, "slow_ranks");
	jsonw_arr_begin(w);
	for (size_t r = 0; r < ca->n_ranks; r++)
		if (ca->ranks[r].slow)
			jsonw_int(w, ca->ranks[r].rank);
	jsonw_arr_end(w);
	jsonw_kint_or_null(w, "waited_for_rank", ca->waited_rank, ca->waited_rank >= 0);
	/* what it ran just before joining the collectives the others waited in */
	if (ca->waited_rank >= 0 && ca->waited_before != BEFORE_UNKNOWN) {
		jsonw_kstr(w, "waited_for_before", comm_before_key(ca->waited_before));
		jsonw_kdouble(w, "waited_for_before_pct", ca->waited_before_pct, 1);
	} else {
		jsonw_knull(w, "waited_for_before");
	}
	jsonw_kint_or_null(w, "waited_hidden_rank", ca->waited_hidden_rank, ca->waited_hidden_rank >= 0);
	jsonw_kdouble(w, "waited_exposed_pct", ca->waited_exposed_pct, 2);
	jsonw_kint_or_null(w, "most_often_last_rank", ca->last_rank, ca->last_rank >= 0);
	jsonw_kuint(w, "last_count", ca->waited_count);
	jsonw_kus(w, "last_caused_wait_us", ca->waited_ns);
	jsonw_key(w, "groups");
	jsonw_arr_begin(w);
	for (size_t g = 0; g < ca->n_groups; g++) {
		const struct cluster_group *cg = &ca->groups[g];
		jsonw_obj_begin(w);
		jsonw_kstr(w, "group", cg->name);
		jsonw_kuint(w, "collectives", cg->collectives);
		jsonw_kuint(w, "ranks", cg->n_ranks);
		jsonw_kus(w, "transfer_us", cg->transfer_ns);
		jsonw_kus(w, "wait_us", cg->wait_ns);
		jsonw_kint_or_null(w, "waited_for_rank", cg->waited_rank, cg->waited_rank >= 0);
		jsonw_kuint(w, "waited_for_count", cg->waited_count);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "ranks");
	jsonw_arr_begin(w);
	for (size_t r = 0; r < ca->n_ranks; r++) {
		const struct cluster_rank *cr = &ca->ranks[r];
		const struct rank_analysis *ra = &an->ranks[r];
		jsonw_obj_begin(w);
		jsonw_kint(w, "rank", cr->rank);
		jsonw_kstr(w, "capture", an->cap->ranks[ra->rank_index].plan->output_dir);
		jsonw_kuint(w, "steps", cr->n_steps);
		jsonw_kus(w, "step_us", cr->step_ns);
		jsonw_kus(w, "own_us", cr->own_ns);
		jsonw_kus(w, "compute_us", cr->compute_ns);
		jsonw_kus(w, "wait_per_step_us", cr->wait_step_ns);
		jsonw_kus(w, "exposed_comm_us", cr->exposed_ns);
		jsonw_kus(w, "wait_us", cr->wait_ns);
		jsonw_kus(w, "transfer_us", cr->transfer_ns);
		jsonw_kdouble_inf(w, "z", cr->z, 3);
		jsonw_kdouble_inf(w, "excess", cr->excess, 4);
		jsonw_kbool(w, "slow", cr->slow);
		jsonw_kuint(w, "last_count", cr->last_count);
		jsonw_kus(w, "caused_wait_us", cr->caused_ns);
		jsonw_key(w, "per_step"); /* [step_us, exposed_comm_us, wait_us] */
		jsonw_arr_begin(w);
		for (size_t s = 0; s < cr->n_steps && s < ca->n_steps; s++) {
			const struct cluster_cell *c = cluster_cell(ca, r, s);
			jsonw_arr_begin(w);
			jsonw_double(w, (double)c->dur_ns / 1e3, 3);
			jsonw_double(w, (double)c->exposed_ns / 1e3, 3);
			jsonw_double(w, (double)c->wait_ns / 1e3, 3);
			jsonw_arr_end(w);
		}
		jsonw_arr_end(w);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	if (an->cluster_db)
		json_db(w, an->cluster_db);
	jsonw_obj_end(w);
}
