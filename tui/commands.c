/* SPDX-License-Identifier: MIT */
/* The command table and its lookup. */
#include "commands.h"

#include <stdbool.h>

#include <stdio.h>
#include <string.h>

#include "actions.h"

const struct command_def command_defs[CMD_COUNT] = {
#define COMMAND_DEF(id, names, args, fn, help) [CMD_##id] = {names, args, fn, help},
	COMMANDS(COMMAND_DEF)
#undef COMMAND_DEF
};

static bool has_name(const char *names, const char *word)
{
	size_t wn = strlen(word), n;
	const char *p = names, *w;
	while ((w = actions_next_word(&p, &n)))
		if (n == wn && !memcmp(w, word, n))
			return true;
	return false;
}

const struct command_def *commands_lookup(const char *word)
{
	if (!*word)
		return NULL;
	for (int c = 0; c < CMD_COUNT; c++)
		if (has_name(command_defs[c].names, word))
			return &command_defs[c];
	return NULL;
}

void commands_names(char *buf, size_t size, const char *sep)
{
	size_t len = 0;
	if (size)
		buf[0] = '\0';
	for (int c = 0; c < CMD_COUNT && len < size; c++) {
		int n = snprintf(buf + len, size - len, "%s%.*s", c ? sep : "",
				 (int)strcspn(command_defs[c].names, " "), command_defs[c].names);
		if (n < 0)
			break;
		len += (size_t)n;
	}
}

void commands_print(FILE *out)
{
	for (int c = 0; c < CMD_COUNT; c++)
		fprintf(out, "%-16s %-8s %s\n", command_defs[c].names, command_defs[c].args, command_defs[c].help);
}
