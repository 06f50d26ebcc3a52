/* SPDX-License-Identifier: MIT */
/* MS Service Profiler output (msserviceprofiler parse): what a serving framework did,
 * requests, batches, forwards, KV cache and queues, on the epoch clock (ns here). Three
 * generations, told apart by their files and headers (see
 * ../shared/reference/service-profiler-formats.md):
 *   current (2025-2026)  request.csv, batch.csv, forward.csv, kvcache.csv,
 *                        request_status.csv with "(ms)" columns (a "(ms)" start of 1.7e15
 *                        is µs: one exporter renames without dividing; checked by size)
 *   CANN 8.1/8.2         request.csv and batch.csv with "(microsecond)" columns
 *   2024 dump            tx_data_df.csv, request_status.csv of signed deltas,
 *                        chrome_tracing.json wrapped: no request table; requests counted
 *                        from httpReq spans, batches from BatchSchedule and modelExec spans
 *                        with batch_type in their args
 * A directory holding only raw ms_service_*.db files was never parsed: it is named, with
 * the command that parses it. Columns are found by name; what a generation lacks stays
 * unknown (the analysis says so), never 0. Nothing is written anywhere. */
#ifndef ASCPROF_SERVING_H
#define ASCPROF_SERVING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

enum serving_gen { SERVING_NONE, SERVING_RAW, SERVING_2024, SERVING_CANN81, SERVING_CURRENT };
/* A batch's type: what its requests did in it. */
enum serving_batch_type { SBT_UNKNOWN, SBT_PREFILL, SBT_DECODE, SBT_MIXED, SBT_COUNT };

#define SERVING_NONE_NS INT64_MIN /* a time or duration the input does not give */

struct serving_request {
	int64_t start_ns;  /* arrival (start_time), or SERVING_NONE_NS */
	int64_t exec_ns;   /* execution time: arrival to the last token */
	int64_t queue_ns;  /* queue wait */
	int64_t ttft_ns;   /* first token latency */
	int64_t recv_tokens, reply_tokens; /* -1 when not given */
	uint32_t line;     /* its row's line in request.csv (0: from a span) */
};

struct serving_batch {
	int64_t start_ns, end_ns;
	int32_t size;   /* requests in it, -1 when not given */
	uint8_t type;   /* enum serving_batch_type */
	bool exec;      /* an execution (modelExec, modelRunnerExec, Execute, specDecoding);
			 * else the forming of a batch (batchFrameworkProcessing, BatchSchedule) */
};

struct serving_forward {
	int64_t start_ns, end_ns;
	int64_t bubble_ns; /* the idle gap before it, SERVING_NONE_NS when not given */
	int32_t size;
	uint8_t type;
};

struct serving_sample {
	int64_t t_ns;
	double v[2]; /* KV cache: usage (0..1); queues: waiting, running */
};

struct serving {
	enum serving_gen gen;
	char *dir;      /* owned: where the output lies */
	char *why_raw;  /* owned: for SERVING_RAW, what to run */
	struct serving_request *req;
	size_t n_req, cap_req;
	bool have_requests;   /* a request table was read (its rows are the requests) */
	size_t http_spans;    /* 2024: httpReq spans (the requests it holds) */
	struct serving_batch *batch;
	size_t n_batch, cap_batch;
	bool have_batches;
	struct serving_forward *fwd;
	size_t n_fwd, cap_fwd;
	bool have_forwards;
	struct serving_sample *kv;
	size_t n_kv, cap_kv;
	struct serving_sample *queue;
	size_t n_queue, cap_queue;
	int64_t first_ns, last_end_ns; /* over every record with a time; SERVING_NONE_NS */
};

/* What generation of output dir (a directory, or chrome_tracing.json / a serving CSV)
 * holds; SERVING_NONE for anything else. */
enum serving_gen serving_probe(const char *path);
/* Reads path's output into sv (zeroed first). 0 when anything was read; -1 with the reason
 * in dl (raw files only: what to run). Rows that do not read are named by file and line. */
int serving_read(const char *path, struct serving *sv, struct diag_list *dl);
void serving_free(struct serving *sv);
const char *serving_gen_name(enum serving_gen g); /* static */
const char *serving_batch_type_name(enum serving_batch_type t); /* static */

#endif
