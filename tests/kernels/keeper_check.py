#!/usr/bin/env python3
"""The kernel keeper (core/kernels/keeper.py) against a real ipykernel and Jupyter's own client, as
docs/kernels.md says it behaves: the journal holds what jupyter_client saw, in the same order and
signed; nothing is lost while nobody reads; redaction, interrupt, restart (of a busy kernel too),
stop, a kernel killed from outside, the idle stop, refusals and `follow`. Its parsers are checked directly (a bad signature
cannot be made to come out of a kernel). Run with /usr/bin/python3 (python3-ipykernel,
python3-jupyter-client, pyzmq); the keeper runs under FERRY_KEEPER_PYTHON when set (any Python 3.7+,
standard library only), else the same interpreter. Exits 1 at the first failure, saying which."""

import base64
import hashlib
import hmac
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
KEEPER = os.path.join(ROOT, "core", "kernels", "keeper.py")
sys.path.insert(0, os.path.dirname(KEEPER))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import keeper  # noqa: E402  (the module under test)

KEEPER_PYTHON = os.environ.get("FERRY_KEEPER_PYTHON", sys.executable)
KERNEL_ARGV = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
SECRET = "s3cr3t-value"


class CheckFailed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise CheckFailed(message)


def wait_for(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise CheckFailed("timed out after %g s waiting for %s" % (timeout, what))
        time.sleep(0.02)


def read_json(path):
    try:
        with open(path, "rb") as f:
            return json.loads(f.read().decode("utf-8"))
    except (OSError, ValueError):
        return None


def parse_journal(data, key):
    """The journal's records, each signature checked: [{offset, frames, header, parent, content}].
    Written here again from docs/kernels.md, not borrowed from the keeper."""
    check(data[:8] == b"FERRYJ1\n", "the journal does not start with FERRYJ1\\n")
    records = []
    pos = 8
    while pos + 4 <= len(data):
        size = int.from_bytes(data[pos:pos + 4], "little")
        end = pos + 4 + size
        if end > len(data):
            break  # a record still being written (or cut short): the journal ends here
        count = int.from_bytes(data[pos + 4:pos + 8], "little")
        frames = []
        at = pos + 8
        for _ in range(count):
            length = int.from_bytes(data[at:at + 4], "little")
            frames.append(data[at + 4:at + 4 + length])
            at += 4 + length
        check(at == end, "record at %d: frames do not fill it" % pos)
        check(count >= 5, "record at %d: %d frames" % (pos, count))
        mac = hmac.new(key, digestmod=hashlib.sha256)
        for frame in frames[1:5]:
            mac.update(frame)
        check(hmac.compare_digest(mac.hexdigest().encode(), frames[0]),
              "record at %d: the signature does not verify" % pos)
        records.append({"offset": pos, "frames": frames, "header": json.loads(frames[1]),
                        "parent": json.loads(frames[2]), "content": json.loads(frames[4])})
        pos = end
    return records


def group_members(pgid):
    """Live processes of the process group or session `pgid`."""
    return [pid for pid, _ in keeper.group_processes(pgid)]


def free_tcp_ports(count):
    import socket
    holders = [socket.socket() for _ in range(count)]
    try:
        for s in holders:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in holders]
    finally:
        for s in holders:
            s.close()


class KernelFolder:
    """A kernel's folder (0700, connection.json with ipc sockets in a private folder the keeper
    makes) and its keeper, started on ARGV."""

    def __init__(self, options=(), argv=None, redact=(), start=True, transport="ipc"):
        self.dir = tempfile.mkdtemp(prefix="ferry-keeper-check-")
        os.chmod(self.dir, 0o700)
        self.sockroot = tempfile.mkdtemp(prefix="fk", dir="/tmp")
        self.socket_dir = os.path.join(self.sockroot, "k")
        self.key = secrets.token_hex(32)
        self.connection = os.path.join(self.dir, "connection.json")
        fd = os.open(self.connection, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        if transport == "ipc":
            ip, ports = os.path.join(self.socket_dir, "k"), [1, 2, 3, 4, 5]
        else:
            ip, ports = "127.0.0.1", free_tcp_ports(5)
        names = ["shell_port", "iopub_port", "stdin_port", "control_port", "hb_port"]
        with os.fdopen(fd, "w") as f:
            json.dump(dict(zip(names, ports), transport=transport, ip=ip, key=self.key,
                           signature_scheme="hmac-sha256", kernel_name="python3"), f)
        with open(self.connection, "rb") as f:
            self.connection_bytes = f.read()
        if redact:
            fd = os.open(os.path.join(self.dir, "redact"), os.O_WRONLY | os.O_CREAT, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write("".join(p.encode().hex() + "\n" for p in redact))
        self.options = list(options)
        self.argv = list(argv or KERNEL_ARGV)
        self.proc = None
        self.client = None
        self.stderr_path = os.path.join(self.sockroot, "keeper.stderr")
        if start:
            self.start()

    def path(self, name):
        return os.path.join(self.dir, name)

    def start(self):
        with open(self.stderr_path, "wb") as err:
            self.proc = subprocess.Popen(
                [KEEPER_PYTHON, KEEPER, "run", self.dir] + self.options + ["--"] + self.argv,
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)

    def wait_keeper(self, timeout=30):
        def ready():
            if self.proc.poll() is not None:
                raise CheckFailed("the keeper ended (%s) before keeper.json: %s"
                                  % (self.proc.returncode, self.stderr()))
            return read_json(self.path("keeper.json"))
        return wait_for(ready, timeout, "keeper.json")

    def stderr(self):
        try:
            with open(self.stderr_path, "rb") as f:
                return f.read().decode("utf-8", "replace").strip()
        except OSError:
            return ""

    def connect(self):
        from jupyter_client import BlockingKernelClient
        self.client = BlockingKernelClient(connection_file=self.connection)
        self.client.load_connection_file()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=30)
        return self.client

    def journal_bytes(self):
        with open(self.path("journal"), "rb") as f:
            return f.read()

    def journal(self):
        return parse_journal(self.journal_bytes(), self.key.encode())

    def replies_to(self, msg_id):
        return [r for r in self.journal() if r["parent"].get("msg_id") == msg_id]

    def wait_idle_in_journal(self, msg_id, timeout=30):
        def idle():
            records = self.replies_to(msg_id)
            done = any(r["header"]["msg_type"] == "status"
                       and r["content"].get("execution_state") == "idle" for r in records)
            return records if done else None
        return wait_for(idle, timeout, "the journal's idle status for %s" % msg_id)

    def wait_exit(self, timeout=30):
        def ended():
            return self.proc.poll() is not None
        wait_for(ended, timeout, "the keeper to end")
        check(self.proc.returncode == 0, "the keeper ended with %s: %s"
              % (self.proc.returncode, self.stderr()))
        record = read_json(self.path("kernel-exit.json"))
        check(record is not None, "no kernel-exit.json")
        return record

    def close(self):
        if self.client is not None:
            self.client.stop_channels()
        if self.proc is not None and self.proc.poll() is None:
            record = read_json(self.path("keeper.json")) or {}
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            if record.get("kernelPid"):
                for pid in group_members(record["kernelPid"]):
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
        shutil.rmtree(self.dir, ignore_errors=True)
        shutil.rmtree(self.sockroot, ignore_errors=True)


def stream_text(records, name="stdout"):
    return "".join(r["content"].get("text", "") for r in records
                   if r["header"]["msg_type"] == "stream" and r["content"].get("name") == name)


# --- the keeper's parts, directly -------------------------------------------------------------------

def check_parsers():
    from jupyter_client.session import Session
    key = secrets.token_hex(32).encode()
    session = Session(key=key)
    msg = session.msg("stream", content={"name": "stdout", "text": "hello %s\n" % SECRET})
    frames = [b"kernel.x.stream"] + session.serialize(msg)
    signer = keeper.Signer(key)
    sig, (h, p, m, c), buffers = keeper.split_message(frames)
    check(signer.verify(sig, h, p, m, c), "a message jupyter_client signed does not verify")
    check(buffers == [], "a message without buffers has buffers")
    check(not signer.verify(sig, h, p, m, c + b" "), "a changed content verifies")
    check(not signer.verify(b"0" * 64, h, p, m, c), "a wrong signature verifies")
    check(keeper.split_message([b"topic", b"no delimiter"]) is None, "no <IDS|MSG> is a message")
    check(keeper.split_message([keeper.DELIMITER, sig, h, p]) is None, "a short message splits")

    # ZMTP frames cut anywhere come out whole, in order, long and short, commands apart
    big = os.urandom(70000)
    stream = (keeper.zmtp_frame(b"topic", more=True) + keeper.zmtp_frame(big, more=True)
              + keeper.zmtp_frame(b"") + keeper.zmtp_command(b"PING", b"\x00\x0aab")
              + keeper.zmtp_frame(b"x" * 255) + keeper.zmtp_frame(b"y" * 256))
    for step in (1, 7, 4096, len(stream)):
        parser = keeper.ZmtpParser()
        messages, commands = [], []
        for at in range(0, len(stream), step):
            got, cmds = parser.feed(stream[at:at + step])
            messages += got
            commands += cmds
        check(messages == [[b"topic", big, b""], [b"x" * 255], [b"y" * 256]],
              "ZMTP frames fed %d bytes at a time come out wrong" % step)
        check([keeper.zmtp_command_name(b) for b in commands] == [(b"PING", b"\x00\x0aab")],
              "the PING command fed %d bytes at a time comes out wrong" % step)

    # the journal record and its reader
    record = keeper.encode_record([sig, h, p, m, c, b"buf"])
    records, end = keeper.decode_records(keeper.JOURNAL_MAGIC + record + record[:-1])
    check([f for _, f in records] == [[sig, h, p, m, c, b"buf"]] and end == 8 + len(record),
          "a record does not read back, or a cut one does")

    # a bad signature is dropped and counted, the good message beside it journalled, redacted and
    # signed again; redaction finds the secret also as JSON escapes it
    work = tempfile.mkdtemp(prefix="ferry-keeper-unit-")
    try:
        k = keeper.Keeper(work, [])
        k.signer = signer
        k.redactor = keeper.Redactor([SECRET.encode(), 'qu"ote\u00e9'.encode()])
        k.jfd = os.open(os.path.join(work, "journal"), os.O_WRONLY | os.O_CREAT, 0o600)
        os.write(k.jfd, keeper.JOURNAL_MAGIC)
        bad = list(frames)
        bad[-1] = bad[-1].replace(b"hello", b"HELLO")
        quoted = session.msg("stream", content={"name": "stdout", "text": 'a qu"ote\u00e9 b'})
        k.take([bad, frames, [b"t"] + session.serialize(quoted), [b"welcome"]])
        check(k.dropped == 1 and k.records == 2, "dropped %d, journalled %d (want 1, 2)"
              % (k.dropped, k.records))
        with open(os.path.join(work, "journal"), "rb") as f:
            journalled = parse_journal(f.read(), key)
        texts = [r["content"]["text"] for r in journalled]
        check(texts == ["hello ***\n", "a *** b"], "redaction gave %r" % texts)
        os.close(k.jfd)
    finally:
        shutil.rmtree(work)


def check_zmtp_against_libzmq():
    """The keeper's SUB against pyzmq's PUB: subscribed, every message whole."""
    import zmq
    work = tempfile.mkdtemp(prefix="fz", dir="/tmp")
    ctx = zmq.Context()
    pub = ctx.socket(zmq.PUB)
    try:
        path = os.path.join(work, "pub")
        pub.bind("ipc://" + path)
        sock, parser = keeper.connect_sub(keeper.socket.AF_UNIX, path)
        got = []
        deadline = time.monotonic() + 10
        sent = 0
        last = [[b"t", b"second"], [b"third"]]
        asked = False
        while not (len(got) >= 3 and got[-2:] == last) and time.monotonic() < deadline:
            if not got:  # a PUB drops what it sends before the subscription arrives
                pub.send_multipart([b"t", b"hello %d" % sent, b"x" * 300])
                sent += 1
            try:
                data = sock.recv(1 << 20)
            except BlockingIOError:
                time.sleep(0.01)
                continue
            messages, _ = parser.feed(data)
            got += messages
            # Once subscribed (the first hello came; under load one read may bring several), the
            # last two; the hellos still on their way come before them.
            if got and not asked:
                asked = True
                pub.send_multipart([b"t", b"second"])
                pub.send(b"third")
        sock.close()
        check(len(got) >= 3 and got[-2:] == [[b"t", b"second"], [b"third"]]
              and got[0][0] == b"t" and got[0][2] == b"x" * 300,
              "the SUB got %r from libzmq's PUB" % got[:4])
    finally:
        pub.close(0)
        ctx.term()
        shutil.rmtree(work)


# --- the keeper and a real kernel -----------------------------------------------------------------------

def execute_seen(kernel, code, timeout=30):
    """Runs `code`, reading iopub as Jupyter's client does: (msg_id, [iopub messages of it])."""
    seen = []
    reply = kernel.client.execute_interactive(code, timeout=timeout, output_hook=seen.append)
    return reply["parent_header"]["msg_id"], seen


def check_main_kernel(figures):
    k = KernelFolder(options=["--grace", "1"], redact=[SECRET])
    try:
        info = k.wait_keeper()
        check(not os.path.exists(k.path("redact")), "the redact file is still there")
        mode = os.stat(k.socket_dir).st_mode & 0o777
        check(mode == 0o700, "the socket folder's mode is %o" % mode)
        check(info["restarts"] == 0 and info["socketDir"] == k.socket_dir, "keeper.json: %r" % info)
        check(info["kernelStartTicks"] == keeper.start_ticks(info["kernelPid"]),
              "keeper.json's kernelStartTicks are not the kernel's")
        follow_all = subprocess.Popen([KEEPER_PYTHON, KEEPER, "follow", k.dir, "0"],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        k.connect()
        # ipykernel removes and rewrites the file it is given: that is the keeper's copy, never
        # the connection.json that Ferry reads while the kernel starts
        with open(k.connection, "rb") as f:
            check(f.read() == k.connection_bytes, "connection.json was rewritten")
        given = read_json(k.path("kernel-connection.json"))
        check(given is not None and given["key"] == k.key, "kernel-connection.json: %r" % given)
        check(os.stat(k.path("kernel-connection.json")).st_mode & 0o777 == 0o600,
              "kernel-connection.json is not 0600")

        # two cells: the journal holds what jupyter_client saw on its own iopub, in order
        for code in ("x = 41", "print(x+1)"):
            msg_id, seen = execute_seen(k, code)
            journalled = k.wait_idle_in_journal(msg_id)
            ours = [(r["header"]["msg_id"], r["header"]["msg_type"]) for r in journalled]
            theirs = [(m["header"]["msg_id"], m["header"]["msg_type"]) for m in seen]
            check(ours == theirs, "%r: the journal has %r, jupyter_client saw %r"
                  % (code, ours, theirs))
        types = [t for _, t in ours]
        check(types[0] == "status" and "execute_input" in types and types[-1] == "status",
              "print(x+1): the journal's messages are %r" % types)
        check(stream_text(journalled) == "42\n", "print(x+1): the journal's stream is %r"
              % stream_text(journalled))
        states = [r["content"]["execution_state"] for r in journalled
                  if r["header"]["msg_type"] == "status"]
        check(states == ["busy", "idle"], "print(x+1): states %r" % states)
        status = wait_for(lambda: (read_json(k.path("status.json")) or {}).get("state") == "idle"
                          and read_json(k.path("status.json")), 5, "status.json: idle")
        check(status["memoryBytes"] > 0 and status["journalRecords"] > 0
              and status["droppedMessages"] == 0, "status.json: %r" % status)

        # 200,000 lines while nobody reads iopub: all in the journal, once, in order
        started = time.monotonic()
        msg_id = k.client.execute("for i in range(200_000): print(i)")
        reply = k.client.get_shell_msg(timeout=60)
        check(reply["parent_header"]["msg_id"] == msg_id and reply["content"]["status"] == "ok",
              "the 200,000-line cell: %r" % reply["content"])
        wall = time.monotonic() - started
        text = stream_text(k.wait_idle_in_journal(msg_id))
        want = "".join("%d\n" % i for i in range(200000))
        check(text == want, "the 200,000-line cell: the journal's stream has %d lines, not 200,000 "
              "in order" % text.count("\n"))
        figures["200k-line cell, nobody reading iopub (s)"] = round(wall, 2)

        # redaction: the secret is in neither the stream nor the code the journal holds
        msg_id, seen = execute_seen(k, "print('s3cr3t' + '-value'); secret = %r" % SECRET)
        check(any(SECRET in m["content"].get("text", "") for m in seen),
              "the kernel did not print the secret to jupyter_client")
        records = k.wait_idle_in_journal(msg_id)
        check(stream_text(records) == "***\n", "redaction: the journal's stream is %r"
              % stream_text(records))
        journal = k.journal_bytes()
        check(SECRET.encode() not in journal, "the secret is in the journal")
        middle = k.journal()[len(k.journal()) // 2]["offset"]
        follow_middle = subprocess.Popen([KEEPER_PYTHON, KEEPER, "follow", k.dir, str(middle)],
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)

        # interrupt: SIGUSR1 to the keeper, KeyboardInterrupt in the cell
        msg_id = k.client.execute("import time; time.sleep(600)")
        wait_for(lambda: any(r["header"]["msg_type"] == "execute_input"
                             for r in k.replies_to(msg_id)), 10, "the sleep to start")
        time.sleep(0.2)
        k.proc.send_signal(signal.SIGUSR1)
        records = k.wait_idle_in_journal(msg_id, timeout=15)
        # IPython reports it as an `error` message or, for a bare KeyboardInterrupt, on stderr
        errors = [r["content"].get("ename") for r in records if r["header"]["msg_type"] == "error"]
        check(errors == ["KeyboardInterrupt"] or "KeyboardInterrupt" in stream_text(records, "stderr"),
              "interrupt: the journal has no KeyboardInterrupt (errors %r, stderr %r)"
              % (errors, stream_text(records, "stderr")))
        reply = k.client.get_shell_msg(timeout=10)
        check(reply["content"].get("ename") == "KeyboardInterrupt", "interrupt: the reply is %r"
              % reply["content"])

        # restart: HUP, a `restarted` event, the same connection answers with fresh state
        old_pid = info["kernelPid"]
        k.proc.send_signal(signal.SIGHUP)
        info = wait_for(lambda: (read_json(k.path("keeper.json")) or {}).get("restarts") == 1
                        and read_json(k.path("keeper.json")), 30, "keeper.json after restart")
        check(info["kernelPid"] != old_pid, "the restart kept the kernel's pid")
        check(not group_members(old_pid), "the old kernel's group outlived the restart")
        events = [r["content"]["event"] for r in k.journal()
                  if r["header"]["msg_type"] == "ferry_keeper"]
        check(events == ["started", "restarted"], "keeper events %r" % events)
        k.client.wait_for_ready(timeout=30)
        msg_id, seen = execute_seen(k, "print(globals().get('x', 'fresh'))")
        text = stream_text(k.wait_idle_in_journal(msg_id))
        check(text == "fresh\n", "after the restart the kernel printed %r, not fresh" % text)

        # stop: stop-request and TERM; a child that ignores TERM is killed after the grace
        execute_seen(k, "import subprocess, sys; child = subprocess.Popen([sys.executable, '-c', "
                        "'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                        "time.sleep(600)'])")
        check(len(group_members(info["kernelPid"])) >= 2, "the kernel's child is not in its group")
        with open(k.path("stop-request"), "w") as f:
            f.write("ferry\n")
        k.client.stop_channels()
        k.client = None
        k.proc.send_signal(signal.SIGTERM)
        record = k.wait_exit(timeout=20)
        check(record["reason"] == "stopped", "kernel-exit.json after stop-request: %r" % record)
        check(record["peakMemoryBytes"] > 0, "kernel-exit.json: no peak memory")
        check(not os.path.lexists(k.socket_dir), "the socket folder is still there")
        check(not group_members(info["kernelPid"]), "processes of the kernel's group are left: %r"
              % group_members(info["kernelPid"]))
        check("fresh" in record["streamLines"] and "fresh" in record["lastLines"],
              "kernel-exit.json's stream lines: %r" % record["streamLines"])
        events = [r["content"] for r in k.journal() if r["header"]["msg_type"] == "ferry_keeper"]
        check(events[-1]["event"] == "ended" and events[-1]["reason"] == "stopped",
              "the journal's last event is %r" % events[-1])

        # follow, from the start and from a record in the middle, gave the file's bytes
        journal = k.journal_bytes()
        for proc, offset in ((follow_all, 0), (follow_middle, middle)):
            out, err = proc.communicate(timeout=10)
            check(proc.returncode == 0, "follow %d ended %d: %s" % (offset, proc.returncode, err))
            check(out == journal[offset:], "follow %d gave %d bytes, the journal has %d from there"
                  % (offset, len(out), len(journal) - offset))
        status = read_json(k.path("status.json"))
        check(status["journalBytes"] == len(journal), "status.json's journalBytes %d, file %d"
              % (status["journalBytes"], len(journal)))
        figures["main journal (bytes, records)"] = (len(journal), len(k.journal()))
    finally:
        k.close()


def check_killed_from_outside():
    """A kernel on TCP (127.0.0.1), killed with SIGKILL by someone else."""
    before = keeper.oom_counters(os.getpid())
    k = KernelFolder(transport="tcp")
    try:
        info = k.wait_keeper()
        check(info["socketDir"] is None, "a TCP kernel has a socket folder: %r" % info)
        k.connect()
        msg_id, _ = execute_seen(k, "print('over tcp')")
        check(stream_text(k.wait_idle_in_journal(msg_id)) == "over tcp\n", "TCP: no stream")
        os.kill(info["kernelPid"], signal.SIGKILL)
        record = k.wait_exit()
        after = keeper.oom_counters(os.getpid())
        oom = any(after.get(f, 0) > n for f, n in before.items())
        want = "out-of-memory" if oom else "signal"
        check(record["reason"] == want and record["signal"] == 9 and record["exitCode"] == -1,
              "a kernel killed with SIGKILL: kernel-exit.json %r" % record)
        check(record["logLines"] == record["lastLines"][:len(record["logLines"])],
              "lastLines does not start with the log's lines")
    finally:
        k.close()


def check_stop_that_reaches_the_kernel_first():
    """stop-request, then TERM to the kernel before the keeper has its own (as Slurm's scancel
    signals every process of the job, in no set order): kernel-exit.json says "stopped"."""
    k = KernelFolder()
    try:
        info = k.wait_keeper()
        with open(k.path("stop-request"), "w") as f:
            f.write("ferry\n")
        os.kill(info["kernelPid"], signal.SIGTERM)
        record = k.wait_exit()
        check(record["reason"] == "stopped" and record["signal"] == signal.SIGTERM,
              "a stop whose TERM reached the kernel first: kernel-exit.json %r" % record)
    finally:
        k.close()


# A kernel stand-in whose iopub socket goes away and comes back while it lives, then exits 0.
REBINDING_KERNEL = r'''
import json, sys, time, zmq
from jupyter_client.session import Session
connection = json.load(open(sys.argv[1]))
session = Session(key=connection["key"].encode())
endpoint = "ipc://%s-%d" % (connection["ip"], connection["iopub_port"])
ctx = zmq.Context()
for text in ("one", "two"):
    pub = ctx.socket(zmq.XPUB)
    pub.setsockopt(zmq.LINGER, 2000)
    pub.bind(endpoint)
    pub.recv()  # a subscriber
    session.send(pub, "stream", {"name": "stdout", "text": text + "\n"}, ident=b"kernel.x.stream")
    time.sleep(0.1)
    pub.close()
    time.sleep(0.2)
ctx.term()
'''


def check_reconnect():
    k = KernelFolder(argv=[sys.executable, "-c", REBINDING_KERNEL, "{connection_file}"])
    try:
        record = k.wait_exit()
        check(record["reason"] == "exited" and record["exitCode"] == 0 and record["signal"] == 0,
              "a kernel that exits 0: kernel-exit.json %r" % record)
        records = k.journal()
        check(stream_text(records) == "one\ntwo\n", "across the reconnection the journal has %r"
              % stream_text(records))
        events = [r["content"]["event"] for r in records if r["header"]["msg_type"] == "ferry_keeper"]
        check(events == ["started", "reconnected", "ended"], "events %r" % events)
        check(record["streamLines"] == ["one", "two"], "kernel-exit.json's stream lines %r"
              % record["streamLines"])
    finally:
        k.close()


def check_shutdown_of_a_busy_kernel():
    """shutdown_request with restart while a cell sleeps: ipykernel answers it but ends only once
    the cell returns, so the keeper kills it after the grace and starts it again, as
    jupyter_client's KernelManager does; the same without restart is a stop."""
    k = KernelFolder(options=["--grace", "1"])
    try:
        info = k.wait_keeper()
        k.connect()
        msg_id = k.client.execute("import time; time.sleep(600)")
        wait_for(lambda: any(r["header"]["msg_type"] == "execute_input"
                             for r in k.replies_to(msg_id)), 10, "the sleep to start")
        asked = time.monotonic()
        k.client.shutdown(restart=True)
        info = wait_for(lambda: (read_json(k.path("keeper.json")) or {}).get("restarts") == 1
                        and read_json(k.path("keeper.json")), 15, "keeper.json after the restart")
        check(time.monotonic() - asked >= 1, "the kernel was killed before the grace")
        restarted = [r["content"] for r in k.journal() if r["header"]["msg_type"] == "ferry_keeper"
                     and r["content"]["event"] == "restarted"]
        check(len(restarted) == 1 and restarted[0]["signal"] == signal.SIGTERM,
              "the restart of a busy kernel: %r" % restarted)
        k.client.wait_for_ready(timeout=30)
        msg_id, _ = execute_seen(k, "print(globals().get('time', 'fresh'))")
        text = stream_text(k.wait_idle_in_journal(msg_id))
        check(text == "fresh\n", "after the restart the kernel printed %r, not fresh" % text)
        k.client.execute("import time; time.sleep(600)")
        time.sleep(0.5)
        k.client.shutdown(restart=False)
        record = k.wait_exit(timeout=15)
        check(record["reason"] == "stopped", "a busy kernel's shutdown: kernel-exit.json %r" % record)
        check(not group_members(info["kernelPid"]), "the busy kernel's group outlived its shutdown")
    finally:
        k.close()


def check_idle_stop(figures):
    k = KernelFolder(options=["--idle-stop", "2"])
    try:
        k.wait_keeper()
        k.connect()
        execute_seen(k, "1 + 1")
        last = time.monotonic()
        record = k.wait_exit(timeout=20)
        waited = time.monotonic() - last
        check(record["reason"] == "idle", "idle stop: kernel-exit.json %r" % record)
        check(waited >= 1.9, "the idle stop came %.2f s after the last message" % waited)
        figures["idle stop, 2 s asked (s after the last message)"] = round(waited, 2)
    finally:
        k.close()


def check_failures():
    # ARGV that cannot start
    k = KernelFolder(argv=["/nonexistent/kernel", "{connection_file}"])
    try:
        record = k.wait_exit()
        check(record["reason"] == "failed-to-start" and "nonexistent" in record["detail"],
              "a kernel that cannot start: %r" % record)
    finally:
        k.close()
    # a kernel that exits before opening iopub
    k = KernelFolder(argv=[sys.executable, "-c", "import sys; print('no kernel here'); sys.exit(3)"])
    try:
        record = k.wait_exit()
        check(record["reason"] == "failed-to-start" and record["exitCode"] == 3
              and "no kernel here" in record["logLines"], "a kernel that exits at once: %r" % record)
    finally:
        k.close()
    # folders the keeper refuses: open to others, a link, not ours is not testable as one user
    k = KernelFolder(start=False)
    link = k.dir + "-link"
    try:
        os.chmod(k.dir, 0o750)
        k.start()
        k.proc.wait(10)
        check(k.proc.returncode == 2 and "0700" in k.stderr(), "a folder open to the group: rc %s, %s"
              % (k.proc.returncode, k.stderr()))
        os.chmod(k.dir, 0o700)
        os.symlink(k.dir, link)
        proc = subprocess.run([KEEPER_PYTHON, KEEPER, "run", link, "--"] + KERNEL_ARGV,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=10)
        check(proc.returncode == 2 and b"symbolic link" in proc.stderr,
              "a linked folder: rc %d, %s" % (proc.returncode, proc.stderr))
        check(not os.path.exists(k.path("journal")), "a refused keeper wrote a journal")
        # a socket folder that holds the kernel's folder (it would be removed at the end)
        with open(k.connection) as f:
            connection = json.load(f)
        connection["ip"] = os.path.join(os.path.dirname(k.dir), "k")
        with open(k.connection, "w") as f:
            json.dump(connection, f)
        k.start()
        k.proc.wait(10)
        check(k.proc.returncode == 2 and "holds the kernel's folder" in k.stderr(),
              "a socket folder above the kernel's: rc %s, %s" % (k.proc.returncode, k.stderr()))
    finally:
        if os.path.lexists(link):
            os.unlink(link)
        k.close()


def check_bridge():
    """`keeper.py bridge SOCKET`: stdin to a Unix socket and back (an echo server here), bytes
    intact both ways, ending when the socket closes; a socket that is not there is an exit 1."""
    import socket as socketlib
    import tempfile
    import threading
    folder = tempfile.mkdtemp(prefix="kbridge-")
    path = os.path.join(folder, "echo")
    server = socketlib.socket(socketlib.AF_UNIX, socketlib.SOCK_STREAM)
    server.bind(path)
    server.listen(1)

    def echo():
        conn, _ = server.accept()
        while True:
            data = conn.recv(65536)
            if not data:
                break
            conn.sendall(data)
        conn.close()
    payload = bytes(range(256)) * 4096  # 1 MiB, every byte value
    # As it is, and as base64 lines (--lines: a Slurm node's output goes on by lines only).
    for lines in (False, True):
        thread = threading.Thread(target=echo)
        thread.start()
        done = subprocess.run([KEEPER_PYTHON, KEEPER, "bridge"] + (["--lines"] if lines else []) + [path],
                              input=payload, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
        thread.join(10)
        check(done.returncode == 0, "bridge exited %d: %s" % (done.returncode, done.stderr.decode()))
        back = done.stdout
        if lines:
            check(back.endswith(b"\n"), "bridge --lines left a line open")
            back = b"".join(base64.b64decode(line) for line in back.split(b"\n") if line)
        check(back == payload, "bridge changed the bytes (%d of %d back)" % (len(back), len(payload)))
    server.close()
    missing = subprocess.run([KEEPER_PYTHON, KEEPER, "bridge", path + "-none"], input=b"",
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
    check(missing.returncode == 1 and b"bridge" in missing.stderr, "a missing socket is not an error")
    shutil.rmtree(folder, ignore_errors=True)


def main():
    started = time.monotonic()
    figures = {}
    steps = [("parsers and signatures", check_parsers),
             ("ZMTP against libzmq's PUB", check_zmtp_against_libzmq),
             ("a kernel's life", lambda: check_main_kernel(figures)),
             ("a kernel on TCP killed from outside", check_killed_from_outside),
             ("iopub lost and found again", check_reconnect),
             ("a busy kernel's shutdown and restart", check_shutdown_of_a_busy_kernel),
             ("a stop that signals the kernel first", check_stop_that_reaches_the_kernel_first),
             ("the idle stop", lambda: check_idle_stop(figures)),
             ("kernels that fail, folders refused", check_failures),
             ("bridge to a Unix socket", check_bridge)]
    for name, step in steps:
        t = time.monotonic()
        try:
            step()
        except CheckFailed as e:
            print("keeper_check: FAILED in %s: %s" % (name, e))
            return 1
        print("keeper_check: ok   %-40s %5.1f s" % (name, time.monotonic() - t))
    for name, value in figures.items():
        print("keeper_check: %s: %s" % (name, value))
    print("keeper_check: all passed in %.1f s (keeper under %s)"
          % (time.monotonic() - started, KEEPER_PYTHON))
    return 0


if __name__ == "__main__":
    sys.exit(main())
