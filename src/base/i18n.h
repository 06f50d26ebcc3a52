/* SPDX-License-Identifier: MIT */
/* Translations (gettext, po/): _() translates a string where it is used, N_() marks one
 * in a static table for xgettext, to be translated with _() where it is shown. Only
 * LC_MESSAGES and LC_CTYPE follow the environment (i18n_init): numbers keep the C format.
 * A JSON run switches messages back to English (i18n_english), so JSON never changes. */
#ifndef ASCPROF_I18N_H
#define ASCPROF_I18N_H

#include "config.h"

#if ENABLE_NLS
#include <libintl.h>
#define _(s) gettext(s)
#else
#define _(s) (s)
#endif
#define N_(s) (s)
/* A translation in a context, for a word that reads differently in different places ("ops"
 * the Compare table, "ops" after a count): xgettext's C_:1c,2 keyword (po/Makevars). */
#define C_(ctx, s) i18n_pgettext(ctx "\004" s, s)
const char *i18n_pgettext(const char *ctx_and_msgid, const char *msgid);

/* Sets LC_MESSAGES and LC_CTYPE from the environment and binds the text domain to the
 * installed catalogs, or to $ASCPROF_LOCALEDIR when it is set (the tests' build tree).
 * Messages are always UTF-8, whatever the locale's charset. */
void i18n_init(void);
/* English from here on: JSON output is never translated, and texts the analysis writes
 * (bottleneck evidence, advice) go into it, so a JSON run keeps every message in English. */
void i18n_english(void);
/* Back to the environment's language after i18n_english (not thread-safe: setlocale). */
void i18n_user(void);
/* The language messages are in now ("en", or the catalog's, e.g. "zh_CN"): the trace
 * index keeps the loaders' messages, and keeps them per language. Static. */
const char *i18n_language(void);

#endif
