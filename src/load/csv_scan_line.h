/* SPDX-License-Identifier: MIT */
/* The CSV line scan's body, included by csv_table.c once per instruction set (no include
 * guard): CSV_SCAN_FN(name) gives each function the set's suffix, and CSV_SCAN_MASKS the
 * function that fills struct blk_masks for 64 bytes. Every set gives the same line_scan
 * for the same bytes (test_csv and fuzz_csv hold each to libcsv). */

static void CSV_SCAN_FN(scan_line)(const char *p, const char *limit, size_t want, struct parse_state *ps,
				   struct line_scan *ls)
{
	size_t off = 0, nsep = 0, nq = 0, cr_at = SIZE_MAX;
	uint64_t inside = 0, quotes = 0, high = 0;
	bool lone_cr = false, has_nl = false;
	for (;;) {
		struct blk_masks m;
		CSV_SCAN_MASKS(p + off, limit, &m);
		size_t avail = (size_t)(limit - (p + off));
		uint64_t upto = avail >= 64 ? ~0ULL : (1ULL << avail) - 1; /* this line's bytes */
		bool last = avail <= 64;
		if (m.nl) {
			unsigned at = (unsigned)__builtin_ctzll(m.nl);
			upto = at == 63 ? ~0ULL : (2ULL << at) - 1;
			last = has_nl = true;
			ls->n = off + at + 1;
		} else if (last) {
			ls->n = off + avail;
		}
		uint64_t q = m.quote & upto, cr = m.cr & upto;
		quotes |= q;
		high |= m.high & upto;
		uint64_t in = prefix_xor(q) ^ inside;
		inside = (uint64_t)((int64_t)in >> 63);
		if (cr) {
			if (cr_at != SIZE_MAX || (cr & (cr - 1)))
				lone_cr = true;
			cr_at = off + (size_t)__builtin_ctzll(cr);
		}
		uint64_t seps = m.comma & upto & ~in;
		if (q) {
			if (nq + 64 > ps->cap_qpos && nq < CSVT_QUOTES_MAX)
				xgrow(&ps->qpos, &ps->cap_qpos, nq + 64, sizeof *ps->qpos);
			for (; q && nq < CSVT_QUOTES_MAX; q &= q - 1)
				ps->qpos[nq++] = off + (size_t)__builtin_ctzll(q);
			if (q)
				nq = SIZE_MAX; /* too many to list: checked by memchr */
		}
		if (seps) {
			size_t room = (nsep < want ? nsep : want) + 64;
			if (room > ps->cap_sep)
				xgrow(&ps->sep, &ps->cap_sep, room, sizeof *ps->sep);
			for (; seps && nsep < want; seps &= seps - 1)
				ps->sep[nsep++] = off + (size_t)__builtin_ctzll(seps);
			for (; seps; seps &= seps - 1) /* no popcnt in the x86-64 baseline */
				nsep++;
		}
		if (last)
			break;
		off += 64;
	}
	ls->nsep = nsep;
	ls->kept = nsep < want ? nsep : want;
	ls->text = ls->n - has_nl;
	if (cr_at != SIZE_MAX && !lone_cr) {
		if (has_nl && cr_at + 2 == ls->n)
			ls->text--;
		else
			lone_cr = true;
	}
	ls->lone_cr = lone_cr;
	ls->quotes = quotes != 0;
	ls->high = high != 0;
	ls->nq = nq;
	ls->open = inside != 0;
}

