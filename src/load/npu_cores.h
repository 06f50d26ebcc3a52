/* SPDX-License-Identifier: MIT */
/* How many AI Cores (cube) and Vector cores the capture's device has, from what the
 * capture records: a PROF_ directory's device_<id>/info.json.<id> (ai_core_num,
 * aiv_num: exact), else the Db export's NPU_INFO chip name through a table of known chips
 * (a family name such as Ascend910B gives the range its variants span). Nothing is
 * guessed: an unknown chip leaves the count unknown, and the rules that need it say so. */
#ifndef ASCPROF_NPU_CORES_H
#define ASCPROF_NPU_CORES_H

#include <stdbool.h>

struct npu_cores {
	bool known;       /* aic_lo > 0: the AI Core count is known (exactly or as a range) */
	int aic_lo, aic_hi; /* AI Cores: lo == hi when exact */
	int aiv_lo, aiv_hi; /* Vector cores; 0 when the device has none apart (or unknown) */
	char chip[48];    /* the chip name as recorded (sanitised), "" when none */
	const char *source; /* static: "info.json", "NPU_INFO" or NULL */
};

/* The chip name's counts (a table of known names); false for a name the table lacks. */
bool npu_cores_from_chip(const char *chip, struct npu_cores *out);
/* The counts for a rank: the info.json of a device directory in worker_dir (a Class B
 * rank's PROF_ directory) or in its PROF_ ones, else db_path's NPU_INFO
 * (either may be NULL). out->known false when neither says. */
void npu_cores_read(const char *worker_dir, const char *db_path, struct npu_cores *out);

#endif
