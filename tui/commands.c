/* SPDX-License-Identifier: MIT */
/* The command table, its lookup and the commands' handlers. They are here, beside the
 * table that names them, and call only the app (app_parts.h): the prompt line (prompt.c)
 * dispatches to them through the table. */
#include "commands.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "actions.h"
#include "app_parts.h"
#include "csvw.h"
#include "i18n.h"
#include "xalloc.h"

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

/* :export FILE: the top view's table as CSV, written only where the user said and never
 * inside a capture; an existing file only with :export! */
static void export_table(struct app *app, const char *path, bool overwrite)
{
	enum view_id v = app_top_view(app);
	const struct view_ops *vo = app_view_ops(app, v);
	if (!*path) {
		app_message(app, ST_WARN, _("export wants a file name: :export FILE.csv"));
		return;
	}
	if (!vo->export_csv || !app_pub(app)) {
		app_message(app, ST_WARN, _("%s has no table to export%s"), _(vo->title), app_pub(app) ? "" : _(" yet"));
		return;
	}
	/* every directory either capture reads, also the worker above an output directory
	 * opened alone (its profiler_info) */
	size_t max = 4 + 2 * (app->cap->plan.n_ranks + (app->cap_b ? app->cap_b->plan.n_ranks : 0));
	const char **roots = xcalloc(max, sizeof *roots);
	size_t n = capture_read_dirs(&app->cap->plan, roots, max);
	if (app->cap_b)
		n += capture_read_dirs(&app->cap_b->plan, roots + n, max - n);
	struct sbuf err = SBUF_INIT;
	FILE *f = csvw_open(path, roots, n, overwrite, &err);
	free(roots);
	if (!f) {
		app_message(app, ST_WARN, "%s", err.buf ? err.buf : "");
		sbuf_free(&err);
		return;
	}
	size_t rows = vo->export_csv(app_view_state(app, v), app, f);
	bool bad = ferror(f) != 0;
	if (fclose(f) != 0 || bad)
		app_message(app, ST_WARN, _("writing %s failed"), path);
	else
		app_message(app, ST_NORMAL, _("%s: %zu row(s) written to %s"), _(vo->title), rows, path);
}

/* The `:` commands' handlers, one per row of the command table (commands.h). */
void cmd_quit(struct app *app, const char *word, const char *rest)
{
	(void)word, (void)rest;
	app->quit = true;
}

void cmd_rank(struct app *app, const char *word, const char *rest)
{
	(void)word;
	long r = strtol(rest, NULL, 10);
	for (size_t i = 0; i < app->cap->n_ranks; i++)
		if (app->cap->ranks[i].plan->rank == r) {
			app->rank = i;
			app_refresh_views(app);
			return;
		}
	app_message(app, ST_WARN, _("no rank %ld"), r);
}

void cmd_view(struct app *app, const char *word, const char *rest)
{
	(void)word;
	for (int v = 0; v < VIEW_COUNT; v++)
		if (!strcasecmp(rest, app_view_ops(app, (enum view_id)v)->title)) {
			app_push(app, (enum view_id)v);
			return;
		}
	app_message(app, ST_WARN, _("no view named %s"), rest);
}

/* :goto MS and :zoom MS MS: a window of the Timeline in ms from the rank's first event */
static void timeline_window(struct app *app, const char *word, const char *rest, bool zoom)
{
	const struct rank_analysis *ra = app_rank_analysis(app);
	if (!ra) {
		app_message(app, ST_WARN, _("still loading"));
		return;
	}
	char *end;
	double a = strtod(rest, &end), b = a + 1;
	if (end == rest) {
		app_message(app, ST_WARN, _("%s wants milliseconds from the rank's start"), word);
		return;
	}
	if (zoom) {
		char *end2;
		b = strtod(end, &end2);
		if (end2 == end) {
			app_message(app, ST_WARN, _("%s wants two times in ms: where the view starts and ends"), word);
			return;
		}
	}
	if (!isfinite(a) || !isfinite(b) || fabs(a) > 1e9 || fabs(b) > 1e9) {
		app_message(app, ST_WARN, _("%s wants milliseconds from the rank's start"), word);
		return;
	}
	if (zoom && b == a) {
		app_message(app, ST_WARN, _("%s %g %g is no interval: give a start and an end"), word, a, b);
		return;
	}
	/* the ends given the other way round are swapped, and said to be (not a 1 us view) */
	bool swapped = zoom && b < a;
	if (swapped) {
		double x = a;
		a = b;
		b = x;
	}
	int64_t t0 = ra->t0 + (int64_t)(a * 1e6), t1 = ra->t0 + (int64_t)(b * 1e6);
	if (!zoom) {
		t0 -= 500000;
		t1 = t0 + 1000000;
	}
	/* a window that misses the rank's events would show nothing without a word: refused */
	const struct rank_data *rd = app_rank_data(app);
	if (rd && rd->store.has_events && (t1 <= rd->store.window_start || t0 >= rd->store.window_end)) {
		char b1[32], b2[32];
		app_fmt_dur(rd->store.window_start - ra->t0, b1, sizeof b1);
		app_fmt_dur(rd->store.window_end - ra->t0, b2, sizeof b2);
		if (zoom)
			app_message(app, ST_WARN, _("%s %g %g: no events there (%s .. %s)"),
				    word, a, b, b1, b2);
		else
			app_message(app, ST_WARN, _("%s %g: no events there (%s .. %s)"),
				    word, a, b1, b2);
		return;
	}
	app_open(app, VIEW_TIMELINE, &(struct view_target){.timeline = {app->rank, t0, t1 > t0 ? t1 : t0 + 1000, UINT32_MAX}});
	if (swapped)
		app_message(app, ST_NORMAL, _("%s: the ends swapped, %g .. %g ms"), word, a, b);
}

void cmd_goto(struct app *app, const char *word, const char *rest)
{
	timeline_window(app, word, rest, false);
}

void cmd_zoom(struct app *app, const char *word, const char *rest)
{
	timeline_window(app, word, rest, true);
}

void cmd_search(struct app *app, const char *word, const char *rest)
{
	(void)word;
	app_search(app, rest, 0);
}

void cmd_export(struct app *app, const char *word, const char *rest)
{
	export_table(app, rest, word[strlen(word) - 1] == '!');
}
