/* SPDX-License-Identifier: MIT */
/* Choosing a rank's source, and reading back through the one that filled a store. */
#include "config.h"
#include "source.h"

/* Db first: a rank with both exports reads the text one unless --source db says so,
 * which the Db probe decides (source_db.c); then a timeline; else the tables alone. */
static const struct source_ops *const source_order[] = {&source_db, &source_text, &source_tables};

const struct source_ops *source_pick(struct rank_data *rd, enum capture_source want, struct diag_list *dl)
{
	for (size_t i = 0; i < sizeof source_order / sizeof *source_order; i++)
		if (source_order[i]->probe(rd, want, dl))
			return source_order[i];
	return &source_tables;
}

const struct source_ops *source_of(const struct rank_store *rs)
{
	return rs->trace.db ? &source_db : rs->trace.rows ? &source_tables : &source_text;
}

int source_entry_text(const struct rank_store *rs, uint64_t off, struct sbuf *out)
{
	return source_of(rs)->entry_text(rs, off, out);
}

int source_event_args(const struct rank_store *rs, size_t ev, struct sbuf *out)
{
	return source_of(rs)->event_args(rs, ev, out);
}
