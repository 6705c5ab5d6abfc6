// The cells and the Python of tst_kernelquery (in a header: moc reads raw strings with braces
// badly).
#pragma once

namespace {

// Evaluates the query's user expression as IPython does (eval in the user's namespace, which
// `setup` fills) and prints the execute_reply content IPython would send (its application/json
// from _repr_json_), with what the query changed: modules imported, names in the namespace.
const char *const kEvaluateAsIPython = R"PY(
import json, sys, time
asked = json.load(sys.stdin)
ns = {'__name__': '__main__'}
exec(asked['setup'], ns)
modules = set(sys.modules)
names = dict(ns)
start = time.perf_counter()
value = eval(asked['expression'], ns, ns)
seconds = time.perf_counter() - start
print(json.dumps({
    'reply': {'status': 'ok', 'user_expressions': {'ferry': {
        'status': 'ok', 'metadata': {},
        'data': {'application/json': value._repr_json_(), 'text/plain': repr(value)}}}},
    'seconds': seconds,
    'new_modules': sorted(set(sys.modules) - modules),
    'namespace_changed': sorted(k for k in set(ns) | set(names) if ns.get(k, ns) is not names.get(k, names)),
}))
)PY";

// The user's namespace of the variables tests: one of each kind, 1,000 more.
const char *const kNamespace = R"PY(
x = 42
items = [1, 2, 3]
name = 'ferry'
big = 10 ** 400
def helper():
    pass
class Thing:
    pass
import os
_hidden = 1
for i in range(1000):
    globals()['v%d' % i] = i
)PY";

// Cells whose names are hard to get right: name, source, what it binds, what it reads (sorted,
// space-separated; "!" for a cell that does not parse).
struct TrickyCell {
    const char *name;
    const char16_t *source;
    const char *defines;
    const char *reads;
};

const TrickyCell kTrickyCells[] = {
    {"assign then use", u"x = 1\nprint(x)", "x", "print"},
    {"reads before it binds", u"x = x + 1", "x", "x"},
    {"augmented", u"total += step", "total", "step total"},
    {"for and with targets", u"for i, (a, b) in pairs:\n    pass\nwith open(p) as f:\n    data = f.read()",
     "a b data f i", "open p pairs"},
    {"imports", u"import os.path, numpy as np\nfrom math import pi as PI, tau\nfrom m import *", "PI np os tau", ""},
    {"def and class scopes",
     u"def f(a, b=default):\n    return a + later + helper(a)\nlater = 2\ndef helper(v):\n    return v\n"
     u"class A(Base):\n    z = w\n    q = z\n    def m(self):\n        return z",
     "A f helper later", "Base default w z"},
    {"global and nonlocal",
     u"def bump():\n    global counter\n    counter += 1\ndef outer():\n    v = 1\n    def inner():\n"
     u"        nonlocal v\n        v += 1\n        return v + seen\n    return inner",
     "bump counter outer", "seen"},
    {"comprehensions do not leak",
     u"squares = [i * k for i in range(n) if i > lim]\nprint(i)\nkeys = {k: v for k, v in d.items()}", "keys squares",
     "d i k lim n print range"},
    {"walrus", u"if (m := compute()) > 0:\n    print(m)\n[last := t for t in items]\nprint(last)", "last m",
     "compute items print"},
    {"del and except", u"del old\ntry:\n    risky()\nexcept ValueError as e:\n    err = e", "e err old",
     "ValueError old risky"},
    {"match",
     u"match cmd:\n    case Point(x=px, y=0):\n        r = px\n    case [first, *rest]:\n        r = first\n"
     u"    case {'k': v, **others}:\n        r = v",
     "first others px r rest v", "Point cmd"},
    {"top-level await", u"await asyncio.sleep(1)\nres = await fetch(url)", "res", "asyncio fetch url"},
    {"lambda and annotations", u"scale = lambda q: q * factor\nx: int = 3\ny: float", "scale x", "factor float int"},
    {"attributes and items bind nothing", u"df['a'] = df['b'] * 2\nobj.attr = val", "", "df obj val"},
    {"IPython lines", u"%matplotlib inline\nfiles = !ls\n!echo $HOME\nlen?\n%time z = f(a)\nprint(files, z)", "files z",
     "a f print"},
    {"IPython lines in a block", u"for i in range(3):\n    %time step(i)\n    !echo hi", "i", "range step"},
    {"cell magic with Python", u"%%capture out\ny = x * 2", "out y", "x"},
    {"cell magic without", u"%%bash\necho $x\ny=1", "", ""},
    {"syntax error", u"def broken(:\n    pass", "!", "!"},
    {"unicode names", u"caf\u00e9 = na\u00efve + 1", "caf\u00e9", "na\u00efve"},
};

} // namespace
