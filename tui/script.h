/* SPDX-License-Identifier: MIT */
/* Scripted keys for the headless modes (tests): one step per line.
 *   # comment
 *   j j Enter         key names separated by spaces (see actions_parse_key; Colon for :)
 *   "matmul"          a quoted string types its characters
 *   :dump FILE        write the screen as text to FILE ($VAR/... takes VAR from the environment)
 *   :resize 100x30    change the terminal size
 *   :wait             wait until loading and analysis are done
 *   :nowait           stop waiting for the load before each key (default: wait)
 *   :frames LABEL N   benchmarks: draw the screen N times and report the times under LABEL
 *                     (to the file named by ASCPROF_BENCH_OUT; see tools/ascprof-bench.c) */
#ifndef ASCPROF_SCRIPT_H
#define ASCPROF_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>

enum script_kind { SCRIPT_KEY, SCRIPT_DUMP, SCRIPT_RESIZE, SCRIPT_WAIT, SCRIPT_NOWAIT, SCRIPT_FRAMES };

struct script_step {
	enum script_kind kind;
	int key;
	const char *arg; /* borrowed from the script's strings: valid until script_free */
	int w, h;
};

struct script {
	struct script_step *steps; /* owned, n of them; pos the next */
	size_t n, pos;
	char **strings; /* owned, each owned: the steps' arguments */
	size_t n_strings;
	bool nowait;
};

/* Reads the script at path (borrowed for the call): owned by the caller (script_free), or
 * NULL with a message on stderr naming the line that is wrong. */
struct script *script_load(const char *path);
void script_free(struct script *sc);
/* The next step copied into *out (its arg borrowed from sc); false at the end. */
bool script_next(struct script *sc, struct script_step *out);

#endif
