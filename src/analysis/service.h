/* SPDX-License-Identifier: MIT */
/* The serving analysis: what MS Service Profiler output (serving.h) says of the service,
 * the figures a serving engineer judges a deployment by.
 *   requests   the request table's rows, else (2024 dump) its httpReq spans
 *   TTFT       first_token_latency; TPOT per request = (execution time - TTFT) /
 *              (reply tokens - 1), over requests with 2 or more reply tokens; end-to-end =
 *              execution time; queue wait: each with p50, p90, p99 (nearest rank) and max
 *   batches    executions (modelExec, modelRunnerExec, Execute, specDecoding) by batch type,
 *              their sizes, and the time forming batches against executing them
 *   forwards   count, total and largest bubble (the idle gap before a forward), bubbles
 *              as a share of the window
 *   KV cache   peak usage and when; queues: the most waiting and running
 *   bounds     what holds most of the median TTFT (queue wait, prefill execution: the
 *              median prefill or mixed execution, scheduling: the median batch forming)
 *              and of the median TPOT (decode execution, the prefill and mixed batches
 *              run between decode forwards, per decode forward, bubbles before decode
 *              forwards, scheduling): a part with 40 % or more of it; else no verdict
 * A figure the input does not give is not valid and says why, never 0. */
#ifndef ASCPROF_SERVICE_H
#define ASCPROF_SERVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "serving.h"

/* Percentiles of a figure, in ns; valid false with why when the input lacks it. */
struct service_dist {
	bool valid;
	const char *why; /* static, when not valid */
	size_t n;
	int64_t p50, p90, p99, max;
};

struct service_analysis {
	enum serving_gen gen;
	const char *path; /* borrowed from the capture: where the output lies */
	bool requests_valid;
	const char *requests_from; /* static */
	size_t requests;
	struct service_dist ttft, tpot, e2e, queue;
	bool batches_valid;
	const char *batches_why; /* static, when not valid */
	size_t batches[SBT_COUNT]; /* executions by type */
	size_t schedules;          /* batches formed */
	struct service_dist batch_size; /* of the executions (counts, not ns) */
	int64_t sched_ns, exec_ns;      /* total forming and executing */
	bool forwards_valid;
	const char *forwards_why;
	size_t forwards;
	int64_t bubble_ns, bubble_max_ns;
	double bubble_pct; /* of the window */
	bool kv_valid;
	double kv_max_pct;
	int64_t kv_max_at; /* epoch ns */
	bool queue_valid;
	double waiting_max, running_max;
	/* What bounds TTFT and TPOT: each median's parts (ns, -1 unknown) and the part that holds
	 * most of it, or none (why says: no part holds 40 %, or the figures are missing) */
	struct service_bound {
		bool valid;               /* a verdict; else why */
		const char *part;         /* static: the bounding part's name */
		double share_pct;         /* its share of the median */
		int64_t median;           /* the median TTFT or TPOT */
		int64_t parts[4];         /* TTFT: queue, prefill execution, scheduling (-1);
					   * TPOT: decode execution, prefill batches in between (their
					   * time per decode forward), bubbles, scheduling */
		const char *why;          /* static, when not valid */
	} ttft_bound, tpot_bound;
	int64_t decode_size_p50;  /* the median decode batch's requests, -1 unknown */
	size_t worst_request;     /* the request with the longest TTFT (index), SIZE_MAX none */
	size_t worst_forward;     /* the forward with the longest bubble before it, SIZE_MAX none */
	int64_t first_ns;  /* the first record's time (epoch ns) */
	int64_t window_ns; /* first record to last end */
};

/* The names of the parts of service_bound.parts (static, untranslated: N_; NULL: no such part). */
extern const char *const service_ttft_parts[4], *const service_tpot_parts[4];

/* A request's TPOT, (execution time - TTFT) / (reply tokens - 1), in ns; SERVING_NONE_NS
 * without both times or with fewer than 2 reply tokens. */
int64_t service_request_tpot(const struct serving_request *q);
/* The executions that carried request req (an index into sv->req), in time order: those
 * from when it left the queue (arrival + queue wait) to its last token (arrival + execution
 * time), ends included (within 1 µs: the columns' three decimals of ms). The output's res_list is not read, so this is when it was in a
 * batch, not a list of names. Indices into sv->batch, the first max written to out; returns
 * how many there are, 0 when the request lacks its arrival, queue wait or execution time. */
size_t service_request_batches(const struct serving *sv, size_t req, size_t *out, size_t max);

/* Owned (service_free); NULL without serving output. */
struct service_analysis *service_analyse(const struct serving *sv);
void service_free(struct service_analysis *sa);

#endif
