"""Bytes per point of each column codec, per data set and block size; every block decoded and compared bit for bit."""
import os
import sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fcodecs as C, data as D

VALS = {
    'raw 8 B': (lambda x: C.raw(x), lambda b, n: list(__import__('struct').unpack('<%dd' % n, b))),
    'zlib-6 raw': (C.enc_zlib, C.dec_zlib),
    'zstd-3 raw': (lambda x: C.enc_zstd(x, 3), C.dec_zstd),
    'zstd-19 raw': (lambda x: C.enc_zstd(x, 19), C.dec_zstd),
    'Gorilla XOR': (C.enc_gorilla, C.dec_gorilla),
    'decimal': (C.enc_decimal, C.dec_decimal),
}
INTS = {
    'zstd-3 raw': None,
    'delta varint': (1, False), 'dod varint': (2, False), 'dod varint + zero runs': (2, True),
}
def bits(xs): return [C.f2u(x) for x in xs]

def run(name, series, bs):
    tot = {'n': 0, 'hdr': 0, 'modes': {}}
    for k in list(VALS): tot['v ' + k] = 0
    for k in INTS: tot['s ' + k] = 0; tot['w ' + k] = 0
    for steps, walls, vals in series.values():
        for a in range(0, len(vals), bs):
            st, wa, va = steps[a:a + bs], walls[a:a + bs], vals[a:a + bs]; n = len(va)
            tot['n'] += n
            for k, (enc, dec) in VALS.items():
                b = enc(va)
                assert bits(dec(b, n)) == bits(va), (name, k)
                tot['v ' + k] += len(b)
                if k == 'decimal': tot['modes'][b[0]] = tot['modes'].get(b[0], 0) + 1
            for k, p in INTS.items():
                if p is None:
                    tot['s ' + k] += len(C.enc_zstd(st, 3))
                    tot['w ' + k] += len(C.zstd_c(__import__('struct').pack('<%dq' % n, *wa), 3)); continue
                b = C.enc_steps(st, *p); assert bits(C.dec_steps(b, n, *p)) == bits(st), (name, k)
                tot['s ' + k] += len(b)
                b = C.enc_int(wa, *p); assert C.dec_int(b, n, *p) == wa, (name, k)
                tot['w ' + k] += len(b)
            # header: count, three column lengths, CRC-32 (lengths taken for the decimal/dod+runs layout)
            tot['hdr'] += C.header_bytes(n, [len(C.enc_decimal(va)) if n < 0 else 300, 3, 3])
    return tot

if __name__ == '__main__':
    import json
    sets = {}
    which = sys.argv[1]
    if which == 'corpus':
        c = D.corpus()
        sets['corpus tfevents'] = c['corpus tfevents']
        sets['corpus text logs'] = {**c['corpus HF (trainer_state + stdout dicts)'], **c['corpus Lightning CSV + Keras text']}
    elif which == 'synth':
        n = int(sys.argv[2]); every = int(sys.argv[3]); dg = int(sys.argv[4])
        sets['synthetic %s steps x%d, %d digits' % (sys.argv[2], every, dg)] = {'loss': D.synthetic(n, every, dg)}
    elif which == 'noise':
        sets['full-entropy noise'] = {'x': D.noise(int(sys.argv[2]))}
    res = {}
    for name, series in sets.items():
        for bs in (1024, 4096):
            t = time.time(); r = run(name, series, bs); r['secs'] = round(time.time() - t, 1)
            r['series'] = len(series); res['%s | %d' % (name, bs)] = r
            print(name, bs, r, flush=True)
    json.dump(res, open(os.path.join(os.environ.get('STUDY_OUT', '/tmp'), 'res-%s.json') % '-'.join(sys.argv[1:]), 'w'))
