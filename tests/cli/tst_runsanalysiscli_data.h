// The numpy reference tst_runsanalysiscli checks `ferry runs aggregate --csv` against (kept out of
// the test's .cpp: moc reads raw strings with braces badly).
#pragma once

namespace ferry::test {

// Reads {"groups": {key: [[steps], [values (null: NaN)]]...}, "csv": text, "band": "" | "std" |
// "minmax"} on stdin; computes each group's n, mean, std, min, max at every step of the union of
// its runs' steps with numpy (each run's points ordered by step, the later of equal steps kept;
// np.interp between two points, none outside a run's steps or on a segment touching a NaN);
// checks the rows come a group at a time, steps ascending; prints {"rows": N, "expected": M,
// "mismatches": [...]}.
inline constexpr char kAggregateReference[] = R"PY(
import csv, io, json, math, sys
import numpy as np

data = json.load(sys.stdin)

def curve(steps, values):
    order = sorted(range(len(steps)), key=lambda i: steps[i])
    xs, ys = [], []
    for i in order:
        v = math.nan if values[i] is None else values[i]
        if xs and xs[-1] == steps[i]:
            ys[-1] = v
        else:
            xs.append(steps[i])
            ys.append(v)
    return np.array(xs, dtype=float), np.array(ys, dtype=float)

def value_at(xs, ys, t):
    if t < xs[0] or t > xs[-1]:
        return None
    j = int(np.searchsorted(xs, t, side="right")) - 1
    if xs[j] == t:
        return float(ys[j]) if np.isfinite(ys[j]) else None
    if not (np.isfinite(ys[j]) and np.isfinite(ys[j + 1])):
        return None
    return float(np.interp(t, xs[j:j + 2], ys[j:j + 2]))

expected = {}
for key, runs in data["groups"].items():
    curves = [curve(s, v) for s, v in runs]
    for t in np.unique(np.concatenate([c[0] for c in curves])):
        got = [v for v in (value_at(xs, ys, float(t)) for xs, ys in curves) if v is not None]
        a = np.array(got)
        stats = [a.mean(), a.std(), a.min(), a.max()] if got else []
        if got and data["band"] == "std":
            stats += [a.mean() - a.std(), a.mean() + a.std()]
        elif got and data["band"] == "minmax":
            stats += [a.min(), a.max()]
        expected[(float(t), key)] = (len(got), stats)

rows = list(csv.reader(io.StringIO(data["csv"])))
header = ["step", "group", "n", "mean", "std", "min", "max"] + (["low", "high"] if data["band"] else [])
mismatches = [] if rows[0] == header else ["header " + ",".join(rows[0])]
seen = set()
for row in rows[1:]:
    key = (float(row[0]), row[1])
    seen.add(key)
    if key not in expected:
        mismatches.append("unexpected row " + ",".join(row))
        continue
    n, stats = expected[key]
    if int(row[2]) != n:
        mismatches.append("n of %s: %s, numpy %d" % (key, row[2], n))
        continue
    fields = row[3:]
    if n == 0:
        if any(fields):
            mismatches.append("values at n = 0: " + ",".join(row))
        continue
    for name, text, want in zip(header[3:], fields, stats):
        if not math.isclose(float(text), want, rel_tol=1e-12, abs_tol=1e-12):
            mismatches.append("%s of %s: %s, numpy %r" % (name, key, text, want))
order = [(row[1], float(row[0])) for row in rows[1:]]
done = set()
for (group, step), (next_group, next_step) in zip(order, order[1:]):
    if group != next_group:
        done.add(group)
        if next_group in done:
            mismatches.append("group %r comes again" % next_group)
    elif not step < next_step:
        mismatches.append("steps of %r out of order: %r then %r" % (group, step, next_step))
for key in expected:
    if key not in seen:
        mismatches.append("missing row %s" % (key,))
print(json.dumps({"rows": len(rows) - 1, "expected": len(expected), "mismatches": mismatches[:20]}))
)PY";

} // namespace ferry::test
