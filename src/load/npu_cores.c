/* SPDX-License-Identifier: MIT */
/* The device's core counts (npu_cores.h). */
#include "npu_cores.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "db.h"
#include "diag.h"
#include "sanitize.h"
#include "xalloc.h"

/* Known chips: the names msprof and torch_npu's NPU_INFO record. A family name gives the
 * range of its variants (Ascend910B: the A2 parts B1 to B4 with 20 to 24 AI Cores, and the
 * older Ascend 910 variant CANN also calls Ascend910B, 30 AI Cores without Vector cores
 * apart), so a kernel below the low end under-uses every device the name can mean. */
static const struct {
	const char *name;
	int aic_lo, aic_hi, aiv_lo, aiv_hi;
} chips[] = {
	{"Ascend910B2", 24, 24, 48, 48}, {"Ascend910B2C", 24, 24, 48, 48},
	{"Ascend910B3", 20, 20, 40, 40}, {"Ascend910B4", 20, 20, 40, 40},
	{"Ascend910B", 20, 30, 40, 48},  {"Ascend910A", 32, 32, 0, 0},
	{"Ascend910ProA", 32, 32, 0, 0},
};

bool npu_cores_from_chip(const char *chip, struct npu_cores *out)
{
	for (size_t i = 0; chip && i < sizeof chips / sizeof chips[0]; i++)
		if (!strcmp(chip, chips[i].name)) {
			out->known = true;
			out->aic_lo = chips[i].aic_lo;
			out->aic_hi = chips[i].aic_hi;
			out->aiv_lo = chips[i].aiv_lo;
			out->aiv_hi = chips[i].aiv_hi;
			return true;
		}
	return false;
}

/* "key": <integer> in a small JSON text, or -1 (info.json is a flat record msprof writes;
 * its DeviceInfo holds one device). */
static int json_int(const char *text, const char *key)
{
	char pat[48];
	snprintf(pat, sizeof pat, "\"%s\"", key);
	const char *p = strstr(text, pat);
	if (!p)
		return -1;
	p += strlen(pat);
	while (*p == ' ' || *p == ':' || *p == '"')
		p++;
	char *end;
	long v = strtol(p, &end, 10);
	return end > p && v > 0 && v < 10000 ? (int)v : -1;
}

static char *read_small(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = xmalloc(65537);
	size_t n = fread(buf, 1, 65536, f);
	fclose(f);
	buf[n] = 0;
	return buf;
}

/* The first device_<id>/info.json* under dir that names ai_core_num. */
static bool from_device_dir(const char *dev, struct npu_cores *out)
{
	DIR *d = opendir(dev);
	if (!d)
		return false;
	struct dirent *e;
	bool ok = false;
	while (!ok && (e = readdir(d))) {
		if (strncmp(e->d_name, "info.json", 9))
			continue;
		char *p = xasprintf("%s/%s", dev, e->d_name);
		char *text = read_small(p);
		free(p);
		int aic = text ? json_int(text, "ai_core_num") : -1;
		if (aic > 0) {
			int aiv = json_int(text, "aiv_num");
			out->known = ok = true;
			out->aic_lo = out->aic_hi = aic;
			out->aiv_lo = out->aiv_hi = aiv > 0 ? aiv : 0;
			out->source = "info.json";
		}
		free(text);
	}
	closedir(d);
	return ok;
}

static bool from_worker(const char *worker_dir, struct npu_cores *out)
{
	DIR *w = opendir(worker_dir);
	if (!w)
		return false;
	struct dirent *e;
	bool ok = false;
	while (!ok && (e = readdir(w))) {
		if (!strncmp(e->d_name, "device_", 7)) { /* a Class B rank's directory is the PROF_ one */
			char *dev = xasprintf("%s/%s", worker_dir, e->d_name);
			ok = from_device_dir(dev, out);
			free(dev);
			continue;
		}
		if (strncmp(e->d_name, "PROF_", 5))
			continue;
		char *prof = xasprintf("%s/%s", worker_dir, e->d_name);
		DIR *p = opendir(prof);
		struct dirent *f;
		while (p && !ok && (f = readdir(p)))
			if (!strncmp(f->d_name, "device_", 7)) {
				char *dev = xasprintf("%s/%s", prof, f->d_name);
				ok = from_device_dir(dev, out);
				free(dev);
			}
		if (p)
			closedir(p);
		free(prof);
	}
	closedir(w);
	return ok;
}

static void from_db(const char *db_path, struct npu_cores *out)
{
	struct diag_list dl; /* the loader says what is wrong with the Db; here it only lacks a name */
	diag_init(&dl);
	sqlite3 *h = db_open_readonly(db_path, &dl);
	if (!h) {
		diag_free(&dl);
		return;
	}
	sqlite3_stmt *st = NULL;
	if (db_has_table(h, "NPU_INFO") &&
	    sqlite3_prepare_v2(h, "SELECT name FROM NPU_INFO ORDER BY id LIMIT 1", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		char *clean = sanitize_dup(name, strlen(name));
		snprintf(out->chip, sizeof out->chip, "%s", clean);
		free(clean);
		if (npu_cores_from_chip(name, out))
			out->source = "NPU_INFO";
	}
	sqlite3_finalize(st);
	sqlite3_close(h);
	diag_free(&dl); /* after the handle: its budget reports into it */
}

void npu_cores_read(const char *worker_dir, const char *db_path, struct npu_cores *out)
{
	memset(out, 0, sizeof *out);
	if (worker_dir && from_worker(worker_dir, out))
		return;
	if (db_path)
		from_db(db_path, out);
}
