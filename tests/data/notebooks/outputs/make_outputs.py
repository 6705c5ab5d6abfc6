#!/usr/bin/python3
"""Records what a real ipykernel sends for a few cells (run once; the files it writes are committed).

Each cell's iopub stream texts are kept as the messages that carried them (the chunking is the
kernel's own) and its error as ipykernel sent it: ename, evalue and the ANSI-coloured traceback.
tqdm is not installed here: the progress cells write what tqdm writes ('\\r' and the bar, padded
to the last bar's width; nested bars move down with '\\n' and back up with ESC[A).
It writes kernel_outputs.json, and the same as raw bytes for the fuzz targets' seeds:
traceback.ansi (the traceback's lines joined, as Jupyter shows them) and streams.ansi (every
stream text, one after another).
Usage: /usr/bin/python3 make_outputs.py   (in this folder; Debian's python3-ipykernel)
"""
import json
import os
import tempfile

from jupyter_client.manager import start_new_kernel

CELLS = {
    "traceback": """
def inner(x):
    return 1 / x

def outer(values):
    return [inner(v) for v in values]

outer([2, 1, 0])
""",
    "colours": r"""
import sys
print("\x1b[1;31merror:\x1b[0m plain \x1b[32mgreen\x1b[39m \x1b[38;5;208morange\x1b[0m \x1b[48;2;10;20;30mdark\x1b[0m")
print("\x1b[3mitalic\x1b[23m \x1b[4munder\x1b[24m \x1b[7minverse\x1b[27m \x1b[2mfaint\x1b[22m")
sys.stderr.write("\x1b[33mwarning\x1b[0m: done\n")
""",
    "tqdm": r"""
import sys, time
last = 0
for i in range(0, 101, 10):
    bar = "%3d%%|%s%s| %d/100 [00:0%d<00:00, 100.00it/s]" % (i, "\u2588" * (i // 10), " " * (10 - i // 10), i, i // 20)
    sys.stderr.write("\r" + bar + " " * max(last - len(bar), 0)); sys.stderr.flush()
    last = len(bar)
    time.sleep(0.02)
sys.stderr.write("\n")
""",
    "nested": r"""
import sys, time
def bar(name, i, n):
    return "%s %3d%%|%s%s| %d/%d" % (name, 100 * i // n, "#" * (10 * i // n), " " * (10 - 10 * i // n), i, n)
for e in range(3):
    for s in range(5):
        sys.stderr.write("\r" + bar("epoch", e, 3))
        sys.stderr.write("\n" + "\r" + bar("step ", s + 1, 5) + "\x1b[A")
        sys.stderr.flush()
        time.sleep(0.01)
sys.stderr.write("\r" + bar("epoch", 3, 3) + "\n\n")
""",
}


def run(client, code):
    msg_id = client.execute(code)
    streams, error = [], None
    while True:
        msg = client.get_iopub_msg(timeout=30)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            streams.append({"name": content["name"], "text": content["text"]})
        elif kind == "error":
            error = {"ename": content["ename"], "evalue": content["evalue"], "traceback": content["traceback"]}
        elif kind == "status" and content["execution_state"] == "idle":
            return {"streams": streams, "error": error}


def main():
    home = tempfile.mkdtemp()
    os.environ["HOME"] = home  # Jupyter's runtime folder
    manager, client = start_new_kernel(kernel_name="python3")
    try:
        recorded = {name: run(client, code.strip() + "\n") for name, code in CELLS.items()}
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    with open("kernel_outputs.json", "w") as f:
        json.dump(recorded, f, indent=1, ensure_ascii=False)
        f.write("\n")
    with open("traceback.ansi", "w") as f:
        f.write("\n".join(recorded["traceback"]["error"]["traceback"]) + "\n")
    with open("streams.ansi", "w") as f:
        f.write("".join(s["text"] for cell in recorded.values() for s in cell["streams"]))


main()
