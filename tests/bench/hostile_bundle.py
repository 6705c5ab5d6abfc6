#!/usr/bin/env python3
"""Hostile run bundles for tests/bench/hostile.sh, made from a real bundle (`ferry runs export
--bundle`) as the second security review's attacker made them, scaled by SCALE:

  hostile_bundle.py GOOD.tar.gz OUT.tar.gz folders SCALE  six levels of 64*SCALE folders, each
                                                          level the same listing (review M3)
  hostile_bundle.py GOOD.tar.gz OUT.tar.gz files SCALE    a real snapshot of SCALE folders of 100
                                                          small files (a walk's cost)
  hostile_bundle.py GOOD.tar.gz OUT.tar.gz quote SCALE    metrics.csv: a quote, then 400000*SCALE
                                                          line breaks (review M5)
"""
import hashlib
import io
import json
import sys
import tarfile


def read(path):
    with tarfile.open(path, "r:gz") as t:
        return [(m.name, t.extractfile(m).read()) for m in t.getmembers() if m.isfile()]


def write(path, entries):
    with tarfile.open(path, "w:gz", compresslevel=6) as t:
        for name, data in entries:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            t.addfile(info, io.BytesIO(data))


def sha(data):
    return hashlib.sha256(data).hexdigest()


def tree(entries):  # (type, size, hash, name), as Ferry writes a listing
    text = b"ferry-tree 1\n"
    for kind, size, digest, name in sorted(entries, key=lambda e: e[3]):
        text += b"%s %d %s %s\n" % (kind.encode(), size, digest.encode(), name.encode())
    return text


def with_snapshot(entries, root, objects):
    kept = [(n, d) for n, d in entries if not n.startswith("objects/")]
    out = []
    for name, data in kept:
        if name in ("spec.json", "ferry-bundle.json"):
            doc = json.loads(data)
            doc["snapshot"]["tree"] = root
            data = json.dumps(doc).encode()
        out.append((name, data))
    seen = set()
    for data in objects:
        digest = sha(data)
        if digest not in seen:
            seen.add(digest)
            out.append(("objects/%s/%s" % (digest[:2], digest[2:]), data))
    return out


def main():
    good, out, kind, scale = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    entries = read(good)
    if kind == "folders":
        level = tree([])
        objects = [level]
        for _ in range(6):
            level = tree([("d", 0, sha(level), "d%d" % i) for i in range(64 * scale)])
            objects.append(level)
        entries = with_snapshot(entries, sha(level), objects)
    elif kind == "files":
        objects, folders = [], []
        total = 0
        for f in range(scale):
            files = []
            for i in range(100):
                data = b"# file %d of folder %d\nprint(%d)\n" % (i, f, i)
                objects.append(data)
                files.append(("f", len(data), sha(data), "m%03d.py" % i))
            listing = tree(files)
            objects.append(listing)
            size = sum(e[1] for e in files)
            total += size
            folders.append(("d", size, sha(listing), "pkg%05d" % f))
        train = b'print("done")\n'  # the script the bundle's spec names
        objects.append(train)
        folders.append(("f", len(train), sha(train), "train.py"))
        root = tree(folders)
        objects.append(root)
        entries = with_snapshot(entries, sha(root), objects)
    elif kind == "quote":
        entries = [(n, (d.split(b"\n")[0] + b"\n\"" + b"\n" * (400000 * scale)) if n == "metrics.csv" else d)
                   for n, d in entries]
    else:
        sys.exit("unknown kind " + kind)
    write(out, entries)


main()
