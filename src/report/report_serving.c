/* SPDX-License-Identifier: MIT */
/* The report's serving section (service.h): requests, batches, forwards, KV cache, as MS
 * Service Profiler output gives them; a figure the output lacks is n/a (JSON null) with
 * the reason. */
#include "config.h"

#include "i18n.h"
#include "jsonw.h"
#include "report.h"
#include "serving.h"
#include "service.h"
#include "summary.h"

static double service_ms(int64_t ns) { return (double)ns / 1e6; }

static void serving_dist_text(FILE *out, const char *label, const struct service_dist *d, bool ms)
{
	fprintf(out, "  %-22s", label);
	if (!d->valid) {
		fprintf(out, _("n/a: %s\n"), _(d->why));
		return;
	}
	if (ms)
		fprintf(out, _("p50 %.3f  p90 %.3f  p99 %.3f  max %.3f ms  (%zu)\n"), service_ms(d->p50),
			service_ms(d->p90), service_ms(d->p99), service_ms(d->max), d->n);
	else
		fprintf(out, _("p50 %lld  p90 %lld  p99 %lld  max %lld  (%zu)\n"), (long long)d->p50, (long long)d->p90,
			(long long)d->p99, (long long)d->max, d->n);
}

static const char *const serving_ttft_keys[4] = {"queue_wait", "prefill_execution", "scheduling", "other"};
static const char *const serving_tpot_keys[4] = {"decode_execution", "prefill_between", "bubbles", NULL};

static void serving_bound_text(FILE *out, const char *what, const char *of, const struct service_bound *b,
			       const char *const names[4])
{
	fprintf(out, _("  what bounds %-9s "), what);
	if (b->valid)
		fprintf(out, _("%s: %.0f %% of %s (%.3f ms)"), _(b->part), b->share_pct, _(of), service_ms(b->median));
	else
		fprintf(out, _("no verdict: %s"), _(b->why));
	if (b->median > 0) {
		fputs(";", out);
		const char *sep = "";
		for (int i = 0; i < 4; i++)
			if (names[i] && b->parts[i] >= 0) {
				fprintf(out, "%s %s %.3f ms", sep, _(names[i]), service_ms(b->parts[i]));
				sep = ",";
			}
	}
	fputc('\n', out);
}

void report_serving_text(const struct analysis *an, FILE *out)
{
	const struct service_analysis *sa = an->service;
	if (!sa)
		return;
	fprintf(out, _("\nserving (MS Service Profiler, %s): "), serving_gen_name(sa->gen));
	summary_put_clean(out, sa->path);
	fputc('\n', out);
	if (sa->requests_valid)
		fprintf(out, _("  requests              %zu (from the %s)\n"), sa->requests, _(sa->requests_from));
	else
		fputs(_("  requests              n/a: no request table or httpReq spans\n"), out);
	serving_dist_text(out, _("time to first token"), &sa->ttft, true);
	serving_dist_text(out, _("time per output token"), &sa->tpot, true);
	serving_dist_text(out, _("end to end"), &sa->e2e, true);
	serving_dist_text(out, _("queue wait"), &sa->queue, true);
	if (sa->batches_valid) {
		fprintf(out, _("  batches executed      %zu prefill, %zu decode, %zu mixed, %zu of no type; %zu formed\n"),
			sa->batches[SBT_PREFILL], sa->batches[SBT_DECODE], sa->batches[SBT_MIXED],
			sa->batches[SBT_UNKNOWN], sa->schedules);
		fprintf(out, _("  forming / executing   %.3f / %.3f ms\n"), service_ms(sa->sched_ns), service_ms(sa->exec_ns));
		serving_dist_text(out, _("batch size"), &sa->batch_size, false);
	} else {
		fprintf(out, _("  batches               n/a: %s\n"), _(sa->batches_why));
	}
	if (sa->forwards_valid)
		fprintf(out, _("  forwards              %zu; bubbles %.3f ms in all (%.1f %% of %.3f ms), largest %.3f ms\n"),
			sa->forwards, service_ms(sa->bubble_ns), sa->bubble_pct, service_ms(sa->window_ns),
			service_ms(sa->bubble_max_ns));
	else
		fprintf(out, _("  forwards              n/a: %s\n"), _(sa->forwards_why));
	if (sa->kv_valid)
		fprintf(out, _("  KV cache usage        peak %.1f %%, %.3f ms into the window\n"), sa->kv_max_pct,
			service_ms(sa->kv_max_at - sa->first_ns));
	if (sa->queue_valid)
		fprintf(out, _("  queues                at most %.0f waiting, %.0f running\n"), sa->waiting_max,
			sa->running_max);
	serving_bound_text(out, "TTFT", N_("the median TTFT"), &sa->ttft_bound, service_ttft_parts);
	serving_bound_text(out, "TPOT", N_("the time per token-making forward"), &sa->tpot_bound, service_tpot_parts);
	const struct serving *sv = an->cap->serving;
	if (sa->worst_request != SIZE_MAX && sv)
		fprintf(out, _("  worst request         request.csv line %u: TTFT %.3f ms, queue %.3f ms\n"),
			sv->req[sa->worst_request].line, service_ms(sv->req[sa->worst_request].ttft_ns),
			sv->req[sa->worst_request].queue_ns == SERVING_NONE_NS ? 0.0
										: service_ms(sv->req[sa->worst_request].queue_ns));
	if (sa->worst_forward != SIZE_MAX && sv)
		fprintf(out, _("  longest bubble        before forward %zu: %.3f ms\n"), sa->worst_forward + 1,
			service_ms(sv->fwd[sa->worst_forward].bubble_ns));
}

static void serving_dist_json(struct jsonw *w, const char *key, const struct service_dist *d, bool ms)
{
	jsonw_key(w, key);
	if (!d->valid) {
		jsonw_null(w);
		return;
	}
	jsonw_obj_begin(w);
	if (ms) {
		jsonw_kdouble(w, "p50", service_ms(d->p50), 3);
		jsonw_kdouble(w, "p90", service_ms(d->p90), 3);
		jsonw_kdouble(w, "p99", service_ms(d->p99), 3);
		jsonw_kdouble(w, "max", service_ms(d->max), 3);
	} else {
		jsonw_kint(w, "p50", d->p50);
		jsonw_kint(w, "p90", d->p90);
		jsonw_kint(w, "p99", d->p99);
		jsonw_kint(w, "max", d->max);
	}
	jsonw_kuint(w, "n", d->n);
	jsonw_obj_end(w);
}

static void serving_bound_json(struct jsonw *w, const char *key, const struct service_bound *b,
			       const char *const keys[4])
{
	jsonw_key(w, key);
	jsonw_obj_begin(w);
	jsonw_kbool(w, "verdict", b->valid);
	jsonw_kstr(w, "part", b->valid ? b->part : NULL);
	jsonw_key(w, "share_pct");
	if (b->valid)
		jsonw_double(w, b->share_pct, 1);
	else
		jsonw_null(w);
	jsonw_kstr(w, "why", b->valid ? NULL : b->why);
	jsonw_key(w, "of_ms");
	if (b->median > 0)
		jsonw_double(w, service_ms(b->median), 3);
	else
		jsonw_null(w);
	jsonw_key(w, "parts_ms");
	jsonw_obj_begin(w);
	for (int i = 0; i < 4 && keys[i]; i++) {
		jsonw_key(w, keys[i]);
		if (b->parts[i] >= 0)
			jsonw_double(w, service_ms(b->parts[i]), 3);
		else
			jsonw_null(w);
	}
	jsonw_obj_end(w);
	jsonw_obj_end(w);
}

void report_serving_json(struct jsonw *w, const struct analysis *an)
{
	const struct service_analysis *sa = an->service;
	if (!sa)
		return;
	jsonw_key(w, "serving");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "generation", serving_gen_name(sa->gen));
	jsonw_kstr(w, "path", sa->path);
	jsonw_kint_or_null(w, "requests", (int64_t)sa->requests, sa->requests_valid);
	jsonw_kstr(w, "requests_from", sa->requests_valid ? sa->requests_from : NULL);
	serving_dist_json(w, "ttft_ms", &sa->ttft, true);
	serving_dist_json(w, "tpot_ms", &sa->tpot, true);
	serving_dist_json(w, "e2e_ms", &sa->e2e, true);
	serving_dist_json(w, "queue_wait_ms", &sa->queue, true);
	jsonw_key(w, "batches");
	if (sa->batches_valid) {
		jsonw_obj_begin(w);
		jsonw_kuint(w, "prefill", sa->batches[SBT_PREFILL]);
		jsonw_kuint(w, "decode", sa->batches[SBT_DECODE]);
		jsonw_kuint(w, "mixed", sa->batches[SBT_MIXED]);
		jsonw_kuint(w, "untyped", sa->batches[SBT_UNKNOWN]);
		jsonw_kuint(w, "formed", sa->schedules);
		jsonw_kdouble(w, "forming_ms", service_ms(sa->sched_ns), 3);
		jsonw_kdouble(w, "executing_ms", service_ms(sa->exec_ns), 3);
		jsonw_obj_end(w);
	} else {
		jsonw_null(w);
	}
	serving_dist_json(w, "batch_size", &sa->batch_size, false);
	jsonw_kint_or_null(w, "forwards", (int64_t)sa->forwards, sa->forwards_valid);
	jsonw_key(w, "forward_bubble_ms");
	if (sa->forwards_valid)
		jsonw_double(w, service_ms(sa->bubble_ns), 3);
	else
		jsonw_null(w);
	jsonw_key(w, "forward_bubble_max_ms");
	if (sa->forwards_valid)
		jsonw_double(w, service_ms(sa->bubble_max_ns), 3);
	else
		jsonw_null(w);
	jsonw_key(w, "kvcache_usage_max_pct");
	if (sa->kv_valid)
		jsonw_double(w, sa->kv_max_pct, 2);
	else
		jsonw_null(w);
	jsonw_kus(w, "window_us", sa->window_ns);
	serving_bound_json(w, "ttft_bound", &sa->ttft_bound, serving_ttft_keys);
	serving_bound_json(w, "tpot_bound", &sa->tpot_bound, serving_tpot_keys);
	jsonw_kint_or_null(w, "decode_batch_size_p50", sa->decode_size_p50, sa->decode_size_p50 >= 0);
	const struct serving *sv = an->cap->serving;
	jsonw_key(w, "worst_request");
	if (sa->worst_request != SIZE_MAX && sv) {
		jsonw_obj_begin(w);
		jsonw_kuint(w, "line", sv->req[sa->worst_request].line);
		jsonw_kdouble(w, "ttft_ms", service_ms(sv->req[sa->worst_request].ttft_ns), 3);
		jsonw_obj_end(w);
	} else {
		jsonw_null(w);
	}
	jsonw_key(w, "worst_forward");
	if (sa->worst_forward != SIZE_MAX && sv) {
		jsonw_obj_begin(w);
		jsonw_kuint(w, "index", sa->worst_forward);
		jsonw_kdouble(w, "bubble_ms", service_ms(sv->fwd[sa->worst_forward].bubble_ns), 3);
		jsonw_obj_end(w);
	} else {
		jsonw_null(w);
	}
	/* why each null figure is null */
	jsonw_key(w, "missing");
	jsonw_obj_begin(w);
	const struct {
		const char *key;
		const struct service_dist *d;
	} dists[] = {{"ttft_ms", &sa->ttft}, {"tpot_ms", &sa->tpot}, {"e2e_ms", &sa->e2e},
		     {"queue_wait_ms", &sa->queue}, {"batch_size", &sa->batch_size}};
	for (size_t i = 0; i < sizeof dists / sizeof *dists; i++)
		if (!dists[i].d->valid)
			jsonw_kstr(w, dists[i].key, dists[i].d->why);
	if (!sa->requests_valid)
		jsonw_kstr(w, "requests", "no request table or httpReq spans");
	if (!sa->batches_valid)
		jsonw_kstr(w, "batches", sa->batches_why);
	if (!sa->forwards_valid) {
		jsonw_kstr(w, "forwards", sa->forwards_why);
		jsonw_kstr(w, "forward_bubble_ms", sa->forwards_why);
	}
	if (!sa->kv_valid)
		jsonw_kstr(w, "kvcache_usage_max_pct", "no kvcache.csv in this output");
	jsonw_obj_end(w);
	jsonw_obj_end(w);
}
