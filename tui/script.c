/* SPDX-License-Identifier: MIT */
/* The headless script reader. */
#include "script.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "xalloc.h"

static void add(struct script *sc, size_t *cap, struct script_step st)
{
	xgrow(&sc->steps, cap, sc->n + 1, sizeof *sc->steps);
	sc->steps[sc->n++] = st;
}

static int utf8_decode(const unsigned char **p)
{
	const unsigned char *s = *p;
	int n = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC0 ? 2 : 1;
	int cp = n == 1 ? s[0] : s[0] & (0x3F >> (n - 1));
	for (int i = 1; i < n && s[i]; i++)
		cp = (cp << 6) | (s[i] & 0x3F);
	*p = s + n;
	return cp;
}

struct script *script_load(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "ascprof-tui: cannot open script %s: %s\n", path, strerror(errno));
		return NULL;
	}
	struct script *sc = xcalloc(1, sizeof *sc);
	size_t cap = 0, scap = 0;
	char line[4096];
	int lineno = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		if (*p == ':') {
			char *arg = p + 1 + strcspn(p + 1, " ");
			while (*arg == ' ')
				arg++;
			if (!strncmp(p, ":dump", 5)) {
				xgrow(&sc->strings, &scap, sc->n_strings + 1, sizeof *sc->strings);
				/* "$NAME/rest" takes NAME from the environment (tests point it at a temp dir) */
				if (arg[0] == '$') {
					size_t vn = strcspn(arg + 1, "/");
					char var[64];
					snprintf(var, sizeof var, "%.*s", (int)(vn < 63 ? vn : 63), arg + 1);
					const char *val = getenv(var);
					sc->strings[sc->n_strings] = xasprintf("%s%s", val ? val : ".", arg + 1 + vn);
				} else {
					sc->strings[sc->n_strings] = xstrdup(arg);
				}
				add(sc, &cap, (struct script_step){SCRIPT_DUMP, 0, sc->strings[sc->n_strings++], 0, 0});
			} else if (!strncmp(p, ":resize", 7)) {
				int w, h;
				if (sscanf(arg, "%dx%d", &w, &h) != 2 || w < 1 || h < 1) {
					fprintf(stderr, "%s:%d: :resize wants WxH\n", path, lineno);
					goto fail;
				}
				add(sc, &cap, (struct script_step){SCRIPT_RESIZE, 0, NULL, w, h});
			} else if (!strncmp(p, ":wait", 5)) {
				add(sc, &cap, (struct script_step){SCRIPT_WAIT, 0, NULL, 0, 0});
			} else if (!strncmp(p, ":frames", 7)) {
				char label[64];
				int n;
				if (sscanf(arg, "%63s %d", label, &n) != 2 || n < 1) {
					fprintf(stderr, "%s:%d: :frames wants LABEL N\n", path, lineno);
					goto fail;
				}
				xgrow(&sc->strings, &scap, sc->n_strings + 1, sizeof *sc->strings);
				sc->strings[sc->n_strings] = xstrdup(label);
				add(sc, &cap, (struct script_step){SCRIPT_FRAMES, 0, sc->strings[sc->n_strings++], n, 0});
			} else if (!strncmp(p, ":nowait", 7)) {
				add(sc, &cap, (struct script_step){SCRIPT_NOWAIT, 0, NULL, 0, 0});
			} else {
				fprintf(stderr, "%s:%d: unknown script command %s\n", path, lineno, p);
				goto fail;
			}
			continue;
		}
		while (*p) {
			while (*p == ' ' || *p == '\t')
				p++;
			if (!*p)
				break;
			if (*p == '"') {
				const unsigned char *q = (const unsigned char *)p + 1;
				while (*q && *q != '"') {
					int cp = *q == '\\' && q[1] ? (q++, *q++) : utf8_decode(&q);
					add(sc, &cap, (struct script_step){SCRIPT_KEY, cp, NULL, 0, 0});
				}
				p = (char *)q + (*q == '"');
				continue;
			}
			size_t n = strcspn(p, " \t");
			char tok[64];
			if (n >= sizeof tok) {
				fprintf(stderr, "%s:%d: key name too long\n", path, lineno);
				goto fail;
			}
			memcpy(tok, p, n);
			tok[n] = '\0';
			int key = actions_parse_key(tok);
			if (key < 0) {
				fprintf(stderr, "%s:%d: unknown key %s\n", path, lineno, tok);
				goto fail;
			}
			add(sc, &cap, (struct script_step){SCRIPT_KEY, key, NULL, 0, 0});
			p += n;
		}
	}
	fclose(f);
	return sc;
fail:
	fclose(f);
	script_free(sc);
	return NULL;
}

void script_free(struct script *sc)
{
	if (!sc)
		return;
	for (size_t i = 0; i < sc->n_strings; i++)
		free(sc->strings[i]);
	free(sc->strings);
	free(sc->steps);
	free(sc);
}

bool script_next(struct script *sc, struct script_step *out)
{
	if (sc->pos >= sc->n)
		return false;
	*out = sc->steps[sc->pos++];
	return true;
}
