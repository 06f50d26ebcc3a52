/* SPDX-License-Identifier: MIT */
/* The one action table: every user action with its name, where it applies, its default
 * keys and its help text. Key dispatch, the help view, `--list-keys` and the man-page check
 * are all generated from it. */
#ifndef ASCPROF_ACTIONS_H
#define ASCPROF_ACTIONS_H

#include <stdbool.h>
#include <stdio.h>

/* Where an action applies; views say which scopes they take, GLOBAL comes last. */
enum key_scope {
	KS_GLOBAL = 1 << 0,
	KS_LIST = 1 << 1,     /* tables and lists: ops, steps, ranks, bottleneck, help, docs */
	KS_OPS = 1 << 2,      /* the ops table */
	KS_TIMELINE = 1 << 3,
	KS_RANKS = 1 << 4,
	KS_PROMPT = 1 << 5,   /* while typing a search or a command */
	KS_COMPARE = 1 << 6,  /* the Compare view */
	KS_COMM = 1 << 7,     /* the Communication view */
	KS_SERVING = 1 << 8,  /* the Serving view */
};

/* X(id, "name", scope, "keys", "help") */
#define ACTIONS(X)                                                                                  \
	X(QUIT, "quit", KS_GLOBAL, "Q", "Quit at once")                                                \
	X(CLOSE, "close", KS_GLOBAL, "q Esc", "Back to the previous view (q on the first view quits)") \
	X(HELP, "help", KS_GLOBAL, "?", "Show every key (this screen)")                               \
	X(DOCS, "docs", KS_GLOBAL, "F1 M", "Metric definitions: formula, unit, source, caveat")        \
	X(COMMAND, "command", KS_GLOBAL, ":",                                                         \
	  "Command line: rank N, view NAME, goto MS, zoom MS MS, search TEXT, export FILE, quit")     \
	X(VIEW_OVERVIEW, "view-overview", KS_GLOBAL, "1", "Overview: one screen of triage")          \
	X(VIEW_TIMELINE, "view-timeline", KS_GLOBAL, "2", "Timeline: Host/Device swimlanes")          \
	X(VIEW_OPS, "view-ops", KS_GLOBAL, "3", "Ops: sortable op statistics")                        \
	X(VIEW_STEPS, "view-steps", KS_GLOBAL, "4", "Steps: per-step breakdown")                      \
	X(VIEW_RANKS, "view-ranks", KS_GLOBAL, "5", "Ranks: alignment and per-rank balance")          \
	X(VIEW_BOTTLENECK, "view-bottleneck", KS_GLOBAL, "6", "Bottleneck: scores, evidence, gains")  \
	X(VIEW_MEMORY, "view-memory", KS_GLOBAL, "7", "Memory: peaks per component, curve, allocations") \
	X(VIEW_COMM, "view-comm", KS_GLOBAL, "8", "Communication: groups and ops, transports, matrix")  \
	X(VIEW_COMPARE, "view-compare", KS_GLOBAL, "9", "Compare: two captures or two ranks side by side") \
	X(VIEW_CLUSTER, "view-cluster", KS_GLOBAL, "0", "Cluster: ranks x steps, slow ranks, wait vs transfer") \
	X(VIEW_SERVING, "view-serving", KS_GLOBAL, "V",                                               \
	  "Serving: requests, batches, forwards, KV cache (MS Service Profiler)")                       \
	X(VIEW_MOE, "view-moe", KS_GLOBAL, "X", "MoE: ranks x MoE layers, expert load and waits")              \
	X(NEXT_VIEW, "next-view", KS_GLOBAL, "Tab", "Next view")                                      \
	X(PREV_VIEW, "prev-view", KS_GLOBAL, "BackTab", "Previous view")                              \
	X(NEXT_RANK, "next-rank", KS_GLOBAL, ">", "Next rank")                                        \
	X(PREV_RANK, "prev-rank", KS_GLOBAL, "<", "Previous rank")                                    \
	X(REDRAW, "redraw", KS_GLOBAL, "C-l", "Redraw the screen")                                    \
	X(DOWN, "down", KS_LIST | KS_TIMELINE, "j Down", "Move down (a row, a lane)")                \
	X(UP, "up", KS_LIST | KS_TIMELINE, "k Up", "Move up")                                         \
	X(PAGE_DOWN, "page-down", KS_LIST | KS_TIMELINE, "PgDn C-f", "Page down")                      \
	X(PAGE_UP, "page-up", KS_LIST | KS_TIMELINE, "PgUp C-b", "Page up")                            \
	X(TOP, "top", KS_LIST | KS_TIMELINE, "g Home", "Go to the first row")                         \
	X(BOTTOM, "bottom", KS_LIST | KS_TIMELINE, "G End", "Go to the last row")                     \
	X(OPEN, "open", KS_LIST, "Enter", "Open the selected row (op, step, evidence)")               \
	X(SEARCH, "search", KS_LIST | KS_TIMELINE, "/", "Search names")                               \
	X(SEARCH_NEXT, "search-next", KS_LIST | KS_TIMELINE, "n", "Next match")                       \
	X(SEARCH_PREV, "search-prev", KS_LIST | KS_TIMELINE, "N", "Previous match")                   \
	X(FILTER, "filter", KS_LIST, "\\", "Keep only rows whose name contains a text")               \
	X(COLUMN_RIGHT, "column-right", KS_LIST, "l Right",                                             \
	  "Wide tables: scroll right by a column (the key columns stay)")                               \
	X(COLUMN_LEFT, "column-left", KS_LIST, "h Left", "Wide tables: scroll left by a column")        \
	X(SORT_NEXT, "sort-next", KS_OPS | KS_COMM | KS_SERVING, "s", "Sort by the next column")                   \
	X(SORT_REVERSE, "sort-reverse", KS_OPS | KS_COMM | KS_SERVING, "S", "Reverse the sort order")              \
	X(COMM_PANE, "comm-pane", KS_COMM, "v", "Communication pane: ops, transports, matrix")        \
	X(OP_SCOPE, "op-scope", KS_OPS, "c", "Scope: device, host, all")                              \
	X(PHASE, "phase", KS_OPS, "p", "Phase: all, prefill, decode")                                 \
	X(OP_GROUP, "op-group", KS_OPS, "y", "Group ops by: name, type, type and input shape")         \
	X(COMPARE_TABLE, "compare-table", KS_COMPARE, "t", "Compare: figures, ops or bottlenecks")     \
	X(ZOOM_IN, "zoom-in", KS_TIMELINE, "w +", "Zoom in")                                          \
	X(ZOOM_OUT, "zoom-out", KS_TIMELINE, "s -", "Zoom out")                                       \
	X(PAN_LEFT, "pan-left", KS_TIMELINE, "a Left", "Pan left")                                    \
	X(PAN_RIGHT, "pan-right", KS_TIMELINE, "d Right", "Pan right")                                \
	X(FIT, "fit", KS_TIMELINE, "f", "Fit the whole window")                                       \
	X(UNDO_ZOOM, "undo-zoom", KS_TIMELINE, "Backspace", "Back to the previous zoom")              \
	X(NEXT_EVENT, "next-event", KS_TIMELINE, ".", "Select the next event on the lane")           \
	X(PREV_EVENT, "prev-event", KS_TIMELINE, ",", "Select the previous event on the lane")       \
	X(LONGEST, "longest", KS_TIMELINE, "l", "Select the longest event in view on the lane")      \
	X(ROW_MODE, "row-mode", KS_TIMELINE, "r", "Rows: per thread/stream, per op, or every rank")   \
	X(ROW_SORT, "row-sort", KS_TIMELINE, "o", "Per-op rows: sort by total, count, name, max")     \
	X(STACK, "stack", KS_TIMELINE, "e",                                                           \
	  "Call stack: the lane's nesting levels as rows of their own, names where they fit")       \
	X(MARK, "mark", KS_TIMELINE, "m", "Set a mark at the selected event")                         \
	X(NEXT_MARK, "next-mark", KS_TIMELINE, "'", "Jump to the next mark")                         \
	X(RANGE, "range", KS_TIMELINE, "v",                                                           \
	  "Range: start it, end it (totals per category and op in it), clear it")                   \
	X(DETAIL, "detail", KS_TIMELINE, "Enter i", "Detail drawer: args, CSV rows, flows")           \
	X(FLOW_NEXT, "flow-next", KS_TIMELINE, "]", "Follow the flow: host op to its device kernel") \
	X(FLOW_PREV, "flow-prev", KS_TIMELINE, "[", "Follow the flow back: kernel to its host op")   \
	X(FLOW_OTHER_NEXT, "flow-other-next", KS_TIMELINE, "}",                                          \
	  "Next of the flows the last ] or [ could follow (when it had several)")                         \
	X(FLOW_OTHER_PREV, "flow-other-prev", KS_TIMELINE, "{",                                          \
	  "Previous of the flows the last ] or [ could follow (when it had several)")                     \
	X(ALIGN_MODE, "align-mode", KS_RANKS | KS_TIMELINE, "A", "Alignment: first, raw, collective")

enum action {
	ACT_NONE,
#define ACTION_ENUM(id, name, scope, keys, help) ACT_##id,
	ACTIONS(ACTION_ENUM)
#undef ACTION_ENUM
	ACT_COUNT
};

/* Every string is a static literal (help marked N_(): translate it where it is shown). */
struct action_def {
	const char *name;
	unsigned scope;
	const char *keys; /* space-separated key names */
	const char *help;
};
extern const struct action_def action_defs[ACT_COUNT];

/* Key codes: Unicode code points for characters, KEYCODE_FN(k) for curses function keys. */
#define KEYCODE_FN(k) (0x110000 + (k))

/* The action bound to key in the given scopes (GLOBAL is always tried last). */
enum action actions_lookup(int key, unsigned scopes);
/* A key name ("j", "Enter", "C-f", "F1") to its code; -1 when unknown. */
int actions_parse_key(const char *name);
/* The name of a key code: a static literal, or a static buffer the next call overwrites
 * (main thread only). */
const char *actions_key_name(int key);
/* The next space-separated word of a list such as keys (its length in *n), *p moved past
 * it; NULL at the end. The word points into the list (borrowed, not NUL-terminated). */
const char *actions_next_word(const char **p, size_t *n);
/* Prints the table: scope, keys, action, help (for --list-keys). out is borrowed. */
void actions_print(FILE *out);
/* The name of a scope set, a static literal. */
const char *actions_scope_name(unsigned scope);

#endif
