"""Compares two executed notebooks cell by cell: `ferry notebook execute` against `jupyter nbconvert
--to notebook --execute` on the same notebook. Exits 1 naming the first difference.

The same output types per cell (consecutive streams of one name merged, as Jupyter's front ends
show them), the same text and values, an image wherever the other has one, the same error names;
and the first notebook passes nbformat.validate. Run with /usr/bin/python3 (Debian's nbformat)."""
import sys
import nbformat


def merged(outputs):
    result = []
    for out in outputs:
        if out["output_type"] == "stream" and result and result[-1]["output_type"] == "stream" \
                and result[-1]["name"] == out["name"]:
            result[-1] = dict(result[-1], text=result[-1]["text"] + out["text"])
        else:
            result.append(out)
    return result


def summary(out):
    kind = out["output_type"]
    if kind == "stream":
        return (kind, out["name"], out["text"])
    if kind == "error":
        return (kind, out["ename"], out["evalue"])
    data = out.get("data", {})
    images = sorted(k for k in data if k.startswith("image/"))
    plain = data.get("text/plain", "")
    if images:
        plain = ""  # a figure's repr names its address in memory
    extra = (out.get("execution_count"),) if kind == "execute_result" else ()
    return (kind, tuple(sorted(data)), plain, tuple(images)) + extra


def main():
    ours_path, theirs_path = sys.argv[1], sys.argv[2]
    ours = nbformat.read(ours_path, as_version=4)
    nbformat.validate(ours)
    theirs = nbformat.read(theirs_path, as_version=4)
    if len(ours.cells) != len(theirs.cells):
        sys.exit("%d cells against %d" % (len(ours.cells), len(theirs.cells)))
    compared = 0
    for i, (a, b) in enumerate(zip(ours.cells, theirs.cells)):
        if a.cell_type != b.cell_type or a.source != b.source:
            sys.exit("cell %d: not the same cell" % (i + 1))
        if a.cell_type != "code":
            continue
        if a.execution_count != b.execution_count:
            sys.exit("cell %d: execution count %r against %r" % (i + 1, a.execution_count, b.execution_count))
        sa = [summary(o) for o in merged(a.outputs)]
        sb = [summary(o) for o in merged(b.outputs)]
        if sa != sb:
            sys.exit("cell %d:\n  ferry:    %r\n  nbconvert: %r" % (i + 1, sa, sb))
        compared += 1
    print("%d code cells alike" % compared)


main()
