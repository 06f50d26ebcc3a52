/* SPDX-License-Identifier: MIT */
/* The advice rules that read sequences and sizes rather than single events (advice_seq.c):
 * small_transfers (communication.json's packet sizes), fusable_ops (device kernel
 * sequences a fused kernel replaces) and affinity_api (host API sequences and calls the
 * Ascend docs give an NPU affinity API for). The findings are made with advice.h's
 * advice_add. */
#ifndef ASCPROF_ADVICE_SEQ_H
#define ASCPROF_ADVICE_SEQ_H

#include <stdint.h>

#include "result.h"

/* Evaluates small_transfers, fusable_ops and affinity_api on one rank once its steps,
 * classes and the other rules are done, and sets their statuses. */
struct rank_data;
void advice_seq(const struct rank_data *rd, struct rank_analysis *ra);

#endif
