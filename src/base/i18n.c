/* SPDX-License-Identifier: MIT */
/* Text domain setup: see i18n.h. */
#include "i18n.h"

#include <dirent.h>
#include <limits.h>
#include <locale.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if ENABLE_NLS
/* Whether dir holds a catalog of ours for some language (dir/LL/LC_MESSAGES/PACKAGE.mo). */
static bool has_catalog(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	bool found = false;
	struct dirent *e;
	char path[PATH_MAX];
	struct stat st;
	while (!found && (e = readdir(d)))
		if (e->d_name[0] != '.' &&
		    snprintf(path, sizeof path, "%s/%s/LC_MESSAGES/%s.mo", dir, e->d_name, PACKAGE) < (int)sizeof path)
			found = stat(path, &st) == 0 && S_ISREG(st.st_mode);
	closedir(d);
	return found;
}

/* The locale tree `make` lays beside the binary in the build tree (locale/), or NULL: run
 * from there (the README's way) the explorer speaks the user's language uninstalled. */
static const char *build_tree_localedir(char *buf, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	if (snprintf(buf, size, "%s/locale", exe) >= (int)size)
		return NULL;
	return has_catalog(buf) ? buf : NULL;
}
#endif

void i18n_init(void)
{
	setlocale(LC_CTYPE, "");
	setlocale(LC_MESSAGES, "");
#if ENABLE_NLS
	/* ASCPROF_LOCALEDIR when set (tests point it at a catalog of their own), else the build
	 * tree's when the binary runs from it, else the install prefix's */
	const char *dir = getenv("ASCPROF_LOCALEDIR");
	char buf[PATH_MAX];
	if (!dir || !*dir)
		dir = build_tree_localedir(buf, sizeof buf);
	bindtextdomain(PACKAGE, dir ? dir : LOCALEDIR);
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
