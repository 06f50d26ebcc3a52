/* SPDX-License-Identifier: MIT */
/* A harness's inputs replayed without libFuzzer: `replay_<harness> FILE|DIR...` calls
 * LLVMFuzzerTestOneInput once per file (a directory's files in name order), so the seed
 * corpora run wherever the core builds, under qemu-user too (tests/fuzz_replay.sh). A
 * harness that finds a disagreement aborts, as it does under libFuzzer. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long replayed;

static void replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	size_t cap = 1 << 16, n = 0, r;
	uint8_t *buf = malloc(cap);
	while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	if (!buf) {
		fputs("replay: out of memory\n", stderr);
		exit(2);
	}
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	replayed++;
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

static void replay_path(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		perror(path);
		exit(2);
	}
	if (!S_ISDIR(st.st_mode)) {
		replay_file(path);
		return;
	}
	struct dirent **names;
	int n = scandir(path, &names, NULL, by_name);
	if (n < 0) {
		perror(path);
		exit(2);
	}
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.') {
			char *child;
			if (asprintf(&child, "%s/%s", path, names[i]->d_name) < 0)
				exit(2);
			replay_file(child);
			free(child);
		}
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		replay_path(argv[i]);
	printf("%lu input(s) replayed\n", replayed);
	return replayed ? 0 : 1;
}
