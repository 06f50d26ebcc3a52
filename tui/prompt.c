/* SPDX-License-Identifier: MIT */
/* The prompt line and the `:` commands' handlers (prompt.h, commands.h). */
#include "prompt.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app_parts.h"
#include "commands.h"
#include "csvw.h"
#include "i18n.h"
#include "xalloc.h"

/* :export FILE: the top view's table as CSV, written only where the user said and never
 * inside a capture; an existing file only with :export! */
static void export_table(struct app *app, const char *path, bool overwrite)
{
	enum view_id v = app_top_view(app);
	const struct view_ops *vo = app_view_ops(v);
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
	char err[512];
	FILE *f = csvw_open(path, roots, n, overwrite, err, sizeof err);
	free(roots);
	if (!f) {
		app_message(app, ST_WARN, "%s", err);
		return;
	}
	size_t rows = vo->export_csv(app_view_state(app, v), app, f);
	bool bad = ferror(f) != 0;
	if (fclose(f) != 0 || bad)
		app_message(app, ST_WARN, _("writing %s failed"), path);
	else
		app_message(app, ST_NORMAL, _("%s: %zu row(s) written to %s"), _(vo->title), rows, path);
}

/* Searches the top view for text (dir 0: from the selection on, 1 next, -1 previous) and
 * says which match of how many it landed on. */
void prompt_search(struct app *app, const char *text, int dir)
{
	enum view_id v = app_top_view(app);
	const struct view_ops *vo = app_view_ops(v);
	if (dir == 0)
		snprintf(app->last_search, sizeof app->last_search, "%s", text);
	listbox_set_matches(0, 0);
	size_t match_k, match_n;
	if (!vo->search) {
		app_message(app, ST_WARN, _("%s has no search"), _(vo->title));
	} else if (!vo->search(app_view_state(app, v), app, text, dir)) {
		app_message(app, ST_WARN, dir ? _("no more matches for %s") : _("no match for %s"), text);
	} else if (listbox_matches(&match_k, &match_n), match_n) {
		app_message(app, ST_NORMAL, _("match %zu of %zu for %s"), match_k, match_n, text);
	}
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
		if (!strcasecmp(rest, app_view_ops((enum view_id)v)->title)) {
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
	prompt_search(app, rest, 0);
}

void cmd_export(struct app *app, const char *word, const char *rest)
{
	export_table(app, rest, word[strlen(word) - 1] == '!');
}

static void run_command(struct app *app, const char *line)
{
	char word[64] = "";
	const char *rest = line;
	while (*rest == ' ')
		rest++;
	size_t n = strcspn(rest, " ");
	if (n >= sizeof word)
		n = sizeof word - 1;
	memcpy(word, rest, n);
	word[n] = '\0';
	rest += n;
	while (*rest == ' ')
		rest++;
	const struct command_def *cmd = commands_lookup(word);
	if (cmd) {
		cmd->run(app, word, rest);
	} else if (word[0]) {
		char names[256];
		/* TRANSLATORS: between the command names of "unknown command: %s (try %s)" */
		commands_names(names, sizeof names, _(", "));
		app_message(app, ST_WARN, _("unknown command: %s (try %s)"), word, names);
	}
}

static void prompt_submit(struct app *app)
{
	char text[256];
	snprintf(text, sizeof text, "%.*s", (int)app->prompt_len, app->prompt);
	char kind = app->prompt_kind;
	app->prompt_kind = 0;
	enum view_id v = app_top_view(app);
	const struct view_ops *vo = app_view_ops(v);
	if (kind == ':') {
		run_command(app, text);
	} else if (kind == '/') {
		prompt_search(app, text, 0);
	} else if (kind == '\\') {
		if (vo->filter)
			vo->filter(app_view_state(app, v), app, text);
		else
			app_message(app, ST_WARN, _("%s has no filter (the Ops view has)"), _(vo->title));
	}
	app->dirty = true;
}

void prompt_key(struct app *app, int key)
{
	if (key == 27) {
		app->prompt_kind = 0;
	} else if (key == '\r' || key == '\n' || key == KEYCODE_FN(KEY_ENTER)) {
		prompt_submit(app);
	} else if (key == 127 || key == 8 || key == KEYCODE_FN(KEY_BACKSPACE)) {
		/* drop one UTF-8 character */
		while (app->prompt_len > 0) {
			unsigned char c = (unsigned char)app->prompt[--app->prompt_len];
			if ((c & 0xC0) != 0x80)
				break;
		}
	} else if (key >= 32 && key < 0x110000 && key != 127) {
		char enc[4];
		int n = 0;
		if (key < 0x80)
			enc[n++] = (char)key;
		else if (key < 0x800) {
			enc[n++] = (char)(0xC0 | (key >> 6));
			enc[n++] = (char)(0x80 | (key & 0x3F));
		} else if (key < 0x10000) {
			enc[n++] = (char)(0xE0 | (key >> 12));
			enc[n++] = (char)(0x80 | ((key >> 6) & 0x3F));
			enc[n++] = (char)(0x80 | (key & 0x3F));
		} else {
			enc[n++] = (char)(0xF0 | (key >> 18));
			enc[n++] = (char)(0x80 | ((key >> 12) & 0x3F));
			enc[n++] = (char)(0x80 | ((key >> 6) & 0x3F));
			enc[n++] = (char)(0x80 | (key & 0x3F));
		}
		if (app->prompt_len + (size_t)n < sizeof app->prompt) {
			memcpy(app->prompt + app->prompt_len, enc, (size_t)n);
			app->prompt_len += (size_t)n;
		}
	}
	app->dirty = true;
}
