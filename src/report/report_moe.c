/* SPDX-License-Identifier: MIT */
/* The report's MoE section (moe.h): per rank tokens, grouped-matmul time, dispatch and
 * combine with their waits, the hot rank and the verdict; JSON `moe` (null, and why, when
 * the capture has no MoE layers). */
#include "config.h"

#include "i18n.h"
#include "jsonw.h"
#include "moe.h"
#include "report.h"
#include "result.h"

static const char *const moe_phase_keys[3] = {"prefill", "decode", "mixed"};

/* Where the tokens came from (enum moe_tok_src), as JSON keeps it and as the text says it. */
static const char *const moe_tokens_from_keys[4] = {"gmm_us (time as the proxy)", "kernel_details Input Shapes",
                                                    "trace Input Dims", "kernel_details Input Shapes, else trace Input Dims"};
static const char *const moe_tokens_from_text[4] = {
	N_("unknown (no shapes): grouped-matmul time stands in"), N_("from GroupedMatmul shapes"),
	N_("from the Input Dims of the host ops that launch GroupedMatmul"),
	N_("from GroupedMatmul shapes, else the launching host ops' Input Dims")};

static void moe_ranks_json(struct jsonw *w, const struct moe_rank_fig *f, size_t n)
{
	jsonw_arr_begin(w);
	for (size_t i = 0; i < n; i++) {
		if (!f[i].layers)
			continue;
		jsonw_obj_begin(w);
		jsonw_kint(w, "rank", f[i].rank);
		jsonw_kuint(w, "layers", f[i].layers);
		jsonw_kint_or_null(w, "tokens", f[i].tokens, f[i].tokens >= 0);
		jsonw_kus(w, "gmm_us", f[i].gmm_ns);
		jsonw_kus(w, "dispatch_us", f[i].dispatch_ns);
		jsonw_kus(w, "combine_us", f[i].combine_ns);
		jsonw_kus(w, "dispatch_wait_us", f[i].dispatch_wait_ns);
		jsonw_kus(w, "combine_wait_us", f[i].combine_wait_ns);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static void moe_worst_json(struct jsonw *w, const struct moe_analysis *m)
{
	jsonw_key(w, "worst_layers");
	jsonw_arr_begin(w);
	for (size_t k = 0; k < m->n_worst; k++) {
		size_t l = m->worst[k];
		int64_t cw = 0, dw = 0;
		jsonw_obj_begin(w);
		jsonw_kuint(w, "layer", l);
		for (size_t i = 0; i < m->n_ranks; i++) {
			cw += m->cells[i * m->n_layers + l].combine_wait_ns;
			dw += m->cells[i * m->n_layers + l].dispatch_wait_ns;
		}
		jsonw_kus(w, "combine_wait_us", cw);
		jsonw_kus(w, "dispatch_wait_us", dw);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

void report_moe_json(struct jsonw *w, const struct analysis *an)
{
	const struct moe_analysis *m = an->moe;
	if (!m || !m->present) {
		jsonw_knull(w, "moe");
		jsonw_kstr(w, "moe_absent", m ? m->why : "not analysed");
		return;
	}
	jsonw_key(w, "moe");
	jsonw_obj_begin(w);
	jsonw_kuint(w, "layers", m->n_layers);
	jsonw_kint_or_null(w, "hot_rank", m->hot_rank, m->hot_rank >= 0);
	jsonw_kdouble(w, "imbalance", m->imbalance, 3);
	jsonw_kstr(w, "imbalance_of", m->tokens_known ? "tokens" : "gmm_us (no GroupedMatmul shapes: time as the proxy)");
	jsonw_kstr(w, "tokens_from", moe_tokens_from_keys[m->tokens_known ? m->tokens_from & 3 : MOE_TOK_NONE]);
	if (m->verdict)
		jsonw_kstr(w, "verdict", m->verdict);
	else
		jsonw_knull(w, "verdict");
	jsonw_key(w, "ranks");
	moe_ranks_json(w, m->ranks, m->n_ranks);
	moe_worst_json(w, m);
	jsonw_key(w, "by_phase");
	jsonw_arr_begin(w);
	for (int p = 0; p < 3; p++) {
		if (!m->phase_seen[p])
			continue;
		jsonw_obj_begin(w);
		jsonw_kstr(w, "phase", moe_phase_keys[p]);
		jsonw_key(w, "ranks");
		moe_ranks_json(w, &m->by_phase[(size_t)p * m->n_ranks], m->n_ranks);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

void report_moe_text(const struct analysis *an, FILE *out)
{
	const struct moe_analysis *m = an->moe;
	if (!m || !m->present)
		return;
	fprintf(out, _("\nMoE: %zu layer(s) per step; tokens %s\n"), m->n_layers,
	        _(moe_tokens_from_text[m->tokens_known ? m->tokens_from & 3 : MOE_TOK_NONE]));
	fputs(_("  rank   tokens      gmm ms  dispatch ms  (wait)  combine ms  (wait)\n"), out);
	for (size_t i = 0; i < m->n_ranks; i++) {
		const struct moe_rank_fig *f = &m->ranks[i];
		if (!f->layers)
			continue;
		char tok[32];
		if (f->tokens >= 0)
			snprintf(tok, sizeof tok, "%lld", (long long)f->tokens);
		else
			snprintf(tok, sizeof tok, "n/a");
		fprintf(out, "  %4d %8s %11.3f %12.3f %7.3f %11.3f %7.3f\n", f->rank, tok, (double)f->gmm_ns / 1e6,
		        (double)f->dispatch_ns / 1e6, (double)f->dispatch_wait_ns / 1e6, (double)f->combine_ns / 1e6,
		        (double)f->combine_wait_ns / 1e6);
	}
	if (m->verdict)
		fprintf(out, "  %s\n", m->verdict);
	else if (m->hot_rank >= 0)
		fprintf(out, _("  experts balanced: the most loaded rank (%d) takes %.2f x the median\n"), m->hot_rank,
		        m->imbalance);
}
