/* SPDX-License-Identifier: MIT */
/* profiler_info over arbitrary bytes (a memfd stands in for the file), and the JSON
 * helpers it leans on: the depth of any bytes, and the blanking of deep values, which
 * must keep the length, every byte outside what it blanks, and leave nothing deeper
 * than it keeps. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "diag.h"
#include "json_tok.h"
#include "profinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fd = -1;
static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fd < 0) {
		fd = memfd_create("profiler_info_0.json", MFD_CLOEXEC);
		if (fd < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	struct profinfo pi;
	struct diag_list dl;
	diag_init(&dl);
	if (profinfo_load(&pi, path, &dl) == 0 && !pi.loaded)
		abort();
	for (size_t i = 0; i < dl.n; i++)
		free(diag_format(&dl.items[i]));
	profinfo_free(&pi);
	diag_free(&dl);

	/* blanking: a keep level from the first byte, 1..8 */
	int keep = size ? 1 + data[0] % 8 : 1;
	char *flat = malloc(size ? size : 1);
	memcpy(flat, data, size);
	jtok_flatten_deep(flat, size, keep);
	if (jtok_depth(flat, size, keep) > keep)
		abort();
	for (size_t i = 0; i < size; i++)
		if (flat[i] != (char)data[i] && flat[i] != ' ' && flat[i] != '0')
			abort();
	free(flat);
	return 0;
}
