/* SPDX-License-Identifier: MIT */
/* Terminal-safe rendering of untrusted text, decoded with libunistring. */
#include "sanitize.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#define SANITIZE_ISA "sse2"
#elif defined(__aarch64__) && defined(__ARM_NEON) /* every aarch64 CPU has it */
#include <arm_neon.h>
#define SANITIZE_ISA "neon"
#else
#define SANITIZE_ISA "scalar"
#endif
#include <unistr.h>

bool sanitize_unsafe_codepoint(unsigned cp)
{
	if (cp < 0x20 || cp == 0x7f)
		return true;
	if (cp >= 0x80 && cp <= 0x9f) /* C1: CSI, OSC, ST ... as single code points */
		return true;
	if (cp >= 0x202a && cp <= 0x202e) /* bidi embeddings and overrides */
		return true;
	if (cp >= 0x2066 && cp <= 0x2069) /* bidi isolates */
		return true;
	if (cp == 0x2028 || cp == 0x2029 || cp == 0x200e || cp == 0x200f || cp == 0x061c)
		return true;
	if (cp == 0xfeff) /* a BOM inside text is invisible and confusing */
		return true;
	return false;
}

static void append_escape(struct sbuf *sb, unsigned cp)
{
	switch (cp) {
	case '\t': sbuf_add(sb, "\\t", 2); return;
	case '\n': sbuf_add(sb, "\\n", 2); return;
	case '\r': sbuf_add(sb, "\\r", 2); return;
	case 0x1b: sbuf_add(sb, "\\e", 2); return;
	case 0x07: sbuf_add(sb, "\\a", 2); return;
	default: break;
	}
	if (cp < 0x80)
		sbuf_addf(sb, "\\x%02X", cp);
	else
		sbuf_addf(sb, "\\u{%04X}", cp);
}

void sanitize_append(struct sbuf *sb, const char *s, size_t len)
{
	const uint8_t *p = (const uint8_t *)s, *end = p + len;
	while (p < end) {
		/* fast path: a run of printable ASCII */
		const uint8_t *q = p;
		while (q < end && *q >= 0x20 && *q < 0x7f)
			q++;
		if (q > p) {
			sbuf_add(sb, (const char *)p, (size_t)(q - p));
			p = q;
			continue;
		}
		ucs4_t uc;
		int n = u8_mbtoucr(&uc, p, (size_t)(end - p));
		if (n < 0) {
			sbuf_addf(sb, "\\x%02X", *p);
			p++;
			continue;
		}
		if (sanitize_unsafe_codepoint(uc))
			append_escape(sb, uc);
		else
			sbuf_add(sb, (const char *)p, (size_t)n);
		p += n;
	}
}

char *sanitize_dup(const char *s, size_t len)
{
	struct sbuf sb = SBUF_INIT;
	sbuf_add(&sb, "", 0);
	sanitize_append(&sb, s, len);
	return sbuf_detach(&sb);
}

bool sanitize_is_clean(const char *s, size_t len)
{
	const uint8_t *p = (const uint8_t *)s, *end = p + len;
	while (p < end) {
		if (*p >= 0x20 && *p < 0x7f) {
			p++;
			continue;
		}
		ucs4_t uc;
		int n = u8_mbtoucr(&uc, p, (size_t)(end - p));
		if (n < 0 || sanitize_unsafe_codepoint(uc))
			return false;
		p += n;
	}
	return true;
}

const char *sanitize_isa_name(void) { return SANITIZE_ISA; }

/* u8_check's answer, eight ASCII bytes at a time: profiling tables are mostly ASCII, and
 * libunistring validates byte by byte. Non-ASCII characters are checked by libunistring. */
const uint8_t *sanitize_utf8_first_bad(const uint8_t *s, size_t n)
{
	const uint8_t *p = s, *end = s + n;
	while (p < end) {
#ifdef __SSE2__
		/* ASCII runs 64 bytes at a time: exports are ASCII but for the odd op name */
		while (end - p >= 64) {
			__m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
			__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
			__m128i c = _mm_loadu_si128((const __m128i *)(const void *)(p + 32));
			__m128i d = _mm_loadu_si128((const __m128i *)(const void *)(p + 48));
			if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d))))
				break;
			p += 64;
		}
		if (p == end)
			break;
#elif defined(__aarch64__) && defined(__ARM_NEON)
		/* the same 64-byte ASCII runs: no movemask on NEON, the largest byte tells instead */
		while (end - p >= 64) {
			uint8x16_t a = vld1q_u8(p), b = vld1q_u8(p + 16);
			uint8x16_t c = vld1q_u8(p + 32), d = vld1q_u8(p + 48);
			if (vmaxvq_u8(vorrq_u8(vorrq_u8(a, b), vorrq_u8(c, d))) >= 0x80)
				break;
			p += 64;
		}
		if (p == end)
			break;
#endif
		if (end - p >= 8) {
			uint64_t w;
			memcpy(&w, p, 8);
			if (!(w & 0x8080808080808080ULL)) {
				p += 8;
				continue;
			}
		}
		if (*p < 0x80) {
			p++;
			continue;
		}
		ucs4_t uc;
		int l = u8_mbtoucr(&uc, p, (size_t)(end - p));
		if (l < 0)
			return p;
		p += l;
	}
	return NULL;
}
