/* SPDX-License-Identifier: MIT */
/* Differential fuzzing of the fast element scanner against jsmn (elem_crosscheck): any
 * input the scanner answers for must give jsmn's fields and the boundary scan's end, and
 * every instruction set the CPU has (SSE2, AVX2) the portable scanner's status and record. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "trace_elem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct jtok jt;
	static int ready;
	if (!ready) {
		jtok_init(&jt);
		ready = 1;
	}
	struct sbuf why = SBUF_INIT;
	if (elem_crosscheck(&jt, (const char *)data, size, &why) == ELEM_DISAGREE) {
		fprintf(stderr, "fast scanner and jsmn disagree: %s\n", why.buf);
		abort();
	}
	return 0;
}
