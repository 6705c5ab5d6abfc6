#!/usr/bin/env python3
"""The kernel keeper's cost and capacity, run by hand (not by CI), with /usr/bin/python3:
    tests/bench/keeper_throughput.py [RUNS] [LINES]        (default 3 runs of 1,000,000 lines)
- overhead: the cell `for i in range(LINES): print(i)` timed by jupyter_client (execute sent to
  reply and idle), on an ipykernel started alone and on one started by the keeper, alternating,
  RUNS each; jupyter_client reads iopub in both. Prints the medians, the ratio keeper/alone (goal
  <= 1.05), the keeper's CPU seconds and whether the journal holds every line once, in order;
- unread: the same cell while nobody reads iopub for 10 s: lines lost from the journal (goal 0);
- flushed: 100,000 `print(i, flush=True)`, one iopub message each: messages lost (goal 0);
- capacity: a PUB flooding the keeper with signed messages as fast as libzmq takes them (no
  high-water mark on the sender, so it waits for the keeper): the keeper's messages per second.
The keeper runs under FERRY_KEEPER_PYTHON when set, else this interpreter."""

import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "kernels"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import keeper_check as kc  # noqa: E402  (its KernelFolder and journal reader)

FLOOD = r'''
import json, sys, time, zmq
from jupyter_client.session import Session
connection = json.load(open(sys.argv[1]))
count = int(sys.argv[2])
session = Session(key=connection["key"].encode())
ctx = zmq.Context()
pub = ctx.socket(zmq.XPUB)
pub.setsockopt(zmq.SNDHWM, 0)
pub.setsockopt(zmq.LINGER, -1)
pub.bind("ipc://%s-%d" % (connection["ip"], connection["iopub_port"]))
pub.recv()  # the keeper's subscription
frames = [b"kernel.flood.stream"] + session.serialize(
    session.msg("stream", content={"name": "stdout", "text": "x" * 40 + "\n"}))
started = time.monotonic()
for _ in range(count):
    pub.send_multipart(frames)
pub.close()
ctx.term()  # returns once every message has left for the keeper
print("%.6f" % (time.monotonic() - started), file=sys.stderr, flush=True)
'''


def cpu_seconds(pid):
    fields = kc.keeper.proc_stat(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") if fields else 0.0


def lines_in_order(text, lines):
    """(lines journalled, whether they are 0..lines-1 once each, in order)."""
    got = text.count("\n")
    return got, text == "".join("%d\n" % i for i in range(lines))


def timed_cell(kernel, lines):
    started = time.monotonic()
    msg_id, _ = kc.execute_seen(kernel, "for i in range(%d): print(i)" % lines, timeout=600)
    return msg_id, time.monotonic() - started


def run_alone(lines):
    k = kc.KernelFolder(start=False)
    os.mkdir(k.socket_dir, 0o700)
    argv = [a.replace("{connection_file}", k.connection) for a in kc.KERNEL_ARGV]
    with open(k.path("kernel.log"), "ab") as log:
        kernel = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                  start_new_session=True)
    try:
        k.connect()
        return timed_cell(k, lines)[1]
    finally:
        k.close()
        kernel.terminate()
        kernel.wait(10)


def run_kept(lines):
    k = kc.KernelFolder()
    try:
        k.wait_keeper()
        k.connect()
        cpu = cpu_seconds(k.proc.pid)
        msg_id, wall = timed_cell(k, lines)
        cpu = cpu_seconds(k.proc.pid) - cpu
        got, ordered = lines_in_order(kc.stream_text(k.wait_idle_in_journal(msg_id)), lines)
        return wall, cpu, got, ordered
    finally:
        k.close()


def run_unread(lines, seconds=10):
    k = kc.KernelFolder()
    try:
        k.wait_keeper()
        k.connect()
        msg_id = k.client.execute("for i in range(%d): print(i)" % lines)
        time.sleep(seconds)  # iopub unread by the client all this time
        reply = k.client.get_shell_msg(timeout=600)
        kc.check(reply["content"]["status"] == "ok", "the cell failed: %r" % reply["content"])
        return lines_in_order(kc.stream_text(k.wait_idle_in_journal(msg_id)), lines)
    finally:
        k.close()


def run_flushed(count):
    k = kc.KernelFolder()
    try:
        k.wait_keeper()
        k.connect()
        started = time.monotonic()
        msg_id = k.client.execute("for i in range(%d): print(i, flush=True)" % count)
        k.client.get_shell_msg(timeout=600)
        wall = time.monotonic() - started
        records = k.wait_idle_in_journal(msg_id)
        messages = sum(1 for r in records if r["header"]["msg_type"] == "stream")
        got, ordered = lines_in_order(kc.stream_text(records), count)
        return wall, messages, got, ordered
    finally:
        k.close()


def run_flood(count):
    k = kc.KernelFolder(argv=[sys.executable, "-c", FLOOD, "{connection_file}", str(count)])
    try:
        record = k.wait_exit(timeout=600)
        kc.check(record["reason"] == "exited", "the flood ended: %r" % record)
        with open(k.path("kernel.log")) as f:
            seconds = float(f.read().split()[-1])
        journalled = sum(1 for r in k.journal() if r["header"]["msg_type"] == "stream")
        return count / seconds, journalled
    finally:
        k.close()


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    lines = int(sys.argv[2]) if len(sys.argv) > 2 else 1000000
    alone, kept, cpus = [], [], []
    for _ in range(runs):
        alone.append(run_alone(lines))
        wall, cpu, got, ordered = run_kept(lines)
        kept.append(wall)
        cpus.append(cpu)
        print("run: alone %.3f s, kept %.3f s (keeper CPU %.3f s), journalled %d lines%s"
              % (alone[-1], wall, cpu, got, "" if ordered else " NOT ONCE EACH IN ORDER"),
              flush=True)
    ratio = statistics.median(kept) / statistics.median(alone)
    print("overhead: %d lines, median alone %.3f s, with the keeper %.3f s: ratio %.3f "
          "(goal <= 1.05); keeper CPU %.3f s" % (lines, statistics.median(alone),
                                                 statistics.median(kept), ratio,
                                                 statistics.median(cpus)), flush=True)
    got, ordered = run_unread(lines)
    print("unread: iopub unread for 10 s: journalled %d lines, lost %d, %s"
          % (got, lines - got, "once each, in order" if ordered else "NOT ONCE EACH IN ORDER"),
          flush=True)
    wall, messages, got, ordered = run_flushed(100000)
    print("flushed: 100000 flushed prints in %.2f s: %d stream messages, %d lines, lost %d, %s"
          % (wall, messages, got, 100000 - got, "in order" if ordered else "NOT IN ORDER"),
          flush=True)
    rate, journalled = run_flood(300000)
    print("capacity: 300000 messages flooded: %.0f messages/s taken, %d journalled"
          % (rate, journalled), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
