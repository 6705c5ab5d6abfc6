import os
import glob, json
res = {}
order = ['res-corpus.json'] + ['res-synth-1000000-1-%d.json' % d for d in (4, 5, 6)] + ['res-synth-100000-10-%d.json' % d for d in (4, 5, 6)] + ['res-noise-200000.json']
for f in order:
    try: res.update(json.load(open(os.path.join(os.environ.get('STUDY_OUT', '/tmp'), f))))
    except FileNotFoundError: pass
names = []
for k in res:
    n = k.split(' | ')[0]
    if n not in names: names.append(n)
def f(x): return '%.2f' % x
def cell(n, fn): return ' / '.join(f(fn(res['%s | %d' % (n, bs)])) for bs in (1024, 4096))
print('points:', {n: (res[n + ' | 1024']['n'], res[n + ' | 1024']['series']) for n in names})
vc = ['raw 8 B', 'zlib-6 raw', 'zstd-3 raw', 'zstd-19 raw', 'Gorilla XOR', 'decimal']
print('\n| data set (points) | ' + ' | '.join(vc) + ' |'); print('| --- ' * (len(vc) + 1) + '|')
for n in names:
    print('| %s (%d) | ' % (n, res[n + ' | 1024']['n']) + ' | '.join(cell(n, lambda r, c=c: r['v ' + c] / r['n']) for c in vc) + ' |')
ic = ['zstd-3 raw', 'delta varint', 'dod varint', 'dod varint + zero runs']
print('\n| data set | ' + ' | '.join('steps: ' + c for c in ic) + ' | ' + ' | '.join('wall: ' + c for c in ic) + ' |'); print('| --- ' * (2 * len(ic) + 1) + '|')
for n in names:
    print('| %s | ' % n + ' | '.join(cell(n, lambda r, c=c: r['s ' + c] / r['n']) for c in ic) + ' | ' + ' | '.join(cell(n, lambda r, c=c: r['w ' + c] / r['n']) for c in ic) + ' |')
combos = {
    'raw (8+8+8)': lambda r: 24 * r['n'],
    'zstd-3 of each raw column': lambda r: r['v zstd-3 raw'] + r['s zstd-3 raw'] + r['w zstd-3 raw'],
    'Gorilla + dod varint (issue as written)': lambda r: r['v Gorilla XOR'] + r['s dod varint'] + r['w dod varint'],
    'decimal + dod varint': lambda r: r['v decimal'] + r['s dod varint'] + r['w dod varint'],
    'Gorilla + dod varint with zero runs': lambda r: r['v Gorilla XOR'] + r['s dod varint + zero runs'] + r['w dod varint + zero runs'],
    'decimal + dod varint with zero runs': lambda r: r['v decimal'] + r['s dod varint + zero runs'] + r['w dod varint + zero runs'],
}
print('\n| data set | header | ' + ' | '.join(combos) + ' |'); print('| --- ' * (len(combos) + 2) + '|')
for n in names:
    print('| %s | %s | ' % (n, cell(n, lambda r: r['hdr'] / r['n'])) + ' | '.join(cell(n, lambda r, c=c: (combos[c](r) + r['hdr']) / r['n']) for c in combos) + ' |')
print('\ndecimal block modes (0 f64 decimal, 1 f32 decimal, 2 Gorilla fallback):', {k: res[k]['modes'] for k in res})
