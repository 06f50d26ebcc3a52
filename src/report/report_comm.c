/* SPDX-License-Identifier: MIT */
/* The communication section of the reports: groups and ops, transports against their
 * reference figures, slow links and a text heatmap of each group's matrix. Times are ms,
 * as in the communication files; sizes MB; bandwidths GB/s. */
#include "i18n.h"
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "comm_split.h"
#include "jsonw.h"
#include "sanitize.h"
#include "sbuf.h"
#include "summary.h"
#include "xalloc.h"

#define TEXT_OPS 40
#define TEXT_SLOW 20
#define TEXT_GROUPS 4
#define TEXT_MATRIX_RANKS 32
#define TEXT_NUMBER_RANKS 12 /* above this a heatmap cell is its glyph alone */
#define JSON_LINKS 10000

static double ms(int64_t ns) { return (double)ns / 1e6; }

/* "%*.*f", or "-" right-aligned in the same width when v is not a number. */
static void put_num(FILE *out, int width, int decimals, double v)
{
	if (isfinite(v))
		fprintf(out, " %*.*f", width, decimals, v);
	else
		fprintf(out, " %*s", width, "-");
}

static void put_name(FILE *out, const char *s, int width)
{
	struct sbuf sb = SBUF_INIT;
	sanitize_append(&sb, s, strlen(s));
	fprintf(out, "%-*.*s", width, width, sbuf_str(&sb));
	sbuf_free(&sb);
}

static void text_ops(const struct comm_analysis *ca, FILE *out)
{
	fputs(_("\n  groups and ops, summed over steps and ranks (times ms, sizes MB, bandwidth GB/s)\n"), out);
	/* TRANSLATORS: column titles: each keeps the cells of its column */
	fputs(_("    group                 kind        op                ranks steps count  elapse ms transit ms"
	      "    wait ms    sync ms    idle ms   wait   sync    size MB     GB/s small %\n"),
	      out);
	for (size_t i = 0; i < ca->n_ops && i < TEXT_OPS; i++) {
		const struct comm_opagg *o = &ca->ops[i];
		fputs("    ", out);
		put_name(out, o->group, 21);
		fprintf(out, " %-11s ", comm_kind_name((enum comm_kind)o->kind));
		put_name(out, o->type, 16);
		fprintf(out, " %6zu %5zu %5zu", o->n_ranks, o->n_steps, o->count);
		for (int t = 0; t < COMM_T_COUNT; t++)
			put_num(out, 10, 3, ms(o->t[t]));
		put_num(out, 6, 3, o->wait_ratio);
		put_num(out, 6, 3, o->sync_ratio);
		put_num(out, 10, 3, o->size_mb);
		put_num(out, 8, 3, o->bw_gbps);
		put_num(out, 7, 1, o->small_pct);
		fputc('\n', out);
	}
	if (ca->n_ops > TEXT_OPS)
		fprintf(out, _("    ... %zu more (see --json)\n"), ca->n_ops - TEXT_OPS);
}

/* A transport's figures, in the order both reports give them: the text's column (width and
 * decimals) and the JSON's key (decimals). */
struct tr_field {
	const char *key;
	enum {
		TRF_NUM,   /* "-" in the text where not a number */
		TRF_FIXED, /* always a number */
		TRF_COUNT, /* a whole count */
		TRF_SHARE, /* a fraction: the text shows it as a percentage, "%" after */
	} kind;
	int width, text_decimals, json_decimals;
	double (*get)(const struct comm_tstat *s, int t);
};

static double trf_size(const struct comm_tstat *s, int t) { return s->size_mb; }
static double trf_time(const struct comm_tstat *s, int t) { return ms(s->time_ns); }
static double trf_bw(const struct comm_tstat *s, int t) { return s->bw_gbps; }
static double trf_ref(const struct comm_tstat *s, int t) { return comm_refs[t].gbps > 0 ? comm_refs[t].gbps : NAN; }
static double trf_util(const struct comm_tstat *s, int t) { return s->util; }
static double trf_entries(const struct comm_tstat *s, int t) { return (double)s->entries; }
static double trf_packets(const struct comm_tstat *s, int t) { return s->packets; }
static double trf_small(const struct comm_tstat *s, int t)
{
	return s->packets > 0 ? 100 * s->small_packets / s->packets : NAN;
}
static double trf_large(const struct comm_tstat *s, int t)
{
	return s->packets > 0 && comm_refs[t].large_mb > 0 ? 100 * s->large_packets / s->packets : NAN;
}

static const struct tr_field tr_fields[] = {
	{"size_mb", TRF_NUM, 10, 3, 6, trf_size},
	{"time_ms", TRF_NUM, 11, 3, 6, trf_time},
	{"bandwidth_gbps", TRF_NUM, 8, 3, 4, trf_bw},
	{"reference_gbps", TRF_NUM, 9, 1, 2, trf_ref},
	{"of_reference", TRF_SHARE, 6, 1, 4, trf_util},
	{"entries", TRF_COUNT, 8, 0, 0, trf_entries},
	{"packets", TRF_FIXED, 9, 0, 0, trf_packets},
	{"small_packet_pct", TRF_NUM, 8, 1, 3, trf_small},
	{"large_packet_pct", TRF_NUM, 8, 1, 3, trf_large},
};
#define N_TR_FIELDS (sizeof tr_fields / sizeof tr_fields[0])

static void text_transports(const struct comm_analysis *ca, FILE *out)
{
	fputs(_("\n  transports, all ranks (SDMA is the sum of HCCS, PCIE and SIO; reference figures: man page)\n"), out);
	/* TRANSLATORS: column titles: each keeps the cells of its column */
	fputs(_("    transport    size MB     time ms     GB/s  ref GB/s  of ref  entries   packets  small %  large %\n"), out);
	for (int t = 0; t < COMM_TR_COUNT; t++) {
		const struct comm_tstat *s = &ca->tr[t];
		if (!s->entries)
			continue;
		fprintf(out, "    %-9s", comm_transport_name((enum comm_transport)t));
		for (size_t k = 0; k < N_TR_FIELDS; k++) {
			const struct tr_field *f = &tr_fields[k];
			double v = f->get(s, t);
			if (f->kind == TRF_COUNT)
				fprintf(out, " %*zu", f->width, (size_t)v);
			else if (f->kind == TRF_FIXED)
				fprintf(out, " %*.*f", f->width, f->text_decimals, v);
			else if (f->kind == TRF_SHARE) {
				put_num(out, f->width, f->text_decimals, 100 * v);
				fputs(isfinite(v) ? "%" : " ", out);
			} else
				put_num(out, f->width, f->text_decimals, v);
		}
		fputc('\n', out);
	}
}

static void text_slow(const struct comm_analysis *ca, FILE *out)
{
	fprintf(out, _("\n  links: %zu in %zu group(s); %zu slow (below %.1f x the median of their group and transport, "
		"%d links or more)\n"),
		ca->n_links, ca->n_groups, ca->n_slow, COMM_SLOW_LINK_FACTOR, COMM_SLOW_LINK_MIN);
	size_t shown = 0;
	for (size_t i = 0; i < ca->n_links && shown < TEXT_SLOW; i++) {
		const struct comm_linkagg *l = &ca->links[i];
		if (!l->slow)
			continue;
		fputs("    ", out);
		put_name(out, l->group, 21);
		fprintf(out, _(" %d -> %d %-5s %8.3f GB/s, median %.3f GB/s, %.3f MB in %.3f ms\n"), l->src, l->dst,
			comm_transport_name((enum comm_transport)l->transport), l->bw_gbps, l->median_gbps, l->size_mb,
			ms(l->time_ns));
		shown++;
	}
	if (ca->n_slow > shown)
		fprintf(out, _("    ... %zu more (see --json)\n"), ca->n_slow - shown);
}

static void text_heatmap(const struct comm_analysis *ca, const struct comm_group *g, FILE *out)
{
	size_t n = g->n_ranks < TEXT_MATRIX_RANKS ? g->n_ranks : TEXT_MATRIX_RANKS;
	bool numbers = n <= TEXT_NUMBER_RANKS;
	fputs(_("\n  matrix of "), out);
	put_name(out, g->name, (int)strlen(g->name));
	fprintf(out, _(" (%s, %zu links; GB/s from the row's rank to the column's)\n"), comm_kind_name((enum comm_kind)g->kind),
		g->n_links);
	if (g->parallel >= 0)
		/* TRANSLATORS: %s is tp, dp, pp, ep or dcp, kept as it is */
		fprintf(out, _("    %s group of %zu ranks, %zu captured\n"), parallel_dim_name((enum parallel_dim)g->parallel),
			g->n_ranks, g->n_captured);
	else
		fprintf(out, _("    group of %zu ranks, %zu captured\n"), g->n_ranks, g->n_captured);
	bool mapped = false;
	for (size_t i = 0; i < n; i++)
		mapped |= g->global[i] >= 0 && g->global[i] != g->ranks[i];
	if (mapped) {
		fputs(_("    ids are local to the group:"), out);
		const char *sep = " ";
		for (size_t i = 0; i < n; i++)
			if (g->global[i] >= 0) {
				fprintf(out, _("%s%d = rank %d"), sep, g->ranks[i], g->global[i]);
				sep = ", ";
			}
		fputc('\n', out);
	}
	fputs(_("    src\\dst"), out);
	for (size_t c = 0; c < n; c++)
		fprintf(out, numbers ? " %6d" : " %2d", g->ranks[c]);
	fputc('\n', out);
	size_t empty = 0;
	struct sbuf line = SBUF_INIT;
	for (size_t r = 0; r < n; r++) {
		/* a row is what one rank sent: absent when its matrix file is */
		bool any = false;
		sbuf_reset(&line);
		sbuf_addf(&line, "    %7d", g->ranks[r]);
		for (size_t c = 0; c < n; c++) {
			const struct comm_linkagg *l = comm_group_link(ca, g, g->ranks[r], g->ranks[c]);
			any |= l != NULL;
			char glyph = !l ? ' ' : l->slow ? '!' : l->transport == COMM_TR_LOCAL ? 'L'
								: comm_heat_ascii[comm_heat_level(l)];
			if (!numbers)
				sbuf_addf(&line, "  %c", glyph);
			else if (!l || isnan(l->bw_gbps))
				sbuf_addf(&line, "  %5s", l ? "?" : "");
			else
				sbuf_addf(&line, l->bw_gbps < 999.95 ? " %c%5.1f" : " %c%5.0f", glyph, l->bw_gbps);
		}
		if (!any) {
			empty++;
			continue;
		}
		while (line.len && line.buf[line.len - 1] == ' ')
			line.buf[--line.len] = '\0';
		fprintf(out, "%s\n", sbuf_str(&line));
	}
	sbuf_free(&line);
	if (empty)
		fprintf(out, _("    (%zu rank(s) without a row: no link from them is in these files)\n"), empty);
	if (g->n_ranks > n)
		fprintf(out, _("    ... %zu more ranks (see --json)\n"), g->n_ranks - n);
}

void report_comm_text(const struct analysis *an, FILE *out)
{
	const struct comm_analysis *ca = an->comm;
	if (!ca || !ca->present)
		return;
	fputs(_("\n== communication: "), out);
	summary_put_clean(out, ca->source);
	fputs(" ==\n", out);
	if (ca->entries) {
		fprintf(out, _("  %zu rank(s), %zu step(s), %zu entries; all ranks: wait ratio"), ca->n_ranks, ca->steps,
			ca->entries);
		put_num(out, 0, 3, ca->wait_ratio);
		fputs(_(", sync ratio"), out);
		put_num(out, 0, 3, ca->sync_ratio);
		fputs(_(", small packets (< 1 MB)"), out);
		put_num(out, 0, 1, ca->small_pct);
		fprintf(out, _(" %%, %zu slow link(s)\n"), ca->n_slow);
		fputs(_("  wait ratio = wait / (wait + transit), sync ratio = synchronization / (synchronization + transit)\n"),
		      out);
	} else {
		fprintf(out, _("  no time entries, links only; %zu slow link(s)\n"), ca->n_slow);
	}
	if (ca->n_ops) {
		text_ops(ca, out);
		text_transports(ca, out);
	}
	if (ca->n_links) {
		text_slow(ca, out);
		/* the groups with the most links first */
		const struct comm_group **order = xmalloc((ca->n_groups ? ca->n_groups : 1) * sizeof *order);
		for (size_t i = 0; i < ca->n_groups; i++) {
			size_t j = i;
			while (j > 0 && order[j - 1]->n_links < ca->groups[i].n_links) {
				order[j] = order[j - 1];
				j--;
			}
			order[j] = &ca->groups[i];
		}
		for (size_t i = 0; i < ca->n_groups && i < TEXT_GROUPS; i++)
			text_heatmap(ca, order[i], out);
		if (ca->n_groups > TEXT_GROUPS)
			fprintf(out, _("\n  ... %zu more group(s) (see --json)\n"), ca->n_groups - TEXT_GROUPS);
		fputs(_("  legend: "), out);
		fputs(_(comm_heat_legend), out);
		fputc('\n', out);
		free(order);
	}
}

/* ---- JSON ------------------------------------------------------------------------------ */

static void json_times(struct jsonw *w, const int64_t t[COMM_T_COUNT])
{
	static const char *const keys[COMM_T_COUNT] = {"elapse_ms", "transit_ms", "wait_ms", "sync_ms", "idle_ms"};
	for (int k = 0; k < COMM_T_COUNT; k++)
		jsonw_kdouble(w, keys[k], ms(t[k]), 6);
}

static void json_transports(struct jsonw *w, const struct comm_tstat tr[COMM_TR_COUNT])
{
	jsonw_key(w, "transports");
	jsonw_arr_begin(w);
	for (int t = 0; t < COMM_TR_COUNT; t++) {
		const struct comm_tstat *s = &tr[t];
		if (!s->entries)
			continue;
		jsonw_obj_begin(w);
		jsonw_kstr(w, "transport", comm_transport_name((enum comm_transport)t));
		for (size_t k = 0; k < N_TR_FIELDS; k++) {
			const struct tr_field *f = &tr_fields[k];
			if (f->kind == TRF_COUNT)
				jsonw_kuint(w, f->key, (uint64_t)f->get(s, t));
			else
				jsonw_kdouble(w, f->key, f->get(s, t), f->json_decimals);
		}
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static void json_reference(struct jsonw *w)
{
	jsonw_key(w, "reference");
	jsonw_arr_begin(w);
	for (int t = 0; t < COMM_TR_COUNT; t++) {
		jsonw_obj_begin(w);
		jsonw_kstr(w, "transport", comm_transport_name((enum comm_transport)t));
		jsonw_kdouble(w, "gbps", comm_refs[t].gbps > 0 ? comm_refs[t].gbps : NAN, 2);
		jsonw_kdouble(w, "large_packet_mb", comm_refs[t].large_mb > 0 ? comm_refs[t].large_mb : NAN, 2);
		jsonw_kstr(w, "basis", comm_refs[t].basis);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static void json_ops(struct jsonw *w, const struct comm_analysis *ca)
{
	jsonw_key(w, "ops");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < ca->n_ops; i++) {
		const struct comm_opagg *o = &ca->ops[i];
		jsonw_obj_begin(w);
		jsonw_kstr(w, "group", o->group);
		jsonw_kstr(w, "kind", comm_kind_name((enum comm_kind)o->kind));
		jsonw_kstr(w, "type", o->type);
		jsonw_kuint(w, "count", o->count);
		jsonw_kuint(w, "ranks", o->n_ranks);
		jsonw_kuint(w, "steps", o->n_steps);
		json_times(w, o->t);
		jsonw_kdouble(w, "wait_ratio", o->wait_ratio, 4);
		jsonw_kdouble(w, "sync_ratio", o->sync_ratio, 4);
		jsonw_kdouble(w, "size_mb", o->size_mb, 6);
		jsonw_kdouble(w, "bandwidth_gbps", o->bw_gbps, 4);
		jsonw_kdouble(w, "packets", o->packets, 0);
		jsonw_kdouble(w, "small_packet_pct", o->small_pct, 3);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static void json_ranks(struct jsonw *w, const struct comm_analysis *ca)
{
	jsonw_key(w, "ranks");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < ca->n_ranks; i++) {
		const struct comm_rank_stat *r = &ca->ranks[i];
		jsonw_obj_begin(w);
		jsonw_kint(w, "rank", r->rank);
		jsonw_kuint(w, "entries", r->entries);
		json_times(w, r->t);
		jsonw_kdouble(w, "wait_ratio", comm_ratio(r->t[COMM_T_WAIT], r->t[COMM_T_TRANSIT]), 4);
		jsonw_kdouble(w, "sync_ratio", comm_ratio(r->t[COMM_T_SYNC], r->t[COMM_T_TRANSIT]), 4);
		jsonw_kdouble(w, "size_mb", r->size_mb, 6);
		jsonw_kdouble(w, "small_packet_pct", r->packets > 0 ? 100 * r->small_packets / r->packets : NAN, 3);
		jsonw_kuint(w, "slow_links", comm_slow_links_of(ca, r->rank));
		json_transports(w, r->tr);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static void json_links(struct jsonw *w, const struct comm_analysis *ca)
{
	jsonw_key(w, "links");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < ca->n_links && i < JSON_LINKS; i++) {
		const struct comm_linkagg *l = &ca->links[i];
		jsonw_obj_begin(w);
		jsonw_kstr(w, "group", l->group);
		jsonw_kint(w, "src", l->src);
		jsonw_kint(w, "dst", l->dst);
		jsonw_kstr(w, "transport", comm_transport_name((enum comm_transport)l->transport));
		jsonw_kdouble(w, "size_mb", l->size_mb, 6);
		jsonw_kdouble(w, "time_ms", ms(l->time_ns), 6);
		jsonw_kdouble(w, "bandwidth_gbps", l->bw_gbps, 4);
		jsonw_kdouble(w, "median_gbps", l->median_gbps, 4);
		jsonw_kbool(w, "slow", l->slow);
		jsonw_kint(w, "rank", comm_link_owner(l));
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_kuint(w, "links_total", ca->n_links);
	jsonw_key(w, "groups");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < ca->n_groups; i++) {
		const struct comm_group *g = &ca->groups[i];
		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", g->name);
		jsonw_kstr(w, "kind", comm_kind_name((enum comm_kind)g->kind));
		jsonw_kuint(w, "links", g->n_links);
		jsonw_kuint(w, "ranks_in_group", g->n_ranks);
		jsonw_kuint(w, "ranks_captured", g->n_captured);
		if (g->parallel >= 0)
			jsonw_kstr(w, "parallel", parallel_dim_name((enum parallel_dim)g->parallel));
		else
			jsonw_knull(w, "parallel");
		jsonw_key(w, "ranks");
		jsonw_arr_begin(w);
		for (size_t k = 0; k < g->n_ranks; k++)
			jsonw_int(w, g->ranks[k]);
		jsonw_arr_end(w);
		jsonw_key(w, "global_ranks");
		jsonw_arr_begin(w);
		for (size_t k = 0; k < g->n_ranks; k++)
			if (g->global[k] >= 0)
				jsonw_int(w, g->global[k]);
			else
				jsonw_null(w);
		jsonw_arr_end(w);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

void report_comm_json(struct jsonw *w, const struct analysis *an)
{
	const struct comm_analysis *ca = an->comm;
	jsonw_key(w, "communication");
	if (!ca || !ca->present) {
		jsonw_null(w);
		return;
	}
	jsonw_obj_begin(w);
	jsonw_kstr(w, "source", ca->source);
	jsonw_kbool(w, "from_cluster", ca->from_cluster);
	jsonw_key(w, "units");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "time", "ms");
	jsonw_kstr(w, "size", "MB");
	jsonw_kstr(w, "bandwidth", "GB/s");
	jsonw_obj_end(w);
	jsonw_kdouble(w, "small_packet_mb", COMM_SMALL_PACKET_MB, 3);
	jsonw_kdouble(w, "slow_link_factor", COMM_SLOW_LINK_FACTOR, 3);
	jsonw_kint(w, "slow_link_min_links", COMM_SLOW_LINK_MIN);
	json_reference(w);
	jsonw_kuint(w, "entries", ca->entries);
	jsonw_kuint(w, "steps", ca->steps);
	json_times(w, ca->t);
	jsonw_kdouble(w, "wait_ratio", ca->wait_ratio, 4);
	jsonw_kdouble(w, "sync_ratio", ca->sync_ratio, 4);
	jsonw_kdouble(w, "small_packet_pct", ca->small_pct, 3);
	jsonw_kuint(w, "slow_links", ca->n_slow);
	json_ops(w, ca);
	json_transports(w, ca->tr);
	json_ranks(w, ca);
	json_links(w, ca);
	jsonw_obj_end(w);
}

/* ---- the collectives named on their own ------------------------------------------------ */

static const char *outlier_split_by(const struct coll_outlier *o)
{
	return o->source == 1 ? "communication.json" : o->source == 2 ? "peers" : "none";
}

void report_outliers_text(const struct rank_analysis *ra, FILE *out)
{
	if (!ra->n_outliers)
		return;
	fprintf(out, _("  collectives named on their own (%.0f %% of the window or more, %.0f x their kind's median):\n"),
		COMM_OUTLIER_PCT, COMM_OUTLIER_FACTOR);
	const struct attribution *a = &ra->attr;
	for (size_t i = 0; i < ra->n_outliers; i++) {
		const struct coll_outlier *o = &ra->outliers[i];
		fputs("    ", out);
		summary_put_clean(out, o->name ? o->name : "");
		fprintf(out, _(" at %.3f ms: %.3f ms exposed, %.1f %% of the window (setup %.1f %%, waiting for a peer "
			       "%.1f %%, transfer %.1f %%, unsplit %.1f %%)%s\n"),
			(double)(o->start - ra->t0) / 1e6, (double)o->exposed_ns / 1e6, attribution_pct(a, o->exposed_ns),
			attribution_pct(a, o->part_ns[2]), attribution_pct(a, o->part_ns[0]), attribution_pct(a, o->part_ns[1]),
			attribution_pct(a, o->part_ns[3]), o->first_in_group ? _("; its group's first collective") : "");
	}
}

void report_outliers_json(struct jsonw *w, const struct rank_analysis *ra)
{
	jsonw_key(w, "collective_outliers");
	jsonw_arr_begin(w);
	const struct attribution *a = &ra->attr;
	for (size_t i = 0; i < ra->n_outliers; i++) {
		const struct coll_outlier *o = &ra->outliers[i];
		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", o->name ? o->name : "");
		jsonw_kus(w, "start_us", o->start - ra->t0);
		jsonw_kus(w, "end_us", o->end - ra->t0);
		jsonw_kus(w, "exposed_us", o->exposed_ns);
		jsonw_kdouble(w, "share_pct", attribution_pct(a, o->exposed_ns), 2);
		jsonw_kus(w, "comm_wait_us", o->part_ns[0]);
		jsonw_kus(w, "comm_transfer_us", o->part_ns[1]);
		jsonw_kus(w, "comm_setup_us", o->part_ns[2]);
		jsonw_kus(w, "comm_unsplit_us", o->part_ns[3]);
		jsonw_kbool(w, "first_in_group", o->first_in_group);
		jsonw_kstr(w, "split_by", outlier_split_by(o));
		jsonw_kint_or_null(w, "last_rank", o->last_rank, o->last_rank >= 0);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}
