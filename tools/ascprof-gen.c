/* SPDX-License-Identifier: MIT */
/* ascprof-gen: writes a synthetic vLLM-Ascend torch_npu capture and the exact ground truth it planted. */

/* clang-format off */
/*
 * Ground truth: DIR/ground_truth.txt, one key=value per line, '#' starts a comment. All times are
 * integer nanoseconds on the rank's own clock (true time + offset_ns); durations are in ns.
 * Every value is derived from the intervals the generator placed (sums over intervals known to be
 * disjoint, clipping), never by analysing the files; --self-check re-derives them from the files
 * with a generic sort-and-merge sweep. Interval, step and op.* keys are omitted for a rank whose
 * trace was cut by --truncate-at (counts then describe the complete elements kept). A --raw
 * capture has only the global keys and rank.<r>.dir/offset_ns/pid/device_id. --help prints the
 * block between KEYS-BEGIN and KEYS-END (truth_doc below is a verbatim copy; keep them equal).
 *
 * KEYS-BEGIN
 * ranks=<n>                                 number of ranks (worker directories)
 * seed=<s>                                  PRNG seed
 * steps=<n>                                 engine steps per rank (after --target-bytes growth)
 * base_ns=<t>                               true-time origin of the capture (rank clocks add offset_ns)
 * format=python|minify|pretty               trace_view.json separators / indentation
 * wrapper=0|1                               trace is {"traceEvents": [...]} instead of a bare array
 * step_marks=engine|profilerstep|none       how steps are marked in the trace
 * step_trace=one|rows|none                  shape of step_trace_time.csv (none: no file)
 * naming=host|rank                          worker directory naming scheme
 * raw=0|1                                   raw capture: no ASCEND_PROFILER_OUTPUT, no trace or CSV keys
 * shape=marked|vllm|train[,mla,moe,...]     --shape vllm|train: the shape and its modifiers
 * workload=inference|training               --shape vllm|train: what the capture runs
 * rank.<r>.dir=<name>                       worker directory (..._ascend_pt) directly under DIR
 * rank.<r>.offset_ns=<ns>                   rank clock minus true clock
 * rank.<r>.pid=<pid>                        Python pid = main thread tid (dequeue thread: pid+7)
 * rank.<r>.device_id=<id>                   NPU device id on its node (r mod 16; the Device_id column)
 * rank.<r>.trace_bytes=<n>                  size of trace_view.json as left on disk
 * rank.<r>.truncated=0|1                    trace_view.json was cut by --truncate-at
 * rank.<r>.cut_at=<byte>                    length it was cut to (only when truncated=1)
 * rank.<r>.first_ts_ns=<t>                  min ts over the (complete) X events
 * rank.<r>.last_end_ns=<t>                  max ts+dur over the (complete) X events
 * rank.<r>.wall_ns=<ns>                     last_end_ns - first_ts_ns
 * rank.<r>.events.<ph>=<n>                  complete trace elements with that ph (X, M, s, f, C)
 * rank.<r>.events.total=<n>                 all complete trace elements
 * rank.<r>.lane.<process>/<thread>=<n>      X events on that lane (names exactly as in the M events)
 * rank.<r>.lanes.<process>=<n>              thread lanes of the process with X events or a thread_name
 * rank.<r>.csv.<file>.rows=<n>              data records of <file>.csv (step_trace_time: only if written)
 * rank.<r>.kernel_details.ragged_lines=<l>  1-based kernel_details.csv lines one field short (l,l,...)
 * rank.<r>.kernel_details.excel_lines=<l>   1-based lines whose Start Time(us) is Excel-mangled
 * rank.<r>.compute_ns=<ns>                  |union of compute kernels| (AI_CORE, AI_VECTOR_CORE, MIX_AIC, MIX_AIV)
 * rank.<r>.copy_ns=<ns>                     sum of MEMCPY_ASYNC durations (device-side copies)
 * rank.<r>.copy_h2d_ns=<ns>                 host-to-device part of copy_ns
 * rank.<r>.copy_d2h_ns=<ns>                 device-to-host part of copy_ns
 * rank.<r>.collectives=<n>                  collective spans on HCCL/Group 0 Communication
 * rank.<r>.comm_ns=<ns>                     |union of collective spans|
 * rank.<r>.comm_overlapped_ns=<ns>          |comm intersect compute|
 * rank.<r>.comm_not_overlapped_ns=<ns>      comm_ns - comm_overlapped_ns (exposed communication)
 * rank.<r>.npu_busy_ns=<ns>                 |union of Ascend Hardware tasks but Notify Wait/EVENT_RECORD_SQE|
 * rank.<r>.npu_idle_ns=<ns>                 gaps >= 50 us of (npu busy union collectives) in [first_ts, last_end]
 * rank.<r>.npu_idle_gaps=<n>                number of those gaps
 * rank.<r>.free_ns=<ns>                     wall_ns - |compute union comm|
 * rank.<r>.host_busy_ns=<ns>                |union of the X events of the Python and CANN processes|
 * rank.<r>.host_only_ns=<ns>                |host busy minus (npu busy union collectives)|
 * rank.<r>.edge_idle_ns=<ns>                window before the first and after the last (npu busy union collectives)
 * rank.<r>.steps=<n>                        engine steps
 * rank.<r>.prefill_steps=<n>                steps planted as prefill
 * rank.<r>.decode_steps=<n>                 steps planted as decode
 * rank.<r>.mixed_steps=<n>                  --shape: steps planted as mixed (chunked prefill)
 * rank.<r>.train_steps=<n>                  --shape train: training steps (neither prefill nor decode)
 * rank.<r>.step.<k>.start_ns=<t>            step k's marker start, k from 0 (none: the execute-model region)
 * rank.<r>.step.<k>.end_ns=<t>              its end
 * rank.<r>.step.<k>.phase=prefill|decode    planted phase
 *                                           (--shape: also mixed, or train)
 * rank.<r>.step.<k>.dev_start_ns=<t>        --shape: the step's first device task start
 * rank.<r>.step.<k>.dev_end_ns=<t>          --shape: its last device task or collective end
 * rank.<r>.step.<k>.tokens=<n>              --shape: the batch's query tokens (all parts)
 * rank.<r>.step.<k>.seqs=<n>                --shape: the batch's sequences
 * rank.<r>.step.<k>.graph=0|1               --shape vllm,graph: the model ran as one graph replay
 * rank.<r>.step.<k>.dispatch_ops=<n>        cat "cpu_op" events starting in the window, ProfilerStep excluded
 * rank.<r>.step.<k>.compute_ns=<ns>         compute union clipped to [start_k, start_k+1) (last: to last_end)
 * rank.<r>.step.<k>.comm_not_overlapped_ns=<ns> exposed communication clipped to that window
 * rank.<r>.step.<k>.host_only_ns=<ns>       host-only time clipped to that window
 * rank.<r>.dispatch_ops_total=<n>           sum of dispatch_ops (= all cpu_op events but ProfilerStep)
 * op.<r>.<kernel>.count=<n>                 compute kernels (trace X events) with that name
 * op.<r>.<kernel>.total_ns=<ns>             their summed duration
 * optype.<r>.<Type>.count=<n>               kernel_details.csv rows of that Type (= an op_statistic.csv row)
 * optype.<r>.<Type>.total_ns=<ns>           their summed Duration(us)
 * kernel_scale.<kernel>=<milli>             --kernel-scale: that kernel's durations times milli/1000
 * drop_op.<kernel>=1                        --drop-op: that kernel and its host ops were left out
 * comm=0|1                                  --comm: communication.json and communication_matrix.json written
 * comm.group=<id>                           the communication-domain id after '@' in every entry
 * comm.slow_link=<src>-<dst>|none           the link planted at a third of its peers' bandwidth
 * comm.links=<n>                            src-dst pairs in the matrices (self links, LOCAL, included)
 * comm.<r>.ops=<n>                          collective entries of communication.json ("Total Op Info" not counted)
 * comm.<r>.<t>_ns=<ns>                      summed Elapse/Transit/Wait/Synchronization/Idle Time, t = elapse,
 *                                           transit, wait, sync, idle (wait = sync: all of it precedes the transfer)
 * comm.<r>.hccs_bytes=<n>                   summed HCCS Transit Size (MB = 10^6 bytes); SDMA repeats it
 * comm.<r>.hccs_time_ns=<ns>                summed HCCS Transit Time
 * comm.<r>.packets=<n>                      Size Distribution counts (one packet per peer and collective)
 * comm.<r>.small_packets=<n>                those below 1 MB
 * comm.link.<s>-<d>.bytes=<n>               matrix link s -> d (s != d) over all steps ("-total" entries)
 * comm.link.<s>-<d>.time_ns=<ns>            its summed Transit Time
 * KEYS-END
 *
 * step_trace_time.csv (when written) holds the same numbers in us: with "one" a single row over
 * [first_ts, last_end] (Computing = compute_ns, Communication(Not Overlapped) = comm_not_overlapped_ns,
 * Overlapped, Communication = comm_ns, Free = free_ns, Stage = wall_ns); with "rows" one row per
 * step window, Step = k + 1.
 */
/* clang-format on */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "gen_db.h"

#define US             1000LL /* ns per microsecond */
#define MS             1000000LL
#define MAX_RANKS      64
#define KERNEL_LATENCY (20 * US) /* launch -> earliest kernel start */
#define IDLE_MIN       (50 * US) /* device gaps shorter than this are jitter, not idle */
#define BASE_NS        1736408883674584732LL

/* The key reference printed by --help: the KEYS block above, verbatim. */
/* clang-format off */
static const char truth_doc[] =
	"ranks=<n>                                 number of ranks (worker directories)\n"
	"seed=<s>                                  PRNG seed\n"
	"steps=<n>                                 engine steps per rank (after --target-bytes growth)\n"
	"base_ns=<t>                               true-time origin of the capture (rank clocks add offset_ns)\n"
	"format=python|minify|pretty               trace_view.json separators / indentation\n"
	"wrapper=0|1                               trace is {\"traceEvents\": [...]} instead of a bare array\n"
	"step_marks=engine|profilerstep|none       how steps are marked in the trace\n"
	"step_trace=one|rows|none                  shape of step_trace_time.csv (none: no file)\n"
	"naming=host|rank                          worker directory naming scheme\n"
	"raw=0|1                                   raw capture: no ASCEND_PROFILER_OUTPUT, no trace or CSV keys\n"
	"shape=marked|vllm|train[,mla,moe,...]     --shape vllm|train: the shape and its modifiers\n"
	"workload=inference|training               --shape vllm|train: what the capture runs\n"
	"rank.<r>.dir=<name>                       worker directory (..._ascend_pt) directly under DIR\n"
	"rank.<r>.offset_ns=<ns>                   rank clock minus true clock\n"
	"rank.<r>.pid=<pid>                        Python pid = main thread tid (dequeue thread: pid+7)\n"
	"rank.<r>.device_id=<id>                   NPU device id on its node (r mod 16; the Device_id column)\n"
	"rank.<r>.trace_bytes=<n>                  size of trace_view.json as left on disk\n"
	"rank.<r>.truncated=0|1                    trace_view.json was cut by --truncate-at\n"
	"rank.<r>.cut_at=<byte>                    length it was cut to (only when truncated=1)\n"
	"rank.<r>.first_ts_ns=<t>                  min ts over the (complete) X events\n"
	"rank.<r>.last_end_ns=<t>                  max ts+dur over the (complete) X events\n"
	"rank.<r>.wall_ns=<ns>                     last_end_ns - first_ts_ns\n"
	"rank.<r>.events.<ph>=<n>                  complete trace elements with that ph (X, M, s, f, C)\n"
	"rank.<r>.events.total=<n>                 all complete trace elements\n"
	"rank.<r>.lane.<process>/<thread>=<n>      X events on that lane (names exactly as in the M events)\n"
	"rank.<r>.lanes.<process>=<n>              thread lanes of the process with X events or a thread_name\n"
	"rank.<r>.csv.<file>.rows=<n>              data records of <file>.csv (step_trace_time: only if written)\n"
	"rank.<r>.kernel_details.ragged_lines=<l>  1-based kernel_details.csv lines one field short (l,l,...)\n"
	"rank.<r>.kernel_details.excel_lines=<l>   1-based lines whose Start Time(us) is Excel-mangled\n"
	"rank.<r>.compute_ns=<ns>                  |union of compute kernels| (AI_CORE, AI_VECTOR_CORE, MIX_AIC, MIX_AIV)\n"
	"rank.<r>.copy_ns=<ns>                     sum of MEMCPY_ASYNC durations (device-side copies)\n"
	"rank.<r>.copy_h2d_ns=<ns>                 host-to-device part of copy_ns\n"
	"rank.<r>.copy_d2h_ns=<ns>                 device-to-host part of copy_ns\n"
	"rank.<r>.collectives=<n>                  collective spans on HCCL/Group 0 Communication\n"
	"rank.<r>.comm_ns=<ns>                     |union of collective spans|\n"
	"rank.<r>.comm_overlapped_ns=<ns>          |comm intersect compute|\n"
	"rank.<r>.comm_not_overlapped_ns=<ns>      comm_ns - comm_overlapped_ns (exposed communication)\n"
	"rank.<r>.npu_busy_ns=<ns>                 |union of Ascend Hardware tasks but Notify Wait/EVENT_RECORD_SQE|\n"
	"rank.<r>.npu_idle_ns=<ns>                 gaps >= 50 us of (npu busy union collectives) in [first_ts, last_end]\n"
	"rank.<r>.npu_idle_gaps=<n>                number of those gaps\n"
	"rank.<r>.free_ns=<ns>                     wall_ns - |compute union comm|\n"
	"rank.<r>.host_busy_ns=<ns>                |union of the X events of the Python and CANN processes|\n"
	"rank.<r>.host_only_ns=<ns>                |host busy minus (npu busy union collectives)|\n"
	"rank.<r>.edge_idle_ns=<ns>                window before the first and after the last (npu busy union collectives)\n"
	"rank.<r>.steps=<n>                        engine steps\n"
	"rank.<r>.prefill_steps=<n>                steps planted as prefill\n"
	"rank.<r>.decode_steps=<n>                 steps planted as decode\n"
	"rank.<r>.mixed_steps=<n>                  --shape: steps planted as mixed (chunked prefill)\n"
	"rank.<r>.train_steps=<n>                  --shape train: training steps (neither prefill nor decode)\n"
	"rank.<r>.step.<k>.start_ns=<t>            step k's marker start, k from 0 (none: the execute-model region)\n"
	"rank.<r>.step.<k>.end_ns=<t>              its end\n"
	"rank.<r>.step.<k>.phase=prefill|decode    planted phase\n"
	"                                          (--shape: also mixed, or train)\n"
	"rank.<r>.step.<k>.dev_start_ns=<t>        --shape: the step's first device task start\n"
	"rank.<r>.step.<k>.dev_end_ns=<t>          --shape: its last device task or collective end\n"
	"rank.<r>.step.<k>.tokens=<n>              --shape: the batch's query tokens (all parts)\n"
	"rank.<r>.step.<k>.seqs=<n>                --shape: the batch's sequences\n"
	"rank.<r>.step.<k>.graph=0|1               --shape vllm,graph: the model ran as one graph replay\n"
	"rank.<r>.step.<k>.dispatch_ops=<n>        cat \"cpu_op\" events starting in the window, ProfilerStep excluded\n"
	"rank.<r>.step.<k>.compute_ns=<ns>         compute union clipped to [start_k, start_k+1) (last: to last_end)\n"
	"rank.<r>.step.<k>.comm_not_overlapped_ns=<ns> exposed communication clipped to that window\n"
	"rank.<r>.step.<k>.host_only_ns=<ns>       host-only time clipped to that window\n"
	"rank.<r>.dispatch_ops_total=<n>           sum of dispatch_ops (= all cpu_op events but ProfilerStep)\n"
	"op.<r>.<kernel>.count=<n>                 compute kernels (trace X events) with that name\n"
	"op.<r>.<kernel>.total_ns=<ns>             their summed duration\n"
	"optype.<r>.<Type>.count=<n>               kernel_details.csv rows of that Type (= an op_statistic.csv row)\n"
	"optype.<r>.<Type>.total_ns=<ns>           their summed Duration(us)\n"
	"kernel_scale.<kernel>=<milli>             --kernel-scale: that kernel's durations times milli/1000\n"
	"drop_op.<kernel>=1                        --drop-op: that kernel and its host ops were left out\n"
	"comm=0|1                                  --comm: communication.json and communication_matrix.json written\n"
	"comm.group=<id>                           the communication-domain id after '@' in every entry\n"
	"comm.slow_link=<src>-<dst>|none           the link planted at a third of its peers' bandwidth\n"
	"comm.links=<n>                            src-dst pairs in the matrices (self links, LOCAL, included)\n"
	"comm.<r>.ops=<n>                          collective entries of communication.json (\"Total Op Info\" not counted)\n"
	"comm.<r>.<t>_ns=<ns>                      summed Elapse/Transit/Wait/Synchronization/Idle Time, t = elapse,\n"
	"                                          transit, wait, sync, idle (wait = sync: all of it precedes the transfer)\n"
	"comm.<r>.hccs_bytes=<n>                   summed HCCS Transit Size (MB = 10^6 bytes); SDMA repeats it\n"
	"comm.<r>.hccs_time_ns=<ns>                summed HCCS Transit Time\n"
	"comm.<r>.packets=<n>                      Size Distribution counts (one packet per peer and collective)\n"
	"comm.<r>.small_packets=<n>                those below 1 MB\n"
	"comm.link.<s>-<d>.bytes=<n>               matrix link s -> d (s != d) over all steps (\"-total\" entries)\n"
	"comm.link.<s>-<d>.time_ns=<ns>            its summed Transit Time\n";
/* clang-format on */

/* ------------------------------------------------------------------------------------------ */
/* small utilities                                                                            */

static const char *prog = "ascprof-gen";

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);
	if (!p)
		die("out of memory");
	return p;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = xmalloc(n);
	memcpy(p, s, n);
	return p;
}

/* Grow *v (elements of size sz) so that index need-1 is valid. */
static void grow(void **v, size_t *cap, size_t need, size_t sz)
{
	if (need <= *cap)
		return;
	size_t c = *cap ? *cap : 16;
	while (c < need)
		c *= 2;
	*v = xrealloc(*v, c * sz);
	*cap = c;
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}
static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* Length of [s,e) inside [a,b). */
static int64_t clip_len(int64_t s, int64_t e, int64_t a, int64_t b)
{
	int64_t lo = max64(s, a), hi = min64(e, b);
	return hi > lo ? hi - lo : 0;
}

/* Growable byte string. */
struct sbuf {
	char *p;
	size_t n, cap;
};

static void sb_add(struct sbuf *b, const void *s, size_t n)
{
	grow((void **)&b->p, &b->cap, b->n + n + 1, 1);
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

static void sb_str(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}
static void sb_chr(struct sbuf *b, char c)
{
	sb_add(b, &c, 1);
}
static void sb_clear(struct sbuf *b)
{
	b->n = 0;
	if (b->p)
		b->p[0] = 0;
}

static void sb_fmt(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_fmt(struct sbuf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("format error");
	if ((size_t)n < sizeof tmp) {
		sb_add(b, tmp, (size_t)n);
		return;
	}
	char *big = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb_add(b, big, (size_t)n);
	free(big);
}

/* Decimal digits of v (v >= 0) into buf (no terminator); returns the count. */
static int u64_digits(char *buf, uint64_t v)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (int i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return n;
}

/* "us.nnn" for a ns count (may be negative). Returns length; buf needs 32 bytes. */
static int fmt_us3(char *buf, int64_t ns)
{
	int n = 0;
	uint64_t a;
	if (ns < 0) {
		buf[n++] = '-';
		a = (uint64_t)0 - (uint64_t)ns;
	} else {
		a = (uint64_t)ns;
	}
	n += u64_digits(buf + n, a / 1000);
	unsigned f = (unsigned)(a % 1000);
	buf[n++] = '.';
	buf[n++] = (char)('0' + f / 100);
	buf[n++] = (char)('0' + f / 10 % 10);
	buf[n++] = (char)('0' + f % 10);
	buf[n] = 0;
	return n;
}

/* Python-float-like us: trailing zeros trimmed but one decimal kept ("136581.0", "8873.756"). */
static int fmt_us_py(char *buf, int64_t ns)
{
	int n = fmt_us3(buf, ns);
	while (buf[n - 1] == '0' && buf[n - 2] != '.')
		n--;
	buf[n] = 0;
	return n;
}

/* Exact decimal -> integer scaled by 10^scale ("1234.567" with scale 3 -> 1234567). */
static bool parse_scaled(const char *s, int scale, int64_t *out)
{
	bool neg = false;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (!*s)
		return false;
	int64_t v = 0;
	int digits = 0, frac = -1;
	for (; *s; s++) {
		if (*s == '.') {
			if (frac >= 0)
				return false;
			frac = 0;
			continue;
		}
		if (*s < '0' || *s > '9')
			return false;
		if (frac >= 0) {
			if (frac == scale) {
				if (*s != '0')
					return false; /* more precision than we keep */
				continue;
			}
			frac++;
		}
		if (v > (INT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (*s - '0');
		digits++;
	}
	if (!digits)
		return false;
	for (int f = frac < 0 ? 0 : frac; f < scale; f++) {
		if (v > INT64_MAX / 10)
			return false;
		v *= 10;
	}
	*out = neg ? -v : v;
	return true;
}

static bool parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* ------------------------------------------------------------------------------------------ */
/* PRNG: splitmix64 to seed, xoshiro256** to draw; all streams derive from (seed, purpose...). */

struct rng {
	uint64_t s[4];
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rng_init(struct rng *r, uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t x = seed;
	uint64_t mix = splitmix64(&x) ^ (a * 0xd1b54a32d192ed03ULL);
	mix = splitmix64(&mix) ^ (b * 0x8cb92ba72f3d8dd7ULL);
	mix = splitmix64(&mix) ^ (c * 0xaef17502108ef2d9ULL);
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&mix);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

/* Uniform in [lo, hi] (inclusive). */
static int64_t rng_range(struct rng *r, int64_t lo, int64_t hi)
{
	if (hi <= lo)
		return lo;
	uint64_t span = (uint64_t)(hi - lo) + 1;
	unsigned __int128 m = (unsigned __int128)rng_next(r) * span;
	return lo + (int64_t)(uint64_t)(m >> 64);
}

static bool rng_permille(struct rng *r, int pm)
{
	return rng_range(r, 0, 999) < pm;
}

/* Scale v by a per-mille factor drawn from [1000-pm, 1000+pm]. */
static int64_t jitter(struct rng *r, int64_t v, int pm)
{
	return v * rng_range(r, 1000 - pm, 1000 + pm) / 1000;
}

/* ------------------------------------------------------------------------------------------ */
/* buffered output: large buffer, own number formatting; count-only mode for --target-bytes   */

struct out {
	int fd; /* -1: count only */
	char *buf;
	size_t len, cap;
	uint64_t flushed; /* bytes already handed to the kernel (or counted) */
	const char *path;
};

static void out_open(struct out *o, const char *path, size_t cap)
{
	memset(o, 0, sizeof *o);
	o->path = path;
	o->cap = cap;
	o->buf = xmalloc(cap);
	if (!path) {
		o->fd = -1;
		return;
	}
	o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (o->fd < 0)
		die("cannot create %s: %s", path, strerror(errno));
}

static void out_flush(struct out *o)
{
	size_t off = 0;
	while (o->fd >= 0 && off < o->len) {
		ssize_t w = write(o->fd, o->buf + off, o->len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			die("write %s: %s", o->path, strerror(errno));
		}
		off += (size_t)w;
	}
	o->flushed += o->len;
	o->len = 0;
}

static uint64_t out_pos(const struct out *o)
{
	return o->flushed + o->len;
}

static void out_close(struct out *o)
{
	out_flush(o);
	if (o->fd >= 0 && close(o->fd) != 0)
		die("close %s: %s", o->path, strerror(errno));
	free(o->buf);
	o->buf = NULL;
}

static inline void out_need(struct out *o, size_t n)
{
	if (o->len + n > o->cap)
		out_flush(o);
}

static void out_mem(struct out *o, const void *p, size_t n)
{
	if (n > o->cap / 2) {
		/* large blobs go through the buffer in pieces */
		const char *c = p;
		while (n) {
			size_t k = n < o->cap ? n : o->cap;
			out_need(o, k);
			memcpy(o->buf + o->len, c, k);
			o->len += k;
			c += k;
			n -= k;
		}
		return;
	}
	out_need(o, n);
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static void out_str(struct out *o, const char *s)
{
	out_mem(o, s, strlen(s));
}

static inline void out_chr(struct out *o, char c)
{
	out_need(o, 1);
	o->buf[o->len++] = c;
}

static void out_i64(struct out *o, int64_t v)
{
	out_need(o, 24);
	char *p = o->buf + o->len;
	int n = 0;
	if (v < 0) {
		p[n++] = '-';
		n += u64_digits(p + n, (uint64_t)0 - (uint64_t)v);
	} else {
		n += u64_digits(p + n, (uint64_t)v);
	}
	o->len += (size_t)n;
}

static void out_us3(struct out *o, int64_t ns)
{
	out_need(o, 32);
	o->len += (size_t)fmt_us3(o->buf + o->len, ns);
}

static void out_us_py(struct out *o, int64_t ns)
{
	out_need(o, 32);
	o->len += (size_t)fmt_us_py(o->buf + o->len, ns);
}

/* milli-units value as "x.yyy" (ratios, percentages, GB/s). */
static void out_milli(struct out *o, int64_t m)
{
	out_us3(o, m);
}

static void out_spaces(struct out *o, int n)
{
	out_need(o, (size_t)n);
	memset(o->buf + o->len, ' ', (size_t)n);
	o->len += (size_t)n;
}

/* JSON string body escaping as Python's json.dumps(ensure_ascii=False) does, plus C1 controls
 * (U+0080..U+009F) written as \u00XX so that a terminal never sees them raw. */
static void out_json_escaped(struct out *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		size_t run = i;
		while (run < n && p[run] >= 0x20 && p[run] != '"' && p[run] != '\\' &&
		       !(p[run] == 0xc2 && run + 1 < n && p[run + 1] >= 0x80 && p[run + 1] <= 0x9f))
			run++;
		if (run > i) {
			out_mem(o, p + i, run - i);
			i = run;
			continue;
		}
		unsigned c = p[i];
		char e[8];
		size_t en = 2;
		e[0] = '\\';
		if (c == 0xc2) { /* C1 control */
			c = p[i + 1];
			i++;
		}
		switch (c) {
		case '"': e[1] = '"'; break;
		case '\\': e[1] = '\\'; break;
		case '\n': e[1] = 'n'; break;
		case '\r': e[1] = 'r'; break;
		case '\t': e[1] = 't'; break;
		case '\b': e[1] = 'b'; break;
		case '\f': e[1] = 'f'; break;
		default:
			e[1] = 'u';
			e[2] = '0';
			e[3] = '0';
			e[4] = hex[c >> 4];
			e[5] = hex[c & 15];
			en = 6;
		}
		out_mem(o, e, en);
		i++;
	}
}

static void out_json_str(struct out *o, const char *s)
{
	out_chr(o, '"');
	out_json_escaped(o, s, strlen(s));
	out_chr(o, '"');
}

/* ------------------------------------------------------------------------------------------ */
/* GBK: the few code points the Chinese op names use (no iconv)                               */

struct gbk_map {
	const char *utf8;
	unsigned char gbk[2];
};

static const struct gbk_map gbk_table[] = {
        {"量", {0xc1, 0xbf}}, {"化", {0xbb, 0xaf}}, {"矩", {0xbe, 0xd8}}, {"阵", {0xd5, 0xf3}},
        {"乘", {0xb3, 0xcb}}, {"融", {0xc8, 0xda}}, {"合", {0xba, 0xcf}}, {"注", {0xd7, 0xa2}},
        {"意", {0xd2, 0xe2}}, {"力", {0xc1, 0xa6}}, {"自", {0xd7, 0xd4}}, {"定", {0xb6, 0xa8}},
        {"义", {0xd2, 0xe5}}, {"算", {0xcb, 0xe3}}, {"子", {0xd7, 0xd3}}, {"Ｑ", {0xa3, 0xd1}},
        {"Ｍ", {0xa3, 0xcd}}, {"Ｖ", {0xa3, 0xd6}}, {"２", {0xa3, 0xb2}},
};

/* UTF-8 -> GBK for the table above; other bytes pass through unchanged. */
static void to_gbk(struct sbuf *dst, const char *s)
{
	sb_clear(dst);
	while (*s) {
		bool hit = false;
		if ((unsigned char)*s >= 0x80) {
			for (size_t i = 0; i < sizeof gbk_table / sizeof gbk_table[0]; i++) {
				size_t l = strlen(gbk_table[i].utf8);
				if (!strncmp(s, gbk_table[i].utf8, l)) {
					sb_add(dst, gbk_table[i].gbk, 2);
					s += l;
					hit = true;
					break;
				}
			}
		}
		if (!hit)
			sb_chr(dst, *s++);
	}
}

/* GBK -> UTF-8 for the same table (self-check reads the CSVs back). */
static void from_gbk(struct sbuf *dst, const char *s, size_t n)
{
	sb_clear(dst);
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x81 && i + 1 < n) {
			bool hit = false;
			for (size_t k = 0; k < sizeof gbk_table / sizeof gbk_table[0]; k++) {
				if (gbk_table[k].gbk[0] == c &&
				    gbk_table[k].gbk[1] == (unsigned char)s[i + 1]) {
					sb_str(dst, gbk_table[k].utf8);
					hit = true;
					break;
				}
			}
			if (hit) {
				i += 2;
				continue;
			}
		}
		sb_chr(dst, (char)c);
		i++;
	}
}

/* ------------------------------------------------------------------------------------------ */
/* options                                                                                    */

enum step_marks { MARKS_ENGINE, MARKS_PROFILERSTEP, MARKS_NONE };
enum step_trace { ST_ONE, ST_ROWS, ST_NONE };
enum naming { NAME_HOST, NAME_RANK };
enum jstyle { JS_PY, JS_MIN, JS_PRETTY };
/* --shape: marked (our historical capture, step markers), vllm (what vLLM-Ascend's own profiler
 * wrapper writes: no markers, no python_function, no Input Dims), train (DDP training) */
enum shape_kind { SHAPE_MARKED, SHAPE_VLLM, SHAPE_TRAIN };
struct shape_opts {
	enum shape_kind kind;
	bool mla, moe, graph, annotate, short_prefill;
	int mixed; /* chunked-prefill (mixed) steps among the decode steps */
};

struct opts {
	const char *out;
	int ranks;
	uint64_t seed;
	int steps;
	int prefill;
	int64_t target_bytes;
	bool offsets_set;
	int64_t offsets_ns[MAX_RANKS];
	int64_t host_gap_ns;
	int64_t edge_ns; /* --edge-us: host work before the first and after the last device task */
	int slow_rank;      /* -1: none */
	int64_t slow_milli; /* kernel duration factor in 1/1000 */
	char scale_name[128];     /* --kernel-scale NAME */
	const char *drop_name;    /* --drop-op NAME */
	int64_t scale_milli;
	int scale_kind, drop_kind; /* the kinds they name (enum kind_id), -1: none */
	enum step_marks marks;
	enum step_trace step_trace;
	enum naming naming;
	bool no_info, no_done, raw, wrapper, memory;
	enum jstyle style;
	int64_t truncate_at; /* 0: off */
	bool call_stack, bom, crlf, tabs, gbk, chinese, hostile;
	int ragged, excel;
	int ops; /* mean dispatch units per decode step */
	bool comm; /* communication.json and communication_matrix.json */
	bool demo, self_check, force, check_only;
	struct shape_opts shape;
	int export_db; /* --export: 0 text, 1 db (the text replaced), 2 both (gen_db.h) */
};

/* clang-format off */
static const char usage_text[] =
	"usage: ascprof-gen --out DIR [options]\n"
	"Writes a synthetic vLLM-Ascend torch_npu profiler capture (one *_ascend_pt dir per rank)\n"
	"plus DIR/ground_truth.txt stating exactly what was planted.\n"
	"\n"
	"  --out DIR                where to write (created; must be empty unless --force)\n"
	"  --force                  write into a non-empty DIR\n"
	"  --ranks N                ranks (default 1, at most 64)\n"
	"  --seed S                 PRNG seed (default 1)\n"
	"  --steps N                engine steps (default 12)\n"
	"  --prefill N              prefill steps among them (default 2; step 0 is prefill when N >= 1)\n"
	"  --ops N                  mean dispatch units (kernel launches) per decode step (default 300;\n"
	"                           prefill steps have about twice as many)\n"
	"  --target-bytes N         grow the decode steps until each rank's trace_view.json is about N\n"
	"                           bytes (+-10%; never fewer steps than --prefill + 1); overrides --steps\n"
	"  --offsets-us LIST        per-rank clock offsets in us, comma separated, up to 3 decimals, may be\n"
	"                           negative (default: rank r gets r*1234.567)\n"
	"  --host-gap-us X          host-bound gap planted at the start of every decode step (default 150)\n"
	"  --edge-us X              lengthen the leading and the trailing schedule() by X us: host work\n"
	"                           at the window's edges, with no device task (default 0)\n"
	"  --slow-rank R            rank R's compute kernels last --slow-factor times longer\n"
	"  --slow-factor F          (default 1.5; up to 3 decimals)\n"
	"  --kernel-scale NAME=F    compute kernel NAME (e.g. RmsNorm) lasts F times longer on every\n"
	"                           rank (up to 3 decimals)\n"
	"  --drop-op NAME           leave compute kernel NAME and its host ops out of every step\n"
	"  --step-marks M           engine (execute_model python_function) | profilerstep (ProfilerStep#N\n"
	"                           cpu_op, Step Id column, schedule in profiler_info) | none\n"
	"  --step-trace M           one (single whole-capture row) | rows (one per step) | none (no file)\n"
	"  --naming M               host (<host>_<pid>_<time>_ascend_pt) |\n"
	"                           rank (dp0_pp0_tp<r>_dcp0_ep0_rank<r>_<time>_ascend_pt)\n"
	"  --memory                 also write memory_record.csv, npu_module_mem.csv and\n"
	"                           operator_memory.csv (as profile_memory=True does; --demo has them)\n"
	"  --no-info                omit profiler_info_<rank>.json\n"
	"  --no-done                omit ASCEND_PROFILER_OUTPUT/analyse.done\n"
	"  --export text|db|both    db: torch_npu's Db export (ascend_pytorch_profiler_<rank>.db,\n"
	"                           analysis.db) instead of the text one; both: beside it\n"
	"  --raw                    raw capture: FRAMEWORK/ and PROF_*/ with a dummy file,\n"
	"                           no ASCEND_PROFILER_OUTPUT\n"
	"  --wrapper                trace as {\"displayTimeUnit\": \"ns\", \"traceEvents\": [...],\n"
	"                           \"otherData\": {...}} instead of a bare array\n"
	"  --minify | --pretty      no spaces, or the json.dump(indent=4) layout (default: Python's\n"
	"                           separators, one line)\n"
	"  --truncate-at BYTES      cut every rank's trace_view.json to its first BYTES bytes\n"
	"  --call-stack             \"Call stack\" args on cpu_op events (and Call Stack in operator_details.csv)\n"
	"  --bom                    UTF-8 BOM at the start of every CSV\n"
	"  --crlf                   CRLF line ends in CSVs\n"
	"  --tabs                   a TAB after every timestamp value in CSVs\n"
	"  --gbk                    custom op names with Chinese, written in GBK in kernel_details.csv and\n"
	"                           operator_details.csv (UTF-8 in the trace)\n"
	"  --chinese                some op names in the trace and CSVs contain Chinese / fullwidth characters\n"
	"  --hostile                a few names and args carry ESC, OSC 52, BEL, CR, U+009B, U+202E\n"
	"  --ragged N               N kernel_details.csv rows one field short\n"
	"  --excel N                N kernel_details.csv Start Time values Excel-mangled (1.73641E+15)\n"
	"  --shape SPEC             capture shape: marked (default: step markers as above) | vllm (what\n"
	"                           vLLM-Ascend's profiler wrapper writes: no ProfilerStep, mstx or\n"
	"                           python_function, no Input Dims, one step_trace row, realistic\n"
	"                           kernels by phase) | train (DDP training: backward *Grad* kernels,\n"
	"                           AdamW, ProfilerStep marks). vllm takes modifiers after commas:\n"
	"                           mla (MLA preprocess in decode-only steps), moe (MC2 dispatch and\n"
	"                           combine; with several ranks, all-to-all collectives in steps of more\n"
	"                           than 512 tokens), graph (decode-only steps replayed as graphs with\n"
	"                           PagedAttention), annotate (execute_context_N(T)_generation_M(T)\n"
	"                           ranges), short (every prefill as short as a decode), mixed=N\n"
	"                           (chunked-prefill steps)\n"
	"  --comm                   also communication.json and communication_matrix.json (needs --ranks 2 or\n"
	"                           more; with 3 or more, the link from rank 0 to rank 1 runs at a third of\n"
	"                           its peers' bandwidth)\n"
	"  --demo                   the bundled demo (2 ranks, 14 steps, 2 prefill, seed 7, --naming rank,\n"
	"                           --chinese, small); other options may not be combined with it except\n"
	"                           --out, --force and --self-check\n"
	"  --self-check             re-derive the ground truth from the written files with a generic sweep;\n"
	"                           exit 1 on any mismatch\n"
	"  --check                  only run that check on an existing DIR (written earlier); no output\n"
	"  --help                   this text and the ground-truth key reference\n"
	"\n"
	"Exit status: 0 ok, 1 failure (I/O, self-check mismatch), 2 bad usage.\n";
/* clang-format on */

static void usage_error(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n\n%s", usage_text);
	exit(2);
}

static const char *need_arg(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
		usage_error("%s needs a value", argv[*i]);
	return argv[++*i];
}

static int64_t arg_int(const char *opt, const char *v, int64_t lo, int64_t hi)
{
	int64_t x;
	if (!parse_i64(v, lo, hi, &x))
		usage_error("%s: bad value '%s' (integer %" PRId64 "..%" PRId64 ")", opt, v, lo, hi);
	return x;
}

static int kernel_kind(const char *opt, const char *name);
static void parse_shape(const char *v, struct shape_opts *sh);
static void shape_apply(struct opts *o);

static void parse_opts(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof *o);
	o->ranks = 1;
	o->seed = 1;
	o->steps = 12;
	o->prefill = 2;
	o->host_gap_ns = 150 * US;
	o->slow_rank = -1;
	o->slow_milli = 1500;
	o->scale_kind = o->drop_kind = -1;
	o->ops = 300;
	bool others = false, slow_factor_set = false;
	const char *offsets = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool other = true;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage_text, stdout);
			fputs("\nGround-truth keys (DIR/ground_truth.txt):\n", stdout);
			fputs(truth_doc, stdout);
			exit(0);
		} else if (!strcmp(a, "--out")) {
			o->out = need_arg(argc, argv, &i);
			other = false;
		} else if (!strcmp(a, "--force")) {
			o->force = true;
			other = false;
		} else if (!strcmp(a, "--self-check")) {
			o->self_check = true;
			other = false;
		} else if (!strcmp(a, "--check")) {
			o->check_only = true;
			other = false;
		} else if (!strcmp(a, "--demo")) {
			o->demo = true;
			other = false;
		} else if (!strcmp(a, "--ranks")) {
			o->ranks = (int)arg_int(a, need_arg(argc, argv, &i), 1, MAX_RANKS);
		} else if (!strcmp(a, "--seed")) {
			const char *v = need_arg(argc, argv, &i);
			char *end;
			errno = 0;
			unsigned long long s = strtoull(v, &end, 10);
			if (errno || end == v || *end || *v == '-')
				usage_error("--seed: bad value '%s'", v);
			o->seed = s;
		} else if (!strcmp(a, "--steps")) {
			o->steps = (int)arg_int(a, need_arg(argc, argv, &i), 1, 1000000);
		} else if (!strcmp(a, "--prefill")) {
			o->prefill = (int)arg_int(a, need_arg(argc, argv, &i), 0, 1000000);
		} else if (!strcmp(a, "--ops")) {
			o->ops = (int)arg_int(a, need_arg(argc, argv, &i), 8, 100000);
		} else if (!strcmp(a, "--target-bytes")) {
			o->target_bytes = arg_int(a, need_arg(argc, argv, &i), 1, INT64_MAX / 4);
		} else if (!strcmp(a, "--offsets-us")) {
			offsets = need_arg(argc, argv, &i);
		} else if (!strcmp(a, "--host-gap-us")) {
			const char *v = need_arg(argc, argv, &i);
			if (!parse_scaled(v, 3, &o->host_gap_ns) || o->host_gap_ns < 0 ||
			    o->host_gap_ns > 10000000 * US)
				usage_error("--host-gap-us: bad value '%s'", v);
		} else if (!strcmp(a, "--edge-us")) {
			const char *v = need_arg(argc, argv, &i);
			if (!parse_scaled(v, 3, &o->edge_ns) || o->edge_ns < 0 || o->edge_ns > 10000000 * US)
				usage_error("--edge-us: bad value '%s'", v);
		} else if (!strcmp(a, "--slow-rank")) {
			o->slow_rank = (int)arg_int(a, need_arg(argc, argv, &i), 0, MAX_RANKS - 1);
		} else if (!strcmp(a, "--slow-factor")) {
			const char *v = need_arg(argc, argv, &i);
			if (!parse_scaled(v, 3, &o->slow_milli) || o->slow_milli < 1 ||
			    o->slow_milli > 100000)
				usage_error("--slow-factor: bad value '%s' (0.001..100)", v);
			slow_factor_set = true;
		} else if (!strcmp(a, "--kernel-scale")) {
			const char *v = need_arg(argc, argv, &i);
			const char *eq = strrchr(v, '=');
			if (!eq || eq == v || (size_t)(eq - v) >= sizeof o->scale_name ||
			    !parse_scaled(eq + 1, 3, &o->scale_milli) || o->scale_milli < 1 || o->scale_milli > 100000)
				usage_error("--kernel-scale: bad value '%s' (NAME=F, F 0.001..100)", v);
			memcpy(o->scale_name, v, (size_t)(eq - v));
			o->scale_name[eq - v] = '\0';
		} else if (!strcmp(a, "--drop-op")) {
			o->drop_name = need_arg(argc, argv, &i);
		} else if (!strcmp(a, "--step-marks")) {
			const char *v = need_arg(argc, argv, &i);
			if (!strcmp(v, "engine"))
				o->marks = MARKS_ENGINE;
			else if (!strcmp(v, "profilerstep"))
				o->marks = MARKS_PROFILERSTEP;
			else if (!strcmp(v, "none"))
				o->marks = MARKS_NONE;
			else
				usage_error("--step-marks: expected engine, profilerstep or none, not '%s'",
				            v);
		} else if (!strcmp(a, "--step-trace")) {
			const char *v = need_arg(argc, argv, &i);
			if (!strcmp(v, "one"))
				o->step_trace = ST_ONE;
			else if (!strcmp(v, "rows"))
				o->step_trace = ST_ROWS;
			else if (!strcmp(v, "none"))
				o->step_trace = ST_NONE;
			else
				usage_error("--step-trace: expected one, rows or none, not '%s'", v);
		} else if (!strcmp(a, "--naming")) {
			const char *v = need_arg(argc, argv, &i);
			if (!strcmp(v, "host"))
				o->naming = NAME_HOST;
			else if (!strcmp(v, "rank"))
				o->naming = NAME_RANK;
			else
				usage_error("--naming: expected host or rank, not '%s'", v);
		} else if (!strcmp(a, "--memory")) {
			o->memory = true;
		} else if (!strcmp(a, "--no-info")) {
			o->no_info = true;
		} else if (!strcmp(a, "--export")) {
			const char *v = need_arg(argc, argv, &i);
			o->export_db = !strcmp(v, "text") ? 0 : !strcmp(v, "db") ? 1 : !strcmp(v, "both") ? 2 : -1;
			if (o->export_db < 0)
				usage_error("--export: expected text, db or both, not '%s'", v);
		} else if (!strcmp(a, "--no-done")) {
			o->no_done = true;
		} else if (!strcmp(a, "--raw")) {
			o->raw = true;
		} else if (!strcmp(a, "--wrapper")) {
			o->wrapper = true;
		} else if (!strcmp(a, "--minify")) {
			if (o->style == JS_PRETTY)
				usage_error("--minify and --pretty exclude each other");
			o->style = JS_MIN;
		} else if (!strcmp(a, "--pretty")) {
			if (o->style == JS_MIN)
				usage_error("--minify and --pretty exclude each other");
			o->style = JS_PRETTY;
		} else if (!strcmp(a, "--truncate-at")) {
			o->truncate_at = arg_int(a, need_arg(argc, argv, &i), 1, INT64_MAX / 4);
		} else if (!strcmp(a, "--call-stack")) {
			o->call_stack = true;
		} else if (!strcmp(a, "--bom")) {
			o->bom = true;
		} else if (!strcmp(a, "--crlf")) {
			o->crlf = true;
		} else if (!strcmp(a, "--tabs")) {
			o->tabs = true;
		} else if (!strcmp(a, "--gbk")) {
			o->gbk = true;
		} else if (!strcmp(a, "--chinese")) {
			o->chinese = true;
		} else if (!strcmp(a, "--hostile")) {
			o->hostile = true;
		} else if (!strcmp(a, "--ragged")) {
			o->ragged = (int)arg_int(a, need_arg(argc, argv, &i), 0, 100000000);
		} else if (!strcmp(a, "--excel")) {
			o->excel = (int)arg_int(a, need_arg(argc, argv, &i), 0, 100000000);
		} else if (!strcmp(a, "--comm")) {
			o->comm = true;
		} else if (!strcmp(a, "--shape")) {
			parse_shape(need_arg(argc, argv, &i), &o->shape);
		} else {
			usage_error("unknown option '%s'", a);
		}
		others |= other;
	}
	if (!o->out)
		usage_error("--out DIR is required");
	if (o->export_db && (o->raw || o->self_check || o->truncate_at))
		usage_error("--export db|both takes no --raw, --self-check or --truncate-at");
	if (o->check_only && (others || o->demo || o->force))
		usage_error("--check takes only --out DIR");
	if (o->demo) {
		if (others)
			usage_error("--demo takes no options besides --out, --force and --self-check");
		o->ranks = 2;
		o->steps = 14;
		o->prefill = 2;
		o->seed = 7;
		o->naming = NAME_RANK;
		o->chinese = true;
		o->ops = 3; /* the smallest steps (7 launches + 2 collectives): a small fixture */
		o->memory = true;
	}
	if (o->prefill > o->steps && !o->target_bytes)
		usage_error("--prefill %d exceeds --steps %d", o->prefill, o->steps);
	if (o->slow_rank >= o->ranks)
		usage_error("--slow-rank %d: only %d rank(s)", o->slow_rank, o->ranks);
	if (o->comm && (o->ranks < 2 || o->raw))
		usage_error("--comm needs --ranks 2 or more (collectives run between ranks) and no --raw");
	if (slow_factor_set && o->slow_rank < 0)
		usage_error("--slow-factor needs --slow-rank");
	if (o->slow_rank < 0)
		o->slow_milli = 1000;
	if (o->scale_name[0])
		o->scale_kind = kernel_kind("--kernel-scale", o->scale_name);
	if (o->drop_name)
		o->drop_kind = kernel_kind("--drop-op", o->drop_name);
	if (o->drop_kind >= 0 && o->drop_kind == o->scale_kind)
		usage_error("--drop-op and --kernel-scale name the same kernel");
	shape_apply(o);
	if (offsets) {
		const char *p = offsets;
		int n = 0;
		while (*p) {
			char tmp[64];
			size_t l = strcspn(p, ",");
			if (l == 0 || l >= sizeof tmp)
				usage_error("--offsets-us: bad list '%s'", offsets);
			memcpy(tmp, p, l);
			tmp[l] = 0;
			if (n >= o->ranks)
				usage_error("--offsets-us: more values than --ranks %d", o->ranks);
			if (!parse_scaled(tmp, 3, &o->offsets_ns[n]) ||
			    o->offsets_ns[n] > 3600000000LL * US || o->offsets_ns[n] < -3600000000LL * US)
				usage_error("--offsets-us: bad value '%s' (us, up to 3 decimals, |x| <= 1 h)",
				            tmp);
			n++;
			p += l;
			if (*p == ',') {
				p++;
				if (!*p)
					usage_error("--offsets-us: trailing comma");
			}
		}
		if (n != o->ranks)
			usage_error("--offsets-us: %d value(s) for %d rank(s)", n, o->ranks);
		o->offsets_set = true;
	} else {
		for (int r = 0; r < o->ranks; r++)
			o->offsets_ns[r] = (int64_t)r * 1234567;
	}
}

/* ------------------------------------------------------------------------------------------ */
/* op kinds: what one host dispatch unit looks like on every lane                             */

enum dev_class { DC_COMPUTE, DC_H2D, DC_D2H, DC_COMM };

enum kind_id {
	K_H2D,
	K_D2H,
	K_EMBED,
	K_RMSNORM,
	K_LINEAR,
	K_ROPE,
	K_CACHE,
	K_ATTN,
	K_ADD,
	K_SILU,
	K_MUL,
	K_ARGMAX,
	K_QMM,
	K_FATTN,
	K_GBK1,
	K_GBK2,
	K_HOSTILE,
	K_ALLREDUCE,
	K_S3,
	/* --shape vllm and train kinds ('@' in a shape is the batch's sequence count) */
	K_FIA,
	K_PAGED,
	K_MLAPO,
	K_MOE_DISP,
	K_MOE_COMB,
	K_GMM,
	K_FA,
	K_FA_GRAD,
	K_RMSNORM_GRAD,
	K_SWIGLU_GRAD,
	K_MM_GRAD,
	K_EMBED_GRAD,
	K_ADAMW,
	K_ALLTOALL,
	K_COUNT
};

/* ESC [31m, OSC 52 clipboard write, BEL, CR, C1 CSI (U+009B), RTL override (U+202E). Split
 * literals keep hex escapes from swallowing the letters after them. */
#define HOSTILE_NAME                                                                                         \
	"evil::\x1b[31mred\x1b[0m\x1b]52;c;aGk=\x07"                                                         \
	"bell\x07"                                                                                           \
	"cr\rc1\xc2\x9b"                                                                                     \
	"2Jbidi\xe2\x80\xae"                                                                                 \
	"lortnoc"
#define HOSTILE_ARG "\x1b[2J\x1b[H\x1b]0;pwned\x07"
#define HOSTILE_PYFUNC                                                                                       \
	"evil.py(7): \x1b]0;title\x07\xe2\x80\xae"                                                           \
	"cba"

struct kind {
	const char *host[3]; /* cpu_op names, outermost first */
	int nest;
	const char *acl;      /* AscendCL@<acl> */
	const char *acl_mode; /* args.Mode of the AscendCL event */
	const char *deq;      /* Dequeue@<deq> */
	const char *kernel;   /* device task name */
	const char *type;     /* kernel_details Type */
	const char *task_type;
	enum dev_class dc;
	int weight; /* share of the step's device budget */
	int block_dim, mix_block_dim;
	const char *in_shape; /* '#' = token count, ';' between inputs */
	const char *in_dtype, *in_fmt, *out_shape, *out_dtype, *out_fmt;
	const char *torch_types;
	const char *frame; /* innermost Python frame of its call stack */
};

/* clang-format off */
static const struct kind kinds[K_COUNT] = {
	[K_H2D] = {{"aten::to", "aten::_to_copy", "aten::copy_"}, 3, "aclrtMemcpyAsync", "ACL_RTS",
		   "acl_memcpy_host_to_device", "MEMCPY_ASYNC", NULL, "PCIE_DMA_SQE", DC_H2D, 0, 0, 0,
		   "#", "INT32", "ND", "#", "INT32", "ND", "int;int",
		   "vllm_ascend/worker/model_runner_v1.py(1342): _prepare_inputs"},
	[K_D2H] = {{"aten::to", "aten::_to_copy", "aten::copy_"}, 3, "aclrtMemcpyAsync", "ACL_RTS",
		   "acl_memcpy_device_to_host", "MEMCPY_ASYNC", NULL, "PCIE_DMA_SQE", DC_D2H, 0, 0, 0,
		   "#", "INT64", "ND", "#", "INT64", "ND", "long int;long int",
		   "vllm_ascend/worker/model_runner_v1.py(1611): execute_model"},
	[K_EMBED] = {{"aten::embedding", "aten::index_select"}, 2, "aclnnIndexSelect", "ACL_NN",
		     "aclnnIndexSelect", "GatherV2", "GatherV2", "AI_VECTOR_CORE", DC_COMPUTE, 2, 40, 0,
		     "151936,4096;#", "BF16;INT64", "ND;ND", "#,4096", "BF16", "ND",
		     "c10::BFloat16;long int", "vllm/model_executor/layers/vocab_parallel_embedding.py(452): forward"},
	[K_RMSNORM] = {{"aten::rms_norm"}, 1, "aclnnRmsNorm", "ACL_NN", "aclnnRmsNorm", "RmsNorm",
		       "RmsNorm", "AI_VECTOR_CORE", DC_COMPUTE, 2, 40, 0, "#,4096;4096", "BF16;BF16",
		       "ND;ND", "#,4096", "BF16", "ND", "c10::BFloat16;c10::BFloat16",
		       "vllm_ascend/ops/layernorm.py(86): forward_oot"},
	[K_LINEAR] = {{"aten::linear", "aten::mm"}, 2, "aclnnMm", "ACL_NN", "aclnnMm", "MatMulV2",
		      "MatMulV2", "AI_CORE", DC_COMPUTE, 12, 24, 0, "#,4096;4096,4096", "BF16;BF16",
		      "ND;ND", "#,4096", "BF16", "ND", "c10::BFloat16;c10::BFloat16",
		      "vllm_ascend/ops/linear.py(223): forward"},
	[K_ROPE] = {{"npu::npu_apply_rotary_pos_emb"}, 1, "aclnnApplyRotaryPosEmb", "ACL_NN",
		    "aclnnApplyRotaryPosEmb", "ApplyRotaryPosEmb", "ApplyRotaryPosEmb", "AI_VECTOR_CORE",
		    DC_COMPUTE, 1, 40, 0, "#,32,128;#,8,128;#,1,128;#,1,128", "BF16;BF16;BF16;BF16",
		    "ND;ND;ND;ND", "#,32,128;#,8,128", "BF16;BF16", "ND;ND",
		    "c10::BFloat16;c10::BFloat16;c10::BFloat16;c10::BFloat16",
		    "vllm_ascend/ops/rotary_embedding.py(117): forward_oot"},
	[K_CACHE] = {{"npu::_npu_reshape_and_cache"}, 1, "aclnnReshapeAndCache", "ACL_NN",
		     "aclnnReshapeAndCache", "ReshapeAndCache", "ReshapeAndCache", "AI_VECTOR_CORE",
		     DC_COMPUTE, 1, 40, 0, "#,8,128;#,8,128;2048,128,8,128;2048,128,8,128;#",
		     "BF16;BF16;BF16;BF16;INT32", "ND;ND;ND;ND;ND", "2048,128,8,128;2048,128,8,128",
		     "BF16;BF16", "ND;ND", "c10::BFloat16;c10::BFloat16;c10::BFloat16;c10::BFloat16;int",
		     "vllm_ascend/attention/attention_v1.py(512): forward"},
	[K_ATTN] = {{"npu::npu_fused_infer_attention_score"}, 1, "aclnnFusedInferAttentionScoreV3",
		    "ACL_NN", "aclnnFusedInferAttentionScoreV3", "FusedInferAttentionScore",
		    "FusedInferAttentionScore", "MIX_AIC", DC_COMPUTE, 8, 24, 48,
		    "#,32,128;2048,128,1024;2048,128,1024", "BF16;BF16;BF16", "ND;ND;ND", "#,32,128",
		    "BF16", "ND", "c10::BFloat16;c10::BFloat16;c10::BFloat16",
		    "vllm_ascend/attention/attention_v1.py(430): _forward_decode_only"},
	[K_ADD] = {{"aten::add"}, 1, "aclnnAdd", "ACL_NN", "aclnnAdd", "Add", "Add", "AI_VECTOR_CORE",
		   DC_COMPUTE, 1, 40, 0, "#,4096;#,4096", "BF16;BF16", "ND;ND", "#,4096", "BF16", "ND",
		   "c10::BFloat16;c10::BFloat16;Scalar", "vllm/model_executor/models/qwen2.py(245): forward"},
	[K_SILU] = {{"aten::silu"}, 1, "aclnnSilu", "ACL_NN", "aclnnSilu", "Silu", "Silu",
		    "AI_VECTOR_CORE", DC_COMPUTE, 1, 40, 0, "#,11008", "BF16", "ND", "#,11008", "BF16",
		    "ND", "c10::BFloat16", "vllm/model_executor/layers/activation.py(78): forward_native"},
	[K_MUL] = {{"aten::mul"}, 1, "aclnnMul", "ACL_NN", "aclnnMul", "Mul", "Mul", "AI_VECTOR_CORE",
		   DC_COMPUTE, 1, 40, 0, "#,11008;#,11008", "BF16;BF16", "ND;ND", "#,11008", "BF16",
		   "ND", "c10::BFloat16;c10::BFloat16", "vllm/model_executor/layers/activation.py(80): forward_native"},
	[K_ARGMAX] = {{"aten::argmax"}, 1, "aclnnArgMax", "ACL_NN", "aclnnArgMax", "ArgMaxV2",
		      "ArgMaxV2", "AI_VECTOR_CORE", DC_COMPUTE, 2, 40, 0, "#,151936", "FLOAT", "ND", "#",
		      "INT64", "ND", "float;Scalar;Scalar", "vllm/v1/sample/sampler.py(123): greedy_sample"},
	[K_QMM] = {{"custom::量化矩阵乘"}, 1, "aclnnQuantMatmulV4", "ACL_NN", "aclnnQuantMatmulV4",
		   "量化矩阵乘_ＱＭＭ", "量化矩阵乘", "AI_CORE", DC_COMPUTE, 10, 24, 0,
		   "#,4096;4096,4096;4096", "INT8;INT8;FLOAT", "ND;FRACTAL_NZ;ND", "#,4096", "BF16", "ND",
		   "signed char;signed char;float", "vllm_ascend/quantization/w8a8.py(141): apply"},
	[K_FATTN] = {{"custom::融合注意力"}, 1, "aclnnFusedAttn", "ACL_NN", "aclnnFusedAttn",
		     "融合注意力Ｖ２", "融合注意力", "MIX_AIC", DC_COMPUTE, 8, 24, 48,
		     "#,32,128;2048,128,1024;2048,128,1024", "BF16;BF16;BF16", "ND;ND;ND", "#,32,128",
		     "BF16", "ND", "c10::BFloat16;c10::BFloat16;c10::BFloat16",
		     "vllm_ascend/attention/attention_v1.py(466): forward"},
	[K_GBK1] = {{"自定义算子_1"}, 1, "aclnnCustomOp", "ACL_NN", "aclnnCustomOp", "自定义算子_1",
		    "自定义算子", "AI_CORE", DC_COMPUTE, 3, 24, 0, "#,4096", "BF16", "ND", "#,4096",
		    "BF16", "ND", "c10::BFloat16", "custom_ops/ascend_ops.py(31): forward"},
	[K_GBK2] = {{"自定义算子_2"}, 1, "aclnnCustomOp", "ACL_NN", "aclnnCustomOp", "自定义算子_2",
		    "自定义算子", "AI_CORE", DC_COMPUTE, 3, 24, 0, "#,11008", "BF16", "ND", "#,11008",
		    "BF16", "ND", "c10::BFloat16", "custom_ops/ascend_ops.py(58): forward"},
	[K_HOSTILE] = {{HOSTILE_NAME}, 1, "aclnnCast", "ACL_NN", "aclnnCast", "Cast", "Cast",
		       "AI_VECTOR_CORE", DC_COMPUTE, 1, 40, 0, "#,4096", "BF16", "ND", "#,4096", "FLOAT",
		       "ND", HOSTILE_ARG, "evil/plugin.py(13): forward"},
	[K_ALLREDUCE] = {{"HcclAllreduce"}, 1, "HcclAllreduce", "HOST_HCCL", "HcclAllreduce", NULL,
			 "hcom_allReduce_", "HCCL", DC_COMM, 0, 0, 0, "#,4096", "BF16", "ND", "#,4096",
			 "BF16", "ND", "c10::BFloat16",
			 "vllm/distributed/device_communicators/base_device_communicator.py(93): all_reduce"},
	/* stream-3 side kernel: no host unit of its own */
	[K_S3] = {{NULL}, 0, NULL, NULL, NULL, "TransData", "TransData", "AI_VECTOR_CORE", DC_COMPUTE,
		  0, 8, 0, "#,4096", "BF16", "ND", "#,256,16,16", "BF16", "FRACTAL_NZ", "", ""},
	/* query (T,N,D) in TND layout, key and value caches, block table (B, max blocks) */
	[K_FIA] = {{"npu::npu_fused_infer_attention_score"}, 1, "aclnnFusedInferAttentionScoreV3", "ACL_NN",
		   "aclnnFusedInferAttentionScoreV3", "FusedInferAttentionScore", "FusedInferAttentionScore",
		   "MIX_AIC", DC_COMPUTE, 8, 24, 48, "#,32,128;2048,128,1024;2048,128,1024;@,128",
		   "BF16;BF16;BF16;INT32", "ND;ND;ND;ND", "#,32,128", "BF16", "ND",
		   "c10::BFloat16;c10::BFloat16;c10::BFloat16;int",
		   "vllm_ascend/attention/attention_v1.py(590): forward_impl"},
	/* decode-only graph batches: query (B,N,D), caches, block tables, context lengths */
	[K_PAGED] = {{"npu::_npu_paged_attention"}, 1, "aclnnPagedAttention", "ACL_NN", "aclnnPagedAttention",
		     "PagedAttention", "PagedAttention", "MIX_AIC", DC_COMPUTE, 8, 24, 48,
		     "@,32,128;2048,128,8,128;2048,128,8,128;@,128;@", "BF16;BF16;BF16;INT32;INT32",
		     "ND;ND;ND;ND;ND", "@,32,128", "BF16", "ND", "c10::BFloat16;c10::BFloat16;c10::BFloat16;int;int",
		     "vllm_ascend/attention/attention_v1.py(520): _forward_decode_only"},
	[K_MLAPO] = {{"npu::mla_preprocess"}, 1, "aclnnMlaPreprocess", "ACL_NN", "aclnnMlaPreprocess",
		     "MlaPreprocess", "MLAPO", "MIX_AIC", DC_COMPUTE, 4, 24, 48, "#,7168;7168,2112;1536,24576",
		     "BF16;INT8;INT8", "ND;FRACTAL_NZ;FRACTAL_NZ", "#,128,512;#,128,64", "BF16;BF16", "ND;ND",
		     "c10::BFloat16;signed char;signed char", "vllm_ascend/attention/mla_v1.py(1102): _mla_preprocess"},
	[K_MOE_DISP] = {{"npu::npu_moe_distribute_dispatch_v2"}, 1, "aclnnMoeDistributeDispatchV2", "ACL_NN",
			"aclnnMoeDistributeDispatchV2", "MoeDistributeDispatchV2", "MoeDistributeDispatchV2",
			"MIX_AIV", DC_COMPUTE, 2, 48, 0, "#,7168;#,8", "BF16;INT32", "ND;ND", "#,7168", "BF16", "ND",
			"c10::BFloat16;int", "vllm_ascend/ops/moe/token_dispatcher.py(211): token_dispatch"},
	[K_MOE_COMB] = {{"npu::npu_moe_distribute_combine_v2"}, 1, "aclnnMoeDistributeCombineV2", "ACL_NN",
			"aclnnMoeDistributeCombineV2", "MoeDistributeCombineV2", "MoeDistributeCombineV2",
			"MIX_AIV", DC_COMPUTE, 2, 48, 0, "#,7168;#,8", "BF16;INT32", "ND;ND", "#,7168", "BF16", "ND",
			"c10::BFloat16;int", "vllm_ascend/ops/moe/token_dispatcher.py(268): token_combine"},
	[K_GMM] = {{"npu::npu_grouped_matmul"}, 1, "aclnnGroupedMatmulV4", "ACL_NN", "aclnnGroupedMatmulV4",
		   "GroupedMatmul", "GroupedMatmul", "AI_CORE", DC_COMPUTE, 10, 24, 0, "#,7168;16,7168,4096",
		   "BF16;BF16", "ND;ND", "#,4096", "BF16", "ND", "c10::BFloat16;c10::BFloat16",
		   "vllm_ascend/ops/moe/moe_mlp.py(92): quant_apply_mlp"},
	[K_FA] = {{"npu::npu_fusion_attention"}, 1, "aclnnFlashAttentionScore", "ACL_NN", "aclnnFlashAttentionScore",
		  "FlashAttentionScore", "FlashAttentionScore", "MIX_AIC", DC_COMPUTE, 8, 24, 48,
		  "4,#,32,128;4,#,8,128;4,#,8,128", "BF16;BF16;BF16", "ND;ND;ND", "4,#,32,128", "BF16", "ND",
		  "c10::BFloat16;c10::BFloat16;c10::BFloat16", "megatron/core/transformer/attention.py(312): forward"},
	[K_FA_GRAD] = {{"autograd::engine::evaluate_function: NpuFusionAttentionBackward",
			"NpuFusionAttentionBackward", "npu::npu_fusion_attention_grad"}, 3,
		       "aclnnFlashAttentionScoreGrad", "ACL_NN", "aclnnFlashAttentionScoreGrad",
		       "FlashAttentionScoreGrad", "FlashAttentionScoreGrad", "MIX_AIC", DC_COMPUTE, 16, 24, 48,
		       "4,#,32,128;4,#,8,128;4,#,8,128;4,#,32,128", "BF16;BF16;BF16;BF16", "ND;ND;ND;ND",
		       "4,#,32,128;4,#,8,128;4,#,8,128", "BF16;BF16;BF16", "ND;ND;ND",
		       "c10::BFloat16;c10::BFloat16;c10::BFloat16;c10::BFloat16",
		       "torch/autograd/graph.py(825): _engine_run_backward"},
	[K_RMSNORM_GRAD] = {{"autograd::engine::evaluate_function: NpuRmsNormBackward", "NpuRmsNormBackward",
			     "npu::npu_rms_norm_backward"}, 3, "aclnnRmsNormGrad", "ACL_NN", "aclnnRmsNormGrad",
			    "RmsNormGrad", "RmsNormGrad", "AI_VECTOR_CORE", DC_COMPUTE, 2, 40, 0,
			    "#,4096;#,4096;#,1;4096", "BF16;BF16;FLOAT;BF16", "ND;ND;ND;ND", "#,4096;4096", "BF16;FLOAT",
			    "ND;ND", "c10::BFloat16;c10::BFloat16;float;c10::BFloat16",
			    "torch/autograd/graph.py(825): _engine_run_backward"},
	[K_SWIGLU_GRAD] = {{"autograd::engine::evaluate_function: NpuSwigluBackward", "NpuSwigluBackward",
			    "npu::npu_swiglu_backward"}, 3, "aclnnSwiGluGrad", "ACL_NN", "aclnnSwiGluGrad",
			   "SwiGluGrad", "SwiGluGrad", "AI_VECTOR_CORE", DC_COMPUTE, 2, 40, 0, "#,11008;#,22016",
			   "BF16;BF16", "ND;ND", "#,22016", "BF16", "ND", "c10::BFloat16;c10::BFloat16",
			   "torch/autograd/graph.py(825): _engine_run_backward"},
	[K_MM_GRAD] = {{"autograd::engine::evaluate_function: MmBackward0", "MmBackward0", "aten::mm"}, 3, "aclnnMm",
		       "ACL_NN", "aclnnMm", "MatMulV2", "MatMulV2", "AI_CORE", DC_COMPUTE, 24, 24, 0,
		       "#,4096;4096,4096", "BF16;BF16", "ND;ND", "#,4096", "BF16", "ND", "c10::BFloat16;c10::BFloat16",
		       "torch/autograd/graph.py(825): _engine_run_backward"},
	[K_EMBED_GRAD] = {{"autograd::engine::evaluate_function: EmbeddingBackward0", "EmbeddingBackward0",
			   "aten::embedding_dense_backward"}, 3, "aclnnEmbeddingDenseBackward", "ACL_NN",
			  "aclnnEmbeddingDenseBackward", "EmbeddingDenseGradV2", "EmbeddingDenseGradV2",
			  "AI_VECTOR_CORE", DC_COMPUTE, 2, 40, 0, "#,4096;#", "BF16;INT64", "ND;ND", "151936,4096",
			  "BF16", "ND", "c10::BFloat16;long int", "torch/autograd/graph.py(825): _engine_run_backward"},
	[K_ADAMW] = {{"Optimizer.step#AdamW.step", "npu::npu_apply_adam_w"}, 2, "aclnnApplyAdamWV2", "ACL_NN",
		     "aclnnApplyAdamWV2", "ApplyAdamWV2", "ApplyAdamWV2", "AI_VECTOR_CORE", DC_COMPUTE, 3, 40, 0,
		     "4096,4096;4096,4096;4096,4096;4096,4096", "FLOAT;FLOAT;FLOAT;FLOAT", "ND;ND;ND;ND",
		     "4096,4096", "FLOAT", "ND", "float;float;float;float", "torch/optim/adamw.py(220): step"},
	/* MoE above the MC2 capacity (512 tokens per rank): all-to-all instead of dispatch/combine */
	[K_ALLTOALL] = {{"HcclAlltoAllV"}, 1, "HcclAlltoAllV", "HOST_HCCL", "HcclAlltoAllV", NULL, "hcom_alltoallv_",
			"HCCL", DC_COMM, 0, 0, 0, "#,7168", "BF16", "ND", "#,7168", "BF16", "ND", "c10::BFloat16",
			"vllm_ascend/ops/moe/token_dispatcher.py(402): token_dispatch"},
};
/* clang-format on */

/* --kernel-scale and --drop-op name a compute kernel that has a host unit of its own. */
static int kernel_kind(const char *opt, const char *name)
{
	for (int k = 0; k < K_COUNT; k++)
		if (kinds[k].dc == DC_COMPUTE && kinds[k].nest > 0 && !strcmp(kinds[k].kernel, name))
			return k;
	usage_error("%s: no compute kernel named '%s' (e.g. RmsNorm, MatMulV2, Silu)", opt, name);
}

static void parse_shape(const char *v, struct shape_opts *sh)
{
	memset(sh, 0, sizeof *sh);
	char buf[256];
	if (strlen(v) >= sizeof buf)
		usage_error("--shape: '%s' is too long", v);
	strcpy(buf, v);
	char *save = NULL;
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		bool first = w == buf;
		if (first && !strcmp(w, "marked"))
			sh->kind = SHAPE_MARKED;
		else if (first && !strcmp(w, "vllm"))
			sh->kind = SHAPE_VLLM;
		else if (first && !strcmp(w, "train"))
			sh->kind = SHAPE_TRAIN;
		else if (first)
			usage_error("--shape: expected marked, vllm or train first, not '%s'", w);
		else if (sh->kind != SHAPE_VLLM)
			usage_error("--shape: modifiers ('%s') apply to vllm only", w);
		else if (!strcmp(w, "mla"))
			sh->mla = true;
		else if (!strcmp(w, "moe"))
			sh->moe = true;
		else if (!strcmp(w, "graph"))
			sh->graph = true;
		else if (!strcmp(w, "annotate"))
			sh->annotate = true;
		else if (!strcmp(w, "short"))
			sh->short_prefill = true;
		else if (!strncmp(w, "mixed=", 6))
			sh->mixed = (int)arg_int("--shape mixed=", w + 6, 0, 1000000);
		else
			usage_error("--shape: unknown modifier '%s' (mla, moe, graph, annotate, short, mixed=N)", w);
	}
}

/* What the shape implies for the other options. */
static void shape_apply(struct opts *o)
{
	if (o->shape.kind == SHAPE_VLLM) {
		/* no schedule, msprof_tx=False: no markers; one step_trace row without a step id */
		o->marks = MARKS_NONE;
		o->step_trace = ST_ONE;
		if (o->hostile || o->demo)
			usage_error("--shape vllm does not combine with --hostile or --demo");
	} else if (o->shape.kind == SHAPE_TRAIN) {
		o->prefill = 0; /* training steps are neither prefill nor decode */
		if (o->marks == MARKS_ENGINE)
			o->marks = MARKS_PROFILERSTEP; /* training uses a schedule */
		if (o->demo)
			usage_error("--shape train does not combine with --demo");
	}
}

/* Frames shared by every call stack, innermost first, after the kind's own frame. */
static const char *const common_frames[] = {
        "torch/nn/modules/module.py(1762): _call_impl",
        "torch/nn/modules/module.py(1751): _wrapped_call_impl",
        "vllm/model_executor/models/qwen2.py(248): forward",
        "torch/nn/modules/module.py(1762): _call_impl",
        "vllm/model_executor/models/qwen2.py(371): forward",
        "vllm/compilation/decorators.py(239): __call__",
        "vllm_ascend/worker/model_runner_v1.py(1402): _model_forward",
        "vllm_ascend/worker/model_runner_v1.py(1520): execute_model",
        "torch/utils/_contextlib.py(116): decorate_context",
        "vllm_ascend/worker/worker_v1.py(211): execute_model",
        "vllm/v1/executor/multiproc_executor.py(541): worker_busy_loop",
        "vllm/v1/executor/multiproc_executor.py(503): worker_main",
        "multiprocessing/process.py(108): run",
};
#define N_COMMON_FRAMES (sizeof common_frames / sizeof common_frames[0])

/* ------------------------------------------------------------------------------------------ */
/* interval lists built in time order                                                         */

struct ivl {
	int64_t s, e;
};

struct ivl_list {
	struct ivl *v;
	size_t n, cap;
};

/* Append [s,e) where s is not before any earlier start: touching or overlapping pieces merge.
 * The simulation feeds these in placement order, so this is bookkeeping, not analysis. */
static void ul_add(struct ivl_list *l, int64_t s, int64_t e)
{
	if (e <= s)
		return;
	if (l->n) {
		struct ivl *last = &l->v[l->n - 1];
		if (s < last->s)
			die("internal: interval appended out of order");
		if (s <= last->e) {
			if (e > last->e)
				last->e = e;
			return;
		}
	}
	grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v);
	l->v[l->n++] = (struct ivl){s, e};
}

/* Append a piece that is known to be disjoint from (and after) the earlier ones. */
static void pl_add(struct ivl_list *l, int64_t s, int64_t e)
{
	if (e <= s)
		return;
	grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v);
	l->v[l->n++] = (struct ivl){s, e};
}

/* Merges two time-ordered lists into out, in start order (ul_add joins what overlaps). */
static void ul_merge(const struct ivl_list *a, const struct ivl_list *b, struct ivl_list *out)
{
	size_t i = 0, j = 0;
	while (i < a->n || j < b->n) {
		if (j >= b->n || (i < a->n && a->v[i].s <= b->v[j].s)) {
			ul_add(out, a->v[i].s, a->v[i].e);
			i++;
		} else {
			ul_add(out, b->v[j].s, b->v[j].e);
			j++;
		}
	}
}

/* Length of the list inside [lo, hi). */
static int64_t ul_clip(const struct ivl_list *l, int64_t lo, int64_t hi)
{
	int64_t t = 0;
	for (size_t i = 0; i < l->n; i++) {
		int64_t s = l->v[i].s > lo ? l->v[i].s : lo, e = l->v[i].e < hi ? l->v[i].e : hi;
		if (e > s)
			t += e - s;
	}
	return t;
}

static int64_t ivl_total(const struct ivl_list *l)
{
	int64_t t = 0;
	for (size_t i = 0; i < l->n; i++)
		t += l->v[i].e - l->v[i].s;
	return t;
}

/* ------------------------------------------------------------------------------------------ */
/* the model                                                                                  */

enum proc_id { PR_PY, PR_CANN, PR_HW, PR_HCCL, PR_OV, PR_FREQ, PR_HBM, PR_COUNT };
enum lane_id {
	LN_PY_MAIN,
	LN_PY_DEQ,
	LN_CANN,
	LN_S2,
	LN_S3,
	LN_S4,
	LN_HCCL_G0,
	LN_HCCL_P0,
	LN_OV_COMP,
	LN_OV_COMM,
	LN_OV_NOV,
	LN_OV_FREE,
	LN_COUNT
};

static const struct {
	const char *name, *labels;
	int sort; /* process_sort_index and the packed-pid index */
} procs[PR_COUNT] = {
        [PR_PY] = {"Python", "CPU", 0},
        [PR_CANN] = {"CANN", "CPU", 7},
        [PR_HW] = {"Ascend Hardware", "NPU", 13},
        [PR_HCCL] = {"HCCL", "NPU", 15},
        [PR_OV] = {"Overlap Analysis", "NPU", 23},
        [PR_FREQ] = {"AI Core Freq", "NPU", 14},
        [PR_HBM] = {"HBM", "NPU", 17},
};

static const struct {
	enum proc_id proc;
	int tid;          /* fixed tid; -1: main thread, -2: dequeue thread */
	const char *name; /* NULL: "Thread <tid>" */
	bool multi_rank_only;
} lanes[LN_COUNT] = {
        [LN_PY_MAIN] = {PR_PY, -1, NULL, false},
        [LN_PY_DEQ] = {PR_PY, -2, NULL, false},
        [LN_CANN] = {PR_CANN, -2, NULL, false},
        [LN_S2] = {PR_HW, 2, "Stream 2", false},
        [LN_S3] = {PR_HW, 3, "Stream 3", false},
        [LN_S4] = {PR_HW, 4, "Stream 4", true},
        [LN_HCCL_G0] = {PR_HCCL, 0, "Group 0 Communication", true},
        [LN_HCCL_P0] = {PR_HCCL, 1, "Plane 0", true},
        [LN_OV_COMP] = {PR_OV, 0, "Computing", false},
        [LN_OV_COMM] = {PR_OV, 1, "Communication", true},
        [LN_OV_NOV] = {PR_OV, 2, "Communication(Not Overlapped)", true},
        [LN_OV_FREE] = {PR_OV, 3, "Free", false},
};

/* One host dispatch unit: cpu_op(s) + Enqueue on the main thread, Dequeue + CANN events on the
 * dequeue thread, and its device work (stream-2 task, or a collective). True-time ns. */
struct unit {
	int64_t c_ts, c_dur;   /* outermost cpu_op */
	int64_t eq_ts, dq_ts;  /* Enqueue / Dequeue */
	int64_t acl_ts, nl_ts; /* AscendCL@ / Node@launch (Hccl@Launch_Ffts for collectives) */
	int32_t eq_dur, dq_dur, acl_dur, nl_dur;
	int64_t k_ts, k_dur;    /* stream-2 task; collective: [a, E) */
	int64_t k_wait;         /* kernel_details Wait Time */
	int64_t s3_ts, s3_wait; /* concurrent stream-3 kernel (s3_dur 0: none) */
	int64_t ev_ts;          /* EVENT_RECORD on stream 3 (0: none) */
	int64_t xfer;           /* collective: transfer time T (SDMA = [E-T, E)) */
	int32_t s3_dur;
	int32_t corr, conn, acl_conn;
	int32_t task, s3_task, ev_task, s3_conn, ev_conn;
	int32_t coll_seq; /* running collective number (name suffix) */
	uint8_t kind;
	uint8_t long_id; /* HostToDevice id written as a 20-digit string */
	uint8_t graph;   /* launched by a graph replay: no host events of its own */
	uint8_t part;    /* --shape: 0 whole batch, 1 its decode part, 2 its prefill part */
};

/* --shape: a step's phase as planted */
enum step_phase { SP_DECODE, SP_PREFILL, SP_MIXED, SP_TRAIN };

struct step {
	int64_t hs, he;            /* step marker span (the execute-model region) */
	int64_t prep_ts, prep_end; /* _prepare_inputs */
	int64_t fwd_ts, fwd_end;   /* _model_forward (wraps the dispatch) */
	int64_t sch_ts, sch_end;   /* schedule() after the step */
	int64_t evil_ts, evil_end; /* hostile python_function (0: none) */
	size_t u0, nu;
	bool prefill;
	/* --shape: phase, batch tokens and sequences (the prefill part's of a mixed step),
	 * graph replay (CANN aclmdlRIExecuteAsync span; 0: eager) */
	uint8_t phase;
	bool graph;
	int64_t tok, seqs, tok_p, seqs_p, rp_ts, rp_end;
	/* by-construction sums */
	int64_t compute, copy, h2d, d2h, comm, overlapped, busy, cpu_ops, first_dev, last_dev;
	int ncoll;
};

struct rank_model {
	int r, dev; /* rank, NPU device id on its node (16 per node) */
	int64_t off;
	int64_t pid, tid_main, tid_deq;
	int64_t proc_pid[PR_COUNT];
	char dir[160];
	struct unit *u;
	size_t nu, ucap;
	struct step *st;
	int nst;
	int64_t sch0_ts, sch0_end; /* leading schedule() */
	/* device placement state */
	int64_t s2_end, s3_end, coll_end;
	int64_t coll_a, coll_E, coll_T, sdma_cov, nov_cur;
	int ov_left;
	bool dep_wait, have_s2, have_s3, have_coll;
	bool sdma_pending;
	int64_t sdma_s, sdma_e;
	int32_t next_corr, next_conn, next_task, next_s3_task, next_s4_task;
	/* lists kept in placement order */
	struct ivl_list comp_m; /* merged compute: Overlap Analysis / Computing */
	struct ivl_list busy_u; /* npu busy union */
	struct ivl_list cc_u;   /* compute union comm */
	struct ivl_list nov;    /* exposed communication pieces */
	struct ivl_list freeg;  /* gaps of cc_u inside the window */
	struct ivl_list occ_u;  /* busy union comm: the device runs a task or is in a collective */
	struct ivl_list host_u, honly_u; /* --shape vllm: host busy and host-only (no spans cover the steps) */
	/* truths (true-time sums) */
	int64_t first_ts, last_end;
	int64_t compute, copy, h2d, d2h, comm, overlapped, busy, host_busy, host_only;
	int64_t idle, idle_gaps, free_ns, cpu_ops, edge_idle;
	int ncoll, prefill_steps;
};

struct plan_unit {
	uint8_t kind;
	bool s3, ev, long_id, graph;
	uint8_t part;
	int m_ov;
	int64_t host_dur, kdur, xfer;
};

struct plan {
	bool prefill;
	uint8_t phase; /* --shape: enum step_phase */
	bool graph, a2a; /* a2a: the collectives are MoE all-to-alls */
	int64_t tok, seqs, tok_p, seqs_p;
	int n;
	struct plan_unit *pu;
	size_t cap;
	int64_t prep, tail, sched, gap_before;
};

struct gen {
	const struct opts *o;
	int steps;
	bool *is_prefill;
	int64_t base;
	int coll_group; /* the <seq> in hcom_allReduce__<seq>_<n>_1 */
	int64_t tok_decode, tok_prefill;
	uint8_t *phase; /* --shape: per step, enum step_phase */
	const char *host;
	struct rank_model *rk;
	int coll_counter;
	/* per-kind strings */
	char *dims_trace[K_COUNT][2], *types_trace[K_COUNT], *shape_in[K_COUNT][2], *shape_out[K_COUNT][2],
	        *stack_json[K_COUNT], *stack_csv[K_COUNT];
};

static char *subst_tokens(const char *pat, int64_t tok, const char *sep)
{
	struct sbuf b = {0};
	char num[24];
	int nl = u64_digits(num, (uint64_t)tok);
	for (const char *p = pat; *p; p++) {
		if (*p == '#')
			sb_add(&b, num, (size_t)nl);
		else if (*p == ';' && sep)
			sb_str(&b, sep);
		else
			sb_chr(&b, *p);
	}
	if (!b.p)
		sb_str(&b, "");
	return b.p;
}

static void gen_strings(struct gen *G)
{
	struct rng r;
	rng_init(&r, G->o->seed, 'F', 0, 0);
	for (int k = 0; k < K_COUNT; k++) {
		const struct kind *kd = &kinds[k];
		for (int ph = 0; ph < 2; ph++) {
			int64_t tok = ph ? G->tok_prefill : G->tok_decode;
			G->dims_trace[k][ph] = subst_tokens(kd->in_shape, tok, ";\r\n");
			G->shape_in[k][ph] = subst_tokens(kd->in_shape, tok, NULL);
			G->shape_out[k][ph] = subst_tokens(kd->out_shape, tok, NULL);
		}
		G->types_trace[k] = subst_tokens(kd->torch_types, 0, ";\r\n");
		/* 10..15 frames: the kind's own, some shared ones, and <module> at the bottom */
		int depth = (int)rng_range(&r, 10, 15);
		struct sbuf js = {0}, cs = {0};
		const char *csep = G->o->crlf ? ";\r\n" : ";\n";
		for (int f = 0; f < depth; f++) {
			const char *fr = f == 0           ? kd->frame
			                 : f == depth - 1 ? "<string>(1): <module>"
			                                  : common_frames[(size_t)(f - 1) % N_COMMON_FRAMES];
			if (f) {
				sb_str(&js, ";\r\n");
				sb_str(&cs, csep);
			}
			sb_str(&js, fr);
			sb_str(&cs, fr);
		}
		G->stack_json[k] = js.p;
		G->stack_csv[k] = cs.p;
	}
}

/* ------------------------------------------------------------------------------------------ */
/* planning: the per-step structure every rank shares                                         */

static void plan_push(struct plan *P, uint8_t kind)
{
	grow((void **)&P->pu, &P->cap, (size_t)P->n + 1, sizeof *P->pu);
	memset(&P->pu[P->n], 0, sizeof P->pu[P->n]);
	P->pu[P->n++].kind = kind;
}

/* --drop-op: the units of a kind leave the plan after every draw was made, so that the other
 * units keep their sizes. Each collective still needs its overlapped kernels and one unit after
 * them inside the step; with fewer kernels left it overlaps fewer. */
static void drop_units(struct plan *P, int kind)
{
	int n = 0;
	for (int i = 0; i < P->n; i++)
		if (P->pu[i].kind != kind)
			P->pu[n++] = P->pu[i];
	P->n = n;
	for (int i = 0; i < P->n; i++) {
		if (kinds[P->pu[i].kind].dc != DC_COMM)
			continue;
		int computes = 0; /* compute kernels after it with another unit of the segment after them */
		for (int j = i + 1; j + 1 < P->n && kinds[P->pu[j + 1].kind].dc != DC_COMM; j++)
			computes += kinds[P->pu[j].kind].dc == DC_COMPUTE;
		if (computes < 1)
			die("--drop-op %s leaves a collective without a kernel to overlap (try more --ops)",
			    kinds[kind].kernel);
		if (P->pu[i].m_ov > computes)
			P->pu[i].m_ov = computes;
	}
}

static int64_t shape_budget(const struct opts *o, const struct plan *P, struct rng *r);

/* The units of a step from its kernel sequence: two collectives on several ranks (each followed
 * by m_ov independent kernels, then one that needs its result), host and device sizes. */
static void plan_units(const struct gen *G, struct plan *P, const uint8_t *seq, int L, int head, struct rng *rp)
{
	const struct opts *o = G->o;
	struct rng r = *rp;
	int m1 = (int)rng_range(&r, 1, 4), m2 = (int)rng_range(&r, 1, 4);
	int lo = head, hi = L - 2; /* dependent kernels may be at most at index hi (ArgMax) */
	while (lo + m1 + 1 + m2 > hi && (m1 > 1 || m2 > 1)) {
		if (m1 >= m2)
			m1--;
		else
			m2--;
	}
	int p1 = L / 3, p2 = 2 * L / 3;
	if (p1 > hi - m2 - 1 - m1)
		p1 = hi - m2 - 1 - m1;
	if (p1 < lo)
		p1 = lo;
	if (p2 < p1 + m1 + 1)
		p2 = p1 + m1 + 1;
	if (p2 > hi - m2)
		p2 = hi - m2;
	bool colls = o->ranks > 1 && lo + m1 + 1 + m2 <= hi;
	for (int i = 0; i < L; i++) {
		if (colls && (i == p1 || i == p2)) {
			plan_push(P, P->a2a ? K_ALLTOALL : K_ALLREDUCE);
			struct plan_unit *pu = &P->pu[P->n - 1];
			pu->m_ov = i == p1 ? m1 : m2;
			pu->xfer = P->prefill ? rng_range(&r, 200 * US, 1500 * US)
			                      : rng_range(&r, 30 * US, 200 * US);
			pu->host_dur = rng_range(&r, 20 * US, 40 * US);
		}
		plan_push(P, seq[i] & 63);
		struct plan_unit *pu = &P->pu[P->n - 1];
		pu->part = (uint8_t)(seq[i] >> 6);
		pu->host_dur = rng_range(&r, 15 * US, 40 * US);
		pu->s3 = rng_permille(&r, 40);
		pu->ev = rng_permille(&r, 25);
		pu->long_id = rng_permille(&r, 300);
		pu->kdur = rng_range(&r, 700, 1300); /* relative weight jitter, scaled below */
	}
	/* device budget spread over the compute kernels by weight; copies have their own sizes */
	int64_t budget = o->shape.kind != SHAPE_MARKED ? shape_budget(o, P, &r)
	                 : P->prefill                  ? rng_range(&r, 20 * MS, 50 * MS)
	                                               : rng_range(&r, 4 * MS, 9 * MS);
	int64_t wsum = 0;
	for (int i = 0; i < P->n; i++)
		wsum += kinds[P->pu[i].kind].weight * P->pu[i].kdur;
	for (int i = 0; i < P->n; i++) {
		struct plan_unit *pu = &P->pu[i];
		switch (kinds[pu->kind].dc) {
		case DC_COMPUTE:
			pu->kdur = max64(1000, budget * kinds[pu->kind].weight * pu->kdur / wsum);
			break;
		case DC_H2D:
			pu->kdur = P->prefill ? rng_range(&r, 20 * US, 120 * US)
			                      : rng_range(&r, 2 * US, 25 * US);
			break;
		case DC_D2H: pu->kdur = rng_range(&r, 2 * US, 8 * US); break;
		case DC_COMM: pu->kdur = 0; break;
		}
	}
	for (int i = 0; i < P->n; i++) /* a graph replays the model; inputs and sampling stay eager */
		P->pu[i].graph = P->graph && kinds[P->pu[i].kind].dc != DC_H2D &&
		                 kinds[P->pu[i].kind].dc != DC_D2H && P->pu[i].kind != K_ARGMAX;
	if (o->drop_kind >= 0)
		drop_units(P, o->drop_kind);
	P->prep = rng_range(&r, 300 * US, 600 * US);
	P->tail = rng_range(&r, 10 * US, 40 * US);
	P->sched = rng_range(&r, 80 * US, 120 * US);
	P->gap_before = rng_range(&r, 2 * US, 8 * US);
	*rp = r;
}

/* --shape: the device time of a step. Prefills of short prompts take about as long as a
 * decode step (their durations overlap), so durations alone cannot tell them apart. */
static int64_t shape_budget(const struct opts *o, const struct plan *P, struct rng *r)
{
	switch (P->phase) {
	case SP_PREFILL:
		return o->shape.short_prefill || rng_permille(r, 500) ? rng_range(r, 5 * MS, 12 * MS)
		                                                         : rng_range(r, 20 * MS, 45 * MS);
	case SP_MIXED: return rng_range(r, 8 * MS, 18 * MS);
	case SP_TRAIN: return rng_range(r, 60 * MS, 90 * MS);
	default: return rng_range(r, 4 * MS, 12 * MS);
	}
}

static void seq_add(uint8_t *seq, int *L, int kind, int part)
{
	seq[(*L)++] = (uint8_t)(kind | part << 6);
}

/* One transformer layer of a vLLM-Ascend step: attention by phase (FusedInferAttentionScore in
 * every state, PagedAttention in decode-only graph batches, a decode part and a prefill part in
 * mixed MLA batches as mla_v1 splits them), MLA preprocess only without prefills, MoE through
 * MC2 dispatch and combine. */
static void seq_run(uint8_t *seq, int *L, const uint8_t *kinds_, size_t n)
{
	for (size_t i = 0; i < n; i++)
		seq_add(seq, L, kinds_[i], 0);
}

static void vllm_layer(const struct opts *o, const struct plan *P, uint8_t *seq, int *L)
{
	static const uint8_t qkv[] = {K_RMSNORM, K_LINEAR, K_ROPE, K_CACHE}, mlapo[] = {K_MLAPO, K_CACHE};
	static const uint8_t mid[] = {K_LINEAR, K_ADD, K_RMSNORM};
	static const uint8_t moe[] = {K_MOE_DISP, K_GMM, K_SILU, K_GMM, K_MOE_COMB, K_ADD};
	static const uint8_t mlp[] = {K_LINEAR, K_SILU, K_MUL, K_LINEAR, K_ADD};
	static const uint8_t experts[] = {K_GMM, K_SILU, K_GMM, K_ADD}; /* tokens moved by all-to-all */
	bool decode_only = P->phase == SP_DECODE;
	if (o->shape.mla && decode_only)
		seq_run(seq, L, mlapo, sizeof mlapo);
	else
		seq_run(seq, L, qkv, sizeof qkv);
	if (decode_only && P->graph) {
		seq_add(seq, L, K_PAGED, 0);
	} else if (P->phase == SP_MIXED && o->shape.mla) {
		seq_add(seq, L, K_FIA, 1);
		seq_add(seq, L, K_FIA, 2);
	} else {
		seq_add(seq, L, K_FIA, 0);
	}
	seq_run(seq, L, mid, sizeof mid);
	if (o->shape.moe && P->a2a)
		seq_run(seq, L, experts, sizeof experts);
	else if (o->shape.moe)
		seq_run(seq, L, moe, sizeof moe);
	else
		seq_run(seq, L, mlp, sizeof mlp);
}

/* A DDP training step: forward, loss, backward (*Grad* kernels), optimizer. */
static void train_layer(uint8_t *seq, int *L, bool backward)
{
	static const uint8_t fwd[] = {K_RMSNORM, K_LINEAR, K_ROPE, K_FA, K_LINEAR, K_ADD,
	                              K_RMSNORM, K_LINEAR, K_SILU, K_LINEAR, K_ADD};
	static const uint8_t bwd[] = {K_MM_GRAD, K_SWIGLU_GRAD, K_MM_GRAD, K_RMSNORM_GRAD, K_MM_GRAD,
	                              K_FA_GRAD, K_MM_GRAD, K_RMSNORM_GRAD};
	if (backward)
		seq_run(seq, L, bwd, sizeof bwd);
	else
		seq_run(seq, L, fwd, sizeof fwd);
}

static void make_plan_shaped(const struct gen *G, int k, struct plan *P)
{
	const struct opts *o = G->o;
	struct rng r;
	rng_init(&r, o->seed, 'S', (uint64_t)k, 0);
	P->n = 0;
	P->phase = G->phase[k];
	P->prefill = P->phase == SP_PREFILL;
	P->graph = o->shape.graph && P->phase == SP_DECODE;
	P->a2a = false;
	switch (P->phase) {
	case SP_DECODE: P->seqs = rng_range(&r, 4, 64); P->tok = P->seqs; break;
	case SP_PREFILL:
		P->seqs = rng_range(&r, 1, 3);
		P->tok = P->seqs * rng_range(&r, 17, o->shape.short_prefill ? 200 : 1500);
		break;
	case SP_MIXED:
		P->seqs_p = 1;
		P->tok_p = rng_range(&r, 64, 2048);
		P->seqs = rng_range(&r, 4, 48) + P->seqs_p;
		P->tok = P->seqs - P->seqs_p + P->tok_p;
		break;
	default: P->seqs = 4; P->tok = 4 * 4096; break;
	}
	/* above the MC2 capacity the two collectives of the step are all-to-alls (they stand in for
	 * the layers' dispatch and combine) */
	P->a2a = o->shape.moe && o->ranks > 1 && P->tok > 512;
	int layers = o->ops / 16 > 1 ? o->ops / 16 : 1;
	uint8_t *seq = xmalloc((size_t)layers * 26 + 16);
	int L = 0;
	seq_add(seq, &L, K_H2D, 0);
	seq_add(seq, &L, K_H2D, 0);
	seq_add(seq, &L, K_EMBED, 0);
	int head = L;
	if (o->shape.kind == SHAPE_TRAIN) {
		for (int i = 0; i < layers; i++)
			train_layer(seq, &L, false);
		seq_add(seq, &L, K_LINEAR, 0);
		for (int i = 0; i < layers; i++)
			train_layer(seq, &L, true);
		seq_add(seq, &L, K_EMBED_GRAD, 0);
		seq_add(seq, &L, K_ADAMW, 0);
		seq_add(seq, &L, K_ADAMW, 0);
		seq_add(seq, &L, K_ARGMAX, 0); /* the loss read back for logging */
		seq_add(seq, &L, K_D2H, 0);
	} else {
		for (int i = 0; i < layers; i++)
			vllm_layer(o, P, seq, &L);
		seq_add(seq, &L, K_RMSNORM, 0);
		seq_add(seq, &L, K_LINEAR, 0);
		seq_add(seq, &L, K_ARGMAX, 0);
		seq_add(seq, &L, K_D2H, 0);
	}
	plan_units(G, P, seq, L, head, &r);
	free(seq);
}

static void make_plan(const struct gen *G, int k, struct plan *P)
{
	static const uint8_t layer[] = {K_RMSNORM, K_LINEAR, K_ROPE, K_CACHE, K_ATTN,   K_LINEAR, K_ADD,
	                                K_RMSNORM, K_LINEAR, K_SILU, K_MUL,   K_LINEAR, K_ADD};
	const struct opts *o = G->o;
	if (o->shape.kind != SHAPE_MARKED) {
		make_plan_shaped(G, k, P);
		return;
	}
	struct rng r;
	rng_init(&r, o->seed, 'S', (uint64_t)k, 0);
	P->prefill = G->is_prefill[k];
	P->n = 0;
	int64_t n = P->prefill ? rng_range(&r, (int64_t)o->ops * 3 / 2, (int64_t)o->ops * 9 / 4)
	                       : rng_range(&r, (int64_t)o->ops * 3 / 4, (int64_t)o->ops * 5 / 4);
	if (n < 7)
		n = 7;
	uint8_t *seq = xmalloc((size_t)n + 8);
	int L = 0;
	seq[L++] = K_H2D; /* input ids; positions too when the step is not tiny */
	if (n >= 12)
		seq[L++] = K_H2D;
	seq[L++] = K_EMBED;
	int head = L;
	/* steps start at a random point of the layer so that tiny steps differ from each other */
	int64_t off = rng_range(&r, 0, (int64_t)sizeof layer - 1);
	for (int64_t j = 0; j < n - head - 4; j++) {
		int64_t idx = (j + off) % (int64_t)sizeof layer;
		uint8_t kk = layer[idx];
		int64_t x = rng_range(&r, 0, 999);
		if (o->chinese && kk == K_LINEAR && idx == 1 && x < 250)
			kk = K_QMM;
		if (o->chinese && kk == K_ATTN && x < 250)
			kk = K_FATTN;
		if (o->gbk && kk == K_MUL && x < 200)
			kk = (x & 1) ? K_GBK1 : K_GBK2;
		seq[L++] = kk;
	}
	seq[L++] = K_RMSNORM;
	/* a quantized lm_head in every other step or so keeps Chinese names in even the smallest steps */
	seq[L++] = o->chinese && rng_range(&r, 0, 999) < 500 ? K_QMM : K_LINEAR;
	seq[L++] = K_ARGMAX;
	seq[L++] = K_D2H;
	if (o->hostile && k == 0) {
		memmove(seq + head + 1, seq + head, (size_t)(L - head));
		seq[head] = K_HOSTILE;
		L++;
	}
	plan_units(G, P, seq, L, head, &r);
	free(seq);
}

/* ------------------------------------------------------------------------------------------ */
/* simulation: host dispatch per rank, then device placement jointly (collectives end together) */

static void host_phase(const struct gen *G, struct rank_model *R, int k, const struct plan *P)
{
	const struct opts *o = G->o;
	struct rng r;
	rng_init(&r, o->seed, 'H', (uint64_t)R->r, (uint64_t)k);
	struct step *st = &R->st[k];
	memset(st, 0, sizeof *st);
	st->prefill = P->prefill;
	st->phase = P->phase;
	st->graph = P->graph;
	st->tok = P->tok;
	st->seqs = P->seqs;
	st->tok_p = P->tok_p;
	st->seqs_p = P->seqs_p;
	st->first_dev = -1;
	int64_t t = (k ? R->st[k - 1].sch_end : R->sch0_end) + jitter(&r, P->gap_before, 100);
	st->hs = t;
	int64_t prep = P->prefill ? jitter(&r, P->prep, 50) : o->host_gap_ns;
	if (o->marks == MARKS_NONE) {
		st->prep_ts = t;
		st->prep_end = t + prep;
		st->fwd_ts = st->prep_end;
	} else {
		st->prep_ts = t + US;
		st->prep_end = st->prep_ts + prep;
		st->fwd_ts = st->prep_end + US;
	}
	int64_t cur = st->fwd_ts + US, dq_free = 0;
	st->u0 = R->nu;
	st->nu = (size_t)P->n;
	grow((void **)&R->u, &R->ucap, R->nu + (size_t)P->n, sizeof *R->u);
	R->nu += (size_t)P->n;
	for (int i = 0; i < P->n; i++) {
		const struct plan_unit *pu = &P->pu[i];
		const struct kind *kd = &kinds[pu->kind];
		struct unit *u = &R->u[st->u0 + (size_t)i];
		memset(u, 0, sizeof *u);
		u->kind = pu->kind;
		u->long_id = pu->long_id;
		u->graph = pu->graph;
		u->part = pu->part;
		u->c_ts = cur;
		u->c_dur = jitter(&r, pu->host_dur, 40);
		int lv = kd->nest - 1;
		int64_t in_ts = u->c_ts + lv * 1500, in_end = u->c_ts + u->c_dur - lv * 1000;
		u->eq_ts = in_ts + rng_range(&r, 1500, 3000);
		u->eq_dur = (int32_t)min64(rng_range(&r, 3000, 8000), in_end - u->eq_ts - 1000);
		u->dq_ts = max64(u->eq_ts + rng_range(&r, 2000, 6000), dq_free + 500);
		u->dq_dur = (int32_t)rng_range(&r, 8000, 13000);
		dq_free = u->dq_ts + u->dq_dur;
		u->acl_ts = u->dq_ts + 1000;
		u->acl_dur = u->dq_dur - 2000;
		u->nl_ts = u->acl_ts + rng_range(&r, 1500, 3000);
		u->nl_dur =
		        (int32_t)min64(rng_range(&r, 2000, 5000), u->acl_ts + u->acl_dur - u->nl_ts - 500);
		u->corr = R->next_corr++;
		u->acl_conn = R->next_conn++;
		u->conn = (kd->dc == DC_H2D || kd->dc == DC_D2H) ? u->acl_conn : R->next_conn++;
		if (u->kind == K_HOSTILE) {
			st->evil_ts = u->c_ts - 400;
			st->evil_end = u->c_ts + u->c_dur + 400;
		}
		if (!u->graph)
			st->cpu_ops += kd->nest;
		else if (!st->rp_ts)
			st->rp_ts = u->dq_ts;
		if (u->graph)
			st->rp_end = u->dq_ts + u->dq_dur;
		cur = u->c_ts + u->c_dur + rng_range(&r, 1000, 4000);
	}
	st->cpu_ops += o->shape.annotate; /* the execute_context_... range is a cpu_op */
}

static void place_task(const struct gen *G, struct rank_model *R, struct step *st, struct unit *u,
                       const struct plan_unit *pu, struct rng *dr)
{
	const struct kind *kd = &kinds[u->kind];
	bool copy = kd->dc != DC_COMPUTE;
	int64_t launch = copy ? u->acl_ts + u->acl_dur : u->nl_ts + u->nl_dur;
	int64_t s = max64(launch + KERNEL_LATENCY, R->s2_end);
	if (R->dep_wait && R->ov_left == 0) {
		s = max64(s, R->coll_E); /* needs the collective's result */
		R->dep_wait = false;
	}
	int64_t d = jitter(dr, pu->kdur, 30);
	if (!copy && R->r == G->o->slow_rank)
		d = d * G->o->slow_milli / 1000;
	if (u->kind == G->o->scale_kind)
		d = d * G->o->scale_milli / 1000;
	if (d < 1000)
		d = 1000;
	if (R->sdma_pending && R->sdma_s <= s) {
		ul_add(&R->busy_u, R->sdma_s, R->sdma_e);
		R->sdma_pending = false;
	}
	ul_add(&R->busy_u, s, s + d);
	u->k_wait = R->have_s2 ? s - R->s2_end : 0;
	R->have_s2 = true;
	u->k_ts = s;
	u->k_dur = d;
	u->task = R->next_task++;
	R->s2_end = s + d;
	st->last_dev = max64(st->last_dev, s + d);
	if (st->first_dev < 0)
		st->first_dev = s;
	st->busy += d;
	if (copy) {
		st->copy += d;
		if (kd->dc == DC_H2D)
			st->h2d += d;
		else
			st->d2h += d;
		return;
	}
	st->compute += d;
	ul_add(&R->comp_m, s, s + d);
	ul_add(&R->cc_u, s, s + d);
	if (R->ov_left > 0) {
		/* runs while the collective is in flight: overlapped part and SDMA cover by clipping */
		st->overlapped += clip_len(s, s + d, R->coll_a, R->coll_E);
		R->sdma_cov += clip_len(s, s + d, R->coll_E - R->coll_T, R->coll_E);
		pl_add(&R->nov, R->nov_cur, min64(s, R->coll_E));
		R->nov_cur = max64(R->nov_cur, min64(s + d, R->coll_E));
		if (--R->ov_left == 0) {
			pl_add(&R->nov, R->nov_cur, R->coll_E);
			st->busy += R->coll_T - R->sdma_cov;
		}
	}
	if (pu->s3 && d >= 10 * US) { /* strictly inside: adds nothing to any union */
		u->s3_ts = s + d / 4;
		u->s3_dur = (int32_t)(d / 3);
		u->s3_wait = R->have_s3 ? u->s3_ts - R->s3_end : 0;
		R->have_s3 = true;
		u->s3_task = R->next_s3_task++;
		u->s3_conn = R->next_conn++;
		R->s3_end = u->s3_ts + u->s3_dur;
	}
	if (pu->ev && d >= 10 * US) { /* a sync task: neither busy nor compute */
		u->ev_ts = s + 3 * d / 4;
		u->ev_task = R->next_s3_task++;
		u->ev_conn = R->next_conn++;
		R->s3_end = u->ev_ts + US;
	}
}

static void device_phase(struct gen *G, int k, const struct plan *P)
{
	int nr = G->o->ranks;
	struct rng *dr = xmalloc(sizeof *dr * (size_t)nr);
	for (int ri = 0; ri < nr; ri++)
		rng_init(&dr[ri], G->o->seed, 'D', (uint64_t)ri, (uint64_t)k);
	for (int i = 0; i < P->n; i++) {
		const struct plan_unit *pu = &P->pu[i];
		if (kinds[pu->kind].dc != DC_COMM) {
			for (int ri = 0; ri < nr; ri++) {
				struct rank_model *R = &G->rk[ri];
				place_task(G, R, &R->st[k], &R->u[R->st[k].u0 + (size_t)i], pu, &dr[ri]);
			}
			continue;
		}
		/* every rank arrives when its stream 2 gets there; all leave at E = max a + T */
		int64_t E = 0;
		for (int ri = 0; ri < nr; ri++) {
			struct rank_model *R = &G->rk[ri];
			struct unit *u = &R->u[R->st[k].u0 + (size_t)i];
			u->k_ts = max64(u->nl_ts + u->nl_dur + KERNEL_LATENCY, R->s2_end);
			E = max64(E, u->k_ts);
		}
		E += pu->xfer;
		for (int ri = 0; ri < nr; ri++) {
			struct rank_model *R = &G->rk[ri];
			struct step *st = &R->st[k];
			struct unit *u = &R->u[st->u0 + (size_t)i];
			int64_t a = u->k_ts;
			u->k_dur = E - a;
			u->xfer = pu->xfer;
			u->k_wait = R->have_coll ? a - R->coll_end : 0;
			R->have_coll = true;
			R->coll_end = E;
			u->task = R->next_s4_task;
			R->next_s4_task += 2;
			u->coll_seq = G->coll_counter;
			R->coll_a = a;
			R->coll_E = E;
			R->coll_T = pu->xfer;
			R->sdma_cov = 0;
			R->nov_cur = a;
			R->ov_left = pu->m_ov;
			R->dep_wait = true;
			ul_add(&R->cc_u, a, E);
			R->sdma_pending = true;
			R->sdma_s = E - pu->xfer;
			R->sdma_e = E;
			st->comm += E - a;
			st->ncoll++;
			st->last_dev = max64(st->last_dev, E);
			if (st->first_dev < 0)
				st->first_dev = a;
		}
		G->coll_counter++;
	}
	free(dr);
}

static void finish_step(const struct gen *G, struct rank_model *R, int k, const struct plan *P)
{
	struct rng r;
	rng_init(&r, G->o->seed, 'E', (uint64_t)R->r, (uint64_t)k);
	struct step *st = &R->st[k];
	struct unit *last = &R->u[st->u0 + st->nu - 1];
	/* the sampler's D2H copy is synchronous: its cpu_op waits for the device */
	int64_t need = last->k_ts + last->k_dur + 3 * US;
	if (last->c_ts + last->c_dur < need)
		last->c_dur = need - last->c_ts;
	int64_t fwd_need = last->c_ts + last->c_dur + US;
	st->he = max64(fwd_need, last->dq_ts + last->dq_dur) + jitter(&r, P->tail, 100);
	st->fwd_end = G->o->marks == MARKS_NONE ? st->he : st->he - US;
	st->sch_ts = st->he + rng_range(&r, 2 * US, 6 * US);
	st->sch_end = st->sch_ts + jitter(&r, P->sched, 100);
	if (k == R->nst - 1)
		st->sch_end += G->o->edge_ns; /* the trailing edge */
	if (R->ov_left || R->dep_wait)
		die("internal: collective overlap window crosses a step end");
}

static void sweep_merge(struct ivl_list *l);
static void list_push(struct ivl_list *l, int64_t s, int64_t e);
static void sweep_subtract(const struct ivl_list *a, const struct ivl_list *b, struct ivl_list *out);

/* --shape vllm: no python_function spans cover the steps, so host busy is the union of what is
 * written: each eager unit's cpu_op and Dequeue (its CANN events lie inside), the annotation
 * ranges, the graph replays. */
static void shape_host_list(const struct gen *G, struct rank_model *R)
{
	for (int k = 0; k < R->nst; k++) {
		const struct step *st = &R->st[k];
		if (G->o->shape.annotate)
			list_push(&R->host_u, st->fwd_ts, st->fwd_end);
		if (st->rp_end)
			list_push(&R->host_u, st->rp_ts, st->rp_end);
		for (size_t i = 0; i < st->nu; i++) {
			const struct unit *u = &R->u[st->u0 + i];
			if (u->graph)
				continue;
			list_push(&R->host_u, u->c_ts, u->c_ts + u->c_dur);
			list_push(&R->host_u, u->dq_ts, u->dq_ts + u->dq_dur);
		}
	}
	sweep_merge(&R->host_u);
}

static void finish_rank(const struct gen *G, struct rank_model *R)
{
	if (R->sdma_pending) {
		ul_add(&R->busy_u, R->sdma_s, R->sdma_e);
		R->sdma_pending = false;
	}
	R->first_ts = R->sch0_ts;
	R->last_end = R->st[R->nst - 1].sch_end;
	R->host_busy = R->sch0_end - R->sch0_ts;
	if (G->o->shape.kind == SHAPE_VLLM) { /* the host starts and ends every step */
		shape_host_list(G, R);
		R->first_ts = R->host_u.v[0].s;
		R->last_end = R->host_u.v[R->host_u.n - 1].e;
	}
	for (int k = 0; k < R->nst; k++) {
		const struct step *st = &R->st[k];
		R->compute += st->compute;
		R->copy += st->copy;
		R->h2d += st->h2d;
		R->d2h += st->d2h;
		R->comm += st->comm;
		R->overlapped += st->overlapped;
		R->busy += st->busy;
		R->cpu_ops += st->cpu_ops;
		R->ncoll += st->ncoll;
		R->prefill_steps += st->prefill;
		R->host_busy += (st->he - st->hs) + (st->sch_end - st->sch_ts);
	}
	/* the device is occupied while it runs a task or takes part in a collective (waiting
	 * for its peers included): only outside that is it idle or waiting for the host */
	ul_merge(&R->busy_u, &R->cc_u, &R->occ_u);
	/* device work and collectives of a step lie inside its step span, so host-only is host
	 * busy minus occupied (the capture has no sync ops) */
	R->host_only = R->host_busy - ivl_total(&R->occ_u);
	if (R->host_u.n) {
		sweep_subtract(&R->host_u, &R->occ_u, &R->honly_u);
		R->host_busy = ivl_total(&R->host_u);
		R->host_only = ivl_total(&R->honly_u);
	}
	R->edge_idle = R->occ_u.n ? (R->occ_u.v[0].s - R->first_ts) + (R->last_end - R->occ_u.v[R->occ_u.n - 1].e)
				  : R->last_end - R->first_ts;
	int64_t wall = R->last_end - R->first_ts;
	R->free_ns = wall - (R->compute + R->comm - R->overlapped);
	int64_t prev = R->first_ts;
	for (size_t i = 0; i <= R->occ_u.n; i++) {
		int64_t s = i < R->occ_u.n ? R->occ_u.v[i].s : R->last_end;
		if (s - prev >= IDLE_MIN) {
			R->idle += s - prev;
			R->idle_gaps++;
		}
		if (i < R->occ_u.n)
			prev = R->occ_u.v[i].e;
	}
	prev = R->first_ts;
	for (size_t i = 0; i <= R->cc_u.n; i++) {
		int64_t s = i < R->cc_u.n ? R->cc_u.v[i].s : R->last_end;
		pl_add(&R->freeg, prev, s);
		if (i < R->cc_u.n)
			prev = R->cc_u.v[i].e;
	}
	/* the sums above and the placement-order lists must tell the same story */
	if (ivl_total(&R->comp_m) != R->compute || ivl_total(&R->busy_u) != R->busy ||
	    ivl_total(&R->cc_u) != R->compute + R->comm - R->overlapped ||
	    ivl_total(&R->nov) != R->comm - R->overlapped || ivl_total(&R->freeg) != R->free_ns)
		die("internal: rank %d construction sums disagree", R->r);
}

static void choose_prefill(struct gen *G)
{
	const struct opts *o = G->o;
	G->is_prefill = xcalloc((size_t)G->steps, sizeof *G->is_prefill);
	int want = o->prefill < G->steps ? o->prefill : G->steps;
	if (want <= 0)
		return;
	G->is_prefill[0] = true;
	struct rng r;
	rng_init(&r, o->seed, 'P', (uint64_t)G->steps, 0);
	int n = G->steps - 1;
	int *idx = xmalloc(sizeof *idx * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++)
		idx[i] = i + 1;
	for (int i = 0; i < want - 1; i++) {
		int j = (int)rng_range(&r, i, n - 1);
		int t = idx[i];
		idx[i] = idx[j];
		idx[j] = t;
		G->is_prefill[idx[i]] = true;
	}
	free(idx);
}

/* --shape: every step's phase; mixed (chunked-prefill) steps are drawn among the decode steps
 * after the first. */
static void choose_phases(struct gen *G)
{
	const struct opts *o = G->o;
	G->phase = xcalloc((size_t)G->steps, 1);
	int cand = 0;
	for (int k = 0; k < G->steps; k++) {
		G->phase[k] = o->shape.kind == SHAPE_TRAIN ? SP_TRAIN : G->is_prefill[k] ? SP_PREFILL : SP_DECODE;
		cand += k > 0 && G->phase[k] == SP_DECODE;
	}
	struct rng r;
	rng_init(&r, o->seed, 'Q', (uint64_t)G->steps, 0);
	for (int want = o->shape.mixed < cand ? o->shape.mixed : cand; want > 0; want--) {
		int pick = (int)rng_range(&r, 0, cand - 1);
		for (int k = 1; k < G->steps; k++)
			if (G->phase[k] == SP_DECODE && pick-- == 0) {
				G->phase[k] = SP_MIXED;
				break;
			}
		cand--;
	}
}

/* --shape: a kernel's shapes with this step's tokens ('#') and sequences ('@'); a split
 * attention's parts have their own. NULL for the marked shape (its strings are made once). */
static char *shape_text(const struct gen *G, const struct step *st, const struct unit *u, const char *pat)
{
	if (G->o->shape.kind == SHAPE_MARKED)
		return NULL;
	int64_t tok = st->tok, seqs = st->seqs;
	if (u->part == 1)
		tok = seqs = st->seqs - st->seqs_p;
	else if (u->part == 2) {
		tok = st->tok_p;
		seqs = st->seqs_p;
	}
	struct sbuf b = {0};
	for (const char *p = pat; *p; p++) {
		if (*p == '#' || *p == '@')
			sb_fmt(&b, "%" PRId64, *p == '#' ? tok : seqs);
		else
			sb_chr(&b, *p);
	}
	if (!b.p)
		sb_str(&b, "");
	return b.p;
}

/* Upstream vLLM's per-step range: execute_context_<reqs>(<tokens>)_generation_<reqs>(<tokens>). */
static void annotation_name(const struct step *st, char *buf, size_t n)
{
	int64_t cr = 0, ct = 0, gr = 0;
	if (st->phase == SP_PREFILL) {
		cr = st->seqs;
		ct = st->tok;
	} else if (st->phase == SP_MIXED) {
		cr = st->seqs_p;
		ct = st->tok_p;
		gr = st->seqs - st->seqs_p;
	} else {
		gr = st->seqs;
	}
	snprintf(buf, n, "execute_context_%" PRId64 "(%" PRId64 ")_generation_%" PRId64 "(%" PRId64 ")", cr, ct,
	         gr, gr);
}

/* A collective's name as HCCL writes it: hcom_<op>__<group seq>_<n>_1. */
static void coll_name(char *buf, size_t n, const struct gen *G, const struct unit *u)
{
	snprintf(buf, n, "%s_%d_%d_1", kinds[u->kind].type, G->coll_group, u->coll_seq);
}

static void format_stamp(char *buf, size_t n, int64_t ns)
{
	int64_t ms = ns / MS;
	int64_t days = ms / 86400000, rem = ms % 86400000;
	/* civil_from_days (proleptic Gregorian, UTC) */
	int64_t z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t y = yoe + era * 400;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	int64_t d = doy - (153 * mp + 2) / 5 + 1;
	int64_t m = mp < 10 ? mp + 3 : mp - 9;
	y += m <= 2;
	snprintf(buf, n,
	         "%04" PRId64 "%02" PRId64 "%02" PRId64 "%02" PRId64 "%02" PRId64 "%02" PRId64 "%03" PRId64,
	         y, m, d, rem / 3600000, rem / 60000 % 60, rem / 1000 % 60, rem % 1000);
}

static void gen_init(struct gen *G, const struct opts *o, int steps)
{
	memset(G, 0, sizeof *G);
	G->o = o;
	G->steps = steps;
	struct rng r;
	rng_init(&r, o->seed, 'G', 0, 0);
	G->base = BASE_NS + rng_range(&r, 0, 10000 * MS);
	G->coll_group = (int)rng_range(&r, 100, 999);
	G->tok_decode = rng_range(&r, 8, 64);
	G->tok_prefill = rng_range(&r, 1024, 4096);
	static const char *const hosts[] = {"localhost.localdomain", "devserver-910b-01",
	                                    "node-10-174-216-241"};
	G->host = hosts[rng_range(&r, 0, 2)];
	choose_prefill(G);
	choose_phases(G);
	gen_strings(G);
	G->rk = xcalloc((size_t)o->ranks, sizeof *G->rk);
	for (int ri = 0; ri < o->ranks; ri++) {
		struct rank_model *R = &G->rk[ri];
		R->r = ri;
		R->dev = ri % 16; /* torch_npu packs the device id into 5 bits of the pid */
		R->off = o->offsets_ns[ri];
		R->pid = 3096504 + 1000LL * ri;
		R->tid_main = R->pid;
		R->tid_deq = R->pid + 7;
		for (int p = 0; p < PR_COUNT; p++)
			R->proc_pid[p] = p == PR_PY ? R->pid : (R->pid << 10) | (procs[p].sort << 5) | R->dev;
		R->nst = steps;
		R->st = xcalloc((size_t)steps, sizeof *R->st);
		R->next_corr = 8226;
		R->next_conn = 936;
		R->next_task = 11049;
		R->next_s3_task = 301;
		R->next_s4_task = 806;
		int64_t t0 = G->base + rng_range(&r, 0, 50 * US);
		R->sch0_ts = t0;
		R->sch0_end = t0 + rng_range(&r, 80 * US, 120 * US) + o->edge_ns;
		char stamp[32];
		format_stamp(stamp, sizeof stamp, G->base + R->off - 2000 * MS + 37 * MS * ri);
		if (o->naming == NAME_HOST) {
			/* 16 NPUs per node: ranks 16 and up live on other hosts */
			char host[96];
			if (ri < 16)
				snprintf(host, sizeof host, "%s", G->host);
			else
				snprintf(host, sizeof host, "%s-%d", G->host, ri / 16);
			snprintf(R->dir, sizeof R->dir, "%s_%" PRId64 "_%s_ascend_pt", host, R->pid, stamp);
		} else {
			snprintf(R->dir, sizeof R->dir, "dp0_pp0_tp%d_dcp0_ep0_rank%d_%s_ascend_pt", ri, ri,
			         stamp);
		}
	}
}

static void gen_simulate(struct gen *G)
{
	struct plan P = {0};
	for (int k = 0; k < G->steps; k++) {
		make_plan(G, k, &P);
		for (int ri = 0; ri < G->o->ranks; ri++)
			host_phase(G, &G->rk[ri], k, &P);
		device_phase(G, k, &P);
		for (int ri = 0; ri < G->o->ranks; ri++)
			finish_step(G, &G->rk[ri], k, &P);
	}
	for (int ri = 0; ri < G->o->ranks; ri++)
		finish_rank(G, &G->rk[ri]);
	free(P.pu);
}

static void gen_free(struct gen *G)
{
	for (int ri = 0; ri < G->o->ranks; ri++) {
		struct rank_model *R = &G->rk[ri];
		free(R->u);
		free(R->st);
		free(R->comp_m.v);
		free(R->busy_u.v);
		free(R->cc_u.v);
		free(R->occ_u.v);
		free(R->host_u.v);
		free(R->honly_u.v);
		free(R->nov.v);
		free(R->freeg.v);
	}
	free(G->rk);
	free(G->is_prefill);
	free(G->phase);
	for (int k = 0; k < K_COUNT; k++) {
		for (int ph = 0; ph < 2; ph++) {
			free(G->dims_trace[k][ph]);
			free(G->shape_in[k][ph]);
			free(G->shape_out[k][ph]);
		}
		free(G->types_trace[k]);
		free(G->stack_json[k]);
		free(G->stack_csv[k]);
	}
}

/* ------------------------------------------------------------------------------------------ */
/* trace_view.json writer                                                                     */

enum ph_idx { PH_X, PH_M, PH_S, PH_F, PH_C, PH_COUNT };
static const char ph_chars[PH_COUNT] = {'X', 'M', 's', 'f', 'C'};

struct tw {
	struct out *o;
	const struct gen *G;
	const struct rank_model *R;
	enum jstyle style;
	int depth;
	bool first[8];
	bool first_elem;
	int64_t py_id;
	/* tallies of the complete elements that survive --truncate-at */
	uint64_t cut; /* 0: no cut */
	int64_t n_ph[PH_COUNT];
	int64_t lane_x[LN_COUNT];
	bool lane_named[LN_COUNT], proc_named[PR_COUNT];
	bool have_x;
	int64_t x_min, x_max;
};

static int64_t lane_pid(const struct rank_model *R, enum lane_id ln)
{
	return R->proc_pid[lanes[ln].proc];
}

static int64_t lane_tid(const struct rank_model *R, enum lane_id ln)
{
	int t = lanes[ln].tid;
	return t == -1 ? R->tid_main : t == -2 ? R->tid_deq : t;
}

static void jk(struct tw *t, const char *k)
{
	struct out *o = t->o;
	size_t kl = strlen(k);
	out_need(o, kl + 16 + 4 * (size_t)t->depth);
	char *p = o->buf + o->len;
	if (!t->first[t->depth]) {
		*p++ = ',';
		if (t->style == JS_PY)
			*p++ = ' ';
	}
	t->first[t->depth] = false;
	if (t->style == JS_PRETTY) {
		*p++ = '\n';
		memset(p, ' ', 4 * (size_t)t->depth);
		p += 4 * t->depth;
	}
	*p++ = '"';
	memcpy(p, k, kl);
	p += kl;
	*p++ = '"';
	*p++ = ':';
	if (t->style != JS_MIN)
		*p++ = ' ';
	o->len = (size_t)(p - o->buf);
}

static void jopen(struct tw *t)
{
	out_chr(t->o, '{');
	t->first[++t->depth] = true;
}

static void jclose(struct tw *t)
{
	if (t->style == JS_PRETTY && !t->first[t->depth]) {
		out_chr(t->o, '\n');
		out_spaces(t->o, 4 * (t->depth - 1));
	}
	out_chr(t->o, '}');
	t->depth--;
}

static void kv_s(struct tw *t, const char *k, const char *v)
{
	jk(t, k);
	out_json_str(t->o, v);
}

static void kv_i(struct tw *t, const char *k, int64_t v)
{
	jk(t, k);
	out_i64(t->o, v);
}

static void kv_ts(struct tw *t, const char *k, int64_t ns)
{
	jk(t, k);
	out_chr(t->o, '"');
	out_us3(t->o, ns);
	out_chr(t->o, '"');
}

static void kv_us(struct tw *t, const char *k, int64_t ns)
{
	jk(t, k);
	out_us3(t->o, ns);
}

static void el_begin(struct tw *t)
{
	struct out *o = t->o;
	if (!t->first_elem) {
		out_chr(o, ',');
		if (t->style == JS_PY)
			out_chr(o, ' ');
	}
	t->first_elem = false;
	if (t->style == JS_PRETTY) {
		out_chr(o, '\n');
		out_spaces(o, 4 * t->depth);
	}
	jopen(t);
}

/* Close an element and count it if it lies wholly within the cut. */
static void el_end(struct tw *t, enum ph_idx ph, int lane, int64_t ts, int64_t end)
{
	jclose(t);
	if (t->cut && out_pos(t->o) > t->cut)
		return;
	t->n_ph[ph]++;
	if (ph == PH_X) {
		if (lane >= 0)
			t->lane_x[lane]++;
		if (!t->have_x || ts < t->x_min)
			t->x_min = ts;
		if (!t->have_x || end > t->x_max)
			t->x_max = end;
		t->have_x = true;
	}
}

/* Host-side X event (torch_npu key order); the caller adds args (or not) and calls el_end. */
static void x_host_begin(struct tw *t, enum lane_id ln, const char *name, int64_t ts, int64_t dur,
                         const char *cat)
{
	const struct rank_model *R = t->R;
	el_begin(t);
	kv_s(t, "ph", "X");
	kv_s(t, "name", name);
	kv_i(t, "pid", lane_pid(R, ln));
	kv_i(t, "tid", lane_tid(R, ln));
	kv_ts(t, "ts", ts + R->off);
	kv_us(t, "dur", dur);
	kv_s(t, "cat", cat);
}

/* Device/CANN-side X event (msprof key order: name, pid, tid, ts, dur, args, ph). */
static void x_dev_begin(struct tw *t, enum lane_id ln, const char *name, int64_t ts, int64_t dur)
{
	const struct rank_model *R = t->R;
	el_begin(t);
	kv_s(t, "name", name);
	kv_i(t, "pid", lane_pid(R, ln));
	kv_i(t, "tid", lane_tid(R, ln));
	kv_ts(t, "ts", ts + R->off);
	kv_us(t, "dur", dur);
}

static void x_dev_end(struct tw *t, enum lane_id ln, int64_t ts, int64_t dur)
{
	kv_s(t, "ph", "X");
	el_end(t, PH_X, ln, ts + t->R->off, ts + dur + t->R->off);
}

static void cpu_op(struct tw *t, const char *name, int64_t ts, int64_t dur, int kind, int phase)
{
	x_host_begin(t, LN_PY_MAIN, name, ts, dur, "cpu_op");
	jk(t, "args");
	jopen(t);
	kv_i(t, "Sequence number", -1);
	kv_i(t, "Fwd thread id", 0);
	if (kind >= 0) {
		kv_s(t, "Input Dims", t->G->dims_trace[kind][phase]);
		kv_s(t, "Input type", t->G->types_trace[kind]);
		if (t->G->o->call_stack)
			kv_s(t, "Call stack", t->G->stack_json[kind]);
	}
	jclose(t);
	el_end(t, PH_X, LN_PY_MAIN, ts + t->R->off, ts + dur + t->R->off);
}

static void pyfunc(struct tw *t, const char *name, int64_t ts, int64_t dur, int64_t parent)
{
	x_host_begin(t, LN_PY_MAIN, name, ts, dur, "python_function");
	jk(t, "args");
	jopen(t);
	kv_i(t, "Python id", ++t->py_id);
	kv_i(t, "Python parent id", parent);
	jclose(t);
	el_end(t, PH_X, LN_PY_MAIN, ts + t->R->off, ts + dur + t->R->off);
}

static void flow_torch(struct tw *t, char ph, const char *name, int64_t id, enum lane_id ln, int64_t ts,
                       const char *cat)
{
	char phs[2] = {ph, 0};
	el_begin(t);
	kv_s(t, "ph", phs);
	kv_s(t, "bp", "e");
	kv_s(t, "name", name);
	kv_i(t, "id", id);
	kv_i(t, "pid", lane_pid(t->R, ln));
	kv_i(t, "tid", lane_tid(t->R, ln));
	kv_ts(t, "ts", ts + t->R->off);
	kv_s(t, "cat", cat);
	el_end(t, ph == 's' ? PH_S : PH_F, -1, 0, 0);
}

static void meta_py(struct tw *t, const char *what, int64_t tid, const char *key, const char *sval,
                    int64_t ival, int lane, int proc)
{
	el_begin(t);
	kv_s(t, "ph", "M");
	kv_s(t, "name", what);
	kv_i(t, "pid", t->R->pid);
	kv_i(t, "tid", tid);
	jk(t, "args");
	jopen(t);
	if (sval)
		kv_s(t, key, sval);
	else
		kv_i(t, key, ival);
	jclose(t);
	el_end(t, PH_M, -1, 0, 0);
	if (!t->cut || out_pos(t->o) <= t->cut) {
		if (lane >= 0)
			t->lane_named[lane] = true;
		if (proc >= 0)
			t->proc_named[proc] = true;
	}
}

static void meta_dev(struct tw *t, enum proc_id p, const char *what, int64_t tid, const char *key,
                     const char *sval, int64_t ival, int lane)
{
	el_begin(t);
	kv_s(t, "name", what);
	kv_i(t, "pid", t->R->proc_pid[p]);
	kv_i(t, "tid", tid);
	jk(t, "args");
	jopen(t);
	if (sval)
		kv_s(t, key, sval);
	else
		kv_i(t, key, ival);
	jclose(t);
	kv_s(t, "ph", "M");
	el_end(t, PH_M, -1, 0, 0);
	if (!t->cut || out_pos(t->o) <= t->cut) {
		if (lane >= 0)
			t->lane_named[lane] = true;
		if (!strcmp(what, "process_name"))
			t->proc_named[p] = true;
	}
}

static bool lane_on(const struct gen *G, enum lane_id ln)
{
	return !lanes[ln].multi_rank_only || G->o->ranks > 1;
}

static void thread_label(const struct rank_model *R, enum lane_id ln, char *buf, size_t n)
{
	if (lanes[ln].name)
		snprintf(buf, n, "%s", lanes[ln].name);
	else
		snprintf(buf, n, "Thread %" PRId64, lane_tid(R, ln));
}

static void meta_device_procs(struct tw *t)
{
	static const enum proc_id order[] = {PR_HW, PR_HBM, PR_HCCL, PR_CANN, PR_OV, PR_FREQ};
	const struct gen *G = t->G;
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		enum proc_id p = order[i];
		if (p == PR_HCCL && G->o->ranks == 1)
			continue;
		meta_dev(t, p, "process_name", 0, "name", procs[p].name, 0, -1);
		for (int ln = 0; ln < LN_COUNT; ln++) {
			if (lanes[ln].proc != p || !lane_on(G, (enum lane_id)ln))
				continue;
			char nm[64];
			thread_label(t->R, (enum lane_id)ln, nm, sizeof nm);
			int64_t tid = lane_tid(t->R, (enum lane_id)ln);
			meta_dev(t, p, "thread_name", tid, "name", nm, 0, ln);
			meta_dev(t, p, "thread_sort_index", tid, "sort_index", NULL, tid, -1);
		}
		meta_dev(t, p, "process_labels", 0, "labels", procs[p].labels, 0, -1);
		meta_dev(t, p, "process_sort_index", 0, "sort_index", NULL, procs[p].sort, -1);
	}
}

static void host_id_string(const struct rank_model *R, const struct unit *u, char *buf, size_t n)
{
	if (u->long_id) /* CANN ids reach 20 digits, beyond uint64 */
		snprintf(buf, n, "4000%016" PRId64, (int64_t)u->conn * 1000003 + R->r);
	else
		snprintf(buf, n, "%d", u->conn);
}

static void cann_x(struct tw *t, const char *name, int64_t ts, int64_t dur, const char *mode,
                   const char *level, const char *id, const char *item, int32_t conn)
{
	x_dev_begin(t, LN_CANN, name, ts, dur);
	jk(t, "args");
	jopen(t);
	kv_i(t, "Thread Id", t->R->tid_deq);
	kv_s(t, "Mode", mode);
	kv_s(t, "level", level);
	kv_s(t, "id", id);
	kv_s(t, "item_id", item);
	kv_i(t, "connection_id", conn);
	jclose(t);
	x_dev_end(t, LN_CANN, ts, dur);
}

static void hw_task(struct tw *t, enum lane_id ln, const char *name, int64_t ts, int64_t dur,
                    const char *task_type, int32_t task, int64_t subtask, int32_t conn)
{
	x_dev_begin(t, ln, name, ts, dur);
	jk(t, "args");
	jopen(t);
	kv_i(t, "Model Id", 4294967295LL);
	kv_s(t, "Task Type", task_type);
	kv_i(t, "Physic Stream Id", lanes[ln].tid);
	kv_i(t, "Task Id", task);
	kv_i(t, "Batch Id", 0);
	kv_i(t, "Subtask Id", subtask);
	kv_i(t, "connection_id", conn);
	jclose(t);
	x_dev_end(t, ln, ts, dur);
}

static void plane_task(struct tw *t, const char *name, int64_t ts, int64_t dur, const struct unit *u, int ctx,
                       int64_t bytes)
{
	const struct rank_model *R = t->R;
	x_dev_begin(t, LN_HCCL_P0, name, ts, dur);
	jk(t, "args");
	jopen(t);
	kv_s(t, "notify_id", "18446744073709551615");
	/* bytes / ns = GB/s; keep three decimals with integer math */
	int64_t bw_milli = dur ? bytes * 1000 / dur : 0;
	jk(t, "duration estimated(us)");
	out_us3(t->o, dur * 97 / 100);
	kv_i(t, "stream id", 4);
	kv_i(t, "task id", u->task + 1);
	kv_i(t, "context id", ctx);
	kv_s(t, "task type", name);
	kv_i(t, "src rank", R->r);
	kv_i(t, "dst rank", (R->r + 1) % t->G->o->ranks);
	kv_s(t, "transport type", "SDMA");
	kv_i(t, "size(Byte)", bytes);
	kv_s(t, "data type", !strcmp(name, "Memcpy") ? "INVALID_TYPE" : "FP16");
	kv_s(t, "link type", "HCCS");
	jk(t, "bandwidth(GB/s)");
	out_milli(t->o, bw_milli);
	kv_i(t, "model id", 4294967295LL);
	jclose(t);
	x_dev_end(t, LN_HCCL_P0, ts, dur);
}

static void overlap_x(struct tw *t, enum lane_id ln, int64_t s, int64_t e)
{
	x_dev_begin(t, ln, lanes[ln].name, s, e - s);
	x_dev_end(t, ln, s, e - s);
}

static int64_t step_window_end(const struct rank_model *R, int k)
{
	return k + 1 < R->nst ? R->st[k + 1].hs : INT64_MAX;
}

static void write_host_section(struct tw *t)
{
	const struct gen *G = t->G;
	const struct rank_model *R = t->R;
	char nm[64];
	for (int k = 0; k < R->nst; k++) {
		const struct step *st = &R->st[k];
		if (G->o->marks == MARKS_PROFILERSTEP) {
			snprintf(nm, sizeof nm, "ProfilerStep#%d", k + 1);
			cpu_op(t, nm, st->hs, st->he - st->hs, -1, 0);
		}
		if (G->o->shape.annotate) {
			annotation_name(st, nm, sizeof nm);
			cpu_op(t, nm, st->fwd_ts, st->fwd_end - st->fwd_ts, -1, 0);
		}
		/* vLLM-Ascend records no shapes (record_shapes=False) */
		bool dims = G->o->shape.kind != SHAPE_VLLM;
		for (size_t i = 0; i < st->nu; i++) {
			const struct unit *u = &R->u[st->u0 + i];
			const struct kind *kd = &kinds[u->kind];
			for (int lv = 0; lv < kd->nest && !u->graph; lv++)
				cpu_op(t, kd->host[lv], u->c_ts + lv * 1500, u->c_dur - lv * 2500, dims ? u->kind : -1,
				       st->prefill);
		}
		for (size_t i = 0; i < st->nu; i++) {
			const struct unit *u = &R->u[st->u0 + i];
			const struct kind *kd = &kinds[u->kind];
			if (u->graph)
				continue;
			x_host_begin(t, LN_PY_MAIN, "Enqueue", u->eq_ts, u->eq_dur, "enqueue");
			jk(t, "args");
			jopen(t);
			kv_i(t, "correlation_id", u->corr);
			jclose(t);
			el_end(t, PH_X, LN_PY_MAIN, u->eq_ts + R->off, u->eq_ts + u->eq_dur + R->off);
			flow_torch(t, 's', "enqueue_to_dequeue", u->corr, LN_PY_MAIN, u->eq_ts,
			           "async_task_queue");
			snprintf(nm, sizeof nm, "Dequeue@%s", kd->deq);
			x_host_begin(t, LN_PY_DEQ, nm, u->dq_ts, u->dq_dur, "dequeue");
			jk(t, "args");
			jopen(t);
			kv_i(t, "correlation_id", u->corr);
			jclose(t);
			el_end(t, PH_X, LN_PY_DEQ, u->dq_ts + R->off, u->dq_ts + u->dq_dur + R->off);
			flow_torch(t, 'f', "enqueue_to_dequeue", u->corr, LN_PY_DEQ, u->dq_ts,
			           "async_task_queue");
		}
	}
	/* the Python process's metadata sits after its X events, as torch_npu writes it */
	meta_py(t, "process_name", 0, "name", "Python", 0, -1, PR_PY);
	meta_py(t, "process_labels", 0, "labels", "CPU", 0, -1, -1);
	meta_py(t, "process_sort_index", 0, "sort_index", NULL, 0, -1, -1);
	for (int ln = LN_PY_MAIN; ln <= LN_PY_DEQ; ln++) {
		int64_t tid = lane_tid(R, (enum lane_id)ln);
		thread_label(R, (enum lane_id)ln, nm, sizeof nm);
		meta_py(t, "thread_name", tid, "name", nm, 0, ln, -1);
		meta_py(t, "thread_sort_index", tid, "sort_index", NULL, tid, -1, -1);
	}
	/* python_function spans: schedule(), the step marker, _prepare_inputs, _model_forward */
	static const char *const sched = "vllm/v1/core/sched/scheduler.py(225): schedule";
	static const char *const exec = "vllm_ascend/worker/model_runner_v1.py(1520): execute_model";
	static const char *const prep = "vllm_ascend/worker/model_runner_v1.py(1301): _prepare_inputs";
	static const char *const fwd = "vllm_ascend/worker/model_runner_v1.py(1402): _model_forward";
	if (G->o->shape.kind == SHAPE_VLLM)
		return; /* with_stack=False */
	pyfunc(t, sched, R->sch0_ts, R->sch0_end - R->sch0_ts, 0);
	for (int k = 0; k < R->nst; k++) {
		const struct step *st = &R->st[k];
		int64_t parent = 0;
		if (G->o->marks == MARKS_ENGINE) {
			pyfunc(t, exec, st->hs, st->he - st->hs, 0);
			parent = t->py_id;
		}
		if (st->prep_end > st->prep_ts)
			pyfunc(t, prep, st->prep_ts, st->prep_end - st->prep_ts, parent);
		pyfunc(t, fwd, st->fwd_ts, st->fwd_end - st->fwd_ts, parent);
		int64_t fwd_id = t->py_id;
		if (st->evil_end)
			pyfunc(t, HOSTILE_PYFUNC, st->evil_ts, st->evil_end - st->evil_ts, fwd_id);
		pyfunc(t, sched, st->sch_ts, st->sch_end - st->sch_ts, 0);
	}
}

static void write_device_section(struct tw *t)
{
	const struct gen *G = t->G;
	const struct rank_model *R = t->R;
	char nm[96];
	size_t ic = 0, in = 0, iff = 0;
	for (int k = 0; k < R->nst; k++) {
		const struct step *st = &R->st[k];
		for (size_t i = 0; i < st->nu; i++) {
			const struct unit *u = &R->u[st->u0 + i];
			const struct kind *kd = &kinds[u->kind];
			if (u->graph && st->rp_ts == u->dq_ts) /* one replay launches the whole graph */
				cann_x(t, "AscendCL@aclmdlRIExecuteAsync", st->rp_ts, st->rp_end - st->rp_ts, "ACL_RTS",
				       "acl", "aclmdlRIExecuteAsync", "0", u->acl_conn);
			snprintf(nm, sizeof nm, "AscendCL@%s", kd->acl);
			if (!u->graph)
				cann_x(t, nm, u->acl_ts, u->acl_dur, kd->acl_mode, "acl", kd->acl, "0", u->acl_conn);
			if (kd->dc == DC_COMPUTE) {
				if (!u->graph)
					cann_x(t, "Node@launch", u->nl_ts, u->nl_dur, "launch", "node", "0", kd->kernel,
					       u->conn);
				hw_task(t, LN_S2, kd->kernel, u->k_ts, u->k_dur, kd->task_type, u->task,
				        4294967295LL, u->conn);
				if (u->s3_dur)
					hw_task(t, LN_S3, kinds[K_S3].kernel, u->s3_ts, u->s3_dur,
					        kinds[K_S3].task_type, u->s3_task, 4294967295LL, u->s3_conn);
				if (u->ev_ts)
					hw_task(t, LN_S3, "EVENT_RECORD", u->ev_ts, US, "EVENT_RECORD_SQE",
					        u->ev_task, 4294967295LL, u->ev_conn);
			} else if (kd->dc == DC_COMM) {
				if (!u->graph)
					cann_x(t, "Hccl@Launch_Ffts", u->nl_ts, u->nl_dur, "master", "hccl", "0",
					       "Launch_Ffts", u->conn);
				int64_t a = u->k_ts, E = u->k_ts + u->k_dur, T = u->xfer;
				coll_name(nm, sizeof nm, G, u);
				x_dev_begin(t, LN_HCCL_G0, nm, a, E - a);
				jk(t, "args");
				jopen(t);
				kv_i(t, "connection_id", u->conn);
				kv_i(t, "model id", 4294967295LL);
				kv_s(t, "data_type", "FP16");
				kv_s(t, "alg_type", "MESH-RING");
				kv_i(t, "count", st->prefill ? G->tok_prefill * 4096 : G->tok_decode * 4096);
				jclose(t);
				x_dev_end(t, LN_HCCL_G0, a, E - a);
				int64_t bytes = (st->prefill ? G->tok_prefill : G->tok_decode) * 4096 * 2;
				plane_task(t, "Memcpy", E - T, T / 3, u, 1, bytes);
				plane_task(t, "Reduce_Inline", E - T + T / 2, T / 4, u, 2, bytes);
				if (E - T > a)
					hw_task(t, LN_S4, "Notify Wait", a, E - T - a, "Notify Wait", u->task,
					        3, u->conn);
				hw_task(t, LN_S4, "SDMA", E - T, T, "SDMA", u->task + 1, 0, u->conn);
				overlap_x(t, LN_OV_COMM, a, E);
			} else {
				hw_task(t, LN_S2, kd->kernel, u->k_ts, u->k_dur, kd->task_type, u->task,
				        4294967295LL, u->conn);
			}
		}
		/* Overlap Analysis pieces that start inside this step's window */
		int64_t wend = step_window_end(R, k);
		for (; ic < R->comp_m.n && R->comp_m.v[ic].s < wend; ic++)
			overlap_x(t, LN_OV_COMP, R->comp_m.v[ic].s, R->comp_m.v[ic].e);
		for (; in < R->nov.n && R->nov.v[in].s < wend; in++)
			overlap_x(t, LN_OV_NOV, R->nov.v[in].s, R->nov.v[in].e);
		for (; iff < R->freeg.n && R->freeg.v[iff].s < wend; iff++)
			overlap_x(t, LN_OV_FREE, R->freeg.v[iff].s, R->freeg.v[iff].e);
	}
}

static void write_flow_section(struct tw *t)
{
	const struct rank_model *R = t->R;
	char id[40], nm[64];
	for (size_t i = 0; i < R->nu; i++) {
		const struct unit *u = &R->u[i];
		const struct kind *kd = &kinds[u->kind];
		if (kd->dc == DC_COMM || u->graph) /* graph replays carry no launch flows */
			continue;
		int64_t inner = u->c_ts + (kd->nest - 1) * 1500;
		int64_t fid = u->k_ts + R->off; /* torch_npu: the kernel's start in ns */
		flow_torch(t, 's', "torch_to_npu", fid, LN_PY_MAIN, inner, "async_npu");
		flow_torch(t, 'f', "torch_to_npu", fid, LN_S2, u->k_ts, "async_npu");
	}
	for (size_t i = 0; i < R->nu; i++) {
		const struct unit *u = &R->u[i];
		const struct kind *kd = &kinds[u->kind];
		if (u->graph)
			continue;
		host_id_string(R, u, id, sizeof id);
		snprintf(nm, sizeof nm, "HostToDevice%s", id);
		int64_t src = kd->dc == DC_COMPUTE || kd->dc == DC_COMM ? u->nl_ts : u->acl_ts;
		enum lane_id dst = kd->dc == DC_COMM ? LN_HCCL_G0 : LN_S2;
		el_begin(t);
		kv_s(t, "name", nm);
		kv_s(t, "ph", "s");
		kv_s(t, "cat", "HostToDevice");
		kv_s(t, "id", id);
		kv_i(t, "pid", lane_pid(R, LN_CANN));
		kv_i(t, "tid", lane_tid(R, LN_CANN));
		kv_ts(t, "ts", src + R->off);
		el_end(t, PH_S, -1, 0, 0);
		el_begin(t);
		kv_s(t, "name", nm);
		kv_s(t, "ph", "f");
		kv_s(t, "id", id);
		kv_ts(t, "ts", u->k_ts + R->off);
		kv_s(t, "cat", "HostToDevice");
		kv_i(t, "pid", lane_pid(R, dst));
		kv_i(t, "tid", lane_tid(R, dst));
		kv_s(t, "bp", "e");
		el_end(t, PH_F, -1, 0, 0);
	}
}

static void write_counter_section(struct tw *t)
{
	const struct rank_model *R = t->R;
	struct rng r;
	rng_init(&r, t->G->o->seed, 'C', (uint64_t)R->r, 0);
	int64_t kb = 9069036;
	for (int64_t ts = R->first_ts; ts <= R->last_end; ts += rng_range(&r, 1000 * US, 1400 * US)) {
		el_begin(t);
		kv_s(t, "name", "AI Core Freq");
		kv_ts(t, "ts", ts + R->off);
		kv_i(t, "pid", R->proc_pid[PR_FREQ]);
		kv_i(t, "tid", 0);
		jk(t, "args");
		jopen(t);
		kv_i(t, "MHz", rng_permille(&r, 50) ? 1650 : 1800);
		jclose(t);
		kv_s(t, "ph", "C");
		el_end(t, PH_C, -1, 0, 0);
		/* HBM uses the top-level processName key instead of name, as some exports do */
		kb += rng_range(&r, -2048, 2048);
		el_begin(t);
		kv_s(t, "processName", "HBM");
		kv_ts(t, "ts", ts + 40 * US + R->off);
		kv_i(t, "pid", R->proc_pid[PR_HBM]);
		kv_i(t, "tid", 0);
		jk(t, "args");
		jopen(t);
		jk(t, "KB");
		out_i64(t->o, kb);
		out_str(t->o, ".0");
		jclose(t);
		kv_s(t, "ph", "C");
		el_end(t, PH_C, -1, 0, 0);
	}
}

/* Writes one rank's trace_view.json (path NULL: count bytes only) and fills the tallies. */
static uint64_t write_trace(const struct gen *G, const struct rank_model *R, const char *path, struct tw *t)
{
	struct out o;
	out_open(&o, path, (size_t)8 << 20);
	memset(t, 0, sizeof *t);
	t->o = &o;
	t->G = G;
	t->R = R;
	t->style = G->o->style;
	t->first_elem = true;
	t->cut = (uint64_t)G->o->truncate_at;
	bool pretty = t->style == JS_PRETTY;
	if (G->o->wrapper) {
		if (t->style == JS_PY)
			out_str(&o, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [");
		else if (t->style == JS_MIN)
			out_str(&o, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
		else
			out_str(&o, "{\n    \"displayTimeUnit\": \"ns\",\n    \"traceEvents\": [");
		t->depth = 2;
	} else {
		out_chr(&o, '[');
		t->depth = 1;
	}
	write_host_section(t);
	meta_device_procs(t);
	write_device_section(t);
	write_flow_section(t);
	write_counter_section(t);
	if (pretty)
		out_chr(&o, '\n');
	if (G->o->wrapper) {
		if (t->style == JS_PY)
			out_str(&o, "], \"otherData\": {\"version\": \"x\"}}");
		else if (t->style == JS_MIN)
			out_str(&o, "],\"otherData\":{\"version\":\"x\"}}");
		else
			out_str(&o, "    ],\n    \"otherData\": {\n        \"version\": \"x\"\n    }\n}");
	} else {
		out_chr(&o, ']');
	}
	uint64_t size = out_pos(&o);
	out_close(&o);
	return size;
}

/* ------------------------------------------------------------------------------------------ */
/* CSV writers                                                                                */

struct cw {
	struct out *o;
	const struct opts *op;
	int nf;
	struct sbuf tmp;
};

static void cw_begin(struct cw *c, struct out *o, const struct opts *op)
{
	memset(c, 0, sizeof *c);
	c->o = o;
	c->op = op;
	if (op->bom)
		out_str(o, "\xef\xbb\xbf");
}

static void cw_sep(struct cw *c)
{
	if (c->nf++)
		out_chr(c->o, ',');
}

static void cw_raw(struct cw *c, const char *s)
{
	cw_sep(c);
	out_str(c->o, s);
}

/* A text cell: GBK when asked, quoted when it holds a separator, quote or line break. */
static void cw_text(struct cw *c, const char *s, bool gbk)
{
	if (gbk) {
		to_gbk(&c->tmp, s);
		s = c->tmp.p;
	}
	cw_sep(c);
	if (!strpbrk(s, ",\"\r\n")) {
		out_str(c->o, s);
		return;
	}
	out_chr(c->o, '"');
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			out_chr(c->o, '"');
		out_chr(c->o, *p);
	}
	out_chr(c->o, '"');
}

/* Shapes as torch_npu writes them: the value carries its own quotes, so """a,b""". */
static void cw_shape(struct cw *c, const char *s)
{
	cw_sep(c);
	out_str(c->o, "\"\"\"");
	out_str(c->o, s);
	out_str(c->o, "\"\"\"");
}

static void cw_i(struct cw *c, int64_t v)
{
	cw_sep(c);
	out_i64(c->o, v);
}

static void cw_us(struct cw *c, int64_t ns)
{
	cw_sep(c);
	out_us3(c->o, ns);
}

static void cw_us_py(struct cw *c, int64_t ns)
{
	cw_sep(c);
	out_us_py(c->o, ns);
}

static void cw_ts(struct cw *c, int64_t ns)
{
	cw_sep(c);
	out_us3(c->o, ns);
	if (c->op->tabs)
		out_chr(c->o, '\t');
}

static void cw_eol(struct cw *c)
{
	out_str(c->o, c->op->crlf ? "\r\n" : "\n");
	c->nf = 0;
}

static void cw_header(struct cw *c, const char *h)
{
	out_str(c->o, h);
	cw_eol(c);
}

/* Excel's rewrite of a long number: 6 significant digits, "1.73641E+15". */
static void excel_mangle(char *buf, size_t n, int64_t ns)
{
	char d[24];
	int nd = u64_digits(d, (uint64_t)(ns / 1000));
	int64_t m = 0;
	for (int i = 0; i < 6; i++)
		m = m * 10 + (i < nd ? d[i] - '0' : 0);
	if (nd > 6 && d[6] >= '5')
		m++;
	int ex = nd - 1;
	if (m >= 1000000) {
		m /= 10;
		ex++;
	}
	snprintf(buf, n, "%" PRId64 ".%05" PRId64 "E+%02d", m / 100000, m % 100000, ex);
}

enum { MARK_RAGGED = 1, MARK_EXCEL = 2 };

/* Seed-chosen distinct data-row indices for the damaged rows (ragged and excel disjoint). */
static uint8_t *pick_damage(const struct opts *o, int r, int64_t rows, int *nrag, int *nexc)
{
	uint8_t *m = xcalloc((size_t)(rows ? rows : 1), 1);
	struct rng g;
	rng_init(&g, o->seed, 'X', (uint64_t)r, 0);
	int64_t room = rows / 2; /* leave most rows intact */
	*nrag = (int)min64(o->ragged, room);
	*nexc = (int)min64(o->excel, room - *nrag);
	for (int kind = 0; kind < 2; kind++) {
		int want = kind ? *nexc : *nrag;
		for (int i = 0; i < want;) {
			int64_t j = rng_range(&g, 0, rows - 1);
			if (m[j])
				continue;
			m[j] = kind ? MARK_EXCEL : MARK_RAGGED;
			i++;
		}
	}
	return m;
}

static int64_t count_kernel_rows(const struct rank_model *R)
{
	int64_t n = 0;
	for (size_t i = 0; i < R->nu; i++) {
		const struct unit *u = &R->u[i];
		enum dev_class dc = kinds[u->kind].dc;
		n += (dc == DC_COMPUTE || dc == DC_COMM) + (u->s3_dur > 0);
	}
	return n;
}

static void pmu_cells(struct cw *c, const struct kind *kd, int64_t dur, struct rng *g)
{
	bool aic = !strcmp(kd->task_type, "AI_CORE") || !strcmp(kd->task_type, "MIX_AIC");
	bool aiv = !strcmp(kd->task_type, "AI_VECTOR_CORE") || !strcmp(kd->task_type, "MIX_AIC");
	int64_t mac = 0;
	if (aic) {
		int64_t t = dur * rng_range(g, 930, 990) / 1000;
		cw_us(c, t);
		cw_i(c, t * 18 * kd->block_dim / 10); /* 1.8 GHz x cores */
		mac = rng_range(g, 300, 900);
		static const int lo[] = {0, 50, 100, 200, 20}, hi[] = {0, 300, 600, 900, 200};
		for (int i = 0; i < 5; i++) {
			int64_t ratio = i ? rng_range(g, lo[i], hi[i]) : mac;
			cw_us(c, t * ratio / 1000);
			cw_sep(c);
			out_milli(c->o, ratio);
		}
		cw_sep(c);
		out_milli(c->o, rng_range(g, 1, 60));
	} else {
		cw_raw(c, "0.0");
		cw_raw(c, "0");
		for (int i = 0; i < 11; i++)
			cw_raw(c, "0.0");
	}
	if (aiv) {
		int64_t t = dur * rng_range(g, 900, 990) / 1000;
		cw_us(c, t);
		cw_i(c, t * 18 * kd->block_dim / 10);
		static const int lo[] = {50, 20, 100, 100}, hi[] = {600, 500, 700, 700};
		for (int i = 0; i < 4; i++) {
			int64_t ratio = rng_range(g, lo[i], hi[i]);
			cw_us(c, t * ratio / 1000);
			cw_sep(c);
			out_milli(c->o, ratio);
		}
		cw_sep(c);
		out_milli(c->o, rng_range(g, 1, 80));
	} else {
		cw_raw(c, "0.0");
		cw_raw(c, "0");
		for (int i = 0; i < 9; i++)
			cw_raw(c, "0.0");
	}
	cw_sep(c);
	out_milli(c->o, aic ? mac * rng_range(g, 800, 1000) / 10 : 0);
}

/* One kernel_details row; a planted ragged row loses its last cell. */
static void kernel_row(struct cw *c, const struct gen *G, const struct rank_model *R, int k,
                       const struct kind *kd, int kind, int64_t ts, int64_t dur, int64_t wait, uint8_t damage,
                       struct rng *g, const char *name, const struct unit *u)
{
	const struct opts *o = G->o;
	int ph = R->st[k].prefill;
	out_need(c->o, 8192); /* keep the row in the buffer so a ragged row can be rewound */
	if (o->marks == MARKS_PROFILERSTEP)
		cw_i(c, k + 1);
	cw_i(c, R->dev);
	cw_text(c, name, o->gbk);
	cw_text(c, kd->type, o->gbk);
	bool comm = kd->dc == DC_COMM;
	cw_raw(c, comm ? "N/A" : "dynamic");
	cw_raw(c, kd->task_type);
	if (damage == MARK_EXCEL) {
		char buf[32];
		excel_mangle(buf, sizeof buf, ts + R->off);
		cw_raw(c, buf);
	} else {
		cw_ts(c, ts + R->off);
	}
	cw_us(c, dur);
	cw_us(c, wait);
	if (comm) {
		cw_i(c, 0);
		for (int i = 0; i < 34; i++)
			cw_raw(c, "N/A");
	} else {
		cw_i(c, kd->block_dim);
		cw_i(c, kd->mix_block_dim);
		cw_raw(c, kind == K_LINEAR ? "YES" : "NO");
		char *si = shape_text(G, &R->st[k], u, kd->in_shape), *so = shape_text(G, &R->st[k], u, kd->out_shape);
		cw_shape(c, si ? si : G->shape_in[kind][ph]);
		cw_raw(c, kd->in_dtype);
		cw_raw(c, kd->in_fmt);
		cw_shape(c, so ? so : G->shape_out[kind][ph]);
		free(si);
		free(so);
		cw_raw(c, kd->out_dtype);
		cw_raw(c, kd->out_fmt);
		cw_raw(c, "N/A");
		pmu_cells(c, kd, dur, g);
	}
	if (damage == MARK_RAGGED) {
		/* drop the last cell: rewind to the last comma */
		struct out *out = c->o;
		while (out->len && out->buf[out->len - 1] != ',')
			out->len--;
		if (out->len)
			out->len--;
	}
	cw_eol(c);
}

static int64_t write_kernel_details(const struct gen *G, const struct rank_model *R, const char *path,
                                    struct sbuf *ragged, struct sbuf *excel)
{
	const struct opts *o = G->o;
	struct out out;
	out_open(&out, path, (size_t)4 << 20);
	struct cw c;
	cw_begin(&c, &out, o);
	if (o->marks == MARKS_PROFILERSTEP)
		out_str(&out, "Step Id,");
	cw_header(&c, "Device_id,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),"
	              "Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,Input Data Types,"
	              "Input Formats,Output Shapes,Output Data Types,Output Formats,Context ID,"
	              "aicore_time(us),aic_total_cycles,aic_mac_time(us),aic_mac_ratio,aic_scalar_time(us),"
	              "aic_scalar_ratio,aic_mte1_time(us),aic_mte1_ratio,aic_mte2_time(us),aic_mte2_ratio,"
	              "aic_fixpipe_time(us),aic_fixpipe_ratio,aic_icache_miss_rate,aiv_time(us),"
	              "aiv_total_cycles,aiv_vec_time(us),aiv_vec_ratio,aiv_scalar_time(us),aiv_scalar_ratio,"
	              "aiv_mte2_time(us),aiv_mte2_ratio,aiv_mte3_time(us),aiv_mte3_ratio,"
	              "aiv_icache_miss_rate,cube_utilization(%)");
	int64_t rows = count_kernel_rows(R);
	int nrag, nexc;
	uint8_t *dmg = pick_damage(o, R->r, rows, &nrag, &nexc);
	struct rng g;
	rng_init(&g, o->seed, 'K', (uint64_t)R->r, 0);
	int64_t row = 0;
	char name[96];
	/* unit order is start-time order: a collective starts after the previous stream-2 task ends,
	 * a stream-3 kernel lies inside its parent */
	for (int k = 0; k < R->nst; k++) {
		const struct step *st = &R->st[k];
		for (size_t i = 0; i < st->nu; i++) {
			const struct unit *u = &R->u[st->u0 + i];
			const struct kind *kd = &kinds[u->kind];
			if (kd->dc == DC_H2D || kd->dc == DC_D2H)
				continue;
			if (kd->dc == DC_COMM)
				coll_name(name, sizeof name, G, u);
			const char *nm = kd->dc == DC_COMM ? name : kd->kernel;
			for (int pass = 0; pass < 2; pass++) {
				if (pass && !u->s3_dur)
					break;
				uint8_t d = dmg[row];
				if (d) {
					struct sbuf *l = d == MARK_RAGGED ? ragged : excel;
					if (l->n)
						sb_chr(l, ',');
					sb_fmt(l, "%" PRId64, row + 2);
				}
				if (pass)
					kernel_row(&c, G, R, k, &kinds[K_S3], K_S3, u->s3_ts, u->s3_dur,
					           u->s3_wait, d, &g, kinds[K_S3].kernel, u);
				else
					kernel_row(&c, G, R, k, kd, u->kind, u->k_ts, u->k_dur, u->k_wait, d,
					           &g, nm, u);
				row++;
			}
		}
	}
	free(dmg);
	free(c.tmp.p);
	out_close(&out);
	return row;
}

static int64_t write_operator_details(const struct gen *G, const struct rank_model *R, const char *path)
{
	const struct opts *o = G->o;
	struct out out;
	out_open(&out, path, (size_t)4 << 20);
	struct cw c;
	cw_begin(&c, &out, o);
	cw_header(&c, "Name,Input Shapes,Call Stack,Host Self Duration(us),Host Total Duration(us),"
	              "Device Self Duration(us),Device Total Duration(us),Device Self Duration With "
	              "AICore(us),Device Total Duration With AICore(us)");
	int64_t rows = 0;
	for (int k = 0; k < R->nst; k++) {
		const struct step *st = &R->st[k];
		for (size_t i = 0; i < st->nu; i++) {
			const struct unit *u = &R->u[st->u0 + i];
			const struct kind *kd = &kinds[u->kind];
			int64_t dev = kd->dc == DC_COMM ? 0 : u->k_dur;
			int64_t aic = kd->dc == DC_COMPUTE ? u->k_dur : 0;
			char *shaped = shape_text(G, st, u, kd->in_shape);
			for (int lv = 0; lv < kd->nest && !u->graph; lv++) {
				bool inner = lv == kd->nest - 1;
				int64_t total = u->c_dur - lv * 2500;
				int64_t self = inner ? total : 2500;
				cw_text(&c, kd->host[lv], o->gbk);
				cw_text(&c, shaped ? shaped : G->shape_in[u->kind][st->prefill], false);
				if (o->call_stack)
					cw_text(&c, G->stack_csv[u->kind], o->gbk);
				else
					cw_raw(&c, "");
				cw_us(&c, self);
				cw_us(&c, total);
				cw_us(&c, inner ? dev : 0);
				cw_us(&c, dev);
				cw_us(&c, inner ? aic : 0);
				cw_us(&c, aic);
				cw_eol(&c);
				rows++;
			}
			free(shaped);
		}
		if (o->shape.annotate) { /* the step's execute_context_... range */
			char nm[96];
			annotation_name(st, nm, sizeof nm);
			cw_raw(&c, nm);
			cw_raw(&c, "");
			cw_raw(&c, "");
			cw_us(&c, 0);
			cw_us(&c, st->fwd_end - st->fwd_ts);
			for (int i = 0; i < 4; i++)
				cw_us(&c, 0);
			cw_eol(&c);
			rows++;
		}
	}
	free(c.tmp.p);
	out_close(&out);
	return rows;
}

struct agg {
	const char *key, *key2; /* Type + core type, or level + API name */
	int64_t n, total, min, max;
	__int128 sq;
};

static struct agg *agg_find(struct agg **v, size_t *n, size_t *cap, const char *a, const char *b)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].key, a) && !strcmp((*v)[i].key2, b))
			return &(*v)[i];
	grow((void **)v, cap, *n + 1, sizeof **v);
	struct agg *g = &(*v)[(*n)++];
	memset(g, 0, sizeof *g);
	g->key = a;
	g->key2 = b;
	return g;
}

static void agg_add(struct agg *g, int64_t d)
{
	if (!g->n || d < g->min)
		g->min = d;
	if (!g->n || d > g->max)
		g->max = d;
	g->n++;
	g->total += d;
	g->sq += (__int128)d * d;
}

static int agg_by_total(const void *a, const void *b)
{
	const struct agg *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	int c = strcmp(x->key, y->key);
	return c ? c : strcmp(x->key2, y->key2);
}

/* Aggregate kernel_details rows by Type (op_statistic.csv and the optype.* truths). */
static struct agg *op_types(const struct rank_model *R, size_t *n)
{
	struct agg *v = NULL;
	size_t cap = 0;
	*n = 0;
	for (size_t i = 0; i < R->nu; i++) {
		const struct unit *u = &R->u[i];
		const struct kind *kd = &kinds[u->kind];
		if (kd->dc == DC_COMPUTE || kd->dc == DC_COMM)
			agg_add(agg_find(&v, n, &cap, kd->type, kd->task_type), u->k_dur);
		if (u->s3_dur)
			agg_add(agg_find(&v, n, &cap, kinds[K_S3].type, kinds[K_S3].task_type), u->s3_dur);
	}
	qsort(v, *n, sizeof *v, agg_by_total);
	return v;
}

static int64_t write_op_statistic(const struct gen *G, const struct rank_model *R, const char *path)
{
	struct out out;
	out_open(&out, path, (size_t)1 << 16);
	struct cw c;
	cw_begin(&c, &out, G->o);
	cw_header(&c,
	          "OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)");
	size_t n;
	struct agg *v = op_types(R, &n);
	int64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i].total;
	for (size_t i = 0; i < n; i++) {
		cw_text(&c, v[i].key, false);
		cw_raw(&c, v[i].key2);
		cw_i(&c, v[i].n);
		cw_us(&c, v[i].total);
		cw_us(&c, v[i].min);
		cw_us(&c, (v[i].total + v[i].n / 2) / v[i].n);
		cw_us(&c, v[i].max);
		cw_sep(&c);
		out_milli(c.o, sum ? (v[i].total * 100000 + sum / 2) / sum : 0);
		cw_eol(&c);
	}
	free(v);
	free(c.tmp.p);
	out_close(&out);
	return (int64_t)n;
}

static int level_rank(const char *l)
{
	return !strcmp(l, "hccl") ? 0 : !strcmp(l, "acl") ? 1 : 2;
}

static int agg_by_level(const void *a, const void *b)
{
	const struct agg *x = a, *y = b;
	int lx = level_rank(x->key), ly = level_rank(y->key);
	if (lx != ly)
		return lx - ly;
	return agg_by_total(a, b);
}

static int64_t write_api_statistic(const struct gen *G, const struct rank_model *R, const char *path)
{
	struct out out;
	out_open(&out, path, (size_t)1 << 16);
	struct cw c;
	cw_begin(&c, &out, G->o);
	cw_header(&c, "Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance");
	struct agg *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < R->nu; i++) {
		const struct unit *u = &R->u[i];
		const struct kind *kd = &kinds[u->kind];
		if (u->graph)
			continue;
		agg_add(agg_find(&v, &n, &cap, "acl", kd->acl), u->acl_dur);
		if (kd->dc == DC_COMPUTE)
			agg_add(agg_find(&v, &n, &cap, "node", "launch"), u->nl_dur);
		else if (kd->dc == DC_COMM)
			agg_add(agg_find(&v, &n, &cap, "hccl", "Launch_Ffts"), u->nl_dur);
	}
	for (int k = 0; k < R->nst; k++)
		if (R->st[k].rp_end)
			agg_add(agg_find(&v, &n, &cap, "acl", "aclmdlRIExecuteAsync"), R->st[k].rp_end - R->st[k].rp_ts);
	qsort(v, n, sizeof *v, agg_by_level);
	for (size_t i = 0; i < n; i++) {
		const struct agg *a = &v[i];
		/* population variance in us^2, from exact integer sums */
		__int128 num = (__int128)a->n * a->sq - (__int128)a->total * a->total;
		__int128 den = (__int128)a->n * a->n * 1000;
		int64_t var_milli = (int64_t)((num + den / 2) / den);
		cw_raw(&c, a->key);
		cw_raw(&c, a->key2);
		cw_us(&c, a->total);
		cw_i(&c, a->n);
		cw_us(&c, (a->total + a->n / 2) / a->n);
		cw_us(&c, a->min);
		cw_us(&c, a->max);
		cw_sep(&c);
		out_milli(c.o, var_milli);
		cw_eol(&c);
	}
	free(v);
	free(c.tmp.p);
	out_close(&out);
	return (int64_t)n;
}

static void step_trace_row(struct cw *c, const char *step, int64_t compute, int64_t comm, int64_t ov,
                           int64_t window, int64_t preparing)
{
	cw_raw(c, step);
	cw_us_py(c, compute);
	cw_us_py(c, comm - ov);
	cw_us_py(c, ov);
	cw_us_py(c, comm);
	cw_us_py(c, window - (compute + comm - ov));
	cw_us_py(c, window);
	cw_raw(c, "0");
	cw_us_py(c, comm - ov);
	cw_us_py(c, preparing);
	cw_eol(c);
}

static int64_t write_step_trace(const struct gen *G, const struct rank_model *R, const char *path)
{
	struct out out;
	out_open(&out, path, (size_t)1 << 16);
	struct cw c;
	cw_begin(&c, &out, G->o);
	cw_header(&c, "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,"
	              "Bubble,Communication(Not Overlapped and Exclude Receive),Preparing");
	int64_t rows = 0;
	if (G->o->step_trace == ST_ONE) {
		step_trace_row(&c, "", R->compute, R->comm, R->overlapped, R->last_end - R->first_ts,
		               R->st[0].first_dev - R->first_ts);
		rows = 1;
	} else {
		for (int k = 0; k < R->nst; k++) {
			const struct step *st = &R->st[k];
			int64_t wend = k + 1 < R->nst ? R->st[k + 1].hs : R->last_end;
			char num[16];
			snprintf(num, sizeof num, "%d", k + 1);
			step_trace_row(&c, num, st->compute, st->comm, st->overlapped, wend - st->hs,
			               st->first_dev - st->hs);
			rows++;
		}
	}
	free(c.tmp.p);
	out_close(&out);
	return rows;
}

/* ------------------------------------------------------------------------------------------ */
/* files around the trace                                                                     */

static void write_file(const char *path, const char *data, size_t n)
{
	struct out o;
	out_open(&o, path, n + 16);
	out_mem(&o, data, n);
	out_close(&o);
}

static void path_join(char *buf, size_t n, const char *a, const char *b)
{
	if ((size_t)snprintf(buf, n, "%s/%s", a, b) >= n)
		die("path too long: %s/%s", a, b);
}

static void mkdir_p(const char *path)
{
	char tmp[4096];
	if (strlen(path) >= sizeof tmp)
		die("path too long: %s", path);
	strcpy(tmp, path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
			die("mkdir %s: %s", tmp, strerror(errno));
		*p = '/';
	}
	if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
		die("mkdir %s: %s", tmp, strerror(errno));
	struct stat sb;
	if (stat(tmp, &sb) != 0 || !S_ISDIR(sb.st_mode))
		die("%s is not a directory", tmp);
}

static bool dir_empty(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return true;
	struct dirent *e;
	bool empty = true;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			empty = false;
			break;
		}
	}
	closedir(d);
	return empty;
}

static void write_profiler_info(const struct gen *G, const struct rank_model *R, const char *path)
{
	const struct opts *o = G->o;
	struct sbuf b = {0};
	int64_t mono0 = 172163581670080LL + 1000003LL * R->r;
	int64_t start_unix = R->first_ts + R->off - 10 * MS;
	int64_t end_unix = R->last_end + R->off + 30 * MS;
	sb_str(&b, "{\n    \"config\": {\n        \"common_config\": {\n            \"activities\": [\n"
	           "                \"ProfilerActivity.CPU\",\n                \"ProfilerActivity.NPU\"\n"
	           "            ],\n");
	if (o->marks == MARKS_PROFILERSTEP)
		sb_fmt(&b,
		       "            \"schedule\": {\n                \"wait\": 0,\n                "
		       "\"active\": %d,\n"
		       "                \"warmup\": 0,\n                \"repeat\": 1,\n"
		       "                \"skip_first\": 0\n            },\n",
		       R->nst);
	sb_fmt(&b,
	       "            \"record_shapes\": %s,\n            \"profile_memory\": false,\n"
	       "            \"with_stack\": %s,\n            \"with_flops\": false,\n"
	       "            \"with_modules\": false\n        },\n",
	       o->shape.kind == SHAPE_VLLM ? "false" : "true", o->call_stack ? "true" : "false");
	sb_str(&b, "        \"experimental_config\": {\n            \"_profiler_level\": \"Level1\",\n"
	           "            \"_aic_metrics\": \"ACL_AICORE_PIPE_UTILIZATION\",\n"
	           "            \"_l2_cache\": false,\n            \"_msprof_tx\": false,\n"
	           "            \"_data_simplification\": true,\n            \"record_op_args\": false,\n"
	           "            \"_export_type\": \"text\",\n            \"_op_attr\": false,\n"
	           "            \"_gc_detect_threshold\": null\n        }\n    },\n");
	sb_fmt(&b,
	       "    \"start_info\": {\n        \"syscnt_enable\": true,\n        \"freq\": 100,\n"
	       "        \"start_cnt\": %" PRId64 ",\n        \"start_monotonic\": %" PRId64 "\n    },\n",
	       mono0 / 10, mono0);
	sb_fmt(&b,
	       "    \"end_info\": {\n        \"collectionTimeEnd\": %" PRId64 ",\n"
	       "        \"MonotonicTimeEnd\": %" PRId64 "\n    },\n",
	       end_unix, mono0 + (end_unix - start_unix));
	sb_str(&b, "    \"torch_npu_version\": \"2.7.1\",\n    \"cann_version\": \"8.3.RC1\",\n");
	/* both spellings occur in the wild */
	if (o->naming == NAME_RANK)
		sb_fmt(&b, "    \"rank_id\": \"%d\"\n}", R->r);
	else
		sb_fmt(&b, "    \"rank_id\": %d\n}", R->r);
	write_file(path, b.p, b.n);
	free(b.p);
}

static void write_metadata(const struct gen *G, const struct rank_model *R, const char *path)
{
	int nr = G->o->ranks;
	struct sbuf b = {0};
	sb_str(&b, "{\n    \"ENV_VARIABLES\": {\n        \"ASCEND_GLOBAL_LOG_LEVEL\": \"\",\n"
	           "        \"HCCL_RDMA_TC\": \"\",\n        \"HCCL_RDMA_SL\": \"\",\n"
	           "        \"ACLNN_CACHE_LIMIT\": \"\",\n        \"HOST_CACHE_CAPACITY\": \"\",\n"
	           "        \"ASCEND_ENHANCE_ENABLE\": \"\",\n        \"PYTORCH_NPU_ALLOC_CONF\": \"\",\n"
	           "        \"ASCEND_LAUNCH_BLOCKING\": \"\"\n    }");
	if (nr > 1) {
		sb_fmt(&b,
		       ",\n    \"distributed_args\": {\n        \"tensor_model_parallel_size\": %d,\n"
		       "        \"pipeline_model_parallel_size\": 1,\n        \"data_parallel_size\": 1,\n"
		       "        \"rank\": %d,\n        \"world_size\": %d\n    },\n"
		       "    \"parallel_group_info\": {\n        \"10.174.216.241%%enp189s0f1_55000_0_%d\": "
		       "{\n"
		       "            \"group_name\": \"tp\",\n            \"group_rank\": %d,\n"
		       "            \"global_ranks\": [",
		       nr, R->r, nr, G->coll_group, R->r);
		for (int i = 0; i < nr; i++)
			sb_fmt(&b, "%s%d", i ? ", " : "", i);
		sb_str(&b, "]\n        }\n    }");
	}
	sb_str(&b, "\n}");
	write_file(path, b.p, b.n);
	free(b.p);
}

static void write_raw_parts(const struct gen *G, const struct rank_model *R, const char *rdir)
{
	char p[4096], q[4096], name[128];
	path_join(p, sizeof p, rdir, "FRAMEWORK");
	mkdir_p(p);
	path_join(q, sizeof q, p, "torch.op_range");
	unsigned char blob[256];
	struct rng r;
	rng_init(&r, G->o->seed, 'W', (uint64_t)R->r, 0);
	for (size_t i = 0; i < sizeof blob; i++)
		blob[i] = (unsigned char)rng_next(&r);
	write_file(q, (const char *)blob, sizeof blob);
	char stamp[32], tag[17];
	format_stamp(stamp, sizeof stamp, G->base + R->off);
	for (int i = 0; i < 16; i++)
		tag[i] = (char)('A' + rng_range(&r, 0, 25));
	tag[16] = 0;
	snprintf(name, sizeof name, "PROF_%06d_%s_%s", R->r + 1, stamp, tag);
	path_join(p, sizeof p, rdir, name);
	path_join(q, sizeof q, p, "host");
	mkdir_p(q);
	path_join(p, sizeof p, q, "info.json");
	const char info[] = "{\"note\": \"raw capture placeholder written by ascprof-gen\"}\n";
	write_file(p, info, sizeof info - 1);
}

/* ------------------------------------------------------------------------------------------ */
/* ground truth                                                                               */

/* --comm truths of one rank, summed while its files are written. */
struct comm_truth {
	int64_t ops, t[5]; /* elapse, transit, wait, sync, idle */
	int64_t hccs_bytes, hccs_time, packets, small_packets;
	int64_t link_bytes[MAX_RANKS], link_time[MAX_RANKS];
};
/* --memory sizes (see write_memory) */
enum { MEM_WEIGHTS_MB = 4096, MEM_CACHE_MB = 8192, MEM_GE_ALLOC_MB = 64, MEM_GE_RES_MB = 128,
       MEM_DRIVER_MB = 1024, MEM_HCCL_MB = 404 };

struct rank_out {
	uint64_t trace_bytes;
	bool truncated;
	struct tw t;
	int64_t rows_kernel, rows_oper, rows_opstat, rows_api, rows_step;
	struct sbuf ragged, excel;
	struct comm_truth comm;
	/* --memory */
	int64_t rows_memrec, rows_modmem, rows_opmem;
	int64_t pta_peak_alloc_mb, pta_peak_reserved_mb, app_peak_reserved_mb, allocs, negative, never_released;
};

static const char *style_name(enum jstyle s)
{
	return s == JS_PY ? "python" : s == JS_MIN ? "minify" : "pretty";
}

static void truth_rank(struct sbuf *b, const struct gen *G, const struct rank_model *R,
                       const struct rank_out *ro)
{
	const struct opts *o = G->o;
	int r = R->r;
	sb_fmt(b, "\n# ---- rank %d ----\n", r);
	sb_fmt(b,
	       "rank.%d.dir=%s\nrank.%d.offset_ns=%" PRId64 "\nrank.%d.pid=%" PRId64
	       "\nrank.%d.device_id=%d\n",
	       r, R->dir, r, R->off, r, R->pid, r, R->dev);
	if (o->raw)
		return;
	const struct tw *t = &ro->t;
	sb_fmt(b, "rank.%d.trace_bytes=%" PRIu64 "\nrank.%d.truncated=%d\n", r, ro->trace_bytes, r,
	       ro->truncated);
	if (ro->truncated)
		sb_fmt(b, "rank.%d.cut_at=%" PRId64 "\n", r, o->truncate_at);
	/* window: by construction, or from the kept elements when cut */
	int64_t first = R->first_ts + R->off, last = R->last_end + R->off;
	if (ro->truncated) {
		first = t->have_x ? t->x_min : 0;
		last = t->have_x ? t->x_max : 0;
	} else if (t->x_min != first || t->x_max != last) {
		die("internal: rank %d window %" PRId64 "..%" PRId64 " but X events span %" PRId64
		    "..%" PRId64,
		    r, first, last, t->x_min, t->x_max);
	}
	if (!ro->truncated || t->have_x)
		sb_fmt(b,
		       "rank.%d.first_ts_ns=%" PRId64 "\nrank.%d.last_end_ns=%" PRId64
		       "\nrank.%d.wall_ns=%" PRId64 "\n",
		       r, first, r, last, r, last - first);
	int64_t total = 0;
	for (int p = 0; p < PH_COUNT; p++) {
		sb_fmt(b, "rank.%d.events.%c=%" PRId64 "\n", r, ph_chars[p], t->n_ph[p]);
		total += t->n_ph[p];
	}
	sb_fmt(b, "rank.%d.events.total=%" PRId64 "\n", r, total);
	for (int p = 0; p < PR_COUNT; p++) {
		if (!t->proc_named[p])
			continue; /* a lane is only identifiable through its process_name */
		int nl = 0;
		for (int ln = 0; ln < LN_COUNT; ln++) {
			if (lanes[ln].proc != (enum proc_id)p || !lane_on(G, (enum lane_id)ln))
				continue;
			if (t->lane_named[ln] || t->lane_x[ln])
				nl++;
			if (!t->lane_named[ln])
				continue;
			char nm[64];
			thread_label(R, (enum lane_id)ln, nm, sizeof nm);
			sb_fmt(b, "rank.%d.lane.%s/%s=%" PRId64 "\n", r, procs[p].name, nm, t->lane_x[ln]);
		}
		sb_fmt(b, "rank.%d.lanes.%s=%d\n", r, procs[p].name, nl);
	}
	sb_fmt(b,
	       "rank.%d.csv.kernel_details.rows=%" PRId64 "\nrank.%d.csv.operator_details.rows=%" PRId64
	       "\nrank.%d.csv.op_statistic.rows=%" PRId64 "\nrank.%d.csv.api_statistic.rows=%" PRId64 "\n",
	       r, ro->rows_kernel, r, ro->rows_oper, r, ro->rows_opstat, r, ro->rows_api);
	if (o->step_trace != ST_NONE)
		sb_fmt(b, "rank.%d.csv.step_trace_time.rows=%" PRId64 "\n", r, ro->rows_step);
	if (o->memory)
		sb_fmt(b,
		       "rank.%d.csv.memory_record.rows=%" PRId64 "\nrank.%d.csv.npu_module_mem.rows=%" PRId64
		       "\nrank.%d.csv.operator_memory.rows=%" PRId64 "\nrank.%d.mem.pta_peak_allocated_mb=%" PRId64
		       "\nrank.%d.mem.pta_peak_reserved_mb=%" PRId64 "\nrank.%d.mem.app_peak_reserved_mb=%" PRId64
		       "\nrank.%d.mem.hccl_peak_reserved_mb=%d\nrank.%d.mem.allocs=%" PRId64
		       "\nrank.%d.mem.negative_sizes=%" PRId64 "\nrank.%d.mem.never_released=%" PRId64 "\n",
		       r, ro->rows_memrec, r, ro->rows_modmem, r, ro->rows_opmem, r, ro->pta_peak_alloc_mb, r,
		       ro->pta_peak_reserved_mb, r, ro->app_peak_reserved_mb, r, MEM_HCCL_MB, r, ro->allocs, r,
		       ro->negative, r, ro->never_released);
	if (o->ragged)
		sb_fmt(b, "rank.%d.kernel_details.ragged_lines=%s\n", r, ro->ragged.p ? ro->ragged.p : "");
	if (o->excel)
		sb_fmt(b, "rank.%d.kernel_details.excel_lines=%s\n", r, ro->excel.p ? ro->excel.p : "");
	size_t nt;
	struct agg *types = op_types(R, &nt);
	for (size_t i = 0; i < nt; i++)
		sb_fmt(b, "optype.%d.%s.count=%" PRId64 "\noptype.%d.%s.total_ns=%" PRId64 "\n", r,
		       types[i].key, types[i].n, r, types[i].key, types[i].total);
	free(types);
	if (ro->truncated)
		return;
	sb_fmt(b,
	       "rank.%d.compute_ns=%" PRId64 "\nrank.%d.copy_ns=%" PRId64 "\nrank.%d.copy_h2d_ns=%" PRId64
	       "\nrank.%d.copy_d2h_ns=%" PRId64 "\n",
	       r, R->compute, r, R->copy, r, R->h2d, r, R->d2h);
	sb_fmt(b,
	       "rank.%d.collectives=%d\nrank.%d.comm_ns=%" PRId64 "\nrank.%d.comm_overlapped_ns=%" PRId64
	       "\nrank.%d.comm_not_overlapped_ns=%" PRId64 "\n",
	       r, R->ncoll, r, R->comm, r, R->overlapped, r, R->comm - R->overlapped);
	sb_fmt(b,
	       "rank.%d.npu_busy_ns=%" PRId64 "\nrank.%d.npu_idle_ns=%" PRId64
	       "\nrank.%d.npu_idle_gaps=%" PRId64 "\nrank.%d.free_ns=%" PRId64
	       "\nrank.%d.host_busy_ns=%" PRId64 "\nrank.%d.host_only_ns=%" PRId64 "\nrank.%d.edge_idle_ns=%" PRId64
	       "\n",
	       r, R->busy, r, R->idle, r, R->idle_gaps, r, R->free_ns, r, R->host_busy, r, R->host_only, r,
	       R->edge_idle);
	int nph[4] = {0, 0, 0, 0};
	for (int k = 0; k < R->nst; k++)
		nph[o->shape.kind == SHAPE_MARKED ? R->st[k].prefill : R->st[k].phase]++;
	sb_fmt(b,
	       "rank.%d.steps=%d\nrank.%d.prefill_steps=%d\nrank.%d.decode_steps=%d\nrank.%d.dispatch_ops_"
	       "total=%" PRId64 "\n",
	       r, R->nst, r, nph[SP_PREFILL], r, nph[SP_DECODE], r, R->cpu_ops);
	if (o->shape.kind != SHAPE_MARKED)
		sb_fmt(b, "rank.%d.mixed_steps=%d\nrank.%d.train_steps=%d\n", r, nph[SP_MIXED], r, nph[SP_TRAIN]);
	static const char *const phase_names[] = {"decode", "prefill", "mixed", "train"};
	for (int k = 0; k < R->nst; k++) {
		const struct step *st = &R->st[k];
		/* the window [start_k, start_k+1) holds the step span and the schedule() after it;
		 * all of the step's device work lies inside its span */
		int64_t host_only = (st->he - st->hs - ul_clip(&R->occ_u, st->hs, st->he)) + (st->sch_end - st->sch_ts);
		if (R->honly_u.n)
			host_only = ul_clip(&R->honly_u, st->hs, k + 1 < R->nst ? R->st[k + 1].hs : R->last_end);
		sb_fmt(b,
		       "rank.%d.step.%d.start_ns=%" PRId64 "\nrank.%d.step.%d.end_ns=%" PRId64
		       "\nrank.%d.step.%d.phase=%s\nrank.%d.step.%d.dispatch_ops=%" PRId64 "\n",
		       r, k, st->hs + R->off, r, k, st->he + R->off, r, k,
		       phase_names[o->shape.kind == SHAPE_MARKED ? st->prefill : st->phase], r, k, st->cpu_ops);
		if (o->shape.kind != SHAPE_MARKED)
			sb_fmt(b,
			       "rank.%d.step.%d.dev_start_ns=%" PRId64 "\nrank.%d.step.%d.dev_end_ns=%" PRId64
			       "\nrank.%d.step.%d.tokens=%" PRId64 "\nrank.%d.step.%d.seqs=%" PRId64
			       "\nrank.%d.step.%d.graph=%d\n",
			       r, k, st->first_dev + R->off, r, k, st->last_dev + R->off, r, k, st->tok, r, k, st->seqs,
			       r, k, st->graph);
		sb_fmt(b,
		       "rank.%d.step.%d.compute_ns=%" PRId64
		       "\nrank.%d.step.%d.comm_not_overlapped_ns=%" PRId64
		       "\nrank.%d.step.%d.host_only_ns=%" PRId64 "\n",
		       r, k, st->compute, r, k, st->comm - st->overlapped, r, k, host_only);
	}
	/* compute kernels by trace name */
	struct agg *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < R->nu; i++) {
		const struct unit *u = &R->u[i];
		if (kinds[u->kind].dc == DC_COMPUTE)
			agg_add(agg_find(&v, &n, &cap, kinds[u->kind].kernel, ""), u->k_dur);
		if (u->s3_dur)
			agg_add(agg_find(&v, &n, &cap, kinds[K_S3].kernel, ""), u->s3_dur);
	}
	qsort(v, n, sizeof *v, agg_by_total);
	for (size_t i = 0; i < n; i++)
		sb_fmt(b, "op.%d.%s.count=%" PRId64 "\nop.%d.%s.total_ns=%" PRId64 "\n", r, v[i].key, v[i].n,
		       r, v[i].key, v[i].total);
	free(v);
}

static void truth_comm(struct sbuf *b, const struct gen *G, const struct rank_out *ro);

static void write_truth(const struct gen *G, struct rank_out *ro)
{
	const struct opts *o = G->o;
	struct sbuf b = {0};
	sb_str(&b, "# ascprof-gen ground truth: key=value, times in integer ns on each rank's clock.\n"
	           "# Keys are documented by `ascprof-gen --help`.\n");
	sb_fmt(&b, "ranks=%d\nseed=%" PRIu64 "\nsteps=%d\nbase_ns=%" PRId64 "\nformat=%s\nwrapper=%d\n",
	       o->ranks, o->seed, G->steps, G->base, style_name(o->style), o->wrapper);
	static const char *const marks[] = {"engine", "profilerstep", "none"};
	static const char *const traces[] = {"one", "rows", "none"};
	sb_fmt(&b, "step_marks=%s\nstep_trace=%s\nnaming=%s\nraw=%d\n", marks[o->marks],
	       traces[o->step_trace], o->naming == NAME_HOST ? "host" : "rank", o->raw);
	static const char *const shapes[] = {"marked", "vllm", "train"};
	if (o->shape.kind != SHAPE_MARKED) /* the marked shape's truth stays as it was */
		sb_fmt(&b, "shape=%s%s%s%s%s%s\nworkload=%s\n", shapes[o->shape.kind], o->shape.mla ? ",mla" : "",
		       o->shape.moe ? ",moe" : "", o->shape.graph ? ",graph" : "", o->shape.annotate ? ",annotate" : "",
		       o->shape.short_prefill ? ",short" : "", o->shape.kind == SHAPE_TRAIN ? "training" : "inference");
	if (o->scale_kind >= 0)
		sb_fmt(&b, "kernel_scale.%s=%" PRId64 "\n", kinds[o->scale_kind].kernel, o->scale_milli);
	if (o->drop_kind >= 0)
		sb_fmt(&b, "drop_op.%s=1\n", kinds[o->drop_kind].kernel);
	for (int r = 0; r < o->ranks; r++)
		truth_rank(&b, G, &G->rk[r], &ro[r]);
	if (o->comm)
		truth_comm(&b, G, ro);
	char path[4096];
	path_join(path, sizeof path, o->out, "ground_truth.txt");
	write_file(path, b.p, b.n);
	free(b.p);
}

/* ------------------------------------------------------------------------------------------ */
/* --comm: communication.json and communication_matrix.json                                   */

/* The communication-domain id after '@' (a 20-digit hash in real files). */
static uint64_t comm_group_id(const struct gen *G)
{
	return 17522688603477080000ULL + (uint64_t)G->coll_group;
}

/* n / 10^6 with six decimals: ns as ms, bytes as MB (exact). */
static void sb_e6(struct sbuf *b, int64_t n)
{
	sb_fmt(b, "%" PRId64 ".%06" PRId64, (int64_t)(n / MS), (int64_t)(n % MS));
}

static bool comm_slow(const struct gen *G, int src, int dst)
{
	return G->o->ranks >= 3 && src == 0 && dst == 1;
}

/* One collective as a rank sees it: every peer gets bytes / n over HCCS in about 0.3 T (the
 * planes run in parallel); the slow link takes three times as long. */
struct comm_coll {
	const struct unit *u;
	int64_t a, elapse, transit, wait, peer_bytes;
	int64_t link_time[MAX_RANKS];
	int64_t hccs_time;
};

static void comm_coll(const struct gen *G, const struct rank_model *R, const struct step *st, const struct unit *u,
		      struct rng *rr, struct comm_coll *c)
{
	int n = G->o->ranks;
	memset(c, 0, sizeof *c);
	c->u = u;
	c->a = u->k_ts + R->off;
	c->elapse = u->k_dur;
	c->transit = u->xfer;
	c->wait = u->k_dur - u->xfer;
	c->peer_bytes = (st->prefill ? G->tok_prefill : G->tok_decode) * 4096 * 2 / n;
	for (int j = 0; j < n; j++) {
		int64_t permille = rng_range(rr, 280, 320);
		if (j == R->r)
			c->link_time[j] = US; /* the local copy */
		else if (comm_slow(G, R->r, j))
			c->link_time[j] = u->xfer * permille * 10 / 3000;
		else
			c->link_time[j] = u->xfer * permille / 1000;
		if (j != R->r)
			c->hccs_time += c->link_time[j];
	}
}

static void comm_bw_zero(struct sbuf *b, const char *name, bool comma)
{
	sb_fmt(b, "%s\"%s\": {\"Transit Size(MB)\": 0, \"Transit Time(ms)\": 0, \"Bandwidth(GB/s)\": 0, "
	          "\"Large Packet Ratio\": 0, \"Size Distribution\": {}}",
	       comma ? ", " : "", name);
}

static void comm_bw(struct sbuf *b, const char *name, int64_t bytes, int64_t time_ns, int64_t pkt_bytes,
		    int64_t pkts)
{
	sb_fmt(b, ", \"%s\": {\"Transit Size(MB)\": ", name);
	sb_e6(b, bytes);
	sb_str(b, ", \"Transit Time(ms)\": ");
	sb_e6(b, time_ns);
	sb_fmt(b, ", \"Bandwidth(GB/s)\": %.4f, \"Large Packet Ratio\": 0.0, \"Size Distribution\": {",
	       time_ns ? (double)bytes / (double)time_ns : 0.0);
	if (pkts) {
		sb_chr(b, '"');
		sb_e6(b, pkt_bytes);
		sb_fmt(b, "\": [%" PRId64 ", ", pkts);
		sb_e6(b, time_ns);
		sb_chr(b, ']');
	}
	sb_str(b, "}}");
}

/* An entry: its time info (the start is omitted for "Total Op Info") and bandwidth info. */
static void comm_entry(struct sbuf *b, const char *key, bool first, int64_t start, const int64_t t[5],
		       int64_t bytes, int64_t hccs_time, int64_t pkt_bytes, int64_t pkts)
{
	static const char *const names[5] = {"Elapse", "Transit", "Wait", "Synchronization", "Idle"};
	sb_fmt(b, "%s\"%s\": {\"Communication Time Info\": {", first ? "" : ", ", key);
	if (start >= 0) {
		char us[32];
		fmt_us3(us, start);
		sb_fmt(b, "\"Start Timestamp(us)\": %s, ", us);
	}
	for (int k = 0; k < 5; k++) {
		sb_fmt(b, "\"%s Time(ms)\": ", names[k]);
		sb_e6(b, t[k]);
		sb_str(b, ", ");
	}
	double w = t[1] + t[2] ? (double)t[2] / (double)(t[1] + t[2]) : 0;
	double y = t[1] + t[3] ? (double)t[3] / (double)(t[1] + t[3]) : 0;
	sb_fmt(b, "\"Wait Time Ratio\": %.4f, \"Synchronization Time Ratio\": %.4f}, ", w, y);
	sb_str(b, "\"Communication Bandwidth Info\": {");
	comm_bw_zero(b, "RDMA", false);
	comm_bw(b, "HCCS", bytes, hccs_time, pkt_bytes, pkts);
	comm_bw_zero(b, "PCIE", true);
	comm_bw(b, "SDMA", bytes, hccs_time, 0, 0);
	comm_bw_zero(b, "SIO", true);
	sb_str(b, "}}");
}

static void comm_link(struct sbuf *b, int src, int dst, int64_t bytes, int64_t time_ns, const char *op, bool first)
{
	sb_fmt(b, "%s\"%d-%d\": {\"Transport Type\": \"%s\", \"Transit Size(MB)\": ", first ? "" : ", ", src, dst,
	       src == dst ? "LOCAL" : "HCCS");
	sb_e6(b, bytes);
	sb_str(b, ", \"Transit Time(ms)\": ");
	sb_e6(b, time_ns);
	sb_fmt(b, ", \"Bandwidth(GB/s)\": %.4f, \"Op Name\": \"%s\"}", time_ns ? (double)bytes / (double)time_ns : 0.0,
	       op);
}

static void write_comm(const struct gen *G, const struct rank_model *R, const char *od, struct comm_truth *ct)
{
	int n = G->o->ranks;
	uint64_t gid = comm_group_id(G);
	struct sbuf cj = {0}, mj = {0};
	struct comm_coll *cc = xcalloc(64, sizeof *cc);
	size_t cap = 64;
	sb_chr(&cj, '{');
	sb_chr(&mj, '{');
	for (int k = 0; k < R->nst; k++) {
		const struct step *st = &R->st[k];
		struct rng rr;
		rng_init(&rr, G->o->seed, 'C', (uint64_t)R->r, (uint64_t)k);
		size_t nc = 0;
		for (size_t i = 0; i < st->nu; i++) {
			const struct unit *u = &R->u[st->u0 + i];
			if (kinds[u->kind].dc != DC_COMM)
				continue;
			if (nc == cap) {
				cap *= 2;
				cc = xrealloc(cc, cap * sizeof *cc);
			}
			comm_coll(G, R, st, u, &rr, &cc[nc++]);
		}
		sb_fmt(&cj, "%s\"step%d\": {\"p2p\": {}, \"collective\": {", k ? ", " : "", k + 1);
		int64_t tot[5] = {0}, tot_bytes = 0, tot_time = 0;
		size_t longest = 0;
		for (size_t i = 0; i < nc; i++) {
			const struct comm_coll *c = &cc[i];
			int64_t t[5] = {c->elapse, c->transit, c->wait, c->wait, 0};
			int64_t bytes = c->peer_bytes * (n - 1);
			char key[96];
			coll_name(key, sizeof key, G, c->u);
			snprintf(key + strlen(key), sizeof key - strlen(key), "@%" PRIu64, gid);
			comm_entry(&cj, key, i == 0, c->a, t, bytes, c->hccs_time, c->peer_bytes, n - 1);
			for (int x = 0; x < 5; x++) {
				tot[x] += t[x];
				ct->t[x] += t[x];
			}
			tot_bytes += bytes;
			tot_time += c->hccs_time;
			ct->ops++;
			ct->hccs_bytes += bytes;
			ct->hccs_time += c->hccs_time;
			ct->packets += n - 1;
			ct->small_packets += c->peer_bytes < MS ? n - 1 : 0;
			if (c->elapse > cc[longest].elapse)
				longest = i;
		}
		if (nc)
			comm_entry(&cj, "Total Op Info", false, -1, tot, tot_bytes, tot_time, 0, 0);
		sb_str(&cj, "}}");
		/* the matrix: the longest collective's links (a pick, never added) and the step's sum */
		sb_fmt(&mj, "%s\"step%d\": {\"p2p\": {}, \"collective\": {", k ? ", " : "", k + 1);
		if (nc) {
			char op[64];
			coll_name(op, sizeof op, G, cc[longest].u);
			const char *type = cc[longest].u->kind == K_ALLTOALL ? "alltoallv" : "allreduce";
			sb_fmt(&mj, "\"%s-top1@%" PRIu64 "\": {", type, gid);
			for (int j = 0; j < n; j++)
				comm_link(&mj, R->r, j, cc[longest].peer_bytes, cc[longest].link_time[j], op, j == 0);
			sb_fmt(&mj, "}, \"%s-total@%" PRIu64 "\": {", type, gid);
			for (int j = 0; j < n; j++) {
				int64_t bytes = 0, time = 0;
				for (size_t i = 0; i < nc; i++) {
					bytes += cc[i].peer_bytes;
					time += cc[i].link_time[j];
				}
				comm_link(&mj, R->r, j, bytes, time, op, j == 0);
				ct->link_bytes[j] += bytes;
				ct->link_time[j] += time;
			}
			sb_chr(&mj, '}');
		}
		sb_str(&mj, "}}");
	}
	sb_chr(&cj, '}');
	sb_chr(&mj, '}');
	char p[4096];
	path_join(p, sizeof p, od, "communication.json");
	write_file(p, cj.p, cj.n);
	path_join(p, sizeof p, od, "communication_matrix.json");
	write_file(p, mj.p, mj.n);
	free(cj.p);
	free(mj.p);
	free(cc);
}

static void truth_comm(struct sbuf *b, const struct gen *G, const struct rank_out *ro)
{
	int n = G->o->ranks;
	sb_fmt(b, "\n# ---- communication files ----\ncomm=1\ncomm.group=%" PRIu64 "\n", comm_group_id(G));
	sb_str(b, n >= 3 ? "comm.slow_link=0-1\n" : "comm.slow_link=none\n");
	sb_fmt(b, "comm.links=%d\n", n * n);
	static const char *const tn[5] = {"elapse", "transit", "wait", "sync", "idle"};
	for (int r = 0; r < n; r++) {
		const struct comm_truth *ct = &ro[r].comm;
		sb_fmt(b, "comm.%d.ops=%" PRId64 "\n", r, ct->ops);
		for (int x = 0; x < 5; x++)
			sb_fmt(b, "comm.%d.%s_ns=%" PRId64 "\n", r, tn[x], ct->t[x]);
		sb_fmt(b, "comm.%d.hccs_bytes=%" PRId64 "\ncomm.%d.hccs_time_ns=%" PRId64 "\n", r, ct->hccs_bytes, r,
		       ct->hccs_time);
		sb_fmt(b, "comm.%d.packets=%" PRId64 "\ncomm.%d.small_packets=%" PRId64 "\n", r, ct->packets, r,
		       ct->small_packets);
		for (int j = 0; j < n; j++)
			if (j != r)
				sb_fmt(b, "comm.link.%d-%d.bytes=%" PRId64 "\ncomm.link.%d-%d.time_ns=%" PRId64 "\n", r, j,
				       ct->link_bytes[j], r, j, ct->link_time[j]);
	}
}

/* --memory: the framework allocator follows the steps. Weights stay allocated; each step
 * allocates its activations at its start (prefill steps six times more) and frees them when
 * the next step starts; the allocator's cache (reserved) grows by 1 GB at the first prefill.
 * GE holds a constant 64/128 MB and the driver adds 1 GB to APP. Sizes are whole MB, so
 * every value prints exactly. */

static int64_t mem_act_mb(const struct step *st, int k) { return st->prefill ? 1536 : 256 + (k % 4) * 32; }

static void mem_row(struct cw *c, const char *comp, int64_t ts, int64_t alloc, int64_t res, bool with_alloc)
{
	cw_raw(c, comp);
	cw_ts(c, ts);
	if (with_alloc)
		cw_i(c, alloc);
	else
		cw_raw(c, "");
	cw_i(c, res);
	if (with_alloc)
		cw_i(c, alloc);
	else
		cw_raw(c, "");
	cw_raw(c, with_alloc ? "187651237648" : "");
	cw_raw(c, "NPU:0");
	cw_eol(c);
}

static void write_memory(const struct gen *G, const struct rank_model *R, const char *od, struct rank_out *ro)
{
	char p[4096];
	struct out out;
	struct cw c;
	path_join(p, sizeof p, od, "memory_record.csv");
	out_open(&out, p, (size_t)1 << 16);
	cw_begin(&c, &out, G->o);
	cw_header(&c, "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),"
		      "Stream Ptr,Device Type");
	int64_t reserved = MEM_CACHE_MB;
	ro->pta_peak_alloc_mb = MEM_WEIGHTS_MB;
	for (int k = 0; k < R->nst; k++) {
		const struct step *st = &R->st[k];
		int64_t ts = st->hs + R->off, end = (k + 1 < R->nst ? R->st[k + 1].hs : R->last_end) + R->off - 1000;
		if (st->prefill)
			reserved = MEM_CACHE_MB + 1024;
		int64_t alloc = MEM_WEIGHTS_MB + mem_act_mb(st, k);
		if (alloc > ro->pta_peak_alloc_mb)
			ro->pta_peak_alloc_mb = alloc;
		mem_row(&c, "APP", ts, 0, reserved + MEM_GE_RES_MB + MEM_DRIVER_MB, false);
		mem_row(&c, "PTA", ts, alloc, reserved, true);
		mem_row(&c, "GE", ts, MEM_GE_ALLOC_MB, MEM_GE_RES_MB, true);
		mem_row(&c, "PTA+GE", ts, alloc + MEM_GE_ALLOC_MB, reserved + MEM_GE_RES_MB, true);
		mem_row(&c, "PTA", end, MEM_WEIGHTS_MB, reserved, true);
		ro->rows_memrec += 5;
	}
	ro->pta_peak_reserved_mb = reserved;
	ro->app_peak_reserved_mb = reserved + MEM_GE_RES_MB + MEM_DRIVER_MB;
	out_close(&out);

	path_join(p, sizeof p, od, "npu_module_mem.csv");
	out_open(&out, p, (size_t)1 << 16);
	cw_begin(&c, &out, G->o);
	cw_header(&c, "Component,Timestamp(us),Total Reserved(MB),Device");
	static const struct { const char *name; int64_t mb; } mods[] = {
		{"APP", MEM_CACHE_MB}, {"HCCL", MEM_HCCL_MB}, {"RUNTIME", 92}, {"DRV", 0}};
	for (int k = 0; k < R->nst; k++)
		for (size_t i = 0; i < sizeof mods / sizeof mods[0]; i++) {
			cw_raw(&c, mods[i].name);
			cw_ts(&c, R->st[k].hs + R->off);
			cw_i(&c, mods[i].mb + (i == 2 ? k % 3 : 0));
			cw_raw(&c, "NPU:0");
			cw_eol(&c);
			ro->rows_modmem++;
		}
	out_close(&out);

	/* one activation block per step; a weight that is never freed; a negative size (a free
	 * recorded as such by some versions), kept as written */
	path_join(p, sizeof p, od, "operator_memory.csv");
	out_open(&out, p, (size_t)1 << 16);
	cw_begin(&c, &out, G->o);
	cw_header(&c, "Name,Size(KB),Allocation Time(us),Release Time(us),Duration(us),Device Type");
	for (int k = 0; k < R->nst; k++) {
		const struct step *st = &R->st[k];
		int64_t a = st->hs + R->off, e = (k + 1 < R->nst ? R->st[k + 1].hs : R->last_end) + R->off - 1000;
		cw_raw(&c, "aten::empty_strided");
		cw_i(&c, mem_act_mb(st, k) * 1024);
		cw_ts(&c, a);
		cw_ts(&c, e);
		cw_us(&c, e - a);
		cw_raw(&c, "NPU:0");
		cw_eol(&c);
		ro->allocs++;
		ro->rows_opmem++;
	}
	int64_t t0 = R->st[0].hs + R->off;
	cw_raw(&c, "aten::mm");
	cw_i(&c, 2048 * 1024);
	cw_ts(&c, t0);
	cw_raw(&c, "");
	cw_raw(&c, "");
	cw_raw(&c, "NPU:0");
	cw_eol(&c);
	cw_raw(&c, "aten::resize_");
	cw_i(&c, -512);
	cw_ts(&c, t0 + 1000);
	cw_raw(&c, "");
	cw_raw(&c, "");
	cw_raw(&c, "NPU:0");
	cw_eol(&c);
	ro->allocs += 2;
	ro->rows_opmem += 2;
	ro->negative = 1;
	ro->never_released = 2;
	out_close(&out);
	free(c.tmp.p);
}

static void write_rank(const struct gen *G, const struct rank_model *R, struct rank_out *ro)
{
	const struct opts *o = G->o;
	char rdir[4096], p[4096], od[4096];
	memset(ro, 0, sizeof *ro);
	path_join(rdir, sizeof rdir, o->out, R->dir);
	mkdir_p(rdir);
	if (!o->no_info) {
		char nm[64];
		snprintf(nm, sizeof nm, "profiler_info_%d.json", R->r);
		path_join(p, sizeof p, rdir, nm);
		write_profiler_info(G, R, p);
	}
	path_join(p, sizeof p, rdir, "profiler_metadata.json");
	write_metadata(G, R, p);
	if (o->raw) {
		write_raw_parts(G, R, rdir);
		return;
	}
	path_join(od, sizeof od, rdir, "ASCEND_PROFILER_OUTPUT");
	mkdir_p(od);
	path_join(p, sizeof p, od, "trace_view.json");
	ro->trace_bytes = write_trace(G, R, p, &ro->t);
	if (o->truncate_at && ro->trace_bytes > (uint64_t)o->truncate_at) {
		if (truncate(p, o->truncate_at) != 0)
			die("truncate %s: %s", p, strerror(errno));
		ro->trace_bytes = (uint64_t)o->truncate_at;
		ro->truncated = true;
	} else {
		/* nothing cut: every element counts */
		ro->t.cut = 0;
	}
	path_join(p, sizeof p, od, "kernel_details.csv");
	ro->rows_kernel = write_kernel_details(G, R, p, &ro->ragged, &ro->excel);
	path_join(p, sizeof p, od, "operator_details.csv");
	ro->rows_oper = write_operator_details(G, R, p);
	path_join(p, sizeof p, od, "op_statistic.csv");
	ro->rows_opstat = write_op_statistic(G, R, p);
	path_join(p, sizeof p, od, "api_statistic.csv");
	ro->rows_api = write_api_statistic(G, R, p);
	if (o->step_trace != ST_NONE) {
		path_join(p, sizeof p, od, "step_trace_time.csv");
		ro->rows_step = write_step_trace(G, R, p);
	}
	if (o->comm)
		write_comm(G, R, od, &ro->comm);
	if (o->memory)
		write_memory(G, R, od, ro);
	if (!o->no_done) {
		path_join(p, sizeof p, od, "analyse.done");
		write_file(p, "", 0);
	}
}

/* ------------------------------------------------------------------------------------------ */
/* --self-check: an independent, generic sweep over the files actually written                */

struct kv {
	char *k, *v;
};

struct kvs {
	struct kv *v;
	size_t n, cap;
};

static void kvs_add(struct kvs *m, const char *k, const char *v)
{
	grow((void **)&m->v, &m->cap, m->n + 1, sizeof *m->v);
	m->v[m->n].k = xstrdup(k);
	m->v[m->n].v = xstrdup(v);
	m->n++;
}

static void kvs_addi(struct kvs *m, const char *k, int64_t v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%" PRId64, v);
	kvs_add(m, k, buf);
}

static int kv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kv *)a)->k, ((const struct kv *)b)->k);
}

static const char *kvs_get(const struct kvs *m, const char *k)
{
	struct kv key = {(char *)k, NULL};
	const struct kv *hit = bsearch(&key, m->v, m->n, sizeof *m->v, kv_cmp);
	return hit ? hit->v : NULL;
}

static void kvs_free(struct kvs *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].k);
		free(m->v[i].v);
	}
	free(m->v);
	memset(m, 0, sizeof *m);
}

struct chk {
	int errors;
	int64_t verified;
};

static void chk_fail(struct chk *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void chk_fail(struct chk *c, const char *fmt, ...)
{
	if (c->errors++ < 60) {
		va_list ap;
		va_start(ap, fmt);
		fprintf(stderr, "self-check: ");
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
}

struct mapped {
	const char *p;
	size_t n;
	bool ok;
};

static struct mapped map_file(const char *path)
{
	struct mapped m = {NULL, 0, false};
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return m;
	struct stat sb;
	if (fstat(fd, &sb) != 0) {
		close(fd);
		return m;
	}
	m.n = (size_t)sb.st_size;
	m.ok = true;
	if (m.n) {
		void *p = mmap(NULL, m.n, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			die("mmap %s: %s", path, strerror(errno));
		m.p = p;
	} else {
		m.p = "";
	}
	close(fd);
	return m;
}

static void unmap_file(struct mapped *m)
{
	if (m->ok && m->n)
		munmap((void *)m->p, m->n);
	m->ok = false;
}

/* --- a small strict JSON reader --- */

struct jp {
	const char *p, *e;
};

static void jws(struct jp *j)
{
	while (j->p < j->e && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static bool jlit(struct jp *j, char c)
{
	jws(j);
	if (j->p < j->e && *j->p == c) {
		j->p++;
		return true;
	}
	return false;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static bool jhex4(struct jp *j, unsigned *v)
{
	if (j->e - j->p < 4)
		return false;
	*v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval(j->p[i]);
		if (h < 0)
			return false;
		*v = *v * 16 + (unsigned)h;
	}
	j->p += 4;
	return true;
}

static void put_utf8(struct sbuf *b, unsigned cp)
{
	char u[4];
	size_t n;
	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 63));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | (cp >> 6 & 63));
		u[2] = (char)(0x80 | (cp & 63));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | cp >> 18);
		u[1] = (char)(0x80 | (cp >> 12 & 63));
		u[2] = (char)(0x80 | (cp >> 6 & 63));
		u[3] = (char)(0x80 | (cp & 63));
		n = 4;
	}
	sb_add(b, u, n);
}

/* A string; decoded into out when out is not NULL. */
static bool jstr(struct jp *j, struct sbuf *out)
{
	jws(j);
	if (j->p >= j->e || *j->p != '"')
		return false;
	j->p++;
	if (out)
		sb_clear(out);
	for (;;) {
		const char *run = j->p;
		while (j->p < j->e && *j->p != '"' && *j->p != '\\' && (unsigned char)*j->p >= 0x20)
			j->p++;
		if (out && j->p > run)
			sb_add(out, run, (size_t)(j->p - run));
		if (j->p >= j->e || (unsigned char)*j->p < 0x20)
			return false;
		if (*j->p == '"') {
			j->p++;
			if (out && !out->p)
				sb_str(out, "");
			return true;
		}
		j->p++; /* backslash */
		if (j->p >= j->e)
			return false;
		char c = *j->p++;
		unsigned cp;
		switch (c) {
		case '"': cp = '"'; break;
		case '\\': cp = '\\'; break;
		case '/': cp = '/'; break;
		case 'b': cp = '\b'; break;
		case 'f': cp = '\f'; break;
		case 'n': cp = '\n'; break;
		case 'r': cp = '\r'; break;
		case 't': cp = '\t'; break;
		case 'u':
			if (!jhex4(j, &cp))
				return false;
			if (cp >= 0xd800 && cp < 0xdc00) {
				unsigned lo;
				if (j->e - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u')
					return false;
				j->p += 2;
				if (!jhex4(j, &lo) || lo < 0xdc00 || lo >= 0xe000)
					return false;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			break;
		default: return false;
		}
		if (out)
			put_utf8(out, cp);
	}
}

static bool jnum(struct jp *j, char *buf, size_t n)
{
	jws(j);
	const char *s = j->p;
	if (j->p < j->e && *j->p == '-')
		j->p++;
	const char *d = j->p;
	while (j->p < j->e && *j->p >= '0' && *j->p <= '9')
		j->p++;
	if (j->p == d)
		return false;
	if (j->p < j->e && *j->p == '.') {
		j->p++;
		const char *f = j->p;
		while (j->p < j->e && *j->p >= '0' && *j->p <= '9')
			j->p++;
		if (j->p == f)
			return false;
	}
	if (j->p < j->e && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->e && (*j->p == '+' || *j->p == '-'))
			j->p++;
		const char *x = j->p;
		while (j->p < j->e && *j->p >= '0' && *j->p <= '9')
			j->p++;
		if (j->p == x)
			return false;
	}
	if (buf) {
		size_t l = (size_t)(j->p - s);
		if (l >= n)
			return false;
		memcpy(buf, s, l);
		buf[l] = 0;
	}
	return true;
}

static bool jskip(struct jp *j, int depth)
{
	if (depth > 64)
		return false;
	jws(j);
	if (j->p >= j->e)
		return false;
	char c = *j->p;
	if (c == '"')
		return jstr(j, NULL);
	if (c == '{' || c == '[') {
		char close = c == '{' ? '}' : ']';
		j->p++;
		if (jlit(j, close))
			return true;
		for (;;) {
			if (c == '{') {
				if (!jstr(j, NULL) || !jlit(j, ':'))
					return false;
			}
			if (!jskip(j, depth + 1))
				return false;
			if (jlit(j, ','))
				continue;
			return jlit(j, close);
		}
	}
	static const char *const lits[] = {"true", "false", "null"};
	for (int i = 0; i < 3; i++) {
		size_t l = strlen(lits[i]);
		if ((size_t)(j->e - j->p) >= l && !memcmp(j->p, lits[i], l)) {
			j->p += l;
			return true;
		}
	}
	return jnum(j, NULL, 0);
}

/* --- trace events as the sweep sees them --- */

enum { CAT_NONE, CAT_CPU_OP, CAT_PYFUNC, CAT_OTHER };
enum { TT_NONE, TT_COMPUTE, TT_WAIT, TT_OTHER };

struct xe {
	int64_t ts, end, pid, tid;
	uint32_t name;
	uint8_t cat, tt;
};

struct names {
	char **s;
	size_t n, cap;
	uint32_t *h; /* open addressing: index + 1, 0 empty */
	size_t hcap;
};

static uint64_t hash_str(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static uint32_t intern(struct names *t, const char *s, size_t n)
{
	if (t->n * 2 >= t->hcap) {
		size_t nc = t->hcap ? t->hcap * 2 : 1024;
		uint32_t *nh = xcalloc(nc, sizeof *nh);
		for (size_t i = 0; i < t->n; i++) {
			size_t k = hash_str(t->s[i], strlen(t->s[i])) & (nc - 1);
			while (nh[k])
				k = (k + 1) & (nc - 1);
			nh[k] = (uint32_t)i + 1;
		}
		free(t->h);
		t->h = nh;
		t->hcap = nc;
	}
	size_t k = hash_str(s, n) & (t->hcap - 1);
	while (t->h[k]) {
		const char *c = t->s[t->h[k] - 1];
		if (strlen(c) == n && !memcmp(c, s, n))
			return t->h[k] - 1;
		k = (k + 1) & (t->hcap - 1);
	}
	grow((void **)&t->s, &t->cap, t->n + 1, sizeof *t->s);
	char *c = xmalloc(n + 1);
	memcpy(c, s, n);
	c[n] = 0;
	t->s[t->n] = c;
	t->h[k] = (uint32_t)t->n + 1;
	return (uint32_t)t->n++;
}

struct named_id {
	int64_t pid, tid;
	uint32_t name;
};

struct trace_view {
	int64_t n_ph[PH_COUNT], other_ph;
	struct xe *x;
	size_t nx, xcap;
	struct named_id *pn, *tn; /* process_name / thread_name */
	size_t npn, pncap, ntn, tncap;
	struct names names;
	bool complete; /* parsed to the end as valid JSON */
};

static void tv_free(struct trace_view *tv)
{
	free(tv->x);
	free(tv->pn);
	free(tv->tn);
	for (size_t i = 0; i < tv->names.n; i++)
		free(tv->names.s[i]);
	free(tv->names.s);
	free(tv->names.h);
}

static bool dec_ns(const char *s, int64_t *out)
{
	return parse_scaled(s, 3, out);
}

/* One trace element; false when it is malformed or incomplete. */
static bool parse_element(struct jp *j, struct trace_view *tv, struct sbuf *key, struct sbuf *val,
                          struct sbuf *aname, struct sbuf *ttype)
{
	if (!jlit(j, '{'))
		return false;
	char ph = 0;
	uint32_t name = UINT32_MAX;
	uint8_t cat = CAT_NONE, tt = TT_NONE;
	int64_t pid = 0, tid = 0, ts = 0, dur = 0;
	bool has_ts = false, has_dur = false, has_aname = false;
	char num[64];
	if (!jlit(j, '}')) {
		for (;;) {
			if (!jstr(j, key) || !jlit(j, ':'))
				return false;
			const char *k = key->p;
			if (!strcmp(k, "ph")) {
				if (!jstr(j, val) || val->n != 1)
					return false;
				ph = val->p[0];
			} else if (!strcmp(k, "name") || !strcmp(k, "processName")) {
				if (!jstr(j, val))
					return false;
				name = intern(&tv->names, val->p, val->n);
			} else if (!strcmp(k, "cat")) {
				if (!jstr(j, val))
					return false;
				cat = !strcmp(val->p, "cpu_op")            ? CAT_CPU_OP
				      : !strcmp(val->p, "python_function") ? CAT_PYFUNC
				                                           : CAT_OTHER;
			} else if (!strcmp(k, "pid") || !strcmp(k, "tid")) {
				int64_t v;
				if (!jnum(j, num, sizeof num) || !parse_i64(num, INT64_MIN, INT64_MAX, &v))
					return false;
				*(k[0] == 'p' ? &pid : &tid) = v;
			} else if (!strcmp(k, "ts")) {
				jws(j);
				if (j->p < j->e && *j->p == '"') {
					if (!jstr(j, val) || val->n >= sizeof num)
						return false;
					memcpy(num, val->p, val->n + 1);
				} else if (!jnum(j, num, sizeof num)) {
					return false;
				}
				if (!dec_ns(num, &ts))
					return false;
				has_ts = true;
			} else if (!strcmp(k, "dur")) {
				if (!jnum(j, num, sizeof num) || !dec_ns(num, &dur))
					return false;
				has_dur = true;
			} else if (!strcmp(k, "args")) {
				if (!jlit(j, '{'))
					return false;
				if (!jlit(j, '}')) {
					for (;;) {
						if (!jstr(j, key) || !jlit(j, ':'))
							return false;
						if (!strcmp(key->p, "name")) {
							if (!jstr(j, aname))
								return false;
							has_aname = true;
						} else if (!strcmp(key->p, "Task Type")) {
							if (!jstr(j, ttype))
								return false;
							tt = !strcmp(ttype->p, "AI_CORE") ||
							                     !strcmp(ttype->p,
							                             "AI_VECTOR_CORE") ||
							                     !strcmp(ttype->p, "MIX_AIC") ||
							                     !strcmp(ttype->p, "MIX_AIV")
							             ? TT_COMPUTE
							     : !strcmp(ttype->p, "Notify Wait") ||
							                     !strcmp(ttype->p,
							                             "EVENT_RECORD_SQE") ||
							                     !strcmp(ttype->p,
							                             "EVENT_WAIT_SQE")
							             ? TT_WAIT
							             : TT_OTHER;
						} else if (!jskip(j, 1)) {
							return false;
						}
						if (jlit(j, ','))
							continue;
						if (!jlit(j, '}'))
							return false;
						break;
					}
				}
			} else if (!jskip(j, 1)) {
				return false;
			}
			if (jlit(j, ','))
				continue;
			if (!jlit(j, '}'))
				return false;
			break;
		}
	}
	switch (ph) {
	case 'X':
		if (!has_ts || !has_dur || name == UINT32_MAX)
			return false;
		grow((void **)&tv->x, &tv->xcap, tv->nx + 1, sizeof *tv->x);
		tv->x[tv->nx++] = (struct xe){ts, ts + dur, pid, tid, name, cat, tt};
		tv->n_ph[PH_X]++;
		break;
	case 'M':
		tv->n_ph[PH_M]++;
		if (has_aname && name != UINT32_MAX) {
			const char *what = tv->names.s[name];
			uint32_t id = intern(&tv->names, aname->p, aname->n);
			if (!strcmp(what, "process_name")) {
				grow((void **)&tv->pn, &tv->pncap, tv->npn + 1, sizeof *tv->pn);
				tv->pn[tv->npn++] = (struct named_id){pid, 0, id};
			} else if (!strcmp(what, "thread_name")) {
				grow((void **)&tv->tn, &tv->tncap, tv->ntn + 1, sizeof *tv->tn);
				tv->tn[tv->ntn++] = (struct named_id){pid, tid, id};
			}
		}
		break;
	case 's': tv->n_ph[PH_S]++; break;
	case 'f': tv->n_ph[PH_F]++; break;
	case 'C': tv->n_ph[PH_C]++; break;
	default: tv->other_ph++; break;
	}
	return true;
}

/* Reads every complete element; tv->complete says whether the whole file was valid JSON. */
static void parse_trace(const char *p, size_t n, struct trace_view *tv)
{
	struct jp j = {p, p + n};
	struct sbuf key = {0}, val = {0}, an = {0}, tt = {0};
	bool wrapper = false, ok = false;
	memset(tv, 0, sizeof *tv);
	if (jlit(&j, '{')) {
		wrapper = true;
		for (;;) { /* members before traceEvents */
			if (!jstr(&j, &key) || !jlit(&j, ':'))
				goto out;
			if (!strcmp(key.p, "traceEvents"))
				break;
			if (!jskip(&j, 1) || !jlit(&j, ','))
				goto out;
		}
	}
	if (!jlit(&j, '['))
		goto out;
	if (!jlit(&j, ']')) {
		for (;;) {
			if (!parse_element(&j, tv, &key, &val, &an, &tt))
				goto out;
			if (jlit(&j, ','))
				continue;
			if (!jlit(&j, ']'))
				goto out;
			break;
		}
	}
	if (wrapper) {
		while (jlit(&j, ',')) {
			if (!jstr(&j, &key) || !jlit(&j, ':') || !jskip(&j, 1))
				goto out;
		}
		if (!jlit(&j, '}'))
			goto out;
	}
	jws(&j);
	ok = j.p == j.e;
out:
	tv->complete = ok;
	free(key.p);
	free(val.p);
	free(an.p);
	free(tt.p);
}

/* --- interval sweeps --- */

static int ivl_cmp(const void *a, const void *b)
{
	const struct ivl *x = a, *y = b;
	return x->s < y->s ? -1 : x->s > y->s ? 1 : (x->e < y->e ? -1 : x->e > y->e);
}

static void sweep_merge(struct ivl_list *l)
{
	if (l->n > 1) /* an empty list has no array (qsort's NULL is undefined) */
		qsort(l->v, l->n, sizeof *l->v, ivl_cmp);
	size_t m = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].e <= l->v[i].s)
			continue;
		if (m && l->v[i].s <= l->v[m - 1].e) {
			if (l->v[i].e > l->v[m - 1].e)
				l->v[m - 1].e = l->v[i].e;
		} else {
			l->v[m++] = l->v[i];
		}
	}
	l->n = m;
}

static void list_push(struct ivl_list *l, int64_t s, int64_t e)
{
	grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v);
	l->v[l->n++] = (struct ivl){s, e};
}

/* a minus b, both merged. */
static void sweep_subtract(const struct ivl_list *a, const struct ivl_list *b, struct ivl_list *out)
{
	size_t j = 0;
	for (size_t i = 0; i < a->n; i++) {
		int64_t s = a->v[i].s, e = a->v[i].e;
		while (j < b->n && b->v[j].e <= s)
			j++;
		size_t k = j;
		while (s < e && k < b->n && b->v[k].s < e) {
			if (b->v[k].s > s)
				list_push(out, s, b->v[k].s);
			s = max64(s, b->v[k].e);
			k++;
		}
		if (s < e)
			list_push(out, s, e);
	}
}

/* Length of a merged list inside [lo, hi). */
static int64_t sweep_clip(const struct ivl_list *l, int64_t lo, int64_t hi)
{
	size_t a = 0, b = l->n;
	while (a < b) {
		size_t m = (a + b) / 2;
		if (l->v[m].e <= lo)
			a = m + 1;
		else
			b = m;
	}
	int64_t t = 0;
	for (size_t i = a; i < l->n && l->v[i].s < hi; i++)
		t += clip_len(l->v[i].s, l->v[i].e, lo, hi);
	return t;
}

static int64_t sweep_total(const struct ivl_list *l)
{
	return ivl_total(l);
}

/* --- CSV reading --- */

struct csvr {
	const char *p, *e;
	int64_t line; /* line of the next record */
};

struct csv_rec {
	struct sbuf *f;
	size_t nf, cap;
	int64_t line;
};

static void rec_field(struct csv_rec *r)
{
	if (r->nf == r->cap) {
		size_t nc = r->cap ? r->cap * 2 : 64;
		r->f = xrealloc(r->f, nc * sizeof *r->f);
		memset(r->f + r->cap, 0, (nc - r->cap) * sizeof *r->f);
		r->cap = nc;
	}
	sb_clear(&r->f[r->nf]);
	if (!r->f[r->nf].p)
		sb_str(&r->f[r->nf], "");
	r->nf++;
}

/* RFC 4180 with CR/LF or LF line ends and quoted cells spanning lines. */
static bool csv_next(struct csvr *c, struct csv_rec *r, bool *bad)
{
	if (c->p >= c->e)
		return false;
	r->nf = 0;
	r->line = c->line;
	rec_field(r);
	for (;;) {
		struct sbuf *f = &r->f[r->nf - 1];
		if (c->p < c->e && *c->p == '"') {
			c->p++;
			for (;;) {
				if (c->p >= c->e) {
					*bad = true;
					return true;
				}
				if (*c->p == '"') {
					if (c->p + 1 < c->e && c->p[1] == '"') {
						sb_chr(f, '"');
						c->p += 2;
						continue;
					}
					c->p++;
					break;
				}
				if (*c->p == '\n')
					c->line++;
				sb_chr(f, *c->p++);
			}
		}
		const char *s = c->p;
		while (c->p < c->e && *c->p != ',' && *c->p != '\n' && *c->p != '\r')
			c->p++;
		sb_add(f, s, (size_t)(c->p - s));
		if (c->p >= c->e)
			return true;
		if (*c->p == ',') {
			c->p++;
			rec_field(r);
			continue;
		}
		if (*c->p == '\r') {
			c->p++;
			if (c->p >= c->e || *c->p != '\n') {
				*bad = true;
				return true;
			}
		}
		c->p++;
		c->line++;
		return true;
	}
}

static void rec_free(struct csv_rec *r)
{
	for (size_t i = 0; i < r->cap; i++)
		free(r->f[i].p);
	free(r->f);
}

struct csv_file {
	struct mapped m;
	struct csvr rd;
	struct csv_rec hdr, rec;
	bool present;
};

static bool csv_open(struct csv_file *cf, const char *path, struct chk *c)
{
	memset(cf, 0, sizeof *cf);
	cf->m = map_file(path);
	if (!cf->m.ok)
		return false;
	cf->present = true;
	const char *p = cf->m.p;
	size_t n = cf->m.n;
	if (n >= 3 && !memcmp(p, "\xef\xbb\xbf", 3)) {
		p += 3;
		n -= 3;
	}
	cf->rd = (struct csvr){p, p + n, 1};
	bool bad = false;
	if (!csv_next(&cf->rd, &cf->hdr, &bad) || bad) {
		chk_fail(c, "%s: no header", path);
		return false;
	}
	return true;
}

static void csv_close(struct csv_file *cf)
{
	unmap_file(&cf->m);
	rec_free(&cf->hdr);
	rec_free(&cf->rec);
}

static int csv_col(const struct csv_file *cf, const char *name)
{
	for (size_t i = 0; i < cf->hdr.nf; i++)
		if (!strcmp(cf->hdr.f[i].p, name))
			return (int)i;
	return -1;
}

static bool valid_utf8(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t l = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
		if (!l || i + l > n)
			return false;
		for (size_t k = 1; k < l; k++)
			if (((unsigned char)s[i + k] >> 6) != 2)
				return false;
		i += l;
	}
	return true;
}

/* A CSV text cell as UTF-8: GBK cells (never valid UTF-8 here) are decoded. */
static const char *cell_utf8(const struct sbuf *f, struct sbuf *tmp)
{
	if (valid_utf8(f->p, f->n))
		return f->p;
	from_gbk(tmp, f->p, f->n);
	return tmp->p;
}

static void strip_tab(char *s)
{
	size_t n = strlen(s);
	while (n && s[n - 1] == '\t')
		s[--n] = 0;
}

static bool excel_like(const char *s)
{
	/* d.dddddE+dd */
	if (strlen(s) != 11)
		return false;
	for (int i = 0; i < 11; i++) {
		char c = s[i];
		bool ok = i == 1 ? c == '.' : i == 7 ? c == 'E' : i == 8 ? c == '+' : (c >= '0' && c <= '9');
		if (!ok)
			return false;
	}
	return true;
}

static bool in_list(const char *list, int64_t v)
{
	if (!list)
		return false;
	for (const char *p = list; *p;) {
		char *end;
		long long x = strtoll(p, &end, 10);
		if (end == p)
			return false;
		if (x == v)
			return true;
		p = *end == ',' ? end + 1 : end;
	}
	return false;
}

static int64_t list_count(const char *list)
{
	if (!list || !*list)
		return 0;
	int64_t n = 1;
	for (const char *p = list; *p; p++)
		n += *p == ',';
	return n;
}

static int i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static bool i64_find(const int64_t *v, size_t n, int64_t x)
{
	return bsearch(&x, v, n, sizeof *v, i64_cmp) != NULL;
}

/* Count of sorted values in [lo, hi). */
static int64_t i64_count(const int64_t *v, size_t n, int64_t lo, int64_t hi)
{
	size_t a = 0, b = n;
	while (a < b) {
		size_t m = (a + b) / 2;
		if (v[m] < lo)
			a = m + 1;
		else
			b = m;
	}
	size_t s = a;
	b = n;
	while (a < b) {
		size_t m = (a + b) / 2;
		if (v[m] < hi)
			a = m + 1;
		else
			b = m;
	}
	return (int64_t)(a - s);
}

/* --- per-rank sweep --- */

struct lane_acc {
	int64_t pid, tid, nx;
	int64_t tname; /* name id or -1 */
};

struct sweep {
	struct ivl_list comp, comm, busy, host, cc, expo;
	int64_t first, last;
	bool have_x;
	struct ivl *steps; /* windows: [s, next s) */
	size_t nsteps;
	int64_t *devts; /* ts of Ascend Hardware and HCCL X events, sorted (CSV cross-check) */
	size_t ndevts;
	int64_t cpu_ops, cann_x;
};

static void sweep_free(struct sweep *s)
{
	free(s->comp.v);
	free(s->comm.v);
	free(s->busy.v);
	free(s->host.v);
	free(s->cc.v);
	free(s->expo.v);
	free(s->steps);
	free(s->devts);
}

static int64_t window_end(const struct sweep *s, size_t k)
{
	return k + 1 < s->nsteps ? s->steps[k + 1].s : s->last + 1;
}

/* The --memory files, read back: row counts, peaks by component, allocation counts. */
static void check_memory(struct chk *c, struct kvs *got, int r, const char *od)
{
	char path[4096], key[512];
	struct csv_file cf;
	bool bad = false;
	path_join(path, sizeof path, od, "memory_record.csv");
	if (!csv_open(&cf, path, c))
		return; /* not asked for: no truth keys to match */
	int comp = csv_col(&cf, "Component"), al = csv_col(&cf, "Total Allocated(MB)"),
	    re = csv_col(&cf, "Total Reserved(MB)");
	int64_t rows = 0, pta_a = 0, pta_r = 0, app_r = 0, v;
	while (csv_next(&cf.rd, &cf.rec, &bad)) {
		rows++;
		const char *cp = cf.rec.f[comp].p;
		if (!strcmp(cp, "PTA") && parse_i64(cf.rec.f[al].p, 0, INT64_MAX, &v) && v > pta_a)
			pta_a = v;
		if (!strcmp(cp, "PTA") && parse_i64(cf.rec.f[re].p, 0, INT64_MAX, &v) && v > pta_r)
			pta_r = v;
		if (!strcmp(cp, "APP") && parse_i64(cf.rec.f[re].p, 0, INT64_MAX, &v) && v > app_r)
			app_r = v;
	}
	csv_close(&cf);
	static const char *const names[] = {"csv.memory_record.rows", "mem.pta_peak_allocated_mb",
					    "mem.pta_peak_reserved_mb", "mem.app_peak_reserved_mb"};
	int64_t vals[] = {rows, pta_a, pta_r, app_r};
	for (int i = 0; i < 4; i++) {
		snprintf(key, sizeof key, "rank.%d.%s", r, names[i]);
		kvs_addi(got, key, vals[i]);
	}
	path_join(path, sizeof path, od, "npu_module_mem.csv");
	if (csv_open(&cf, path, c)) {
		int mc = csv_col(&cf, "Component"), mr = csv_col(&cf, "Total Reserved(MB)");
		int64_t mrows = 0, hccl = 0;
		while (csv_next(&cf.rd, &cf.rec, &bad)) {
			mrows++;
			if (!strcmp(cf.rec.f[mc].p, "HCCL") && parse_i64(cf.rec.f[mr].p, 0, INT64_MAX, &v) && v > hccl)
				hccl = v;
		}
		csv_close(&cf);
		snprintf(key, sizeof key, "rank.%d.csv.npu_module_mem.rows", r);
		kvs_addi(got, key, mrows);
		snprintf(key, sizeof key, "rank.%d.mem.hccl_peak_reserved_mb", r);
		kvs_addi(got, key, hccl);
	} else {
		chk_fail(c, "%s missing", path);
	}
	path_join(path, sizeof path, od, "operator_memory.csv");
	if (csv_open(&cf, path, c)) {
		int sz = csv_col(&cf, "Size(KB)"), rel = csv_col(&cf, "Release Time(us)");
		int64_t orows = 0, allocs = 0, neg = 0, open_ = 0;
		while (csv_next(&cf.rd, &cf.rec, &bad)) {
			orows++;
			if (!parse_i64(cf.rec.f[sz].p, INT64_MIN, INT64_MAX, &v))
				continue;
			allocs++;
			neg += v < 0;
			open_ += cf.rec.f[rel].p[0] == '\0';
		}
		csv_close(&cf);
		static const char *const onames[] = {"csv.operator_memory.rows", "mem.allocs", "mem.negative_sizes",
						     "mem.never_released"};
		int64_t ovals[] = {orows, allocs, neg, open_};
		for (int i = 0; i < 4; i++) {
			snprintf(key, sizeof key, "rank.%d.%s", r, onames[i]);
			kvs_addi(got, key, ovals[i]);
		}
	} else {
		chk_fail(c, "%s missing", path);
	}
}

static void check_csvs(struct chk *c, const struct kvs *truth, struct kvs *got, int r, const char *od,
                       const struct sweep *sw, bool trace_ok)
{
	char path[4096], key[512], pre[32];
	snprintf(pre, sizeof pre, "rank.%d.", r);
	struct sbuf tmp = {0};
	bool bad = false;
	/* kernel_details.csv */
	struct csv_file cf;
	path_join(path, sizeof path, od, "kernel_details.csv");
	snprintf(key, sizeof key, "%skernel_details.ragged_lines", pre);
	const char *ragged = kvs_get(truth, key);
	snprintf(key, sizeof key, "%skernel_details.excel_lines", pre);
	const char *excel = kvs_get(truth, key);
	struct agg *types = NULL;
	size_t ntypes = 0, tcap = 0;
	char **tnames = NULL;
	if (csv_open(&cf, path, c)) {
		int cst = csv_col(&cf, "Start Time(us)"), cdu = csv_col(&cf, "Duration(us)"),
		    cty = csv_col(&cf, "Type");
		if (cst < 0 || cdu < 0 || cty < 0)
			chk_fail(c, "%s: missing columns", path);
		int64_t rows = 0, nrag = 0, nexc = 0;
		while (cst >= 0 && cdu >= 0 && cty >= 0 && csv_next(&cf.rd, &cf.rec, &bad)) {
			rows++;
			int64_t ln = cf.rec.line;
			bool is_rag = in_list(ragged, ln), is_exc = in_list(excel, ln);
			size_t want = cf.hdr.nf - (is_rag ? 1 : 0);
			if (cf.rec.nf != want) {
				chk_fail(c, "%s line %" PRId64 ": %zu fields, expected %zu", path, ln,
				         cf.rec.nf, want);
				continue;
			}
			nrag += is_rag;
			char *st = cf.rec.f[cst].p;
			strip_tab(st);
			if (is_exc) {
				nexc++;
				if (!excel_like(st))
					chk_fail(c, "%s line %" PRId64 ": '%s' is not Excel-mangled", path,
					         ln, st);
			} else {
				int64_t ns;
				char again[32];
				if (!dec_ns(st, &ns) || (fmt_us3(again, ns), strcmp(again, st)))
					chk_fail(c, "%s line %" PRId64 ": bad Start Time '%s'", path, ln, st);
				else if (trace_ok && !i64_find(sw->devts, sw->ndevts, ns))
					chk_fail(c,
					         "%s line %" PRId64
					         ": Start Time %s matches no device event ts",
					         path, ln, st);
			}
			int64_t d;
			if (!dec_ns(cf.rec.f[cdu].p, &d)) {
				chk_fail(c, "%s line %" PRId64 ": bad Duration", path, ln);
				continue;
			}
			const char *ty = cell_utf8(&cf.rec.f[cty], &tmp);
			size_t t;
			for (t = 0; t < ntypes && strcmp(tnames[t], ty); t++)
				;
			if (t == ntypes) {
				tnames = xrealloc(tnames, (ntypes + 1) * sizeof *tnames);
				tnames[ntypes] = xstrdup(ty);
				agg_find(&types, &ntypes, &tcap, tnames[ntypes], "");
			}
			agg_add(&types[t], d);
		}
		if (bad)
			chk_fail(c, "%s: malformed CSV", path);
		if (nrag != list_count(ragged) || nexc != list_count(excel))
			chk_fail(c,
			         "%s: found %" PRId64 " ragged / %" PRId64
			         " excel rows, ground truth lists %" PRId64 " / %" PRId64,
			         path, nrag, nexc, list_count(ragged), list_count(excel));
		snprintf(key, sizeof key, "%scsv.kernel_details.rows", pre);
		kvs_addi(got, key, rows);
		for (size_t t = 0; t < ntypes; t++) {
			snprintf(key, sizeof key, "optype.%d.%s.count", r, tnames[t]);
			kvs_addi(got, key, types[t].n);
			snprintf(key, sizeof key, "optype.%d.%s.total_ns", r, tnames[t]);
			kvs_addi(got, key, types[t].total);
		}
		csv_close(&cf);
	} else {
		chk_fail(c, "%s missing", path);
	}
	/* operator_details.csv: one row per cpu_op instance */
	path_join(path, sizeof path, od, "operator_details.csv");
	if (csv_open(&cf, path, c)) {
		int64_t rows = 0;
		while (csv_next(&cf.rd, &cf.rec, &bad)) {
			rows++;
			if (cf.rec.nf != cf.hdr.nf || cf.hdr.nf != 9)
				chk_fail(c, "%s line %" PRId64 ": %zu fields", path, cf.rec.line, cf.rec.nf);
		}
		if (bad)
			chk_fail(c, "%s: malformed CSV", path);
		snprintf(key, sizeof key, "%scsv.operator_details.rows", pre);
		kvs_addi(got, key, rows);
		if (trace_ok && rows != sw->cpu_ops)
			chk_fail(c, "%s: %" PRId64 " rows but the trace has %" PRId64 " cpu_op events", path,
			         rows, sw->cpu_ops);
		csv_close(&cf);
	} else {
		chk_fail(c, "%s missing", path);
	}
	/* op_statistic.csv: must agree with kernel_details.csv */
	path_join(path, sizeof path, od, "op_statistic.csv");
	if (csv_open(&cf, path, c)) {
		int64_t rows = 0;
		while (csv_next(&cf.rd, &cf.rec, &bad)) {
			rows++;
			if (cf.rec.nf != 8 || cf.hdr.nf != 8) {
				chk_fail(c, "%s line %" PRId64 ": %zu fields", path, cf.rec.line, cf.rec.nf);
				continue;
			}
			const char *ty = cell_utf8(&cf.rec.f[0], &tmp);
			int64_t cnt, tot;
			size_t t;
			for (t = 0; t < ntypes && strcmp(tnames[t], ty); t++)
				;
			if (t == ntypes || !parse_i64(cf.rec.f[2].p, 0, INT64_MAX, &cnt) ||
			    !dec_ns(cf.rec.f[3].p, &tot) || cnt != types[t].n || tot != types[t].total)
				chk_fail(c, "%s line %" PRId64 ": %s disagrees with kernel_details.csv", path,
				         cf.rec.line, ty);
		}
		if (rows != (int64_t)ntypes)
			chk_fail(c, "%s: %" PRId64 " rows for %zu kernel types", path, rows, ntypes);
		snprintf(key, sizeof key, "%scsv.op_statistic.rows", pre);
		kvs_addi(got, key, rows);
		csv_close(&cf);
	} else {
		chk_fail(c, "%s missing", path);
	}
	/* api_statistic.csv: counts add up to the CANN events */
	path_join(path, sizeof path, od, "api_statistic.csv");
	if (csv_open(&cf, path, c)) {
		int64_t rows = 0, calls = 0;
		while (csv_next(&cf.rd, &cf.rec, &bad)) {
			rows++;
			int64_t cnt;
			if (cf.rec.nf != 8 || !parse_i64(cf.rec.f[3].p, 1, INT64_MAX, &cnt))
				chk_fail(c, "%s line %" PRId64 ": bad row", path, cf.rec.line);
			else
				calls += cnt;
		}
		if (trace_ok && calls != sw->cann_x)
			chk_fail(c, "%s: %" PRId64 " calls but %" PRId64 " CANN events", path, calls,
			         sw->cann_x);
		snprintf(key, sizeof key, "%scsv.api_statistic.rows", pre);
		kvs_addi(got, key, rows);
		csv_close(&cf);
	} else {
		chk_fail(c, "%s missing", path);
	}
	/* step_trace_time.csv */
	path_join(path, sizeof path, od, "step_trace_time.csv");
	const char *mode = kvs_get(truth, "step_trace");
	bool want = mode && strcmp(mode, "none");
	if (csv_open(&cf, path, c)) {
		if (!want)
			chk_fail(c, "%s exists although step_trace=none", path);
		int64_t rows = 0;
		while (csv_next(&cf.rd, &cf.rec, &bad)) {
			int64_t v[10];
			bool okrow = cf.rec.nf == 10 && cf.hdr.nf == 10;
			for (int i = 1; okrow && i < 10; i++)
				okrow = dec_ns(cf.rec.f[i].p, &v[i]);
			if (!okrow) {
				chk_fail(c, "%s line %" PRId64 ": bad row", path, cf.rec.line);
				rows++;
				continue;
			}
			if (trace_ok) {
				int64_t lo = sw->first, hi = sw->last;
				if (!strcmp(mode, "rows")) {
					if ((size_t)rows >= sw->nsteps) {
						chk_fail(c, "%s: more rows than steps", path);
						break;
					}
					lo = sw->steps[rows].s;
					hi = min64(window_end(sw, (size_t)rows), sw->last);
				}
				int64_t comp = sweep_clip(&sw->comp, lo, hi),
				        comm = sweep_clip(&sw->comm, lo, hi);
				int64_t expo = sweep_clip(&sw->expo, lo, hi),
				        cc = sweep_clip(&sw->cc, lo, hi);
				int64_t exp[10] = {0, comp, expo, comm - expo, comm, (hi - lo) - cc, hi - lo,
				                   0, expo, 0};
				for (int i = 1; i < 9; i++)
					if (v[i] != exp[i])
						chk_fail(c,
						         "%s line %" PRId64 " column %s: %" PRId64
						         " ns, sweep says %" PRId64,
						         path, cf.rec.line, cf.hdr.f[i].p, v[i], exp[i]);
			}
			rows++;
		}
		snprintf(key, sizeof key, "%scsv.step_trace_time.rows", pre);
		kvs_addi(got, key, rows);
		csv_close(&cf);
	} else if (want) {
		chk_fail(c, "%s missing", path);
	}
	for (size_t t = 0; t < ntypes; t++)
		free(tnames[t]);
	free(tnames);
	free(types);
	free(tmp.p);
}

static void check_json_file(struct chk *c, const char *path)
{
	struct mapped m = map_file(path);
	if (!m.ok) {
		chk_fail(c, "%s missing", path);
		return;
	}
	struct jp j = {m.p, m.p + m.n};
	if (!jskip(&j, 0) || (jws(&j), j.p != j.e))
		chk_fail(c, "%s is not valid JSON", path);
	unmap_file(&m);
}

static int64_t lookup_name(const struct named_id *v, size_t n, int64_t pid, int64_t tid, bool use_tid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].pid == pid && (!use_tid || v[i].tid == tid))
			return v[i].name;
	return -1;
}

static void check_rank(struct chk *c, const struct kvs *truth, int r, const char *outdir)
{
	char key[512], pre[32], rdir[4096], od[4096], path[4096];
	snprintf(pre, sizeof pre, "rank.%d.", r);
	snprintf(key, sizeof key, "%sdir", pre);
	const char *dir = kvs_get(truth, key);
	if (!dir) {
		chk_fail(c, "ground truth has no %s", key);
		return;
	}
	path_join(rdir, sizeof rdir, outdir, dir);
	snprintf(key, sizeof key, "profiler_info_%d.json", r);
	path_join(path, sizeof path, rdir, key);
	if (access(path, F_OK) == 0)
		check_json_file(c, path);
	path_join(path, sizeof path, rdir, "profiler_metadata.json");
	check_json_file(c, path);
	const char *raw = kvs_get(truth, "raw");
	if (raw && !strcmp(raw, "1")) {
		path_join(path, sizeof path, rdir, "FRAMEWORK");
		path_join(od, sizeof od, rdir, "ASCEND_PROFILER_OUTPUT");
		if (access(path, F_OK) != 0 || access(od, F_OK) == 0)
			chk_fail(c, "%s: raw layout expected", rdir);
		return;
	}
	path_join(od, sizeof od, rdir, "ASCEND_PROFILER_OUTPUT");
	path_join(path, sizeof path, od, "trace_view.json");
	struct mapped m = map_file(path);
	if (!m.ok) {
		chk_fail(c, "%s missing", path);
		return;
	}
	snprintf(key, sizeof key, "%struncated", pre);
	const char *tr = kvs_get(truth, key);
	bool truncated = tr && !strcmp(tr, "1");
	struct trace_view tv;
	parse_trace(m.p, m.n, &tv);
	if (!truncated && !tv.complete)
		chk_fail(c, "%s is not valid JSON (or not a trace)", path);
	if (truncated && tv.complete)
		chk_fail(c, "%s should be cut but parses completely", path);
	if (tv.other_ph)
		chk_fail(c, "%s: %" PRId64 " elements with an unexpected ph", path, tv.other_ph);
	struct kvs got = {0};
	snprintf(key, sizeof key, "%strace_bytes", pre);
	kvs_addi(&got, key, (int64_t)m.n);
	int64_t total = 0;
	for (int p = 0; p < PH_COUNT; p++) {
		snprintf(key, sizeof key, "%sevents.%c", pre, ph_chars[p]);
		kvs_addi(&got, key, tv.n_ph[p]);
		total += tv.n_ph[p];
	}
	snprintf(key, sizeof key, "%sevents.total", pre);
	kvs_addi(&got, key, total + tv.other_ph);

	struct sweep sw;
	memset(&sw, 0, sizeof sw);
	/* lanes: every (pid, tid) with X events or a thread_name, under a named process */
	struct lane_acc *la = NULL;
	size_t nla = 0, lacap = 0, hit = 0;
	for (size_t i = 0; i < tv.nx; i++) {
		const struct xe *x = &tv.x[i];
		if (!sw.have_x || x->ts < sw.first)
			sw.first = x->ts;
		if (!sw.have_x || x->end > sw.last)
			sw.last = x->end;
		sw.have_x = true;
		if (!(hit < nla && la[hit].pid == x->pid && la[hit].tid == x->tid)) {
			for (hit = 0; hit < nla && !(la[hit].pid == x->pid && la[hit].tid == x->tid); hit++)
				;
			if (hit == nla) {
				grow((void **)&la, &lacap, nla + 1, sizeof *la);
				la[nla++] = (struct lane_acc){x->pid, x->tid, 0, -1};
			}
		}
		la[hit].nx++;
	}
	for (size_t i = 0; i < tv.ntn; i++) {
		for (hit = 0; hit < nla && !(la[hit].pid == tv.tn[i].pid && la[hit].tid == tv.tn[i].tid);
		     hit++)
			;
		if (hit == nla) {
			grow((void **)&la, &lacap, nla + 1, sizeof *la);
			la[nla++] = (struct lane_acc){tv.tn[i].pid, tv.tn[i].tid, 0, -1};
		}
		la[hit].tname = tv.tn[i].name;
	}
	for (size_t p = 0; p < tv.npn; p++) {
		const char *pname = tv.names.s[tv.pn[p].name];
		int64_t n = 0;
		for (size_t i = 0; i < nla; i++) {
			if (la[i].pid != tv.pn[p].pid)
				continue;
			n++;
			if (la[i].tname >= 0) {
				snprintf(key, sizeof key, "%slane.%s/%s", pre, pname,
				         tv.names.s[la[i].tname]);
				kvs_addi(&got, key, la[i].nx);
			}
		}
		snprintf(key, sizeof key, "%slanes.%s", pre, pname);
		kvs_addi(&got, key, n);
	}
	free(la);
	if (sw.have_x) {
		snprintf(key, sizeof key, "%sfirst_ts_ns", pre);
		kvs_addi(&got, key, sw.first);
		snprintf(key, sizeof key, "%slast_end_ns", pre);
		kvs_addi(&got, key, sw.last);
		snprintf(key, sizeof key, "%swall_ns", pre);
		kvs_addi(&got, key, sw.last - sw.first);
	}
	bool trace_ok = !truncated && tv.complete;
	if (trace_ok) {
		/* classify by the process / thread names the trace itself declares */
		int64_t copy = 0, ncoll = 0;
		int64_t *cpu_ts = NULL;
		size_t ncpu = 0, cpucap = 0;
		struct agg *ops = NULL;
		size_t nops = 0, opcap = 0;
		const char *marks = kvs_get(truth, "step_marks");
		int64_t last_pid = INT64_MIN;
		const char *pname = "";
		for (size_t i = 0; i < tv.nx; i++) {
			const struct xe *x = &tv.x[i];
			if (x->pid != last_pid) {
				int64_t id = lookup_name(tv.pn, tv.npn, x->pid, 0, false);
				pname = id >= 0 ? tv.names.s[id] : "";
				last_pid = x->pid;
			}
			const char *nm = tv.names.s[x->name];
			if (!strcmp(pname, "Ascend Hardware")) {
				if (x->tt == TT_COMPUTE) {
					list_push(&sw.comp, x->ts, x->end);
					agg_add(agg_find(&ops, &nops, &opcap, nm, ""), x->end - x->ts);
				}
				if (x->tt != TT_WAIT)
					list_push(&sw.busy, x->ts, x->end);
				if (!strcmp(nm, "MEMCPY_ASYNC"))
					copy += x->end - x->ts;
			} else if (!strcmp(pname, "HCCL")) {
				int64_t tn = lookup_name(tv.tn, tv.ntn, x->pid, x->tid, true);
				if (tn >= 0 && !strcmp(tv.names.s[tn], "Group 0 Communication")) {
					list_push(&sw.comm, x->ts, x->end);
					ncoll++;
				}
			} else if (!strcmp(pname, "Python") || !strcmp(pname, "CANN")) {
				list_push(&sw.host, x->ts, x->end);
				sw.cann_x += !strcmp(pname, "CANN");
				bool pstep = x->cat == CAT_CPU_OP && !strncmp(nm, "ProfilerStep#", 13);
				if (x->cat == CAT_CPU_OP && !pstep) {
					grow((void **)&cpu_ts, &cpucap, ncpu + 1, sizeof *cpu_ts);
					cpu_ts[ncpu++] = x->ts;
				}
				size_t nl = strlen(nm);
				bool engine = x->cat == CAT_PYFUNC && nl > 15 &&
				              !strcmp(nm + nl - 15, ": execute_model");
				if ((marks && !strcmp(marks, "engine") && engine) ||
				    (marks && !strcmp(marks, "profilerstep") && pstep)) {
					sw.steps = xrealloc(sw.steps, (sw.nsteps + 1) * sizeof *sw.steps);
					sw.steps[sw.nsteps++] = (struct ivl){x->ts, x->end};
				}
			}
		}
		/* device and HCCL start times, for matching kernel_details.csv rows */
		sw.devts = xmalloc(sizeof *sw.devts * (tv.nx ? tv.nx : 1));
		sw.ndevts = 0;
		last_pid = INT64_MIN;
		for (size_t i = 0; i < tv.nx; i++) {
			const struct xe *x = &tv.x[i];
			if (x->pid != last_pid) {
				int64_t id = lookup_name(tv.pn, tv.npn, x->pid, 0, false);
				pname = id >= 0 ? tv.names.s[id] : "";
				last_pid = x->pid;
			}
			if (!strcmp(pname, "Ascend Hardware") || !strcmp(pname, "HCCL"))
				sw.devts[sw.ndevts++] = x->ts;
		}
		qsort(sw.devts, sw.ndevts, sizeof *sw.devts, i64_cmp);
		qsort(cpu_ts, ncpu, sizeof *cpu_ts, i64_cmp);
		sw.cpu_ops = (int64_t)ncpu;
		if (marks && !strcmp(marks, "none")) {
			/* no markers in the file: take the windows the ground truth states */
			snprintf(key, sizeof key, "%ssteps", pre);
			const char *ns = kvs_get(truth, key);
			int64_t n = 0;
			if (ns)
				parse_i64(ns, 0, INT32_MAX, &n);
			for (int64_t k = 0; k < n; k++) {
				int64_t s = 0, e = 0;
				snprintf(key, sizeof key, "%sstep.%" PRId64 ".start_ns", pre, k);
				const char *vs = kvs_get(truth, key);
				snprintf(key, sizeof key, "%sstep.%" PRId64 ".end_ns", pre, k);
				const char *ve = kvs_get(truth, key);
				if (!vs || !ve || !parse_i64(vs, INT64_MIN, INT64_MAX, &s) ||
				    !parse_i64(ve, INT64_MIN, INT64_MAX, &e)) {
					chk_fail(c,
					         "rank %d: step %" PRId64 " window missing from ground truth",
					         r, k);
					continue;
				}
				sw.steps = xrealloc(sw.steps, (sw.nsteps + 1) * sizeof *sw.steps);
				sw.steps[sw.nsteps++] = (struct ivl){s, e};
			}
		}
		if (sw.nsteps > 1)
			qsort(sw.steps, sw.nsteps, sizeof *sw.steps, ivl_cmp);
		sweep_merge(&sw.comp);
		sweep_merge(&sw.comm);
		sweep_merge(&sw.busy);
		sweep_merge(&sw.host);
		for (size_t i = 0; i < sw.comp.n; i++)
			list_push(&sw.cc, sw.comp.v[i].s, sw.comp.v[i].e);
		for (size_t i = 0; i < sw.comm.n; i++)
			list_push(&sw.cc, sw.comm.v[i].s, sw.comm.v[i].e);
		sweep_merge(&sw.cc);
		sweep_subtract(&sw.comm, &sw.comp, &sw.expo);
		/* occupied: busy or in a collective; idle and host-only are measured against it */
		struct ivl_list occ = {0}, honly = {0};
		for (size_t i = 0; i < sw.busy.n; i++)
			list_push(&occ, sw.busy.v[i].s, sw.busy.v[i].e);
		for (size_t i = 0; i < sw.comm.n; i++)
			list_push(&occ, sw.comm.v[i].s, sw.comm.v[i].e);
		sweep_merge(&occ);
		sweep_subtract(&sw.host, &occ, &honly);
		int64_t comm = sweep_total(&sw.comm), expo = sweep_total(&sw.expo);
		int64_t idle = 0, gaps = 0, prev = sw.first;
		for (size_t i = 0; i <= occ.n; i++) {
			int64_t s = i < occ.n ? occ.v[i].s : sw.last;
			if (s - prev >= IDLE_MIN) {
				idle += s - prev;
				gaps++;
			}
			if (i < occ.n)
				prev = occ.v[i].e;
		}
		struct {
			const char *k;
			int64_t v;
		} vals[] = {
		        {"compute_ns", sweep_total(&sw.comp)},
		        {"copy_ns", copy},
		        {"collectives", ncoll},
		        {"comm_ns", comm},
		        {"comm_overlapped_ns", comm - expo},
		        {"comm_not_overlapped_ns", expo},
		        {"npu_busy_ns", sweep_total(&sw.busy)},
		        {"npu_idle_ns", idle},
		        {"npu_idle_gaps", gaps},
		        {"free_ns", (sw.last - sw.first) - sweep_total(&sw.cc)},
		        {"host_busy_ns", sweep_total(&sw.host)},
		        {"host_only_ns", sweep_total(&honly)},
		        {"edge_idle_ns", occ.n ? (occ.v[0].s - sw.first) + (sw.last - occ.v[occ.n - 1].e)
		                               : sw.last - sw.first},
		        {"steps", (int64_t)sw.nsteps},
		        {"dispatch_ops_total", (int64_t)ncpu},
		};
		for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
			snprintf(key, sizeof key, "%s%s", pre, vals[i].k);
			kvs_addi(&got, key, vals[i].v);
		}
		for (size_t k = 0; k < sw.nsteps; k++) {
			int64_t lo = sw.steps[k].s, hi = window_end(&sw, k);
			int64_t chi = min64(hi, sw.last);
			snprintf(key, sizeof key, "%sstep.%zu.start_ns", pre, k);
			kvs_addi(&got, key, sw.steps[k].s);
			snprintf(key, sizeof key, "%sstep.%zu.end_ns", pre, k);
			kvs_addi(&got, key, sw.steps[k].e);
			snprintf(key, sizeof key, "%sstep.%zu.dispatch_ops", pre, k);
			kvs_addi(&got, key, i64_count(cpu_ts, ncpu, lo, hi));
			snprintf(key, sizeof key, "%sstep.%zu.compute_ns", pre, k);
			kvs_addi(&got, key, sweep_clip(&sw.comp, lo, chi));
			snprintf(key, sizeof key, "%sstep.%zu.comm_not_overlapped_ns", pre, k);
			kvs_addi(&got, key, sweep_clip(&sw.expo, lo, chi));
			snprintf(key, sizeof key, "%sstep.%zu.host_only_ns", pre, k);
			kvs_addi(&got, key, sweep_clip(&honly, lo, chi));
		}
		for (size_t i = 0; i < nops; i++) {
			snprintf(key, sizeof key, "op.%d.%s.count", r, ops[i].key);
			kvs_addi(&got, key, ops[i].n);
			snprintf(key, sizeof key, "op.%d.%s.total_ns", r, ops[i].key);
			kvs_addi(&got, key, ops[i].total);
		}
		/* keys only the generator can state, checked for consistency */
		int64_t a = 0, b = 0, s = 0, t = 0;
		snprintf(key, sizeof key, "%scopy_h2d_ns", pre);
		const char *v1 = kvs_get(truth, key);
		snprintf(key, sizeof key, "%scopy_d2h_ns", pre);
		const char *v2 = kvs_get(truth, key);
		if (!v1 || !v2 || !parse_i64(v1, 0, INT64_MAX, &a) || !parse_i64(v2, 0, INT64_MAX, &b) ||
		    a + b != copy)
			chk_fail(c, "rank %d: copy_h2d_ns + copy_d2h_ns != copy_ns", r);
		snprintf(key, sizeof key, "%sprefill_steps", pre);
		v1 = kvs_get(truth, key);
		snprintf(key, sizeof key, "%sdecode_steps", pre);
		v2 = kvs_get(truth, key);
		int64_t others = 0, x = 0; /* --shape: mixed and training steps */
		for (int w = 0; w < 2; w++) {
			snprintf(key, sizeof key, "%s%s_steps", pre, w ? "train" : "mixed");
			const char *v3 = kvs_get(truth, key);
			if (v3 && parse_i64(v3, 0, INT64_MAX, &x))
				others += x;
		}
		if (!v1 || !v2 || !parse_i64(v1, 0, INT64_MAX, &s) || !parse_i64(v2, 0, INT64_MAX, &t) ||
		    s + t + others != (int64_t)sw.nsteps)
			chk_fail(c, "rank %d: prefill_steps + decode_steps (+ mixed, train) != steps", r);
		int64_t np = 0;
		for (size_t k = 0; k < sw.nsteps; k++) {
			snprintf(key, sizeof key, "%sstep.%zu.phase", pre, k);
			const char *ph = kvs_get(truth, key);
			if (!ph || (strcmp(ph, "prefill") && strcmp(ph, "decode") && strcmp(ph, "mixed") &&
			            strcmp(ph, "train")))
				chk_fail(c, "rank %d: step %zu has no phase", r, k);
			else
				np += !strcmp(ph, "prefill");
		}
		if (np != s)
			chk_fail(c, "rank %d: %" PRId64 " steps marked prefill, prefill_steps=%" PRId64, r,
			         np, s);
		free(honly.v);
		free(occ.v);
		free(cpu_ts);
		free(ops);
	}
	check_csvs(c, truth, &got, r, od, &sw, trace_ok);
	check_memory(c, &got, r, od);
	/* compare: everything the sweep derived must be in the ground truth with the same value, and
	 * every verifiable truth key of this rank must have been derived */
	qsort(got.v, got.n, sizeof *got.v, kv_cmp);
	for (size_t i = 0; i < got.n; i++) {
		const char *tv_ = kvs_get(truth, got.v[i].k);
		if (!tv_)
			chk_fail(c, "%s=%s found by the sweep, absent from ground truth", got.v[i].k,
			         got.v[i].v);
		else if (strcmp(tv_, got.v[i].v))
			chk_fail(c, "%s: ground truth %s, sweep %s", got.v[i].k, tv_, got.v[i].v);
		else
			c->verified++;
	}
	static const char *const unverifiable[] = {
	        "dir",
	        "offset_ns",
	        "pid",
	        "device_id",
	        "truncated",
	        "cut_at",
	        "prefill_steps",
	        "decode_steps",
	        "mixed_steps",
	        "train_steps",
	        "copy_h2d_ns",
	        "copy_d2h_ns",
	        "kernel_details.ragged_lines",
	        "kernel_details.excel_lines",
	};
	char opre[32], tpre[32];
	snprintf(opre, sizeof opre, "op.%d.", r);
	snprintf(tpre, sizeof tpre, "optype.%d.", r);
	for (size_t i = 0; i < truth->n; i++) {
		const char *k = truth->v[i].k;
		const char *rest = NULL;
		if (!strncmp(k, pre, strlen(pre)))
			rest = k + strlen(pre);
		else if (strncmp(k, opre, strlen(opre)) && strncmp(k, tpre, strlen(tpre)))
			continue;
		bool skip = false;
		for (size_t u = 0; rest && u < sizeof unverifiable / sizeof unverifiable[0]; u++)
			skip |= !strcmp(rest, unverifiable[u]);
		static const char *const step_only[] = {".phase", ".dev_start_ns", ".dev_end_ns", ".tokens",
		                                        ".seqs", ".graph"};
		for (size_t u = 0; rest && !strncmp(rest, "step.", 5) && u < sizeof step_only / sizeof *step_only; u++)
			skip |= strlen(rest) > strlen(step_only[u]) &&
			        !strcmp(rest + strlen(rest) - strlen(step_only[u]), step_only[u]);
		if (!skip && !kvs_get(&got, k))
			chk_fail(c, "%s=%s in ground truth was not re-derived by the sweep", k,
			         truth->v[i].v);
	}
	kvs_free(&got);
	sweep_free(&sw);
	tv_free(&tv);
	unmap_file(&m);
}

static int self_check(const char *outdir)
{
	char path[4096];
	path_join(path, sizeof path, outdir, "ground_truth.txt");
	struct mapped m = map_file(path);
	if (!m.ok) {
		fprintf(stderr, "self-check: %s missing\n", path);
		return 1;
	}
	struct kvs truth = {0};
	struct chk c = {0, 0};
	const char *p = m.p, *e = m.p + m.n;
	while (p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		const char *le = nl ? nl : e;
		if (le > p && *p != '#') {
			const char *eq = memchr(p, '=', (size_t)(le - p));
			if (!eq) {
				chk_fail(&c, "ground truth line without '=': %.*s", (int)(le - p), p);
			} else {
				char *k = xmalloc((size_t)(eq - p) + 1), *v = xmalloc((size_t)(le - eq));
				memcpy(k, p, (size_t)(eq - p));
				k[eq - p] = 0;
				memcpy(v, eq + 1, (size_t)(le - eq - 1));
				v[le - eq - 1] = 0;
				kvs_add(&truth, k, v);
				free(k);
				free(v);
			}
		}
		p = nl ? nl + 1 : e;
	}
	unmap_file(&m);
	qsort(truth.v, truth.n, sizeof *truth.v, kv_cmp);
	for (size_t i = 1; i < truth.n; i++)
		if (!strcmp(truth.v[i].k, truth.v[i - 1].k))
			chk_fail(&c, "duplicate ground-truth key %s", truth.v[i].k);
	int64_t ranks = 0;
	const char *rv = kvs_get(&truth, "ranks");
	if (!rv || !parse_i64(rv, 1, MAX_RANKS, &ranks))
		chk_fail(&c, "ground truth has no valid ranks=");
	for (int r = 0; r < ranks; r++)
		check_rank(&c, &truth, r, outdir);
	kvs_free(&truth);
	if (c.errors) {
		fprintf(stderr, "self-check: FAILED with %d mismatch(es)\n", c.errors);
		return 1;
	}
	fprintf(stderr, "self-check: ok, %" PRId64 " ground-truth values re-derived from the files\n",
	        c.verified);
	return 0;
}

/* ------------------------------------------------------------------------------------------ */

/* Trace bytes of the largest rank for a given step count (count-only run). */
static uint64_t measure(const struct opts *o, int steps)
{
	struct gen G;
	gen_init(&G, o, steps);
	gen_simulate(&G);
	uint64_t mx = 0;
	for (int r = 0; r < o->ranks; r++) {
		struct tw t;
		uint64_t n = write_trace(&G, &G.rk[r], NULL, &t);
		if (n > mx)
			mx = n;
	}
	gen_free(&G);
	return mx;
}

/* --target-bytes: trace size is linear in the decode-step count, so fit it on two short runs. */
static int calibrate(const struct opts *o)
{
	int minsteps = (o->prefill > 0 ? o->prefill : 0) + 1;
	int s0 = minsteps + 2, s1 = s0 + 24;
	uint64_t b0 = measure(o, s0), b1 = measure(o, s1);
	double per = (double)(b1 - b0) / (s1 - s0);
	double want = (double)o->target_bytes;
	long long steps = s0 + llround((want - (double)b0) / (per > 1 ? per : 1));
	if (steps < minsteps)
		steps = minsteps;
	if (steps > 10000000)
		die("--target-bytes %" PRId64 " needs more than 10^7 steps", o->target_bytes);
	return (int)steps;
}

int main(int argc, char **argv)
{
	struct opts o;
	parse_opts(argc, argv, &o);
	if (o.check_only)
		return self_check(o.out) ? 1 : 0;
	int steps = o.steps;
	if (o.target_bytes && !o.raw)
		steps = calibrate(&o);
	mkdir_p(o.out);
	if (!o.force && !dir_empty(o.out))
		usage_error("%s is not empty (use --force to write into it anyway)", o.out);
	struct gen G;
	gen_init(&G, &o, steps);
	gen_simulate(&G);
	struct rank_out *ro = xcalloc((size_t)o.ranks, sizeof *ro);
	for (int r = 0; r < o.ranks; r++)
		write_rank(&G, &G.rk[r], &ro[r]);
	write_truth(&G, ro);
	for (int r = 0; r < o.ranks && o.export_db; r++) {
		char wd[4096];
		path_join(wd, sizeof wd, o.out, G.rk[r].dir);
		if (gen_db_export(wd, G.rk[r].r, o.export_db == 2) != 0)
			die("the Db export of rank %d failed", r);
	}
	if (o.target_bytes && !o.raw) {
		uint64_t mx = 0;
		for (int r = 0; r < o.ranks; r++)
			mx = ro[r].trace_bytes > mx ? ro[r].trace_bytes : mx;
		if (!o.truncate_at &&
		    (mx * 10 < (uint64_t)o.target_bytes * 9 || mx * 10 > (uint64_t)o.target_bytes * 11))
			fprintf(stderr,
			        "%s: note: trace is %" PRIu64 " bytes for --target-bytes %" PRId64
			        " (%d steps; the smallest capture has %d)\n",
			        prog, mx, o.target_bytes, steps, (o.prefill > 0 ? o.prefill : 0) + 1);
	}
	for (int r = 0; r < o.ranks; r++) {
		free(ro[r].ragged.p);
		free(ro[r].excel.p);
	}
	free(ro);
	gen_free(&G);
	if (o.self_check)
		return self_check(o.out) ? 1 : 0;
	return 0;
}
