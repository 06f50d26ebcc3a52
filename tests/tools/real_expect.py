#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Prints the expected counts for tests/test_real_fixtures.c, computed with Python's own
# json and csv modules (independently of the C loader). Run from the checkout:
#   python3 tests/tools/real_expect.py ../shared/fixtures-real > /tmp/expect.inc
import collections, csv, decimal, json, os, re, sys

root = sys.argv[1]

def trace_counts(path):
    with open(path, 'rb') as f:
        data = json.loads(f.read().decode('utf-8'))
    if isinstance(data, dict):
        data = data.get('traceEvents', [])
    ph = collections.Counter()
    pname = {}
    lanes = set()
    for e in data:
        if not isinstance(e, dict):
            continue
        p = e.get('ph')
        ph[p if isinstance(p, str) and len(p) == 1 else '?'] += 1
        if p == 'M' and e.get('name') == 'process_name':
            pname[str(e.get('pid'))] = e.get('args', {}).get('name')
    for e in data:
        if not isinstance(e, dict):
            continue
        p = e.get('ph')
        if p in ('X', 's', 'f', 't') or (p == 'M' and e.get('name') in ('thread_name', 'thread_sort_index')):
            if p == 'X' and 'ts' not in e:
                continue
            lanes.add((str(e.get('pid')), str(e.get('tid'))))
    per_proc = collections.Counter(pname.get(pid, '') or '' for pid, tid in lanes)
    return ph, per_proc

def csv_counts(path):
    with open(path, newline='', encoding='utf-8', errors='replace') as f:
        rows = list(csv.reader(f))
    rows = [r for r in rows if r]  # libcsv skips blank lines too
    return len(rows) - 1, len(rows[0]) if rows else 0

def ns(v, scale=6):
    # exact: the decimal text of a (ms) value times 10^6, half away from zero (as src/num.c)
    d = decimal.Decimal(str(v)).scaleb(scale)
    return int(d.to_integral_value(rounding=decimal.ROUND_HALF_UP))

INFO = ('Communication Time Info', 'Communication Bandwidth Info')

def comm_counts(path):
    # An independent reading of communication*.json: layout by content, every entry counted.
    with open(path, 'rb') as f:
        d = json.loads(f.read().decode('utf-8'), parse_float=decimal.Decimal)
    r = collections.Counter()
    sums = collections.defaultdict(decimal.Decimal)
    steps = set()
    cluster = 0
    def op(name, v):
        r['ops'] += 1
        if name == 'Total Op Info':
            r['totals'] += 1
            return
        t = v.get('Communication Time Info', {})
        for key, field in (('Transit Time(ms)', 'transit'), ('Wait Time(ms)', 'wait'),
                           ('Synchronization Time(ms)', 'sync')):
            if key in t:
                sums[field] += ns(t[key])
        for tr in v.get('Communication Bandwidth Info', {}).values():
            r['bws'] += 1
            r['bins'] += len(tr.get('Size Distribution', {}))
            sums['size'] += decimal.Decimal(str(tr.get('Transit Size(MB)', 0)))
    def entry(key, v):
        name = key.rsplit('@', 1)[0]
        if any(k in v for k in INFO):
            op(name, v)
            return
        for k2, v2 in v.items():
            if re.fullmatch(r'\d+-\d+', k2):
                r['links'] += 1
                sums['link_size'] += decimal.Decimal(str(v2.get('Transit Size(MB)', 0)))
            elif re.fullmatch(r'\d+', k2) and any(k in v2 for k in INFO):
                op(name, v2)
    for top, tv in d.items():
        first = next(iter(tv), '')
        if first in ('p2p', 'collective'):
            steps.add(top)
            for kind in tv.values():
                for key, v in kind.items():
                    entry(key, v)
        elif first.startswith('step'):
            cluster = 1
            for step, sv in tv.items():
                steps.add(step)
                for key, v in sv.items():
                    entry(key, v)
    return (1 if r['links'] else 0, cluster, len(steps), r['ops'], r['totals'], r['bws'], r['bins'], r['links'],
            sums['transit'], sums['wait'], sums['sync'], sums['size'], sums['link_size'])

# The kind each file's name says (the loader decides by content; the two must agree).
NAME_KINDS = [('kernel_details', 'kernel_details'), ('op_summary', 'kernel_details'),
              ('operator_details', 'operator_details'), ('op_statistic', 'op_statistic'),
              ('api_statistic', 'api_statistic'), ('step_trace_time', 'step_trace_time'),
              ('memory_record', 'memory_record'), ('npu_module_mem', 'npu_module_mem'),
              ('operator_memory', 'operator_memory'), ('l2_cache', 'l2_cache'),
              ('task_time', 'task_time'), ('ai_core_utilization', 'ai_core_utilization')]

def name_kind(fn):
    for prefix, kind in NAME_KINDS:
        if fn.startswith(prefix):
            return kind
    return ''

def c_str(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'

traces, csvs, comms = [], [], []
for dirpath, dirs, files in os.walk(root):
    dirs.sort()
    for fn in sorted(files):
        p = os.path.join(dirpath, fn)
        rel = os.path.relpath(p, root)
        if os.path.getsize(p) == 0:
            continue
        if fn.endswith('.json') and (fn == 'trace_view.json' or fn.startswith('msprof_') or fn == 'trace_view_tiny.json'):
            ph, per_proc = trace_counts(p)
            traces.append((rel, ph, per_proc))
        elif fn.endswith('.csv'):
            csvs.append((rel, *csv_counts(p), name_kind(fn)))
        elif fn.endswith('.json') and 'communication' in fn and 'group' not in fn:
            comms.append((rel, *comm_counts(p)))

def mem_peaks(path):
    """Per component: (max Total Allocated, max Total Reserved) in MB; None when absent."""
    with open(path, newline='', encoding='utf-8', errors='replace') as f:
        rows = [r for r in csv.reader(f) if r]
    head = [h.strip() for h in rows[0]]
    def col(*names):
        for n in names:
            if n in head:
                return head.index(n), (1024.0 if n.endswith('(KB)') else 1.0)
        return None, 1.0
    ci = head.index('Component')
    ai, ad = col('Total Allocated(MB)', 'Total Allocated(KB)')
    ri, rd = col('Total Reserved(MB)', 'Total Reserved(KB)')
    peaks = {}
    def num(r, i, div):
        if i is None or i >= len(r):
            return None
        try:
            v = float(r[i].strip())
        except ValueError:
            return None
        return None if v != v else v / div
    for r in rows[1:]:
        if ci >= len(r):
            continue
        a, b = peaks.get(r[ci], (None, None))
        x, y = num(r, ai, ad), num(r, ri, rd)
        if x is not None and (a is None or x > a):
            a = x
        if y is not None and (b is None or y > b):
            b = y
        peaks[r[ci]] = (a, b)
    return peaks

mems = []
for dirpath, dirs, files in os.walk(root):
    dirs.sort()
    for fn in sorted(files):
        p = os.path.join(dirpath, fn)
        if os.path.getsize(p) and (fn.startswith('memory_record') or fn.startswith('npu_module_mem')) and fn.endswith('.csv'):
            for comp, (a, b) in sorted(mem_peaks(p).items()):
                mems.append((os.path.relpath(p, root), comp, a, b))

print('/* generated by tests/tools/real_expect.py: do not edit by hand */')
print('static const struct real_trace real_traces[] = {')
for rel, ph, per_proc in traces:
    lanes = ', '.join('{%s, %d}' % (c_str(k), v) for k, v in sorted(per_proc.items()))
    print('\t{%s, %d, %d, %d, %d, %d, %d, {%s}},' % (c_str(rel), ph['X'], ph['M'], ph['s'], ph['f'], ph['C'],
          sum(ph.values()), lanes))
print('};')
print('static const struct real_csv real_csvs[] = {')
for rel, rows, cols, kind in csvs:
    print('\t{%s, %d, %d, %s},' % (c_str(rel), rows, cols, c_str(kind)))
print('};')
print('static const struct real_mem real_mems[] = {')
for rel, comp, a, b in mems:
    f = lambda v: 'NAN' if v is None else repr(v)
    print('\t{%s, %s, %s, %s},' % (c_str(rel), c_str(comp), f(a), f(b)))
print('};')
print('static const struct real_comm real_comms[] = {')
for rel, matrix, cluster, steps, ops, totals, bws, bins, links, transit, wait, sync, size, link_size in comms:
    print('\t{%s, %d, %d, %d, %d, %d, %d, %d, %d, %dLL, %dLL, %dLL, %s, %s},' % (
        c_str(rel), matrix, cluster, steps, ops, totals, bws, bins, links, transit, wait, sync, size, link_size))
print('};')
