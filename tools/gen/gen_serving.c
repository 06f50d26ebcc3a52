/* SPDX-License-Identifier: MIT */
/* ascprof-gen --serving: MS Service Profiler's current output for the planted run, in
 * DIR/serving/, with its truth appended to ground_truth.txt.
 *
 * From the steps of rank 0 on the true clock (its clock less its offset): each step is a
 * batch formed (batchFrameworkProcessing, just before it) and executed (modelExec, the
 * step's span), typed by its phase and sized by its sequences, and a forward (the same span;
 * its bubble the gap since the previous forward ended). Requests: each prefill step admits
 * its prompts (a mixed step its prompt part), one request each, arrived after a queue wait
 * before the step; its first token comes at the step's end, its last at the end of a later
 * step (its reply tokens: one per step from that one on). KV cache usage and the queues
 * are sampled once per batch. Times are written as the exporter does, ms with three
 * decimals (exact µs); batch.csv's start and end as µs under a "(ms)" name, the trap one
 * exporter sets (service-profiler-formats.md): a reader must tell them by their size.
 * chrome_tracing.json beside them as current releases write it: a bare array of X events
 * with string tids and epoch µs, a batch's type and size in its args, a request's httpReq
 * span from its arrival to its last token. And profiler.db with the same spans in its slice
 * table (id, timestamp, duration, name, depth, track_id, cat, args: ns, args a JSON object),
 * the columns service-profiler-formats.md gives, for an output read from the database alone. */
#include "gen.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sv_req {
	int64_t arrive, queue, ttft, exec; /* ns */
	int64_t recv, reply;
};

static int cmp_i64v(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* The ceil(q * n)-th smallest (nearest rank) of v (sorted here). */
static int64_t sv_rank(int64_t *v, size_t n, double q)
{
	qsort(v, n, sizeof *v, cmp_i64v);
	size_t k = (size_t)(q * (double)n);
	if ((double)k < q * (double)n)
		k++;
	return v[k ? k - 1 : 0];
}

/* The spans written, again for profiler.db's slice table. */
struct sv_slice {
	char *name, *args;
	int64_t a, e;
};
static struct sv_slice *sv_slices;
static size_t sv_n_slices, sv_cap_slices;

/* One X event of chrome_tracing.json, ts and dur in µs with three decimals (exact ns). */
static void sv_span(struct sbuf *b, const char *name, const char *tid, int64_t a, int64_t e, const char *args)
{
	xgrow(&sv_slices, &sv_cap_slices, sv_n_slices + 1, sizeof *sv_slices);
	sv_slices[sv_n_slices++] = (struct sv_slice){xstrdup(name), xasprintf("{%s}", args), a, e};
	sbuf_addf(b, "%s{\"name\":\"%s\",\"ph\":\"X\",\"pid\":1,\"tid\":\"%s\",\"ts\":%" PRId64 ".%03" PRId64
		  ",\"dur\":%" PRId64 ".%03" PRId64 ",\"args\":{%s}}",
		  b->len > 2 ? ",\n" : "", name, tid, a / 1000, a % 1000, (e - a) / 1000, (e - a) % 1000, args);
}

/* ms with three decimals, from ns (whole µs) */
static void sv_ms(struct sbuf *b, int64_t ns)
{
	int64_t us = ns / 1000;
	sbuf_addf(b, "%s%" PRId64 ".%03" PRId64, us < 0 ? "-" : "", (us < 0 ? -us : us) / 1000,
	       (us < 0 ? -us : us) % 1000);
}

/* profiler.db: the spans in its slice table, ns (written as sqlite3 would be by the tool:
 * one transaction). */
static void sv_write_db(const char *dir)
{
	char path[4096];
	path_join(path, sizeof path, dir, "profiler.db");
	remove(path);
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	if (sqlite3_open(path, &h) != SQLITE_OK ||
	    sqlite3_exec(h, "BEGIN; CREATE TABLE slice(id INTEGER PRIMARY KEY, timestamp INTEGER, duration INTEGER, "
			    "name TEXT, depth INTEGER, track_id INTEGER, cat TEXT, args TEXT);",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "INSERT INTO slice VALUES (?, ?, ?, ?, 0, 1, 'serving', ?)", -1, &st, NULL) != SQLITE_OK)
		die("cannot write %s: %s", path, h ? sqlite3_errmsg(h) : "out of memory");
	for (size_t i = 0; i < sv_n_slices; i++) {
		const struct sv_slice *s = &sv_slices[i];
		sqlite3_bind_int64(st, 1, (sqlite3_int64)i + 1);
		sqlite3_bind_int64(st, 2, s->a);
		sqlite3_bind_int64(st, 3, s->e - s->a);
		sqlite3_bind_text(st, 4, s->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, s->args, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			die("cannot write %s: %s", path, sqlite3_errmsg(h));
		sqlite3_reset(st);
		free(s->name);
		free(s->args);
	}
	sqlite3_finalize(st);
	if (sqlite3_exec(h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK || sqlite3_close(h) != SQLITE_OK)
		die("cannot write %s", path);
	free(sv_slices);
	sv_slices = NULL;
	sv_n_slices = sv_cap_slices = 0;
}

static void sv_write(const char *dir, const char *name, const struct sbuf *b)
{
	char path[4096];
	path_join(path, sizeof path, dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b->buf, 1, b->len, f) != b->len || fclose(f) != 0)
		die("cannot write %s", path);
}

static void sv_truth_dist(struct sbuf *t, const char *key, int64_t *v, size_t n)
{
	if (!n) {
		sbuf_addf(t, "serving.%s=null\n", key);
		return;
	}
	static const struct {
		const char *name;
		double q;
	} qs[] = {{"p50", 0.50}, {"p90", 0.90}, {"p99", 0.99}, {"max", 1.0}};
	for (size_t i = 0; i < sizeof qs / sizeof *qs; i++)
		sbuf_addf(t, "serving.%s.%s=%.3f\n", key, qs[i].name, (double)sv_rank(v, n, qs[i].q) / 1e6);
}

void gen_serving(const struct gen *G)
{
	const struct opts *o = G->o;
	const struct rank_model *R = &G->rk[0];
	struct rng r;
	rng_init(&r, o->seed, 'V', 0, 0);
	char dir[4096];
	path_join(dir, sizeof dir, o->out, "serving");
	mkdir_p(dir);
	int K = G->steps;
	struct sv_req *req = xcalloc((size_t)K * 4 + 1, sizeof *req);
	size_t nreq = 0;
	struct sbuf batch = {0}, fwd = {0}, kv = {0}, qs = {0}, rq = {0}, ct = {0};
	sbuf_adds(&ct, "[\n");
	sbuf_adds(&batch, "name,res_list,start_datetime,end_datetime,during_time(ms),batch_type,prof_id,batch_size,"
	               "prefill_batch_size,decode_batch_size,kvcache_usage_rate,start_time(ms),end_time(ms)\n");
	sbuf_adds(&fwd, "name,relative_start_time(ms),start_datetime,end_datetime,during_time(ms),bubble_time(ms),"
	             "batch_size,batch_type,forward_iter,dp_rank,prof_id,hostname,start_time(ms),end_time(ms)\n");
	sbuf_adds(&kv, "name,start_time,total_blocks,used_blocks,free_blocks,blocks_allocated,blocks_freed,"
	            "kvcache_usage_rate\n");
	sbuf_adds(&qs, "hostuid,pid,start_datetime,relative_timestamp(ms),waiting,running,swapped,timestamp(ms)\n");
	size_t n_type[3] = {0};
	int64_t prev_end = 0, bubble_total = 0, first = 0;
	int64_t kv_max = -1; /* per mille */
	for (int k = 0; k < K; k++) {
		const struct step *st = &R->st[k];
		int64_t a = st->hs - R->off, e = st->he - R->off;
		if (!k)
			first = a;
		int phase = o->shape.kind != SHAPE_MARKED ? st->phase : st->prefill ? SP_PREFILL : SP_DECODE;
		/* a CSV cell: the mixed type's comma quoted */
		const char *type = phase == SP_PREFILL ? "Prefill" : phase == SP_MIXED ? "\"Prefill,Decode\"" : "Decode";
		n_type[phase == SP_PREFILL ? 0 : phase == SP_MIXED ? 2 : 1]++;
		int64_t seqs = st->seqs > 0 ? st->seqs : phase == SP_PREFILL ? rng_range(&r, 1, 3) : rng_range(&r, 4, 32);
		int64_t form = rng_range(&r, 100, 300) * 1000;
		/* forming, then executing: the forming span ends where the execution starts */
		sbuf_addf(&batch, "batchFrameworkProcessing,[],,,");
		sv_ms(&batch, form);
		sbuf_addf(&batch, ",%s,%d,%" PRId64 ",,,,%" PRId64 ".000,%" PRId64 ".000\n", type, k, seqs, (a - form) / 1000,
		       a / 1000);
		char args[96];
		snprintf(args, sizeof args, "\"batch_type\":\"%s\",\"batch_size\":%" PRId64,
			 phase == SP_PREFILL ? "Prefill" : phase == SP_MIXED ? "Prefill,Decode" : "Decode", seqs);
		sv_span(&ct, "batchFrameworkProcessing", "Schedule(1)", a - form, a, args);
		sv_span(&ct, "modelExec", "Execute(1)", a, e, args);
		int64_t used = rng_range(&r, 100, 900); /* per mille */
		kv_max = used > kv_max ? used : kv_max;
		sbuf_addf(&batch, "modelExec,[],,,");
		sv_ms(&batch, e - a);
		sbuf_addf(&batch, ",%s,%d,%" PRId64 ",,,0.%03" PRId64 ",%" PRId64 ".000,%" PRId64 ".000\n", type, k, seqs, used,
		       a / 1000, e / 1000);
		int64_t bubble = k ? a - prev_end : 0;
		bubble_total += bubble > 0 ? bubble / 1000 : 0; /* µs, as written */
		sbuf_addf(&fwd, "forward,");
		sv_ms(&fwd, a - first);
		sbuf_addf(&fwd, ",,,");
		sv_ms(&fwd, e - a);
		sbuf_addf(&fwd, ",");
		sv_ms(&fwd, bubble);
		sbuf_addf(&fwd, ",%" PRId64 ",%s,%d,0,%d,node0,", seqs, type, k, k);
		sv_ms(&fwd, a);
		sbuf_addf(&fwd, ",");
		sv_ms(&fwd, e);
		sbuf_addf(&fwd, "\n");
		prev_end = e;
		sbuf_addf(&kv, "kvcache,");
		sv_ms(&kv, a);
		sbuf_addf(&kv, ",1000,%" PRId64 ",%" PRId64 ",0,0,0.%03" PRId64 "\n", used, 1000 - used, used);
		int64_t waiting = rng_range(&r, 0, 6);
		sbuf_addf(&qs, "node0,1,,");
		sv_ms(&qs, a - first);
		sbuf_addf(&qs, ",%" PRId64 ",%" PRId64 ",0,", waiting, seqs);
		sv_ms(&qs, a);
		sbuf_addf(&qs, "\n");
		/* the prompts this step admits: each a request */
		int64_t prompts = phase == SP_PREFILL ? seqs : phase == SP_MIXED ? (st->seqs_p > 0 ? st->seqs_p : 1) : 0;
		for (int64_t p = 0; p < prompts; p++) {
			struct sv_req *q = &req[nreq++];
			q->queue = rng_range(&r, 1000, 30000) * 1000;
			q->arrive = a - q->queue;
			q->ttft = e - q->arrive;
			int last = k + (int)rng_range(&r, 0, K - 1 - k > 0 ? K - 1 - k : 0);
			q->reply = 1 + (last - k);
			q->exec = (R->st[last].he - R->off) - q->arrive;
			q->recv = rng_range(&r, 16, 2048);
		}
	}
	sbuf_adds(&rq, "http_rid,start_datetime,recv_token_size,reply_token_size,execution_time(ms),queue_wait_time(ms),"
	            "first_token_latency(ms),cache_hit_rate,start_time(ms)\n");
	for (size_t i = 0; i < nreq; i++) {
		const struct sv_req *q = &req[i];
		char args[32];
		snprintf(args, sizeof args, "\"rid\":\"%zu\"", i);
		sv_span(&ct, "httpReq", "Request", q->arrive, q->arrive + q->exec, args);
		sbuf_addf(&rq, "%zu,,%" PRId64 ",%" PRId64 ",", i, q->recv, q->reply);
		sv_ms(&rq, q->exec);
		sbuf_addf(&rq, ",");
		sv_ms(&rq, q->queue);
		sbuf_addf(&rq, ",");
		sv_ms(&rq, q->ttft);
		sbuf_addf(&rq, ",0.0,");
		sv_ms(&rq, q->arrive);
		sbuf_addf(&rq, "\n");
	}
	sv_write(dir, "request.csv", &rq);
	sv_write(dir, "batch.csv", &batch);
	sv_write(dir, "forward.csv", &fwd);
	sv_write(dir, "kvcache.csv", &kv);
	sv_write(dir, "request_status.csv", &qs);
	sbuf_adds(&ct, "\n]\n");
	sv_write(dir, "chrome_tracing.json", &ct);
	sv_write_db(dir);
	/* the truth: the figures as the analysis defines them, from the values written (whole
	 * µs, so ms with three decimals are exact) */
	struct sbuf t = {0};
	int64_t *v = xcalloc(nreq + 1, sizeof *v);
	size_t n = 0;
	sbuf_addf(&t, "serving.dir=serving\nserving.requests=%zu\n", nreq);
	for (size_t i = 0; i < nreq; i++)
		v[i] = req[i].ttft / 1000 * 1000;
	sv_truth_dist(&t, "ttft_ms", v, nreq);
	n = 0;
	for (size_t i = 0; i < nreq; i++)
		if (req[i].reply >= 2)
			v[n++] = (req[i].exec / 1000 * 1000 - req[i].ttft / 1000 * 1000) / (req[i].reply - 1);
	sv_truth_dist(&t, "tpot_ms", v, n);
	for (size_t i = 0; i < nreq; i++)
		v[i] = req[i].exec / 1000 * 1000;
	sv_truth_dist(&t, "e2e_ms", v, nreq);
	for (size_t i = 0; i < nreq; i++)
		v[i] = req[i].queue;
	sv_truth_dist(&t, "queue_wait_ms", v, nreq);
	sbuf_addf(&t,
	       "serving.batches.prefill=%zu\nserving.batches.decode=%zu\nserving.batches.mixed=%zu\n"
	       "serving.forwards=%d\nserving.forward_bubble_ms=%.3f\nserving.kvcache_usage_max_pct=%.2f\n",
	       n_type[0], n_type[1], n_type[2], K, (double)bubble_total / 1e3, (double)kv_max / 10.0);
	char path[4096];
	path_join(path, sizeof path, o->out, "ground_truth.txt");
	FILE *f = fopen(path, "ab");
	if (!f || fwrite(t.buf, 1, t.len, f) != t.len || fclose(f) != 0)
		die("cannot append to %s", path);
	free(v);
	free(req);
	free(batch.buf);
	free(fwd.buf);
	free(kv.buf);
	free(qs.buf);
	free(rq.buf);
	free(ct.buf);
	free(t.buf);
}
