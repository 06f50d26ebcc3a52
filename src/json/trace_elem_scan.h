/* SPDX-License-Identifier: MIT */
/* The fast trace-element scanner's body, included by trace_elem.c once per instruction
 * set (no include guard): SCAN_FN(name) gives each function the set's suffix, and
 * SCAN_WIDTH the vector width of SCAN_FN(stop_bits) and SCAN_FN(nonplain_bits) (0: the
 * portable byte loops only). Everything else is shared: every set must give the same
 * record for the same bytes (elem_crosscheck compares them). */

SCAN_INLINE const char *SCAN_FN(skip_ws)(const char *p, const char *end)
{
	/* one compare settles every byte above the space, the usual case */
	while (p < end && (unsigned char)*p <= ' ' && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}

/* The first quote, backslash or NUL at or after p, or NULL. */
SCAN_INLINE const char *SCAN_FN(find_stop)(const char *p, const char *end)
{
#if SCAN_WIDTH
	for (; end - p >= SCAN_WIDTH; p += SCAN_WIDTH) {
		unsigned bits = SCAN_FN(stop_bits)(p);
		if (bits)
			return p + __builtin_ctz(bits);
	}
#endif
	for (; p < end; p++)
		if (str_stop[(unsigned char)*p])
			return p;
	return NULL;
}

/* The closing quote of a string whose body holds a backslash or NUL at p: escapes checked
 * as jsmn checks them. NULL when unsure. Rare, so kept out of line. */
static __attribute__((noinline)) const char *SCAN_FN(string_end_escaped)(const char *p, const char *end)
{
	for (;;) {
		if (*p == '"')
			return p;
		if (*p == '\0')
			return NULL; /* jsmn stops at NUL: let it give its verdict */
		if (p + 1 >= end)
			return NULL;
		char e = p[1];
		if (e == 'u') {
			if (end - p < 6)
				return NULL;
			for (int i = 2; i < 6; i++) {
				char h = p[i];
				if (!((h >= '0' && h <= '9') || (h >= 'A' && h <= 'F') || (h >= 'a' && h <= 'f')))
					return NULL;
			}
			p += 6;
		} else if (e == '"' || e == '/' || e == '\\' || e == 'b' || e == 'f' || e == 'r' || e == 'n' ||
			   e == 't') {
			p += 2;
		} else {
			return NULL;
		}
		p = SCAN_FN(find_stop)(p, end);
		if (!p)
			return NULL;
	}
}

/* The closing quote of the string whose body starts at start; *esc tells whether it held
 * an escape. NULL when unsure. */
SCAN_INLINE const char *SCAN_FN(string_end)(const char *start, const char *end, bool *esc)
{
	const char *q = SCAN_FN(find_stop)(start, end);
	*esc = false;
	if (q && *q != '"') {
		*esc = true;
		q = SCAN_FN(string_end_escaped)(q, end);
	}
	return q;
}

/* The end of the primitive at p, or NULL when unsure. */
SCAN_INLINE const char *SCAN_FN(primitive_end)(const char *p, const char *end)
{
	char first = *p;
	if (!(first == '-' || (first >= '0' && first <= '9') || first == 't' || first == 'f' || first == 'n'))
		return NULL;
	/* prim_end: 1 ends it, 2 is not allowed in it (jsmn: below 32 or 127 and up) */
#if SCAN_WIDTH
	/* Primitives are short (durations, ids, pids: 1 to 20 bytes): their first
	 * SCAN_PRIM_BYTES bytes by the table, then vectors. With vectors from the first byte
	 * the scanner alone read the 1 GB generated trace at 3.3 GB/s, a real one with call
	 * stacks at 3.2-3.4; this way at 3.85 and 3.7-3.95 (one thread, min of 3 and 300). */
	for (const char *q = end - p > SCAN_PRIM_BYTES ? p + SCAN_PRIM_BYTES : end; p < q; p++)
		if (prim_end[(unsigned char)*p])
			return prim_end[(unsigned char)*p] == 2 ? NULL : p;
	for (; end - p >= SCAN_WIDTH; p += SCAN_WIDTH) {
		unsigned bits = SCAN_FN(nonplain_bits)(p);
		if (bits) {
			p += __builtin_ctz(bits);
			return prim_end[(unsigned char)*p] == 2 ? NULL : p;
		}
	}
#endif
	while (p < end && prim_end[(unsigned char)*p] == 0)
		p++;
	if (p >= end || prim_end[(unsigned char)*p] == 2)
		return NULL;
	return p;
}

/* A member's key at p (its opening quote) and the colon after it: the key's body in *k,
 * *kn; returns the value's first byte, or NULL when unsure. */
SCAN_INLINE const char *SCAN_FN(scan_key)(const char *p, const char *end, const char **k, size_t *kn)
{
	if (p >= end || *p != '"')
		return NULL;
	bool esc;
	const char *q = SCAN_FN(string_end)(p + 1, end, &esc);
	if (!q)
		return NULL;
	*k = p + 1;
	*kn = (size_t)(q - (p + 1));
	/* python's json.dumps writes ": " then the value: checked in one go */
	if (end - q >= 4 && !memcmp(q + 1, ": ", 2) && (unsigned char)q[3] > ' ')
		return q + 3;
	p = SCAN_FN(skip_ws)(q + 1, end);
	if (p >= end || *p != ':')
		return NULL;
	p = SCAN_FN(skip_ws)(p + 1, end);
	return p < end ? p : NULL;
}

/* After a member: the next key after a ',' (*closed false) or the byte after the '}'
 * (*closed true); NULL when unsure. */
SCAN_INLINE const char *SCAN_FN(member_end)(const char *p, const char *end, bool *closed)
{
	/* and ", " before the next key */
	if (end - p >= 3 && !memcmp(p, ", ", 2) && (unsigned char)p[2] > ' ') {
		*closed = false;
		return p + 2;
	}
	p = SCAN_FN(skip_ws)(p, end);
	if (p >= end)
		return NULL;
	*closed = *p == '}';
	if (*p == ',')
		return SCAN_FN(skip_ws)(p + 1, end);
	return *p == '}' ? p + 1 : NULL;
}


/* The top-level keys of nearly every event, written as python writes them ("ph": ),
 * compared whole from the opening quote (memcmp of a constant length compiles to a word
 * compare or two): the field (or KEY_ARGS) in *field and the value's first byte. NULL for
 * anything else (escapes, other spacing, other keys): scan_key then reads the key the
 * long way. */
SCAN_INLINE const char *SCAN_FN(known_key)(const char *p, const char *end, int *field)
{
	if (end - p < 9)
		return NULL;
	int f = -1;
	size_t n = 0;
#define KEY_CASE(lit, fld)                             \
	if (!memcmp(p, lit, sizeof lit - 1)) {         \
		f = (fld), n = sizeof lit - 1;         \
		break;                                 \
	}
	switch (p[1]) {
	case 'p': KEY_CASE("\"ph\": ", EF_PH) KEY_CASE("\"pid\": ", EF_PID) break;
	case 't': KEY_CASE("\"tid\": ", EF_TID) KEY_CASE("\"ts\": ", EF_TS) break;
	case 'n': KEY_CASE("\"name\": ", EF_NAME) break;
	case 'd': KEY_CASE("\"dur\": ", EF_DUR) break;
	case 'c': KEY_CASE("\"cat\": ", EF_CAT) break;
	case 'a': KEY_CASE("\"args\": ", KEY_ARGS) break;
	case 'i': KEY_CASE("\"id\": ", EF_ID) break;
	case 'b': KEY_CASE("\"bp\": ", EF_BP) break;
	default: break;
	}
#undef KEY_CASE
	if (f < 0)
		return NULL;
	p += n; /* inside the 9 bytes checked above */
	if ((unsigned char)*p <= ' ' && (p = SCAN_FN(skip_ws)(p, end)) >= end)
		return NULL;
	*field = f;
	return p;
}

static const char *SCAN_FN(value_end)(const char *p, const char *end, int depth);

/* Skips the container at p strictly (well-formed members and elements only). */
static const char *SCAN_FN(container_end)(const char *p, const char *end, int depth)
{
	if (depth > 64)
		return NULL; /* deep nesting: jsmn decides */
	bool object = *p == '{';
	char close = object ? '}' : ']';
	p = SCAN_FN(skip_ws)(p + 1, end);
	if (p < end && *p == close)
		return p + 1;
	for (;;) {
		if (object) {
			const char *k;
			size_t kn;
			if (!(p = SCAN_FN(scan_key)(p, end, &k, &kn)))
				return NULL;
		}
		if (!(p = SCAN_FN(value_end)(p, end, depth + 1)))
			return NULL;
		p = SCAN_FN(skip_ws)(p, end);
		if (p >= end)
			return NULL;
		if (*p == ',') {
			p = SCAN_FN(skip_ws)(p + 1, end);
			continue;
		}
		return *p == close ? p + 1 : NULL;
	}
}

/* Reads the value at p for a field: strings and primitives give a span, containers are
 * skipped (the span then covers them, marked not a string). Returns its end or NULL. */
SCAN_INLINE const char *SCAN_FN(field_value)(const char *p, const char *end, struct espan *sp, int depth)
{
	if (p >= end)
		return NULL;
	if (*p == '"') {
		bool esc;
		const char *q = SCAN_FN(string_end)(p + 1, end, &esc);
		if (!q)
			return NULL;
		*sp = (struct espan){p + 1, (unsigned)(q - (p + 1)), true, esc};
		return q + 1;
	}
	const char *e;
	if (*p == '{' || *p == '[') {
		if (!(e = SCAN_FN(container_end)(p, end, depth)))
			return NULL;
	} else if (!(e = SCAN_FN(primitive_end)(p, end))) {
		return NULL;
	}
	*sp = (struct espan){p, (unsigned)(e - p), false, false};
	return e;
}

static const char *SCAN_FN(value_end)(const char *p, const char *end, int depth)
{
	struct espan ignored;
	return SCAN_FN(field_value)(p, end, &ignored, depth);
}

/* The "args" object at p; want_num: look for the first numeric member (only counters use
 * it). Returns its end or NULL. */
static const char *SCAN_FN(scan_args)(const char *p, const char *end, struct elem *out, bool want_num)
{
	/* a new "args" replaces what an earlier one gave */
	for (int f = EF_ARG_TASK_TYPE; f <= EF_ARG_NUM_VAL; f++)
		out->f[f] = (struct espan){0};
	out->args_object = true;
	p = SCAN_FN(skip_ws)(p + 1, end);
	if (p < end && *p == '}')
		return p + 1;
	for (;;) {
		const char *k;
		size_t kn;
		struct espan v;
		if (!(p = SCAN_FN(scan_key)(p, end, &k, &kn)) || !(p = SCAN_FN(field_value)(p, end, &v, 2)))
			return NULL;
		int f = arg_field(k, kn);
		if (f >= 0 && !out->f[f].p)
			out->f[f] = v;
		bool scalar = v.is_str || (v.p[0] != '{' && v.p[0] != '[');
		if (want_num && !out->f[EF_ARG_NUM_VAL].p && scalar && reads_as_number(v.p, v.len)) {
			set_span(&out->f[EF_ARG_NUM_KEY], k, kn, true);
			out->f[EF_ARG_NUM_VAL] = v;
		}
		bool closed;
		if (!(p = SCAN_FN(member_end)(p, end, &closed)) || closed)
			return p;
	}
}

static enum elem_status SCAN_FN(elem_fast)(const char *js, size_t len, struct elem *out, size_t *used)
{
	elem_clear(out);
	if (!len || *js != '{')
		return ELEM_UNSURE;
	const char *end = js + len;
	out->is_object = true;
	const char *p = SCAN_FN(skip_ws)(js + 1, end);
	if (p < end && *p == '}') {
		*used = (size_t)(p + 1 - js);
		return ELEM_OK;
	}
	/* the last "args" object, read without looking for a counter's number: whether the
	 * element is a counter is known only at its end (the last "ph" wins, device events
	 * write it last), and then the rare counter reads its args again */
	const char *args_at = NULL;
	for (;;) {
		int f;
		const char *v = SCAN_FN(known_key)(p, end, &f);
		if (v) {
			p = v;
		} else {
			const char *k;
			size_t kn;
			if (!(p = SCAN_FN(scan_key)(p, end, &k, &kn)))
				return ELEM_UNSURE;
			f = top_field(k, kn);
			if (f < 0 && kn == 4 && !memcmp(k, "args", 4))
				f = KEY_ARGS;
		}
		if (f >= 0 && f != KEY_ARGS) {
			p = SCAN_FN(field_value)(p, end, &out->f[f], 1);
		} else if (f == KEY_ARGS) {
			if (*p == '{') {
				args_at = p;
				p = SCAN_FN(scan_args)(p, end, out, false);
			} else {
				for (int a = EF_ARG_TASK_TYPE; a <= EF_ARG_NUM_VAL; a++)
					out->f[a] = (struct espan){0};
				out->args_object = false;
				args_at = NULL;
				p = SCAN_FN(value_end)(p, end, 1);
			}
		} else {
			p = SCAN_FN(value_end)(p, end, 1);
		}
		bool closed;
		if (!p || !(p = SCAN_FN(member_end)(p, end, &closed)))
			return ELEM_UNSURE;
		if (closed) {
			const struct espan *ph = &out->f[EF_PH];
			if (args_at && ph->is_str && ph->len == 1 && ph->p[0] == 'C')
				SCAN_FN(scan_args)(args_at, end, out, true); /* read once already: cannot fail */
			*used = (size_t)(p - js);
			return ELEM_OK;
		}
	}
}
