#!/usr/bin/env python3
"""The Python reference for tests/bench/ingest.sh: what a script would do to load a training
log into SQLite. A regex over every line, executemany in batches, WAL.
   ingest_reference.py LOG DB SCHEMA_SQL
Prints: python POINTS SECONDS"""
import re
import sqlite3
import sys
import time

log, db_path, schema = sys.argv[1:4]
TOKEN = re.compile(r'"?([A-Za-z_][\w./-]*)"?\s*[=:]\s*([-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)(?=[\s,;)\]}]|$)')
STEP_KEYS = ("step", "global_step", "iteration", "iter", "epoch")
RUN = "bench"
BATCH = 50000

db = sqlite3.connect(db_path)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA synchronous=NORMAL")
with open(schema) as f:
    db.executescript(f.read())
db.execute("INSERT INTO runs(id, status) VALUES (?, 'running')", (RUN,))
db.commit()

start = time.perf_counter()
rows = []
total = 0
counts = {}
insert = "INSERT INTO metrics(run, name, step, wall_ms, value) VALUES (?, ?, ?, ?, ?)"
with open(log, encoding="utf-8", errors="replace") as f:
    for line in f:
        pairs = TOKEN.findall(line)
        if not pairs:
            continue
        wall = int(time.time() * 1000)
        step = None
        values = []
        for key, value in pairs:
            if key.lower() in STEP_KEYS:
                if step is None:
                    step = float(value)
            else:
                values.append((key, float(value)))
        for key, value in values:
            if step is None:
                x = counts.get(key, 0)
                counts[key] = x + 1
            else:
                x = step
            rows.append((RUN, key, x, wall, value))
        if len(rows) >= BATCH:
            db.executemany(insert, rows)
            db.commit()
            total += len(rows)
            rows = []
if rows:
    db.executemany(insert, rows)
    db.commit()
    total += len(rows)
print(f"python {total} {time.perf_counter() - start:.3f}")
