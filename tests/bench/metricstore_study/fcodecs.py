"""Column codecs for the metric-store study (issue 17). Pure Python, bit-exact, single-threaded."""
import ctypes, math, struct, zlib

# ---------- primitives ----------
def zz(n):  return 2 * n if n >= 0 else -2 * n - 1
def unzz(u): return u >> 1 if not u & 1 else -((u + 1) >> 1)

def put_uv(out, u):
    while u >= 0x80:
        out.append((u & 0x7F) | 0x80); u >>= 7
    out.append(u)

def get_uv(buf, i):
    u = s = 0
    while True:
        b = buf[i]; i += 1
        u |= (b & 0x7F) << s; s += 7
        if b < 0x80: return u, i

def f2u(x): return struct.unpack('<Q', struct.pack('<d', x))[0]
def u2f(u): return struct.unpack('<d', struct.pack('<Q', u))[0]

class BitW:
    def __init__(self): self.parts = []; self.n = 0
    def put(self, v, nb):
        if nb: self.parts.append(format(v, '0%db' % nb)); self.n += nb
    def bytes(self):
        s = ''.join(self.parts); s += '0' * (-len(s) % 8)
        return int(s, 2).to_bytes(len(s) // 8, 'big') if s else b''

class BitR:
    def __init__(self, b): self.s = ''.join(format(x, '08b') for x in b); self.i = 0
    def get(self, nb):
        if nb == 0: return 0
        v = int(self.s[self.i:self.i + nb], 2); self.i += nb; return v

# ---------- integer columns (steps as doubles that are integers, wall ms) ----------
# mode byte: 0 = integer path, 1 = raw doubles (a step that is not an exact integer)
def _ints_of_steps(xs):
    out = []
    for x in xs:
        if not (math.isfinite(x) and x.is_integer() and abs(x) <= 2**53) or (x == 0 and math.copysign(1, x) < 0):
            return None
        out.append(int(x))
    return out

def enc_int(vals, order, rle):
    """order 1: delta, 2: delta-of-delta; rle: runs of zero (d)deltas as one varint."""
    out = bytearray(); prev = pd = 0
    toks = []
    for k, v in enumerate(vals):
        d = v - prev
        if order == 2 and k >= 2: tok = d - pd
        else: tok = d
        pd, prev = d, v
        toks.append(tok if k >= order else None)  # first `order` values stored plain
    for k in range(min(order, len(vals))):
        put_uv(out, zz(vals[k] - (vals[k - 1] if k else 0)))
    rest = toks[order:]
    if not rle:
        for t in rest: put_uv(out, zz(t))
    else:
        i = 0
        while i < len(rest):
            if rest[i] == 0:
                j = i
                while j < len(rest) and rest[j] == 0: j += 1
                put_uv(out, ((j - i) << 1) | 1); i = j
            else:
                put_uv(out, zz(rest[i]) << 1); i += 1
    return bytes(out)

def dec_int(buf, n, order, rle):
    i = 0; ds = []
    for k in range(min(order, n)):
        u, i = get_uv(buf, i); ds.append(unzz(u))
    toks = []
    while len(toks) < n - min(order, n):
        u, i = get_uv(buf, i)
        if not rle: toks.append(unzz(u))
        elif u & 1: toks.extend([0] * (u >> 1))
        else: toks.append(unzz(u >> 1))
    vals = []; prev = pd = 0
    for k in range(min(order, n)):
        prev = prev + ds[k]; pd = ds[k]; vals.append(prev)
    if order == 2 and n >= 2: pd = vals[1] - vals[0]
    for t in toks:
        d = t if order == 1 else pd + t
        prev += d; pd = d; vals.append(prev)
    return vals

def enc_steps(xs, order, rle):
    ints = _ints_of_steps(xs)
    if ints is None: return b'\x01' + b''.join(struct.pack('<d', x) for x in xs)
    return b'\x00' + enc_int(ints, order, rle)

def dec_steps(buf, n, order, rle):
    if buf[0] == 1: return list(struct.unpack('<%dd' % n, buf[1:]))
    return [float(v) for v in dec_int(buf[1:], n, order, rle)]

# ---------- Gorilla XOR (Pelkonen et al., VLDB 2015) ----------
def enc_gorilla(xs):
    w = BitW(); prev = None; pl = pt = -1
    for x in xs:
        u = f2u(x)
        if prev is None: w.put(u, 64); prev = u; continue
        v = u ^ prev; prev = u
        if v == 0: w.put(0, 1); continue
        lead = min(64 - v.bit_length(), 31); trail = (v & -v).bit_length() - 1
        if pl >= 0 and lead >= pl and trail >= pt:
            w.put(0b10, 2); w.put(v >> pt, 64 - pl - pt)
        else:
            m = 64 - lead - trail
            w.put(0b11, 2); w.put(lead, 5); w.put(m & 63, 6); w.put(v >> trail, m)
            pl, pt = lead, trail
    return w.bytes()

def dec_gorilla(buf, n):
    r = BitR(buf); out = []; prev = None; pl = pt = -1
    for _ in range(n):
        if prev is None: prev = r.get(64); out.append(u2f(prev)); continue
        if r.get(1) == 0: out.append(u2f(prev)); continue
        if r.get(1) == 1:
            pl = r.get(5); m = r.get(6) or 64; pt = 64 - pl - m
        prev ^= r.get(64 - pl - pt) << pt; out.append(u2f(prev))
    return out

# ---------- decimal: shortest round-tripping decimal, common scale, delta+zigzag varint ----------
def dec_of64(x):
    """(m, e) with float(f'{m}e{e}') == x bit-exactly, from repr (shortest round trip), else None."""
    if not math.isfinite(x) or (x == 0 and math.copysign(1, x) < 0): return None
    s = repr(x); e = 0
    if 'e' in s: s, ex = s.split('e'); e = int(ex)
    if '.' in s:
        a, b = s.split('.'); 
        if b == '0': b = ''
        s = a + b; e -= len(b)
    m = int(s)
    while m and m % 10 == 0: m //= 10; e += 1
    return m, e

def f32(x):
    try: return struct.unpack('<f', struct.pack('<f', x))[0]
    except OverflowError: return None

def dec_of32(x):
    """Shortest decimal that gives x back through float() then float32 rounding; x must be a float32."""
    if not math.isfinite(x) or (x == 0 and math.copysign(1, x) < 0): return None
    for p in range(1, 10):
        s = '%.*e' % (p - 1, x)
        if f2u(f32(float(s))) == f2u(x):
            a, ex = s.split('e'); e = int(ex)
            if '.' in a: i, f = a.split('.'); a = i + f; e -= len(f)
            m = int(a)
            while m and m % 10 == 0: m //= 10; e += 1
            return m, e
    return None

LIM = 1 << 62

def _cost(pairs, E):
    c = 0; prev = 0; ex = 0
    for p in pairs:
        if p is None or p[1] < E: ex += 1; continue
        m = p[0] * 10 ** (p[1] - E)
        if m >= LIM or -m >= LIM: ex += 1; continue
        d = zz(m - prev); prev = m
        c += 1 + (d.bit_length() - 1) // 7 if d else 1
    return c + ex * 9, ex

def _enc_dec(pairs, xs, E, width):
    out = bytearray(); put_uv(out, zz(E))
    exc = []; ms = []
    for i, p in enumerate(pairs):
        m = None
        if p is not None and p[1] >= E:
            m = p[0] * 10 ** (p[1] - E)
            if m >= LIM or -m >= LIM: m = None
        if m is None: exc.append(i)
        else: ms.append(m)
    put_uv(out, len(exc)); last = 0
    for i in exc:
        put_uv(out, i - last); last = i
        out += struct.pack('<d', xs[i]) if width == 8 else struct.pack('<f', xs[i])
    prev = 0
    for m in ms: put_uv(out, zz(m - prev)); prev = m
    return bytes(out)

def enc_decimal(xs, fallback=True):
    """mode 0: decimal of float64, 1: decimal of float32 (widened float32 values), 2: Gorilla."""
    best = None
    cands = []
    p64 = [dec_of64(x) for x in xs]
    cands.append((0, p64, 8))
    fin = [x for x in xs if math.isfinite(x)]
    if all(f32(x) is not None and f2u(f32(x)) == f2u(x) for x in fin):
        # exceptions only: NaN payloads and infinities are float32 too (NaN payload checked bitwise)
        cands.append((1, [dec_of32(x) for x in xs], 4))
    for mode, pairs, width in cands:
        es = {}
        for p in pairs:
            if p is not None: es[p[1]] = es.get(p[1], 0) + 1
        if not es: Es = [0]
        else:
            Es = sorted(es, key=lambda e: -es[e])[:5]; Es.append(min(es)); Es = sorted(set(Es))
        for E in Es:
            c, ex = _cost(pairs, E)
            if best is None or c < best[0]: best = (c, mode, pairs, E, width)
    _, mode, pairs, E, width = best
    body = bytes([mode]) + _enc_dec(pairs, xs, E, 8)  # exceptions always 8 raw bytes (exact for any bit pattern)
    if fallback:
        g = b'\x02' + enc_gorilla(xs)
        if len(g) < len(body): return g
    return body

def dec_decimal(buf, n):
    mode = buf[0]
    if mode == 2: return dec_gorilla(buf[1:], n)
    i = 1; u, i = get_uv(buf, i); E = unzz(u)
    ne, i = get_uv(buf, i); exc = {}; last = 0
    for _ in range(ne):
        d, i = get_uv(buf, i); last += d
        exc[last] = struct.unpack_from('<d', buf, i)[0]; i += 8
    out = []; prev = 0
    for k in range(n):
        if k in exc: out.append(exc[k]); continue
        u, i = get_uv(buf, i); prev += unzz(u)
        v = float('%de%d' % (prev, E))
        out.append(f32(v) if mode == 1 else v)
    return out

# ---------- general-purpose baselines on the raw little-endian column ----------
def raw(xs): return struct.pack('<%dd' % len(xs), *xs)
def enc_zlib(xs, level=6): return zlib.compress(raw(xs), level)
def dec_zlib(buf, n): return list(struct.unpack('<%dd' % n, zlib.decompress(buf)))

_z = ctypes.CDLL('libzstd.so.1')
_z.ZSTD_compressBound.restype = ctypes.c_size_t
_z.ZSTD_compress.restype = ctypes.c_size_t
_z.ZSTD_decompress.restype = ctypes.c_size_t
def zstd_c(data, level):
    cap = _z.ZSTD_compressBound(ctypes.c_size_t(len(data)))
    dst = ctypes.create_string_buffer(cap)
    k = _z.ZSTD_compress(dst, ctypes.c_size_t(cap), data, ctypes.c_size_t(len(data)), ctypes.c_int(level))
    assert k < cap; return dst.raw[:k]
def zstd_d(data, size):
    dst = ctypes.create_string_buffer(size)
    k = _z.ZSTD_decompress(dst, ctypes.c_size_t(size), data, ctypes.c_size_t(len(data)))
    assert k == size; return dst.raw
def enc_zstd(xs, level=3): return zstd_c(raw(xs), level)
def dec_zstd(buf, n): return list(struct.unpack('<%dd' % n, zstd_d(buf, 8 * n)))

# ---------- block header: point count + three column lengths (varints) + CRC-32 ----------
def header_bytes(n, lens):
    out = bytearray(); put_uv(out, n)
    for L in lens: put_uv(out, L)
    return len(out) + 4
