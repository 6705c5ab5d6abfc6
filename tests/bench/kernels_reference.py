#!/usr/bin/python3
"""jupyter_client's figures for tests/bench/kernels.sh (run by hand), on the same ipykernel:
    kernels_reference.py start N        KernelManager.start_kernel to wait_for_ready, N times (s)
    kernels_reference.py roundtrip N    `1+1` sent to its result and idle on iopub, N times (ms)
    kernels_reference.py lines N [P]    a cell printing N numbered lines: wall time from send to
                                        idle, the kernel's loop time, lines received; with P this
                                        process is stopped P seconds right after the cell is sent
Run with /usr/bin/python3 (Debian's python3-jupyter-client)."""
import os
import subprocess
import sys
import time

from jupyter_client.manager import KernelManager

mode, n = sys.argv[1], int(sys.argv[2])


def start():
    km = KernelManager(kernel_name="python3")
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    return km, kc


def stop(km, kc):
    kc.stop_channels()
    km.shutdown_kernel(now=True)


def run(kc, code, on_stream=None):
    msg_id = kc.execute(code)
    result = None
    while True:
        msg = kc.get_iopub_msg(timeout=600)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind = msg["msg_type"]
        if kind == "execute_result":
            result = msg["content"]["data"]
        elif kind == "stream" and on_stream:
            on_stream(msg["content"])
        elif kind == "status" and msg["content"]["execution_state"] == "idle":
            break
    kc.get_shell_msg(timeout=60)
    return result


if mode == "start":
    for _ in range(n):
        t = time.perf_counter()
        km, kc = start()
        print(time.perf_counter() - t, flush=True)
        stop(km, kc)
    sys.exit(0)

km, kc = start()
if mode == "roundtrip":
    run(kc, "1+1")
    for _ in range(n):
        t = time.perf_counter()
        assert run(kc, "1+1")["text/plain"] == "2"
        print((time.perf_counter() - t) * 1000, flush=True)
elif mode == "lines":
    pause = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    state = {"expected": 0, "received": 0, "inorder": True, "pending": "", "loop": -1.0}

    def on_stream(content):
        if content["name"] == "stderr":
            if content["text"].startswith("LOOP "):
                state["loop"] = float(content["text"][5:])
            return
        text = state["pending"] + content["text"]
        lines = text.split("\n")
        state["pending"] = lines.pop()
        for line in lines:
            if int(line) != state["expected"]:
                state["inorder"] = False
                state["expected"] = int(line)
            state["expected"] += 1
            state["received"] += 1

    code = ("import sys, time\nt = time.perf_counter()\nfor i in range(%d):\n    print(i)\nsys.stdout.flush()\n"
            "print('LOOP', time.perf_counter() - t, file=sys.stderr)" % n)
    if pause:
        subprocess.Popen(["/bin/sh", "-c", "sleep 0.3; kill -STOP %d; sleep %d; kill -CONT %d"
                          % (os.getpid(), pause, os.getpid())])
    t = time.perf_counter()
    run(kc, code, on_stream)
    wall = time.perf_counter() - t
    import resource
    print("wall %f\nloop %f\nreceived %d\ninorder %d\npeakRssKiB %d" % (
        wall, state["loop"], state["received"], 1 if state["inorder"] else 0,
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))
stop(km, kc)
