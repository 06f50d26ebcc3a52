/* SPDX-License-Identifier: MIT */
/* `--summary`: what was found and loaded, per rank and per file, as text or JSON. */
#ifndef ASCPROF_SUMMARY_H
#define ASCPROF_SUMMARY_H

#include <stdio.h>

#include "capture.h"

void summary_print_text(const struct capture *cap, FILE *out);
void summary_print_json(const struct capture *cap, FILE *out);
/* Text helpers shared with the report: capture bytes are always sanitised. */
void summary_put_clean(FILE *out, const char *s);
/* Diagnostics as "level: file:line: message" lines (sanitised). */
void summary_print_diags(struct diag_list *dl, FILE *out, const char *indent);
struct jsonw;
/* The diagnostics as JSON: "warnings" (strings) and "diagnostics" (objects). */
void summary_json_diags(struct jsonw *w, struct diag_list *dl);
/* "diagnostics" (objects, every level) and "diagnostics_dropped" alone. */
void summary_json_diagnostics(struct jsonw *w, struct diag_list *dl);
struct doctor_item;
/* The capture doctor's items (doctor.h): text lines under "capture doctor", or the JSON
 * list "doctor" of {what_missing, affects, setting, ranks}. */
void summary_doctor_text(FILE *out, const struct doctor_item *items, size_t n);
void summary_doctor_json(struct jsonw *w, const struct doctor_item *items, size_t n);
/* Human-friendly byte and duration strings written to buf, which is returned. */
const char *summary_bytes(uint64_t bytes, char *buf, size_t size);
const char *summary_duration(int64_t ns, char *buf, size_t size);

#endif
