/* SPDX-License-Identifier: MIT */
/* Comparison of two analyses: BEFORE and AFTER captures (ranks paired by rank number), or
 * two ranks of one capture. For each pair of ranks: the headline figures side by side with
 * their delta and whether it is better or worse, the op diff (added, removed, slower,
 * faster, by total and by average, per scope and phase), category shares, bottleneck
 * scores on both sides, and whether BEFORE's top bottleneck's expected gain was achieved.
 * Comparability warnings say what makes the two sides differ beyond the change itself.
 *
 * Before judging, the comparison reads what each side recorded (profiler level, Python
 * frames, shapes, how steps were found, mstx, text or Db, ranks: `recorded`). A figure that
 * depends on something recorded differently (the step definition, the phases, host events
 * one side lacks, a window such events widen) is not comparable, with the reason, and gets
 * no better or worse; the gain verdict rests only on comparable figures.
 *
 * Deltas are AFTER - BEFORE (the second side minus the first); percentages are of BEFORE.
 * A figure's direction (better when lower or higher) is in the one table in compare.c. */
#ifndef ASCPROF_COMPARE_H
#define ASCPROF_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "op_rows.h"

/* Figures compared: every metric of the metric table, then the step-time percentiles per
 * phase, which the metric table holds for all steps only. */
enum compare_fig {
	CF_PREFILL_STEP_P50 = M_COUNT,
	CF_PREFILL_STEP_P95,
	CF_DECODE_STEP_P50,
	CF_DECODE_STEP_P95,
	CF_COUNT
};

enum compare_dir { CMP_DIR_NONE, CMP_LOWER_BETTER, CMP_HIGHER_BETTER, CMP_NEUTRAL };

enum compare_verdict { CMP_NA, CMP_SAME, CMP_BETTER, CMP_WORSE, CMP_CHANGED, CMP_NOT_COMPARABLE };

/* What a figure depends on beyond the device work: what the profiler recorded. */
enum compare_dep {
	CDEP_STEPS,  /* the step definition: markers, engine ops, op sequence, idle gaps, table */
	CDEP_PHASES, /* the signal the steps' phases were read from */
	CDEP_HOST,   /* host events only some recordings hold (python_function frames, mstx, the
		      * CANN API of Level1 and up) */
	CDEP_WINDOW, /* the window, which host events recorded on one side only widen */
	CDEP_SOURCE, /* every figure: a trace on one side only (the other's come from its tables) */
	CDEP_COUNT
};
/* A figure's dependencies, as bits (1 << enum compare_dep). */
unsigned compare_fig_deps(int fig);
struct compare_pair;
/* Why what depends on deps (bits as above; the source always counts) is not comparable on
 * p (borrowed from it), or NULL when it is. */
const char *compare_why(const struct compare_pair *p, unsigned deps);

/* Changes below this share of BEFORE (and below 1 ns or one count) are noise. */
#define COMPARE_NOISE_PCT 1.0

struct compare_fig_def {
	const char *key, *unit, *label; /* static: a metric's own, or the per-phase figure's */
	enum compare_dir dir;
};
/* Definition of a figure (0 <= fig < CF_COUNT). */
struct compare_fig_def compare_fig(int fig);
const char *compare_dir_name(enum compare_dir d); /* static */
const char *compare_verdict_name(enum compare_verdict v); /* static */

struct compare_value {
	bool have[2];
	double v[2];
	double delta;     /* v[1] - v[0] when both are known */
	double delta_pct; /* of |v[0]|; NaN when v[0] is 0 */
	enum compare_verdict verdict; /* CMP_NOT_COMPARABLE when !comparable */
	bool comparable;
	const char *reason; /* why not comparable (borrowed from the pair), else NULL */
};

enum op_change { OPC_SAME, OPC_SLOWER, OPC_FASTER, OPC_ADDED, OPC_REMOVED, OPC_COUNT };
const char *compare_op_change_name(enum op_change c); /* static */

struct op_diff {
	const char *name;            /* borrowed from a side's op statistics */
	/* a collective row's group, borrowed as name; "868/586" (before/after, from the pair's
	 * strs) for the one row of a kind left on each side, paired across groups: torch_npu's
	 * group number differs between runs of one job; else NULL */
	const char *group;
	bool collective;             /* whole collectives of one kind and group (op_stat's) */
	uint8_t scope, phase, category;
	const struct op_stat *s[2];  /* borrowed from each side's analysis; NULL where absent */
	int64_t delta_count;
	int64_t delta_total_ns;
	double delta_avg_ns;         /* 0 unless both sides have it */
	double delta_total_pct, delta_avg_pct; /* of BEFORE; NaN when absent there */
	enum op_change change;       /* by total time */
	enum op_change avg_change;   /* by time per call (SAME unless both sides have it) */
	/* a phase's row where the steps or phases are not comparable: its change is no
	 * verdict; reason borrowed from the pair */
	bool comparable;
	const char *reason;
};

/* BEFORE's top bottleneck against what happened. */
enum gain_verdict { GAIN_ACHIEVED, GAIN_PARTLY, GAIN_MISSED, GAIN_UNKNOWN };
const char *compare_gain_verdict_name(enum gain_verdict v); /* static */

struct compare_gain {
	enum bottleneck_kind kind;
	const char *name;         /* borrowed from BEFORE's bottleneck */
	int score[2];
	bool triggered;           /* BEFORE's score reached the trigger */
	double low_pct, high_pct; /* its expected gain, % of the window */
	bool gain_known;          /* bottleneck_gain_known: else the range is no estimate */
	double base[2];           /* the figure compared, in us: mean step time, or the window */
	const char *base_name;    /* static: "mean step time" or "window" */
	double actual_pct;        /* (base[0] - base[1]) / base[0] */
	enum gain_verdict verdict;
	char *basis; /* owned: how the verdict was reached */
	/* the figure measured on is comparable (else the verdict is unknown; reason borrowed
	 * from the pair) */
	bool comparable;
	const char *reason;
};

struct compare_pair {
	/* borrowed: each side's rank, or its second look with the steps found without markers
	 * (comparison.again) when only that gives both sides one step definition */
	const struct rank_analysis *ra[2];
	bool steps_again[2]; /* ra[s] is the second look */
	size_t rank_index[2];              /* in each side's capture */
	struct compare_value fig[CF_COUNT];
	struct op_diff *ops; /* owned; sorted by scope, phase, then |delta_total_ns| descending */
	size_t n_ops;
	struct strtab *strs; /* owned: groups of collectives paired across groups, or NULL */
	size_t n_change[SCOPE_COUNT][3][OPC_COUNT]; /* per scope, phase and change */
	double cat_share[2][SCOPE_COUNT][CAT_COUNT]; /* % of the scope's op time, all phases */
	int bn_score[2][BN_COUNT];
	bool bn_comparable[BN_COUNT];
	const char *bn_reason[BN_COUNT]; /* borrowed from why */
	/* why figures depending on each thing are not comparable (owned), NULL where they are */
	char *why[CDEP_COUNT];
	struct compare_gain gain;
	bool have_gain;
};

enum compare_mode { CMP_CAPTURES, CMP_RANKS };

/* What each side recorded, read before judging: one row per item. */
enum compare_rec {
	REC_LEVEL,  /* profiler level (profiler_info) */
	REC_FRAMES, /* python_function frames in the trace */
	REC_STACK,  /* with_stack (profiler_info) */
	REC_SHAPES, /* Input Shapes in the kernel table, operator_details.csv */
	REC_STEPS,  /* where the steps came from */
	REC_MSTX,   /* mstx events */
	REC_EXPORT, /* text or Db */
	REC_RANKS,  /* the rank numbers */
	REC_COUNT
};
struct compare_recorded {
	const char *key, *label; /* static; label N_() */
	char *value[2];          /* owned, per side; English (JSON) */
	bool differs;
};

struct comparison {
	enum compare_mode mode;
	const struct analysis *an[2]; /* borrowed; the same analysis twice for CMP_RANKS */
	char *label[2];               /* owned: "before"/"after", or "rank N" */
	struct compare_pair *pairs;   /* owned */
	size_t n_pairs;
	char **warnings;              /* owned: comparability warnings, capture text unsanitised */
	size_t n_warnings;
	struct compare_recorded recorded[REC_COUNT];
	size_t n_recorded_differ;
	/* owned: a side analysed again with its steps found as without markers
	 * (analysis_hook.marker_free_steps), where the other side has none; else NULL */
	struct analysis *again[2];
};

/* BEFORE and AFTER: ranks paired by rank number (by position when no number matches). */
/* Owned by the caller (compare_free); it borrows from both analyses, which must outlive it. */
struct comparison *compare_captures(const struct analysis *before, const struct analysis *after);
/* Rank rank_b of a capture against its rank rank_a, owned like compare_captures'; NULL
 * when either rank is absent. */
struct comparison *compare_ranks(const struct analysis *an, int rank_a, int rank_b);
void compare_free(struct comparison *c);

/* The pair holding rank_index of side 0 (its first pair when none does; borrowed from c);
 * NULL when empty. */
const struct compare_pair *compare_pair_for(const struct comparison *c, size_t rank_index);
/* One op's diff (borrowed from p); NULL when neither side has it. */
/* The diff of key's rows (op_rows.h) in scope and phase, or NULL. */
const struct op_diff *compare_find_op(const struct compare_pair *p, int scope, int phase, struct op_key key);
/* The value of a figure on one rank (false when unknown): metrics and per-phase step times. */
bool compare_fig_value(const struct rank_analysis *ra, int fig, double *out);

#endif
