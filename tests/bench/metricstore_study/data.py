"""Series (name, steps, walls_ms, values) from the corpus logs and the synthetic runs."""
import ast, csv, glob, json, math, os, random, re, struct
ROOT = os.environ.get('FERRY_CORPUS', os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..', 'shared', 'corpus')) + '/logs'
WALL0 = 1700000000000

def _uv(b, i):
    u = s = 0
    while True:
        x = b[i]; i += 1; u |= (x & 0x7F) << s; s += 7
        if x < 0x80: return u, i

def pb_fields(b):
    i = 0
    while i < len(b):
        key, i = _uv(b, i); f, t = key >> 3, key & 7
        if t == 0: v, i = _uv(b, i)
        elif t == 1: v = b[i:i + 8]; i += 8
        elif t == 5: v = b[i:i + 4]; i += 4
        elif t == 2: L, i = _uv(b, i); v = b[i:i + L]; i += L
        else: raise ValueError('wire type %d' % t)
        yield f, t, v

def tensor_scalar(b):
    dtype = 0; content = b''; fv = []; dv = []; dims_ok = True
    for f, t, v in pb_fields(b):
        if f == 1: dtype = v
        elif f == 2:
            for f2, t2, v2 in pb_fields(v):
                if f2 == 2:
                    for f3, t3, v3 in pb_fields(v2):
                        if f3 == 1 and v3 != 1: dims_ok = False
        elif f == 4: content = v
        elif f == 5: fv += list(struct.unpack('<%df' % (len(v) // 4), v)) if t == 2 else [struct.unpack('<f', v)[0]]
        elif f == 6: dv += list(struct.unpack('<%dd' % (len(v) // 8), v)) if t == 2 else [struct.unpack('<d', v)[0]]
    if not dims_ok: return None
    if dtype == 1:
        if len(content) == 4: return struct.unpack('<f', content)[0]
        if not content and len(fv) == 1: return fv[0]
    if dtype == 2:
        if len(content) == 8: return struct.unpack('<d', content)[0]
        if not content and len(dv) == 1: return dv[0]
    return None

def tfevents(path):
    data = open(path, 'rb').read(); at = 0; series = {}; plugins = {}
    while len(data) - at >= 16:
        (L,) = struct.unpack_from('<Q', data, at)
        if len(data) - at < 16 + L: break
        rec = data[at + 12:at + 12 + L]; at += 16 + L
        wall = 0.0; step = 0; summ = None
        for f, t, v in pb_fields(rec):
            if f == 1: wall = struct.unpack('<d', v)[0]
            elif f == 2: step = v - (1 << 64) if v >= 1 << 63 else v
            elif f == 5: summ = v
        if summ is None: continue
        for f, t, v in pb_fields(summ):
            if f != 1: continue
            tag = b''; num = None; tensor = None; plugin = None
            for f2, t2, v2 in pb_fields(v):
                if f2 == 1: tag = v2
                elif f2 == 2: num = struct.unpack('<f', v2)[0]
                elif f2 == 8: tensor = v2
                elif f2 == 9:
                    plugin = b''
                    for f3, t3, v3 in pb_fields(v2):
                        if f3 == 1:
                            for f4, t4, v4 in pb_fields(v3):
                                if f4 == 1: plugin = v4
            if plugin is not None: plugins[tag] = plugin
            if num is None and tensor is not None and plugins.get(tag, b'') in (b'', b'scalars'):
                num = tensor_scalar(tensor)
            if num is not None:
                s = series.setdefault(tag.decode(), ([], [], []))
                s[0].append(float(step)); s[1].append(int(math.floor(wall * 1000 + 0.5))); s[2].append(float(num))
    return series

def add(series, name, v, step=None):
    s = series.setdefault(name, ([], [], []))
    s[0].append(float(len(s[0]) if step is None else step)); s[1].append(WALL0); s[2].append(v)

def num(x):
    try: return float(x)
    except (TypeError, ValueError): return None

def corpus():
    """{dataset: {series: (steps, walls, values)}}. Text/JSON/CSV logs carry no clock: wall is one stamp."""
    out = {}
    tb = {}
    for p in sorted(glob.glob(ROOT + '/tfevents/**/events.out.tfevents.*', recursive=True)):
        for k, v in tfevents(p).items(): tb[os.path.relpath(p, ROOT) + ':' + k] = v
    out['corpus tfevents'] = tb
    hf = {}
    for p in sorted(glob.glob(ROOT + '/hf/trainer_state/**/trainer_state.json', recursive=True)):
        for rec in json.load(open(p))['log_history']:
            for k, v in rec.items():
                if k in ('step',) or num(v) is None: continue
                add(hf, p + ':' + k, float(v), rec.get('step'))
    for p in sorted(glob.glob(ROOT + '/hf/stdout/**/*', recursive=True)):
        if not os.path.isfile(p): continue
        for line in open(p, errors='replace').read().replace('\r', '\n').split('\n'):
            for m in re.finditer(r"\{'[^{}]*\}", line):
                try: d = ast.literal_eval(m.group(0))
                except Exception: continue
                if not any('loss' in k or k == 'epoch' for k in d): continue  # configuration dicts are not metrics
                for k, v in d.items():
                    if k != 'epoch' and num(v) is not None: add(hf, p + ':' + k, num(v))
    out['corpus HF (trainer_state + stdout dicts)'] = hf
    other = {}
    for p in sorted(glob.glob(ROOT + '/lightning_csv/**/metrics.csv', recursive=True)):
        for row in csv.DictReader(open(p)):
            for k, v in row.items():
                if k in ('epoch', 'step') or num(v) is None: continue
                add(other, p + ':' + k, num(v), num(row.get('step')))
    for p in sorted(glob.glob(ROOT + '/text/**/*.txt', recursive=True)):
        for line in open(p, errors='replace'):
            for m in re.finditer(r' - (\w+): ([-+0-9.eE]+|nan|inf)', line):
                if num(m.group(2)) is not None: add(other, p + ':' + m.group(1), num(m.group(2)))
    out['corpus Lightning CSV + Keras text'] = other
    return out

def wall_clock(n, every, rnd):
    """ms stamps: a step period that drifts in 50-200 ms, 5 ms jitter, a 20-60 s evaluation pause every 10 k steps."""
    t = float(WALL0) + rnd.randrange(1000); period = rnd.uniform(50, 200); out = []
    for i in range(n):
        out.append(int(t))
        period = min(200.0, max(50.0, period + rnd.gauss(0, 0.5)))
        t += every * period + rnd.gauss(0, 5.0)
        if (i + 1) * every % 10000 == 0: t += rnd.uniform(20000, 60000)
    return out

def synthetic(n=1_000_000, every=1, digits=4, seed=1):
    rnd = random.Random(seed)
    steps = [float(i * every) for i in range(n)]
    total = n * every; vals = []
    for s in steps:
        t = s / total
        x = 2.3 * math.exp(-6.0 * t) + 0.35 + rnd.gauss(0, 0.02 + 0.05 * math.exp(-6.0 * t))
        vals.append(float('%.*g' % (digits, x)))
    return steps, wall_clock(n, every, rnd), vals

def noise(n=200_000, seed=2):
    rnd = random.Random(seed)
    return [float(i) for i in range(n)], wall_clock(n, 1, rnd), [rnd.gauss(0.5, 0.1) for _ in range(n)]
