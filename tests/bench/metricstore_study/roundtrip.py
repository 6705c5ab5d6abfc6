"""Bit-exact round trips of every codec, on edge cases and random data."""
import os
import math, random, struct, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fcodecs as C

def bits(xs): return [C.f2u(x) for x in xs]
rnd = random.Random(17)
nan_payload = C.u2f(0x7FF8000000000123); neg_nan = C.u2f(0xFFF8000000000000); snan = C.u2f(0x7FF0000000000001)
edge = [0.0, -0.0, math.inf, -math.inf, math.nan, nan_payload, neg_nan, snan, 5e-324, -5e-324,
        2.2250738585072014e-308, 2.225073858507201e-308, 1.7976931348623157e308, -1.7976931348623157e308,
        0.1, 0.2831, 1e-300, 1e300, 123456789012345678.0, 2.0**53, 2.0**53 + 2, 1/3, 4.9e-05, 35.838836669921875]
cases = {
    'edge': edge * 3,
    'edge shuffled': rnd.sample(edge * 40, len(edge) * 40),
    'decimals': [float('%.4g' % (2 * math.exp(-i / 300) + rnd.gauss(0, .01))) for i in range(3000)],
    'decimals+specials': [float('%.5g' % rnd.random()) if i % 97 else rnd.choice(edge) for i in range(3000)],
    'float32': [C.f32(rnd.gauss(0, 1)) for _ in range(2000)] + [math.nan, -0.0, math.inf, 1e-45],
    'noise': [rnd.gauss(0, 1) for _ in range(2000)],
    'random bits': [C.u2f(rnd.getrandbits(64)) for _ in range(2000)],
    'constant': [0.5] * 2000,
    'single': [-0.0],
}
ok = True
for name, xs in cases.items():
    for bs in (1024, 4096):
        for k in range(0, len(xs), bs):
            b = xs[k:k + bs]; n = len(b)
            for cname, enc, dec in (('gorilla', C.enc_gorilla, C.dec_gorilla), ('decimal', C.enc_decimal, C.dec_decimal),
                                    ('decimal-nofallback', lambda v: C.enc_decimal(v, False), C.dec_decimal),
                                    ('zlib', C.enc_zlib, C.dec_zlib), ('zstd', C.enc_zstd, C.dec_zstd)):
                if bits(dec(enc(b), n)) != bits(b): print('FAIL values', cname, name, bs); ok = False
# steps (doubles) and wall ms
stepcases = {
    'by 1': [float(i) for i in range(5000)],
    'by 10 from 7': [float(7 + 10 * i) for i in range(3000)],
    'huge/out of order/repeated': [0.0, 2.0**53, 5.0, 5.0, 5.0, 3.0, -2.0**53, 1e15, 1e15, 0.0] * 50,
    'non-integer and specials': [0.5, 1.0, -0.0, math.nan, math.inf, 1e300, 2.0] * 30,
    'random ints': [float(rnd.randrange(-2**53, 2**53)) for _ in range(2000)],
}
for name, xs in stepcases.items():
    for bs in (1024, 4096):
        for k in range(0, len(xs), bs):
            b = xs[k:k + bs]; n = len(b)
            for order in (1, 2):
                for rle in (False, True):
                    if bits(C.dec_steps(C.enc_steps(b, order, rle), n, order, rle)) != bits(b):
                        print('FAIL steps', name, order, rle); ok = False
walls = [1700000000000 + sum(rnd.randint(50, 200) for _ in range(1)) * i for i in range(5000)] + [0, -5, 2**62, 3]
for bs in (1024, 4096):
    for k in range(0, len(walls), bs):
        b = walls[k:k + bs]
        for order in (1, 2):
            for rle in (False, True):
                if C.dec_int(C.enc_int(b, order, rle), len(b), order, rle) != b: print('FAIL wall', order, rle); ok = False
print('ALL ROUND TRIPS BIT-EXACT' if ok else 'FAILURES')
