/* SPDX-License-Identifier: MIT */
/* The digest reader over arbitrary bytes. The first byte chooses: odd, the bytes are the
 * whole file (the header's checks); even, the rest is a payload given a valid header and
 * checksum, so the fuzzer gets past the checksum into the field walk (a crafted file). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "capture.h"
#include "comm.h"
#include "analysis.h"
#include "digest.h"
#include "xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	size_t len;
	char *buf;
	if (data[0] & 1) {
		len = size - 1;
		buf = xmalloc(len + 1);
		memcpy(buf, data + 1, len);
	} else {
		size_t plen = size - 1;
		len = DIGEST_HEADER + plen;
		buf = xmalloc(len + 1);
		memcpy(buf, DIGEST_MAGIC, 8);
		uint64_t fields[3] = {DIGEST_VERSION, plen, XXH3_64bits(data + 1, plen)};
		for (int i = 0; i < 4; i++)
			buf[8 + i] = (char)(fields[0] >> (8 * i));
		memset(buf + 12, 0, 4);
		for (int i = 0; i < 8; i++) {
			buf[16 + i] = (char)(fields[1] >> (8 * i));
			buf[24 + i] = (char)(fields[2] >> (8 * i));
		}
		memcpy(buf + DIGEST_HEADER, data + 1, plen);
	}
	struct digest_keep *keep = dio_keep_new();
	struct rank_analysis ra;
	struct digest_ident id;
	struct coll_inst *colls;
	size_t nc;
	struct comm_data cm;
	struct sbuf why = SBUF_INIT;
	if (digest_parse(buf, len, keep, &ra, &id, &colls, &nc, &cm, &why) == 0) {
		/* what the report reads of it */
		char verdict[256];
		(void)bottleneck_verdict(&ra, verdict, sizeof verdict);
		for (size_t i = 0; i < ra.n_steps; i++)
			(void)result_phase_name(ra.steps[i].phase);
		/* the communication analysis over the records read (indices, bins, strings) */
		struct rank_data rd = {.comm = cm};
		struct capture cap = {.ranks = &rd, .n_ranks = 1};
		comm_analysis_free(comm_analyse(&cap));
		comm_data_free(&rd.comm);
		result_rank_free(&ra);
		free(colls);
	}
	sbuf_free(&why);
	dio_keep_free(keep);
	free(buf);
	return 0;
}
