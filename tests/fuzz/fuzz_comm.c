/* SPDX-License-Identifier: MIT */
/* The communication file reader over arbitrary bytes (per-rank, cluster and matrix
 * layouts alike): load, the names split as the views split them, then the drill-down
 * text of a few entries read again from the file (a memfd holds the bytes). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "comm_json.h"
#include "diag.h"
#include "sbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fd = -1;
static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fd < 0) {
		fd = memfd_create("fuzz_comm", MFD_CLOEXEC);
		if (fd < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	struct comm_data cd = {0};
	struct diag_list dl;
	diag_init(&dl);
	comm_json_load_buffer(&cd, "communication.json", (const char *)data, size, 0, &dl);
	/* every range an op or a link names lies inside what was read */
	for (size_t i = 0; i < cd.n_ops; i++) {
		const struct comm_op *op = &cd.ops[i];
		if (op->off < 0 || (uint64_t)op->off + op->len > size || op->bw0 + op->n_bw > cd.n_bws)
			abort();
		for (uint32_t b = 0; b < op->n_bw; b++) {
			const struct comm_bw *bw = &cd.bws[op->bw0 + b];
			if (bw->bin0 + bw->n_bins > cd.n_bins)
				abort();
		}
		const char *name = strtab_str(cd.strs, op->name);
		size_t a, n;
		comm_op_type(name, strlen(name), &a, &n);
		if (a + n > strlen(name))
			abort();
	}
	for (size_t i = 0; i < cd.n_links; i++)
		if (cd.links[i].off < 0 || (uint64_t)cd.links[i].off + cd.links[i].len > size)
			abort();
	if (cd.n_ops || cd.n_links) {
		if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
			abort();
		struct sbuf out = SBUF_INIT;
		for (size_t i = 0; i < cd.n_ops && i < 4; i++) {
			comm_json_entry_text(&cd, path, cd.ops[i].off, cd.ops[i].len, 4096, &out);
			comm_json_entry_lines(&cd, path, cd.ops[i].off, cd.ops[i].len, 4096, &out);
		}
		for (size_t i = 0; i < cd.n_links && i < 4; i++)
			comm_json_entry_lines(&cd, path, cd.links[i].off, cd.links[i].len, 4096, &out);
		sbuf_free(&out);
	}
	for (size_t i = 0; i < dl.n; i++)
		free(diag_format(&dl.items[i]));
	comm_data_free(&cd);
	diag_free(&dl);
	return 0;
}
