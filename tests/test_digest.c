/* SPDX-License-Identifier: MIT */
/* Digests (digest.h) and the cluster analysis (cluster.h): a generated 16-rank capture
 * with a planted slow rank, its digests giving the same per-rank report (text and JSON) and
 * the same cluster section; the slow rank found, and none on a balanced capture; broken
 * digests (another version, truncated, damaged, a duplicated rank, a rank of another run)
 * left out with a message while the rest open; 1,024 synthetic digests opened and reported
 * in bounded time. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <time.h>

#include "analysis.h"
#include "capture.h"
#include "cluster.h"
#include "cluster_db.h"
#include "digest.h"
#include "report.h"
#include "sbuf.h"
#include "testutil.h"
#include "xalloc.h"

#define SLOW 5
#define GEN16 "--ranks 16 --comm --memory --steps 5 --ops 60 --slow-rank 5"

__attribute__((noinline)) static char *render(const struct analysis *an, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (json)
		report_print_json(an, f);
	else
		report_print_text(an, f);
	fclose(f);
	return buf;
}

/* The text between the first a and the first of the ends after it (owned). */
static char *between(const char *s, const char *a, const char *const *ends, size_t n_ends)
{
	const char *p = strstr(s, a);
	assert_non_null(p);
	const char *e = p + strlen(p);
	for (size_t i = 0; i < n_ends; i++) {
		const char *q = strstr(p + 1, ends[i]);
		if (q && q < e)
			e = q;
	}
	while (e > p && e[-1] == '\n') /* the blank line before a next section */
		e--;
	return xstrndup(p, (size_t)(e - p));
}

static char *write_digests(const struct analysis *an)
{
	char *dir = tu_tmpdir();
	struct diag_list dl;
	diag_init(&dl);
	for (size_t r = 0; r < an->n_ranks; r++)
		assert_int_equal(digest_write(an, r, dir, &dl, NULL), 0);
	assert_int_equal(dl.n, 0);
	diag_free(&dl);
	return dir;
}

/* The per-rank sections of two text reports (the alignment table and every rank's block)
 * are the same bytes; returns them (owned) for further checks. */
static char *assert_same_rank_sections(const struct analysis *x, const struct analysis *y)
{
	char *tx = render(x, false), *ty = render(y, false);
	static const char *const rank_end[] = {"\n== communication", "\ncluster:", "\nmessages"};
	char *a = between(tx, "\nrank alignment", rank_end, 3), *b = between(ty, "\nrank alignment", rank_end, 3);
	assert_string_equal(a, b);
	free(b);
	free(tx);
	free(ty);
	return a;
}

static void assert_same_cluster(const struct cluster_analysis *a, const struct cluster_analysis *b)
{
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(a->n_ranks, b->n_ranks);
	assert_int_equal(a->n_steps, b->n_steps);
	assert_int_equal(a->matched, b->matched);
	assert_int_equal(a->n_slow, b->n_slow);
	assert_int_equal(a->waited_rank, b->waited_rank);
	assert_int_equal(a->own_median_ns, b->own_median_ns);
	assert_int_equal(a->own_mad_ns, b->own_mad_ns);
	for (size_t r = 0; r < a->n_ranks; r++) {
		assert_int_equal(a->ranks[r].wait_ns, b->ranks[r].wait_ns);
		assert_int_equal(a->ranks[r].own_ns, b->ranks[r].own_ns);
		assert_int_equal(a->ranks[r].slow, b->ranks[r].slow);
	}
	assert_memory_equal(a->cells, b->cells, a->n_ranks * a->n_steps * sizeof *a->cells);
}

/* The text from start to the first of ends is the same in x and y. */
static void assert_same_between(const char *x, const char *y, const char *start, const char *const *ends,
				size_t n_ends)
{
	char *a = between(x, start, ends, n_ends), *b = between(y, start, ends, n_ends);
	assert_string_equal(a, b);
	free(a);
	free(b);
}

/* The whole text report but its first line (the path) and what follows the sections (the
 * capture's messages; the digests' note), and the JSON report's ranks, communication and
 * cluster figures: the same bytes from a capture and from its digests. */
static void assert_same_reports(const struct analysis *x, const struct analysis *y)
{
	char *tx = render(x, false), *ty = render(y, false);
	static const char *const end[] = {"\n\nmessages\n", "\n  (read from digests"};
	assert_same_between(tx, ty, "\n", end, 2);
	free(tx);
	free(ty);
	char *jx = render(x, true), *jy = render(y, true);
	/* from the ranks to the cluster's from_digests flag, which says where it was read, then
	 * the cluster's figures and the thresholds, up to the messages */
	static const char *const jend[] = {"\"from_digests\":"};
	static const char *const jend2[] = {"\"warnings\":", "\"diagnostics\":"};
	assert_same_between(jx, jy, "\"ranks\":", jend, 1);
	assert_same_between(jx, jy, "\"ranks_n\":", jend2, 2);
	free(jx);
	free(jy);
}

/* The 16-rank capture and its digests: the per-rank sections of the text report (alignment
 * table, every rank's block) and of the JSON report (the ranks array) are byte-identical,
 * every metric agrees to 0.01 % (here: exactly), and the cluster sections are the same; so
 * is the communication section (communication.json carried in the digests). */
static void test_identity_16(void **state)
{
	(void)state;
	struct tu_capture c = {0};
	tu_capture_load(&c, GEN16, true);
	assert_int_equal(c.an->n_ranks, 16);
	char *dir = write_digests(c.an);
	struct analysis *dg = analysis_from_digests(dir);
	assert_true(dg->from_digests);
	assert_int_equal(dg->n_ranks, 16);
	assert_int_equal(dg->cap->diags.n, 0);
	for (size_t r = 0; r < 16; r++) {
		const struct rank_analysis *x = &c.an->ranks[r], *y = &dg->ranks[r];
		assert_int_equal(x->rank, y->rank);
		for (int m = 0; m < M_COUNT; m++) {
			assert_int_equal(x->have[m], y->have[m]);
			if (x->have[m])
				assert_true(tu_close(y->v[m], x->v[m], 1e-4, 0));
		}
		assert_memory_equal(x->attr.ns, y->attr.ns, sizeof x->attr.ns);
		assert_int_equal(x->n_steps, y->n_steps);
		assert_int_equal(x->offset_ns[ALIGN_COLLECTIVE], y->offset_ns[ALIGN_COLLECTIVE]);
	}
	char *a = assert_same_rank_sections(c.an, dg);
	assert_true(strlen(a) > 10000); /* 16 ranks' blocks */
	free(a);

	assert_same_cluster(c.an->cluster, dg->cluster);
	/* the whole report, the communication section included */
	assert_true(c.an->comm->present);
	assert_true(dg->comm->present);
	assert_int_equal(dg->comm->n_ranks, 16);
	assert_same_reports(c.an, dg);
	analysis_free(dg);

	/* the explorer on the digests, headless: the Cluster view names the slow rank, the
	 * Timeline says where the raw events are, every view draws (ASCPROF_BIN: the program) */
	const char *bin = getenv("ASCPROF_BIN");
	if (bin) {
		char *keys = tu_write_str(dir, "k.keys",
					  "1\n2\n:dump $OUT/t.txt\n3\nEnter\n4\nEnter\n5\n6\n7\n8\n0\n:dump $OUT/c.txt\n");
		assert_int_equal(tu_sh("cd '%s' && OUT='%s' '%s' --script k.keys --size 120x30 . >/dev/null 2>&1", dir, dir,
				       bin),
				 0);
		size_t n;
		char *tl = xasprintf("%s/t.txt", dir), *cl = xasprintf("%s/c.txt", dir);
		char *t = tu_read(tl, &n), *cv = tu_read(cl, &n);
		assert_non_null(t);
		assert_non_null(cv);
		assert_non_null(strstr(t, "rank 0 was read from a digest: no raw events here; open its capture: /"));
		assert_non_null(strstr(cv, "16 ranks, up to 5 steps"));
		assert_non_null(strstr(cv, "(from digests)"));
		assert_non_null(strstr(cv, "slow ranks: 5 "));
		assert_non_null(strstr(cv, "everyone waits for rank 5"));
		free(t);
		free(cv);
		free(tl);
		free(cl);
		free(keys);
		/* --summary lists the ranks and where their captures are */
		assert_int_equal(tu_sh("'%s' --summary '%s' > '%s/s.txt' 2>&1", bin, dir, dir), 0);
		char *sl = xasprintf("%s/s.txt", dir);
		char *st = tu_read(sl, &n);
		assert_non_null(st);
		assert_non_null(strstr(st, "16 rank(s) read without their events"));
		assert_non_null(strstr(st, "  rank 5        5 steps  trace "));
		free(st);
		free(sl);
	}
	tu_rmtree(dir);
	free(dir);
	tu_capture_free(&c);
}

/* Real captures with communication.json (msinsight's level1: 2 ranks; its st/level2: 4
 * ranks, 2 of them without a trace, so no first event to tell their run by): their digests
 * give the same report, the communication section (read from communication*.json by the
 * loader, carried in the digests) included. */
static void test_identity_real(void **state)
{
	(void)state;
	static const struct {
		const char *rel;
		size_t ranks, comm_ranks;
	} cases[] = {{"msinsight/test/data/pytorch/text/level1", 2, 2}, {"msinsight/test/st/level2", 4, 4}};
	size_t ran = 0;
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		char *rel = tu_real(cases[k].rel);
		/* resolved, as a digest names its capture (the cluster table shows it) */
		char *path = rel ? realpath(rel, NULL) : NULL;
		free(rel);
		if (!path)
			continue;
		struct capture *cap = capture_open(path, NULL);
		assert_true(cap->usable);
		capture_load(cap);
		struct analysis *an = analysis_run(cap);
		assert_int_equal(an->n_ranks, cases[k].ranks);
		assert_true(an->comm->present);
		char *dir = write_digests(an);
		struct analysis *dg = analysis_from_digests(dir);
		assert_int_equal(dg->n_ranks, cases[k].ranks);
		assert_int_equal(dg->cap->diags.n, 0);
		assert_true(dg->comm->present);
		assert_int_equal(dg->comm->n_ranks, cases[k].comm_ranks);
		assert_int_equal(dg->comm->n_links, an->comm->n_links);
		assert_same_reports(an, dg);
		analysis_free(dg);
		analysis_free(an);
		capture_free(cap);
		tu_rmtree(dir);
		free(dir);
		free(path);
		ran++;
	}
	if (!ran)
		skip();
}

/* Each rank digested on its own, as one node per rank would (no communication.json, so
 * the wait/transfer split comes from the collectives across ranks): the digests opened
 * together give the per-rank report of the whole capture, split, late rank and
 * bottlenecks included. */
static void test_per_node_digests(void **state)
{
	(void)state;
	struct tu_capture c = {0};
	tu_capture_load(&c, "--ranks 4 --steps 5 --ops 40 --slow-rank 1", true);
	char *dir = tu_tmpdir();
	for (size_t r = 0; r < c.cap->n_ranks; r++) {
		const char *wd = c.cap->ranks[r].plan->worker_dir;
		assert_non_null(wd);
		struct capture *one = capture_open(wd, NULL);
		assert_true(one->usable);
		capture_load(one);
		struct analysis *an = analysis_run(one);
		assert_int_equal(an->n_ranks, 1);
		/* alone, the rank has no peers to split its communication by */
		assert_true(an->ranks[0].attr.ns[ATTR_COMM_UNSPLIT] > 0);
		struct diag_list dl;
		diag_init(&dl);
		assert_int_equal(digest_write(an, 0, dir, &dl, NULL), 0);
		diag_free(&dl);
		analysis_free(an);
		capture_free(one);
	}
	struct analysis *dg = analysis_from_digests(dir);
	assert_int_equal(dg->n_ranks, 4);
	for (size_t r = 0; r < 4; r++) {
		assert_true(comm_ranks_wait_known(&dg->ranks[r])); /* split again over every digest */
		assert_memory_equal(dg->ranks[r].attr.ns, c.an->ranks[r].attr.ns, sizeof dg->ranks[r].attr.ns);
		assert_int_equal(dg->ranks[r].late_rank, c.an->ranks[r].late_rank);
	}
	char *a = assert_same_rank_sections(c.an, dg);
	assert_non_null(strstr(a, "against the least of the same collective across the captured ranks"));
	free(a);
	analysis_free(dg);
	tu_rmtree(dir);
	free(dir);
	tu_capture_free(&c);
}

/* A directory holding ranks 0 and 1 as captures and ranks 2 and 3 as digests opens as the
 * whole capture: the same per-rank report. */
static void test_mix(void **state)
{
	(void)state;
	struct tu_capture c = {0};
	tu_capture_load(&c, "--ranks 4 --comm --steps 4 --ops 40", true);
	char *dir = tu_tmpdir();
	struct diag_list dl;
	diag_init(&dl);
	for (size_t r = 0; r < 4; r++) {
		if (c.an->ranks[r].rank >= 2)
			assert_int_equal(digest_write(c.an, r, dir, &dl, NULL), 0);
		else
			assert_int_equal(tu_sh("cp -r '%s' '%s/'", c.cap->ranks[c.an->ranks[r].rank_index].plan->worker_dir, dir), 0);
	}
	diag_free(&dl);
	struct analysis *dg = analysis_from_digests(dir);
	assert_int_equal(dg->n_ranks, 4);
	free(assert_same_rank_sections(c.an, dg));
	analysis_free(dg);
	tu_rmtree(dir);
	free(dir);
	tu_capture_free(&c);
}

/* The planted slow rank (its compute kernels 1.5 x longer) is the one slow rank and the
 * rank everyone waits for; every other rank waits in most collectives. */
static void test_slow_rank_found(void **state)
{
	(void)state;
	struct tu_capture c = {0};
	tu_capture_load(&c, GEN16, true);
	const struct cluster_analysis *ca = c.an->cluster;
	assert_non_null(ca);
	assert_int_equal(ca->judged, 16);
	assert_int_equal(ca->n_slow, 1);
	for (size_t r = 0; r < ca->n_ranks; r++) {
		assert_int_equal(ca->ranks[r].slow, ca->ranks[r].rank == SLOW);
		if (ca->ranks[r].rank != SLOW)
			assert_true(ca->ranks[r].wait_ns > ca->ranks[r].transfer_ns); /* they wait for it */
	}
	assert_int_equal(ca->waited_rank, SLOW);
	assert_true(ca->waited_count * 2 > ca->matched);
	assert_true(ca->n_groups >= 1);
	assert_int_equal(ca->groups[0].waited_rank, SLOW);
	assert_true(ca->groups[0].wait_ns > ca->groups[0].transfer_ns);
	char *t = render(c.an, false);
	assert_non_null(strstr(t, "    rank 5: own work"));
	assert_non_null(strstr(t, "the rank everyone waits for: rank 5 "));
	free(t);
	tu_capture_free(&c);
}

/* A balanced capture: no slow rank, and no rank everyone waits for. */
static void test_balanced_no_slow(void **state)
{
	(void)state;
	struct tu_capture c = {0};
	tu_capture_load(&c, "--ranks 8 --comm --steps 5 --ops 60", true);
	const struct cluster_analysis *ca = c.an->cluster;
	assert_non_null(ca);
	assert_int_equal(ca->judged, 8);
	assert_int_equal(ca->n_slow, 0);
	assert_int_equal(ca->waited_rank, -1);
	char *t = render(c.an, false);
	assert_non_null(strstr(t, "    no slow rank\n"));
	free(t);
	tu_capture_free(&c);
}

static void put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static bool has_diag(const struct diag_list *dl, const char *file_part, const char *text)
{
	for (size_t i = 0; i < dl->n; i++) {
		char *line = diag_format(&dl->items[i]);
		bool yes = strstr(line, file_part) && strstr(line, text);
		free(line);
		if (yes)
			return true;
	}
	return false;
}

/* The path of rank r's digest in dir (owned): the one file named rank<r>.* */
static char *digest_file_of(const char *dir, int r)
{
	char *list = xasprintf("%s/list", dir);
	assert_int_equal(tu_sh("ls '%s'/rank%05d.* > '%s'", dir, r, list), 0);
	size_t n;
	char *name = tu_read(list, &n);
	assert_non_null(name);
	name[strcspn(name, "\n")] = 0;
	unlink(list);
	free(list);
	return name;
}

/* Broken digests among good ones: each is left out with a message naming the file and what
 * is wrong, and the other ranks open. */
static void test_bad_digests(void **state)
{
	(void)state;
	struct tu_capture c = {0};
	tu_capture_load(&c, "--ranks 6 --comm --steps 4 --ops 40", true);
	char *dir = write_digests(c.an);
	struct {
		int rank;
		const char *what;
	} cases[] = {{0, "version"}, {1, "truncated"}, {2, "damaged"}};
	for (size_t k = 0; k < 3; k++) {
		char *name = digest_file_of(dir, cases[k].rank);
		size_t len;
		char *buf = tu_read(name, &len);
		assert_non_null(buf);
		if (k == 0)
			put_le((unsigned char *)buf + 8, 99, 4);
		else if (k == 1)
			len = len * 2 / 3;
		else
			buf[len - 3] ^= 0x5a;
		FILE *f = fopen(name, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(buf, 1, len, f), len);
		fclose(f);
		free(buf);
		free(name);
	}
	/* rank 3 twice: a copy under another host's name */
	assert_int_equal(tu_sh("cp %s/rank00003.* '%s/rank00003.otherhost.apdigest'", dir, dir), 0);
	/* rank 4's analysis again as rank 40, started two hours later: another run */
	struct rank_analysis *ra = &c.an->ranks[4];
	int64_t t0 = ra->t0;
	int rank = ra->rank;
	ra->t0 += 7200LL * 1000000000;
	ra->rank = 40;
	struct diag_list dl;
	diag_init(&dl);
	assert_int_equal(digest_write(c.an, 4, dir, &dl, NULL), 0);
	diag_free(&dl);
	ra->t0 = t0;
	ra->rank = rank;
	/* something that is not a digest at all, named like one */
	free(tu_write_str(dir, "rank00099.x.apdigest", "hello"));
	/* a FIFO named like one (issue 41, item 6): opening it waited for a writer forever */
	char *fifo = xasprintf("%s/rank00077.x.apdigest", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	free(fifo);

	alarm(60);
	struct analysis *dg = analysis_from_digests(dir);
	alarm(0);
	const struct diag_list *d = &dg->cap->diags;
	char want[96];
	snprintf(want, sizeof want, "digest format version 99; this build reads version %u", DIGEST_VERSION);
	assert_true(has_diag(d, "rank00000", want));
	assert_true(has_diag(d, "rank00001", "truncated or padded"));
	assert_true(has_diag(d, "rank00002", "checksum mismatch"));
	assert_true(has_diag(d, "rank00003.otherhost", "rank 3 is already read from"));
	assert_true(has_diag(d, "rank00040", "rank 40 is from another run"));
	assert_true(has_diag(d, "rank00099", "not a digest"));
	assert_true(has_diag(d, "rank00077", "not a regular file"));
	/* ranks 3, 4 and 5 open */
	assert_int_equal(dg->n_ranks, 3);
	assert_int_equal(dg->ranks[0].rank, 3);
	assert_int_equal(dg->ranks[1].rank, 4);
	assert_int_equal(dg->ranks[2].rank, 5);
	char *t = render(dg, false);
	assert_non_null(strstr(t, "\n== rank 5 "));
	assert_non_null(strstr(t, "\nmessages\n"));
	free(t);
	analysis_free(dg);
	tu_rmtree(dir);
	free(dir);
	tu_capture_free(&c);
}

/* A digest whose payload was changed and whose checksum was then made to match (what a
 * checksum cannot catch: a crafted file): 3,000 random mutations (bytes flipped, the payload
 * cut short or grown) are read without a crash, each either refused with the layout message
 * or read whole; the sanitizer build checks every read stays in bounds. */
/* fuzz_digest (CI): a string whose varint length is 2^64 - 1 wrapped "len + 1 bytes remain"
 * to 0 and read a byte before the payload. The payload (tests/data, as the harness feeds it:
 * a leading 0, then the payload the header is made for) is refused, not read. */
static void test_string_length_wraps(void **state)
{
	(void)state;
	const char *src = getenv("ASCPROF_SRCDIR");
	char *path = xasprintf("%s/tests/data/digest_string_length_wraps.bin", src ? src : ".");
	size_t size;
	char *data = tu_read(path, &size);
	assert_non_null(data);
	assert_true(size > 1 && data[0] == 0);
	size_t plen = size - 1, len = DIGEST_HEADER + plen;
	char *buf = xcalloc(len, 1);
	memcpy(buf, DIGEST_MAGIC, 8);
	put_le((unsigned char *)buf + 8, DIGEST_VERSION, 4);
	put_le((unsigned char *)buf + 16, plen, 8);
	put_le((unsigned char *)buf + 24, XXH3_64bits(data + 1, plen), 8);
	memcpy(buf + DIGEST_HEADER, data + 1, plen);
	struct digest_keep *keep = dio_keep_new();
	struct rank_analysis ra;
	struct digest_ident id;
	struct coll_inst *colls;
	size_t nc;
	struct comm_data cm;
	struct sbuf why = SBUF_INIT;
	assert_int_not_equal(digest_parse(buf, len, keep, &ra, &id, &colls, &nc, &cm, &why), 0);
	sbuf_free(&why);
	dio_keep_free(keep);
	free(buf);
	free(data);
	free(path);
}

static void test_crafted_payloads(void **state)
{
	(void)state;
	struct tu_capture c = {0};
	tu_capture_load(&c, "--ranks 2 --comm --memory --steps 3 --ops 30", true);
	char *dir = write_digests(c.an);
	char *name = digest_file_of(dir, 0);
	size_t len;
	char *orig = tu_read(name, &len);
	assert_non_null(orig);
	uint64_t rng = 0x2545F4914F6CDD1DULL;
	size_t refused = 0, read = 0;
	struct digest_keep *keep = dio_keep_new();
	for (int it = 0; it < 3000; it++) {
		size_t blen = len + 64;
		char *buf = xmalloc(blen);
		memcpy(buf, orig, len);
		blen = len;
		int kind = it % 3;
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		if (kind == 0) { /* flip a few payload bytes */
			for (int k = 0; k < 1 + (int)(rng % 4); k++) {
				rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
				buf[DIGEST_HEADER + rng % (len - DIGEST_HEADER)] ^= (char)(1 + rng % 255);
			}
		} else if (kind == 1) { /* cut */
			blen = DIGEST_HEADER + rng % (len - DIGEST_HEADER);
		} else { /* grow by a few random bytes */
			size_t more = 1 + rng % 60;
			for (size_t k = 0; k < more; k++)
				buf[len + k] = (char)(rng >> (k % 56));
			blen = len + more;
		}
		put_le((unsigned char *)buf + 16, blen - DIGEST_HEADER, 8);
		put_le((unsigned char *)buf + 24, XXH3_64bits(buf + DIGEST_HEADER, blen - DIGEST_HEADER), 8);
		struct rank_analysis ra;
		struct digest_ident id;
		struct coll_inst *colls;
		size_t nc;
		struct comm_data cm;
		struct sbuf why = SBUF_INIT;
		if (digest_parse(buf, blen, keep, &ra, &id, &colls, &nc, &cm, &why) == 0) {
			read++;
			result_rank_free(&ra);
			free(colls);
			comm_data_free(&cm);
		} else {
			{
				char layout[64];
				snprintf(layout, sizeof layout, "does not follow the version %u layout", DIGEST_VERSION);
				assert_non_null(strstr(why.buf, layout));
			}
			refused++;
		}
		sbuf_free(&why);
		free(buf);
	}
	dio_keep_free(keep);
	assert_true(refused > 1000); /* cuts and growths are always refused */
	assert_int_equal(refused + read, 3000);
	free(orig);
	free(name);
	tu_rmtree(dir);
	free(dir);
	tu_capture_free(&c);
}

/* 1,024 digests written by tools/ascprof-synth-digests from a 2-rank capture's rank 0,
 * rank numbers 0..1023, rank 700 planted slow: its steps 30 % longer and its collectives
 * 2 us shorter than everyone else's (so it arrives last). They open and report in bounded
 * time, and the cluster analysis finds the planted rank and no other (and names no rank
 * everyone waits for: 2 us is no wait to balance). */
static void test_1024_digests(void **state)
{
	(void)state;
	const char *gen = tu_gen();
	if (!gen)
		skip();
	char *cap = tu_generate("--ranks 2 --comm --steps 6 --ops 60");
	char *dir = tu_tmpdir();
	char *tools = xstrdup(gen);
	char *slash = strrchr(tools, '/');
	if (slash)
		slash[1] = 0;
	assert_int_equal(tu_sh("'%s%s' '%s' '%s' 1024 700 >/dev/null", slash ? tools : "", "ascprof-synth-digests", cap,
			       dir),
			 0);
	free(tools);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct analysis *dg = analysis_from_digests(dir);
	char *t = render(dg, false);
	char *j = render(dg, true);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double sec = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	fprintf(stderr, "1024 digests opened and reported (text and JSON) in %.3f s\n", sec);
	assert_true(sec < 30); /* sanitizer builds; make bench prints the real figure */
	assert_int_equal(dg->n_ranks, 1024);
	const struct cluster_analysis *ca = dg->cluster;
	assert_non_null(ca);
	assert_int_equal(ca->n_slow, 1);
	for (size_t r = 0; r < ca->n_ranks; r++)
		assert_int_equal(ca->ranks[r].slow, ca->ranks[r].rank == 700);
	/* last in every collective, but by 2 us: the others' wait is no share of their window
	 * worth balancing (CLUSTER_WAIT_MATTERS), so no rank is the one everyone waits for */
	assert_int_equal(ca->last_rank, 700);
	assert_int_equal(ca->waited_rank, -1);
	assert_non_null(strstr(t, "    rank 700: own work"));
	free(t);
	free(j);
	analysis_free(dg);
	tu_rmtree(dir);
	free(dir);
	*strrchr(cap, '/') = 0;
	tu_rmtree(cap);
	free(cap);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* msprof-analyze's cluster_analysis_output (msinsight's 16-rank test cluster): each rank's
 * step is Computing + Communication(Not Overlapped) + Free of its row, read again here with
 * sscanf; own work is Computing + Free, and the slow ranks are those the median/MAD rule
 * gives on those values; the communication section comes from its cluster files. A table
 * without the columns is refused with a message. */
static void test_cluster_output(void **state)
{
	(void)state;
	TU_REAL_OR_SKIP(dir, "msinsight/server/src/test/test_data/cluster_analysis_output");
	char *csv = xasprintf("%s/cluster_step_trace_time.csv", dir);
	size_t len;
	char *text = tu_read(csv, &len);
	assert_non_null(text);
	double comp[64], cno[64], fr[64], own[64];
	int nr = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		int step, rank;
		double a, b, c, d, e;
		if (sscanf(line, "%d,rank,%d,%lf,%lf,%lf,%lf,%lf", &step, &rank, &a, &b, &c, &d, &e) == 7 && rank == nr &&
		    nr < 64) {
			comp[nr] = a;
			cno[nr] = b;
			fr[nr] = e;
			own[nr] = a + e;
			nr++;
		}
	}
	free(text);
	assert_int_equal(nr, 16);
	struct analysis *an = analysis_open_summaries(dir);
	assert_non_null(an);
	assert_int_equal(an->n_ranks, 16);
	const struct cluster_analysis *ca = an->cluster;
	assert_non_null(ca);
	for (int r = 0; r < nr; r++) {
		const struct step *s = &an->ranks[r].steps[0];
		assert_true(tu_close((double)s->compute_ns / 1e3, comp[r], 1e-9, 0.001));
		assert_true(tu_close((double)s->comm_not_overlapped_ns / 1e3, cno[r], 1e-9, 0.001));
		assert_true(tu_close((double)(s->end - s->start) / 1e3, comp[r] + cno[r] + fr[r], 1e-9, 0.003));
		assert_true(tu_close((double)ca->ranks[r].own_ns / 1e3, own[r], 1e-9, 0.002));
	}
	/* the rule again, on the values read here */
	double sorted[64], dev[64];
	memcpy(sorted, own, sizeof(double) * (size_t)nr);
	qsort(sorted, (size_t)nr, sizeof *sorted, cmp_dbl);
	double med = sorted[(nr + 1) / 2 - 1]; /* nearest rank */
	for (int r = 0; r < nr; r++)
		dev[r] = fabs(own[r] - med);
	qsort(dev, (size_t)nr, sizeof *dev, cmp_dbl);
	double mad = dev[(nr + 1) / 2 - 1];
	for (int r = 0; r < nr; r++) {
		bool slow = (own[r] - med) / (1.4826 * mad) > CLUSTER_Z_SLOW && own[r] > med * (1 + CLUSTER_MIN_EXCESS);
		assert_int_equal(ca->ranks[r].slow, slow);
	}
	char *t = render(an, false);
	assert_non_null(strstr(t, "step time - exposed communication (no collectives"));
	assert_non_null(strstr(t, "== communication: cluster_communication.json"));
	free(t);
	analysis_free(an);
	free(csv);

	char *tmp = tu_tmpdir();
	free(tu_write_str(tmp, "cluster_step_trace_time.csv", "Step,Kind,Rank\n1,rank,0\n"));
	an = analysis_open_summaries(tmp);
	assert_non_null(an);
	assert_int_equal(an->n_ranks, 0);
	assert_true(has_diag(&an->cap->diags, "cluster_step_trace_time.csv", "not msprof-analyze's cluster step table"));
	analysis_free(an);
	tu_rmtree(tmp);
	free(tmp);
	free(dir);
}

/* Issue 41, item 3: N one-step ranks beside one rank of N steps. The ranks x steps table
 * held N x N cells (N = 20,000: 9.7 GB); now each rank's own steps. */
static void test_cluster_square(void **state)
{
	(void)state;
	enum { N = 20000 };
	char *dir = tu_tmpdir();
	struct sbuf csv = SBUF_INIT;
	sbuf_adds(&csv, "Step,Type,Index,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage\n");
	for (int r = 0; r < N; r++)
		sbuf_addf(&csv, "1,rank,%d,100.0,10.0,0,10.0,5.0,115.0\n", r);
	for (int s = 2; s <= N; s++)
		sbuf_addf(&csv, "%d,rank,0,100.0,10.0,0,10.0,5.0,115.0\n", s);
	free(tu_write(dir, "cluster_step_trace_time.csv", csv.buf, csv.len));
	sbuf_free(&csv);
	struct rusage ru0, ru1;
	getrusage(RUSAGE_SELF, &ru0);
	struct analysis *an = analysis_open_summaries(dir);
	getrusage(RUSAGE_SELF, &ru1);
	assert_non_null(an);
	assert_int_equal(an->n_ranks, N);
	const struct cluster_analysis *ca = an->cluster;
	assert_non_null(ca);
	assert_int_equal(ca->n_steps, N);
	assert_int_equal(ca->cell_at[N], 2 * (size_t)N - 1); /* the steps there are */
	assert_int_equal(cluster_cell(ca, 0, N - 1)->dur_ns, 115000);
	assert_int_equal(cluster_cell(ca, 1, 1)->dur_ns, -1); /* rank 1 has one step */
	/* the JSON report lists each rank's own steps */
	char *js = render(an, true);
	assert_non_null(strstr(js, "\"per_step\""));
	free(js);
	print_message("%d ranks, one of %d steps: peak resident %ld MB (was under %ld MB before the open)\n", N, N,
		      ru1.ru_maxrss / 1024, ru0.ru_maxrss / 1024);
	assert_true(ru1.ru_maxrss < 1024L * 1024); /* under 1 GB (in kB), sanitizers included */
	analysis_free(an);
	tu_rmtree(dir);
	free(dir);
}

/* Issue 41, item 7: steps each within the accepted times whose sum is not: the totals are
 * held at the largest time with a message, never wrapped negative. */
static void test_cluster_sums_overflow(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	/* 2.9e15 us = 2.9e18 ns per part, three parts a step (8.7e18 ns), three steps */
	const char *big = "2900000000000000.0";
	struct sbuf csv = SBUF_INIT;
	sbuf_adds(&csv, "Step,Type,Index,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage\n");
	for (int s = 1; s <= 3; s++) {
		sbuf_addf(&csv, "%d,rank,0,%s,%s,0,%s,%s,0\n", s, big, big, big, big);
		sbuf_addf(&csv, "%d,rank,1,100.0,10.0,0,10.0,5.0,115.0\n", s);
	}
	free(tu_write(dir, "cluster_step_trace_time.csv", csv.buf, csv.len));
	sbuf_free(&csv);
	/* and a FIFO at cluster_analysis.db (item 11: skipped without a word; opening it blocks) */
	char *fifo = xasprintf("%s/cluster_analysis.db", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	free(fifo);
	alarm(60);
	struct analysis *an = analysis_open_summaries(dir);
	alarm(0);
	assert_non_null(an);
	assert_int_equal(an->n_ranks, 2);
	assert_true(has_diag(&an->cap->diags, "cluster_analysis.db", "is a FIFO, not a file; skipped"));
	assert_true(has_diag(&an->cap->diags, "cluster_step_trace_time.csv", "rank 0: its 3 steps' times add up past"));
	assert_false(has_diag(&an->cap->diags, "cluster_step_trace_time.csv", "rank 1:"));
	assert_int_equal(an->ranks[0].n_steps, 3); /* kept as written */
	char *js = render(an, true);
	assert_null(strstr(js, "\"wall_us\": -"));
	free(js);
	char *t = render(an, false);
	assert_non_null(strstr(t, "add up past the largest time kept"));
	/* item 11: said to be what it is, not digests */
	assert_non_null(strstr(t, "(read from msprof-analyze's cluster output"));
	assert_null(strstr(t, "read from digests"));
	free(t);
	analysis_free(an);
	tu_rmtree(dir);
	free(dir);
}

/* A cluster_analysis.db written here with SQLite: 8 ranks x 3 steps in ClusterTimeSummary
 * (us, REAL), rank 3 computing 500 us longer per step; SlowRank, HcclTopOpStats and
 * CommunicationGroupMapping rows. The overview takes its rank rows (exact to the ns), finds
 * rank 3 slow by our rule, and shows msprof-analyze's own results beside it. */
static char *cluster_db_dir(const char *sql)
{
	char *dir = tu_tmpdir();
	char *path = xasprintf("%s/cluster_analysis.db", dir);
	sqlite3 *h = NULL;
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	char *err = NULL;
	if (sqlite3_exec(h, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s", err);
	sqlite3_close(h);
	free(path);
	return dir;
}

/* Issue 41, item 11: a HcclTopOpStats time past what a trace holds (a mean of 1e308 printed
 * 300 digits): its row left out with a message, an extreme min or max shown as missing. */
static void test_cluster_db_extreme_times(void **state)
{
	(void)state;
	char *dir = cluster_db_dir(
		"CREATE TABLE ClusterTimeSummary (rank INTEGER, step INTEGER, stepTime REAL, computation REAL, "
		"communicationNotOverlapComputation REAL, free REAL);\n"
		"INSERT INTO ClusterTimeSummary VALUES (0, 1, 160, 100, 10, 50), (1, 1, 160, 100, 10, 50);\n"
		"CREATE TABLE HcclTopOpStats (OpName TEXT, Count INTEGER, MeanNs REAL, MinNs REAL, MaxNs REAL, "
		"SumNs REAL, MinRank INTEGER, MaxRank INTEGER);\n"
		"INSERT INTO HcclTopOpStats VALUES ('hcom_huge_mean', 1, 1e308, 1, 1, 1, 0, 1), "
		"('hcom_fine', 2, 5000000, 1000000, 1e300, 1e18, 0, 1);\n");
	struct analysis *an = analysis_open_summaries(dir);
	assert_non_null(an);
	assert_true(has_diag(&an->cap->diags, "cluster_analysis.db", "table HcclTopOpStats: 1 row(s)"));
	char *t = render(an, false);
	assert_non_null(strstr(t, "hcom_fine"));
	assert_null(strstr(t, "hcom_huge_mean"));
	assert_null(strstr(t, "0000000000000000000000")); /* no 300-digit figure */
	free(t);
	analysis_free(an);
	tu_rmtree(dir);
	free(dir);
}

static void test_cluster_db(void **state)
{
	(void)state;
	struct sbuf sql = SBUF_INIT;
	sbuf_adds(&sql, "CREATE TABLE ClusterTimeSummary (rank INTEGER, step INTEGER, stepTime REAL, computation REAL, "
			"communicationNotOverlapComputation REAL, communicationOverlapComputation REAL, communication REAL, "
			"free REAL, communicationWaitStageTime REAL, communicationTransmitStageTime REAL, memory REAL, "
			"memoryNotOverlapComputationCommunication REAL, taskLaunchDelayAvgTime REAL);\n");
	for (int r = 0; r < 8; r++)
		for (int s = 0; s < 3; s++) {
			double comp = 1000.125 + (r == 3 ? 500 : 2 * r) + s, cno = 100.5, fr = 50.25;
			sbuf_addf(&sql, "INSERT INTO ClusterTimeSummary VALUES (%d, %d, %.3f, %.3f, %.3f, 10, 110.5, %.3f, %d, 80, 0, 0, 3);\n",
				  r, s, comp + cno + fr, comp, cno, fr, 20 + r);
		}
	sbuf_adds(&sql, "CREATE TABLE SlowRank (rankId INTEGER, slowAffectCount INTEGER);\n"
			"INSERT INTO SlowRank VALUES (5, 2), (3, 12);\n"
			"CREATE TABLE HcclTopOpStats (OpName TEXT, Count INTEGER, MeanNs REAL, StdNs REAL, MinNs REAL, "
			"Q1Ns REAL, MedianNs REAL, Q3Ns REAL, MaxNs REAL, SumNs REAL, MinRank INTEGER, MaxRank INTEGER);\n"
			"INSERT INTO HcclTopOpStats VALUES ('hcom_allReduce__718_3_1', 24, 5000000, 1, 1000000, 1, 1, 1, "
			"9000000, 120000000, 3, 0);\n"
			"CREATE TABLE CommunicationGroupMapping (type TEXT, rank_set TEXT, group_name TEXT, group_id TEXT, "
			"pg_name TEXT);\n"
			"INSERT INTO CommunicationGroupMapping VALUES ('collective', '(0,1,2,3,4,5,6,7)', '718', "
			"'10.0.0.1%eth0_60000_0_1', 'dp');\n"
			"CREATE TABLE ClusterCommAnalyzerTime (rank_set TEXT, step TEXT, rank_id INTEGER, hccl_op_name TEXT, "
			"group_name TEXT, start_timestamp NUMERIC, elapsed_time NUMERIC, transit_time NUMERIC, wait_time "
			"NUMERIC, synchronization_time NUMERIC, idle_time NUMERIC, synchronization_time_ratio NUMERIC, "
			"wait_time_ratio NUMERIC);\n"
			"CREATE TABLE ClusterCommAnalyzerBandwidth (rank_set TEXT, step TEXT, rank_id INTEGER, hccl_op_name "
			"TEXT, group_name TEXT, band_type TEXT, transit_size NUMERIC, transit_time NUMERIC, bandwidth NUMERIC, "
			"large_packet_ratio NUMERIC, package_size NUMERIC, count NUMERIC, total_duration NUMERIC);\n"
			"CREATE TABLE ClusterCommAnalyzerMatrix (rank_set TEXT, step TEXT, hccl_op_name TEXT, group_name TEXT, "
			"src_rank TEXT, dst_rank TEXT, transit_size NUMERIC, transit_time NUMERIC, bandwidth NUMERIC, "
			"transport_type TEXT, op_name TEXT);\n"
			"INSERT INTO ClusterCommAnalyzerMatrix VALUES ('(0,1,2,3,4,5,6,7)', 'step1', 'hcom_allReduce__718_3_1', "
			"'718', '0', '1', 10, 0.5, 20, 'HCCS', 'hcom_allReduce__718_3_1'), ('(0,1,2,3,4,5,6,7)', 'step1', "
			"'hcom_allReduce__718_3_1', '718', '1', '0', 10, 0.5, 20, 'HCCS', 'hcom_allReduce__718_3_1');\n");
	/* every rank: one allReduce of 2 ms (0.5 transit, 1.2 wait), 10 MB over HCCS, rows in no
	 * particular order */
	for (int r = 7; r >= 0; r--) {
		sbuf_addf(&sql, "INSERT INTO ClusterCommAnalyzerTime VALUES ('(0,1,2,3,4,5,6,7)', 'step1', %d, "
				"'hcom_allReduce__718_3_1', '718', 1700000000000000.5, 2.0, 0.5, 1.2, 1.0, 0.3, 0.6, 0.7);\n", r);
		sbuf_addf(&sql, "INSERT INTO ClusterCommAnalyzerBandwidth VALUES ('(0,1,2,3,4,5,6,7)', 'step1', %d, "
				"'hcom_allReduce__718_3_1', '718', 'HCCS', 10, 0.5, 20, 0, 10, 1, 0.5);\n", r);
	}
	char *dir = cluster_db_dir(sbuf_str(&sql));
	sbuf_free(&sql);
	assert_true(cluster_output_is(dir));
	struct analysis *an = analysis_open_summaries(dir);
	assert_non_null(an);
	assert_int_equal(an->cap->diags.n, 0);
	assert_int_equal(an->n_ranks, 8);
	assert_non_null(an->cluster_db);
	assert_string_equal(an->cluster_db->rows_table, "ClusterTimeSummary");
	for (int r = 0; r < 8; r++) {
		const struct rank_analysis *ra = &an->ranks[r];
		assert_int_equal(ra->rank, r);
		assert_int_equal(ra->n_steps, 3);
		for (int s = 0; s < 3; s++) {
			int64_t comp = 1000125 + (r == 3 ? 500000 : 2000 * r) + 1000 * s;
			assert_int_equal(ra->steps[s].compute_ns, comp);
			assert_int_equal(ra->steps[s].comm_not_overlapped_ns, 100500);
			assert_int_equal(ra->steps[s].end - ra->steps[s].start, comp + 100500 + 50250);
		}
		assert_int_equal(an->cluster->ranks[r].slow, r == 3);
	}
	assert_int_equal(an->cluster->n_slow, 1);
	/* the communication tables, as cluster_communication*.json would give them */
	const struct comm_analysis *cm = an->comm;
	assert_true(cm->present);
	assert_true(cm->from_cluster);
	assert_int_equal(cm->n_ranks, 8);
	assert_int_equal(cm->entries, 8);
	assert_int_equal(cm->t[COMM_T_ELAPSE], 16000000);
	assert_int_equal(cm->t[COMM_T_TRANSIT], 4000000);
	assert_int_equal(cm->t[COMM_T_WAIT], 9600000);
	assert_true(tu_close(cm->tr[COMM_TR_HCCS].size_mb, 80, 1e-12, 0));
	assert_int_equal(cm->n_links, 2);
	char *t = render(an, false);
	assert_non_null(strstr(t, "== communication: cluster_communication.json and cluster_communication_matrix.json"));
	assert_non_null(strstr(t, "    rank rows from ClusterTimeSummary\n"));
	assert_non_null(strstr(t, "its slow ranks (SlowRank: collectives each one slowed): rank 3 (12), rank 5 (2)\n"));
	assert_non_null(strstr(t, "    rank 3     wait      0.069 ms  transmit      0.240 ms\n"));
	assert_non_null(strstr(t, "         24      5.000      1.000 (   3)      9.000 (   0)  hcom_allReduce__718_3_1\n"));
	assert_non_null(strstr(t, "      collective  dp  (0,1,2,3,4,5,6,7)\n"));
	free(t);
	char *j = render(an, true);
	assert_non_null(strstr(j, "\"msprof_analyze_db\": {"));
	assert_non_null(strstr(j, "\"rank\": 3,\n          \"slow_affect_count\": 12"));
	assert_non_null(strstr(j, "\"group_id\": \"10.0.0.1%eth0_60000_0_1\""));
	free(j);
	analysis_free(an);
	tu_rmtree(dir);
	free(dir);

	/* broken ones: each opens as an overview with the reason, nothing else read */
	static const struct {
		const char *sql, *want;
		size_t ranks;
	} bad[] = {
		{"CREATE TABLE Other (a INTEGER);", "none of msprof-analyze's cluster tables", 0},
		{"CREATE TABLE ClusterTimeSummary (rank INTEGER, step INTEGER, computation REAL, "
		 "communicationNotOverlapComputation REAL);",
		 "table ClusterTimeSummary has no column free; the table is not read", 0},
		{"CREATE TABLE ClusterTimeSummary (rank, step, computation, communicationNotOverlapComputation, free);"
		 "INSERT INTO ClusterTimeSummary VALUES ('x', 0, 1, 1, 1), (1, 0, 1, 1, 1);",
		 "table ClusterTimeSummary: 1 row(s) with a cell that is not a number left out", 1},
		{"CREATE TABLE SlowRank (rankId INTEGER, slowAffectCount INTEGER);",
		 "no ClusterTimeSummary or ClusterStepTraceTime table: no per-rank steps from it", 0},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		dir = cluster_db_dir(bad[i].sql);
		an = analysis_open_summaries(dir);
		assert_non_null(an);
		assert_int_equal(an->n_ranks, bad[i].ranks);
		if (!has_diag(&an->cap->diags, "cluster_analysis.db", bad[i].want))
			fail_msg("case %zu: no message \"%s\"", i, bad[i].want);
		analysis_free(an);
		tu_rmtree(dir);
		free(dir);
	}
	/* not a database at all */
	dir = tu_tmpdir();
	free(tu_write_str(dir, "cluster_analysis.db", "SQLite format 3\nthis is not a database file, only text\n"));
	an = analysis_open_summaries(dir);
	assert_non_null(an);
	assert_int_equal(an->n_ranks, 0);
	assert_true(has_diag(&an->cap->diags, "cluster_analysis.db", "corrupt, truncated or encrypted"));
	analysis_free(an);
	tu_rmtree(dir);
	free(dir);
}

/* The generator's cluster_analysis.db (--cluster-db): 8 ranks, rank 5 planted slow. The
 * overview's rank rows are the planted steps of ground_truth.txt to the ns (REAL us read
 * back), our rule finds rank 5 and no other, msprof-analyze's SlowRank names 5, and its
 * group holds every rank. */
static void test_cluster_db_generated(void **state)
{
	(void)state;
	if (!tu_gen())
		skip();
	char *out = tu_generate("--ranks 8 --steps 4 --ops 40 --slow-rank 5 --cluster-db");
	struct tu_truth *t = tu_truth_load(out);
	char *dir = xasprintf("%s/cluster_analysis_output", out);
	struct analysis *an = analysis_open_summaries(dir);
	assert_non_null(an);
	assert_int_equal(an->cap->diags.n, 0);
	assert_int_equal(an->n_ranks, 8);
	for (int r = 0; r < 8; r++) {
		const struct rank_analysis *ra = &an->ranks[r];
		assert_int_equal(ra->rank, r);
		assert_int_equal((long long)ra->n_steps, tu_truth_int(t, "rank.%d.steps", r));
		for (int k = 0; k < (int)ra->n_steps; k++) {
			const struct step *s = &ra->steps[k];
			assert_int_equal(s->end - s->start, tu_truth_int(t, "rank.%d.step.%d.end_ns", r, k) -
								     tu_truth_int(t, "rank.%d.step.%d.start_ns", r, k));
			assert_int_equal(s->compute_ns, tu_truth_int(t, "rank.%d.step.%d.compute_ns", r, k));
			assert_int_equal(s->comm_not_overlapped_ns,
					 tu_truth_int(t, "rank.%d.step.%d.comm_not_overlapped_ns", r, k));
		}
		assert_int_equal(an->cluster->ranks[r].slow, r == 5);
	}
	assert_int_equal(an->cluster_db->n_slow, 1);
	assert_int_equal(an->cluster_db->slow[0].rank, 5);
	assert_int_equal(an->cluster_db->n_groups, 1);
	assert_string_equal(an->cluster_db->groups[0].rank_set, "(0,1,2,3,4,5,6,7)");
	analysis_free(an);
	tu_truth_free(t);
	tu_rmtree(out);
	free(out);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* first: the peak resident size it checks is the process's so far */
		cmocka_unit_test(test_cluster_square),
		cmocka_unit_test(test_identity_16),
		cmocka_unit_test(test_identity_real),
		cmocka_unit_test(test_per_node_digests),
		cmocka_unit_test(test_mix),
		cmocka_unit_test(test_slow_rank_found),
		cmocka_unit_test(test_balanced_no_slow),
		cmocka_unit_test(test_bad_digests),
		cmocka_unit_test(test_crafted_payloads),
		cmocka_unit_test(test_string_length_wraps),
		cmocka_unit_test(test_1024_digests),
		cmocka_unit_test(test_cluster_output),
		cmocka_unit_test(test_cluster_sums_overflow),
		cmocka_unit_test(test_cluster_db_extreme_times),
		cmocka_unit_test(test_cluster_db),
		cmocka_unit_test(test_cluster_db_generated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
