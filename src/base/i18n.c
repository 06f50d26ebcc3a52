/* SPDX-License-Identifier: MIT */
/* Text domain setup: see i18n.h. */
#include "i18n.h"

#include <locale.h>
#include <stdlib.h>

void i18n_init(void)
{
	setlocale(LC_CTYPE, "");
	setlocale(LC_MESSAGES, "");
#if ENABLE_NLS
	const char *dir = getenv("ASCPROF_LOCALEDIR");
	bindtextdomain(PACKAGE, dir && *dir ? dir : LOCALEDIR);
	bind_textdomain_codeset(PACKAGE, "UTF-8");
	textdomain(PACKAGE);
#endif
}

const char *i18n_pgettext(const char *ctx_and_msgid, const char *msgid)
{
#if ENABLE_NLS
	/* gettext hands back its argument when the catalog has no such entry */
	const char *t = gettext(ctx_and_msgid);
	return t == ctx_and_msgid ? msgid : t;
#else
	(void)ctx_and_msgid;
	return msgid;
#endif
}

void i18n_english(void) { setlocale(LC_MESSAGES, "C"); }

void i18n_user(void) { setlocale(LC_MESSAGES, ""); }

const char *i18n_language(void)
{
	/* TRANSLATORS: the language of this catalog's messages (its locale name), kept in the
	 * trace index beside the messages it stores */
	return _("en");
}
