/* SPDX-License-Identifier: MIT */
/* The action table and key names. */
#include "actions.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct action_def action_defs[ACT_COUNT] = {
	[ACT_NONE] = {"none", 0, "", ""},
#define ACTION_DEF(id, name, scope, keys, help) [ACT_##id] = {name, scope, keys, help},
	ACTIONS(ACTION_DEF)
#undef ACTION_DEF
};

static const struct { const char *name; int code; } key_names[] = {
	{"Enter", '\r'},
	{"Esc", 27},
	{"Tab", '\t'},
	{"Space", ' '},
	{"BackTab", KEYCODE_FN(KEY_BTAB)},
	{"Backspace", KEYCODE_FN(KEY_BACKSPACE)},
	{"Up", KEYCODE_FN(KEY_UP)},
	{"Down", KEYCODE_FN(KEY_DOWN)},
	{"Left", KEYCODE_FN(KEY_LEFT)},
	{"Right", KEYCODE_FN(KEY_RIGHT)},
	{"PgUp", KEYCODE_FN(KEY_PPAGE)},
	{"PgDn", KEYCODE_FN(KEY_NPAGE)},
	{"Home", KEYCODE_FN(KEY_HOME)},
	{"End", KEYCODE_FN(KEY_END)},
	{"F1", KEYCODE_FN(KEY_F(1))},
	{"Resize", KEYCODE_FN(KEY_RESIZE)},
	{"Colon", ':'}, /* for scripts, where a line starting with ':' is a command */
};

int actions_parse_key(const char *name)
{
	for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++)
		if (!strcmp(name, key_names[i].name))
			return key_names[i].code;
	if (name[0] == 'C' && name[1] == '-' && name[2] && !name[3]) {
		char c = name[2];
		if (c >= 'a' && c <= 'z')
			return c - 'a' + 1;
		if (c >= 'A' && c <= 'Z')
			return c - 'A' + 1;
	}
	/* a single UTF-8 character */
	const unsigned char *p = (const unsigned char *)name;
	if (p[0] && !p[1])
		return p[0];
	if (p[0] >= 0xC0) {
		int n = p[0] >= 0xF0 ? 4 : p[0] >= 0xE0 ? 3 : 2;
		if ((int)strlen(name) != n)
			return -1;
		int cp = p[0] & (0x3F >> (n - 1));
		for (int i = 1; i < n; i++)
			cp = (cp << 6) | (p[i] & 0x3F);
		return cp;
	}
	return -1;
}

const char *actions_key_name(int key)
{
	static char buf[16];
	for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++)
		if (key_names[i].code == key)
			return key_names[i].name;
	if (key == '\n' || key == KEYCODE_FN(KEY_ENTER))
		return "Enter";
	if (key == 127 || key == 8)
		return "Backspace";
	if (key > 0 && key < 27) {
		snprintf(buf, sizeof buf, "C-%c", 'a' + key - 1);
		return buf;
	}
	if (key >= KEYCODE_FN(0)) {
		snprintf(buf, sizeof buf, "key%d", key - KEYCODE_FN(0));
		return buf;
	}
	if (key < 128) {
		buf[0] = (char)key;
		buf[1] = '\0';
	} else {
		snprintf(buf, sizeof buf, "U+%04X", key);
	}
	return buf;
}

/* Keys that mean the same as a bound one. */
static int canonical(int key)
{
	if (key == '\n' || key == KEYCODE_FN(KEY_ENTER))
		return '\r';
	if (key == 127 || key == 8)
		return KEYCODE_FN(KEY_BACKSPACE);
	return key;
}

const char *actions_next_word(const char **p, size_t *n)
{
	while (**p == ' ')
		(*p)++;
	*n = strcspn(*p, " ");
	if (*n == 0)
		return NULL;
	const char *w = *p;
	*p += *n;
	return w;
}

static bool bound(const char *keys, int key)
{
	char buf[64];
	const char *p = keys, *w;
	size_t n;
	while ((w = actions_next_word(&p, &n)))
		if (n < sizeof buf) {
			memcpy(buf, w, n);
			buf[n] = '\0';
			if (actions_parse_key(buf) == key)
				return true;
		}
	return false;
}

enum action actions_lookup(int key, unsigned scopes)
{
	key = canonical(key);
	/* view scopes first, so that a view may give a key its own meaning */
	for (int pass = 0; pass < 2; pass++) {
		unsigned want = pass == 0 ? (scopes & ~(unsigned)KS_GLOBAL) : KS_GLOBAL;
		for (int a = 1; a < ACT_COUNT; a++)
			if ((action_defs[a].scope & want) && bound(action_defs[a].keys, key))
				return (enum action)a;
	}
	return ACT_NONE;
}

const char *actions_scope_name(unsigned scope)
{
	if (scope & KS_GLOBAL)
		return "global";
	/* the sort keys: the Serving table sorts its requests with them too */
	if ((scope & KS_OPS) && (scope & KS_COMM) && (scope & KS_SERVING))
		return "ops+comm+serving";
	if ((scope & KS_OPS) && (scope & KS_COMM))
		return "ops+comm";
	if (scope & KS_OPS)
		return "ops";
	if (scope & KS_COMM)
		return "comm";
	if (scope & KS_RANKS)
		return "ranks";
	if (scope & KS_COMPARE)
		return "compare";
	if ((scope & KS_LIST) && (scope & KS_TIMELINE))
		return "lists+timeline";
	if (scope & KS_LIST)
		return "lists";
	if (scope & KS_TIMELINE)
		return "timeline";
	if (scope & KS_SERVING)
		return "serving";
	return "?";
}

void actions_print(FILE *out)
{
	for (int a = 1; a < ACT_COUNT; a++)
		fprintf(out, "%-16s %-16s %-16s %s\n", actions_scope_name(action_defs[a].scope),
			action_defs[a].keys, action_defs[a].name, action_defs[a].help);
}
