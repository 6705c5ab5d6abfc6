#!/usr/bin/env python3
"""Ferry's kernel keeper: starts a Jupyter kernel, records its iopub messages and says how it ended.

docs/kernels.md is the contract (the kernel's folder, keeper.json, status.json, kernel-exit.json, the
journal, the signals). Python 3.7 or later, standard library only: Ferry copies this file beside
a kernel on whatever machine runs it, so it speaks ZeroMQ's wire protocol (ZMTP 3.0, a SUB socket
with the NULL mechanism) itself.

    keeper.py run KERNEL_DIR [--idle-stop SECONDS] [--grace SECONDS] -- ARGV...
    keeper.py follow KERNEL_DIR OFFSET
"""

import base64
import datetime
import getpass
import hashlib
import hmac
import json
import os
import resource
import select
import signal
import socket
import stat
import struct
import subprocess
import sys
import time
import traceback
import uuid
from collections import deque

JOURNAL_MAGIC = b"FERRYJ1\n"
DELIMITER = b"<IDS|MSG>"
PROTOCOL_VERSION = "5.3"
KEEPER_MSG_TYPE = "ferry_keeper"
REDACTED = b"***"

EXIT_REFUSED = 2
STATUS_MIN_INTERVAL = 0.25  # at most 4 status.json writes a second
STATUS_HEARTBEAT = 5.0  # and at least one every 5 s
MEMORY_SAMPLE_INTERVAL = 1.0
DRAIN_SECONDS = 0.5  # what is left on iopub when the kernel has ended
READ_CHUNK = 1 << 20
STREAM_TAIL_LINES = 20
LOG_TAIL_LINES = 20
LINE_LIMIT = 2000  # characters of one line in kernel-exit.json
FOLLOW_POLL = 0.02
FOLLOW_GONE_AFTER = 30.0  # seconds without a heartbeat before `follow` gives up on a keeper

_U32 = struct.Struct("<I")
_U64BE = struct.Struct(">Q")


class Refused(Exception):
    """The keeper will not run on this folder or connection file (exit 2, the reason on stderr)."""


class ZmtpError(Exception):
    """The peer did not speak ZMTP 3 as a PUB socket with the NULL mechanism."""


# --- ZMTP 3.0 -----------------------------------------------------------------------------------

# signature (0xff, 8 bytes of padding whose last is 1, 0x7f), version 3.0, mechanism NULL,
# as-server 0, filler: 64 bytes, as libzmq sends them.
ZMTP_GREETING = (b"\xff" + b"\x00" * 7 + b"\x01\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\x00")
                 + b"\x00" + b"\x00" * 31)
assert len(ZMTP_GREETING) == 64

FLAG_MORE = 0x01
FLAG_LONG = 0x02
FLAG_COMMAND = 0x04


def zmtp_frame(body, more=False, command=False):
    """One ZMTP frame: flags, a 1- or 8-byte size, the body."""
    flags = (FLAG_MORE if more else 0) | (FLAG_COMMAND if command else 0)
    if len(body) > 255:
        return bytes([flags | FLAG_LONG]) + _U64BE.pack(len(body)) + body
    return bytes([flags, len(body)]) + body


def zmtp_command(name, data=b""):
    return zmtp_frame(bytes([len(name)]) + name + data, command=True)


def zmtp_ready(socket_type):
    name = b"Socket-Type"
    prop = bytes([len(name)]) + name + struct.pack(">I", len(socket_type)) + socket_type
    return zmtp_command(b"READY", prop)


def zmtp_command_name(body):
    """(name, data) of a command frame's body."""
    if not body:
        raise ZmtpError("an empty command")
    n = body[0]
    if len(body) < 1 + n:
        raise ZmtpError("a command shorter than its name")
    return bytes(body[1:1 + n]), bytes(body[1 + n:])


def zmtp_properties(data):
    """The metadata of a READY command: {name: value}."""
    props = {}
    pos = 0
    while pos < len(data):
        n = data[pos]
        name = bytes(data[pos + 1:pos + 1 + n])
        pos += 1 + n
        if pos + 4 > len(data):
            raise ZmtpError("a READY property cut short")
        (size,) = struct.unpack_from(">I", data, pos)
        pos += 4
        if pos + size > len(data):
            raise ZmtpError("a READY property cut short")
        props[name.lower()] = bytes(data[pos:pos + size])
        pos += size
    return props


def check_greeting(greeting):
    """Refuses a peer that does not greet as ZMTP 3 with the NULL mechanism."""
    if len(greeting) != 64 or greeting[0] != 0xFF or not greeting[9] & 0x01:
        raise ZmtpError("not a ZMTP greeting")
    if greeting[10] < 3:
        raise ZmtpError("ZMTP %d.%d, not 3.x" % (greeting[10], greeting[11]))
    mechanism = bytes(greeting[12:32]).rstrip(b"\x00")
    if mechanism != b"NULL":
        raise ZmtpError("mechanism %r, not NULL" % mechanism)


class ZmtpParser:
    """Frames out of a byte stream: feed() what the socket gave, get back the complete multipart
    messages (lists of bytes) and the command bodies. Frames are cut out of one growing buffer;
    a frame that has not all arrived is not looked at again until its last byte has."""

    def __init__(self, max_frame=0xFFFFFFF0):
        self.buf = bytearray()
        self.need = 0  # len(buf) at which the frame in progress is complete
        self.parts = []  # the frames of the message in progress
        self.max_frame = max_frame

    def feed(self, data):
        buf = self.buf
        buf += data
        n = len(buf)
        if n < self.need:
            return [], []
        messages = []
        commands = []
        parts = self.parts
        pos = 0
        while True:
            if n - pos < 2:
                need = pos + 2
                break
            flags = buf[pos]
            if flags & FLAG_LONG:
                if n - pos < 9:
                    need = pos + 9
                    break
                (size,) = _U64BE.unpack_from(buf, pos + 1)
                start = pos + 9
            else:
                size = buf[pos + 1]
                start = pos + 2
            if size > self.max_frame:
                raise ZmtpError("a frame of %d bytes" % size)
            end = start + size
            if end > n:
                need = end
                break
            if size > 4096:
                with memoryview(buf) as view:
                    body = bytes(view[start:end])
            else:
                body = bytes(buf[start:end])
            pos = end
            if flags & FLAG_COMMAND:
                commands.append(body)
            else:
                parts.append(body)
                if not flags & FLAG_MORE:
                    messages.append(parts)
                    parts = []
        if pos:
            del buf[:pos]
        self.need = need - pos
        self.parts = parts
        return messages, commands


def _recv_exact(sock, n):
    data = bytearray()
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ZmtpError("the peer closed the connection during the greeting")
        data += chunk
    return bytes(data)


def iopub_endpoint(connection):
    """(family, address, text) of the kernel's iopub socket, as jupyter_client makes it."""
    port = connection["iopub_port"]
    if connection["transport"] == "ipc":
        path = "%s-%d" % (connection["ip"], port)
        return socket.AF_UNIX, path, "ipc://" + path
    return socket.AF_INET, ("127.0.0.1", port), "tcp://127.0.0.1:%d" % port


def connect_sub(family, address, timeout=2.0):
    """A SUB connection to a PUB socket, subscribed to everything: (socket, parser). The socket is
    non-blocking on return; the parser holds whatever came after the peer's READY."""
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(address)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        except OSError:
            pass
        sock.sendall(ZMTP_GREETING)
        check_greeting(_recv_exact(sock, 64))
        sock.sendall(zmtp_ready(b"SUB"))
        parser = ZmtpParser()
        ready = False
        while not ready:
            chunk = sock.recv(65536)
            if not chunk:
                raise ZmtpError("the peer closed the connection before READY")
            _, commands = parser.feed(chunk)
            for body in commands:
                name, data = zmtp_command_name(body)
                if name == b"READY":
                    kind = zmtp_properties(data).get(b"socket-type", b"")
                    if kind not in (b"PUB", b"XPUB"):
                        raise ZmtpError("the peer is a %s socket, not PUB" % kind.decode("latin-1"))
                    ready = True
                elif name == b"ERROR":
                    raise ZmtpError("the peer refused: %r" % data[1:])
        # ZMTP 3.0 subscribes with a message: 0x01 and the prefix (none: everything).
        sock.sendall(zmtp_frame(b"\x01"))
        sock.setblocking(False)
        return sock, parser
    except BaseException:
        sock.close()
        raise


# --- Jupyter messages and the journal -------------------------------------------------------------

class Signer:
    """The hex HMAC-SHA256 of a message's four JSON frames under the kernel's key."""

    def __init__(self, key):
        self.base = hmac.new(key, digestmod=hashlib.sha256)

    def sign(self, h, p, m, c):
        mac = self.base.copy()
        mac.update(h)
        mac.update(p)
        mac.update(m)
        mac.update(c)
        return mac.hexdigest().encode("ascii")

    def verify(self, signature, h, p, m, c):
        """Whether `signature` (lower-case hex) is that of the four frames, in constant time."""
        return hmac.compare_digest(self.sign(h, p, m, c), signature)


def split_message(frames):
    """(signature, [header, parent, metadata, content], buffers) of a Jupyter message's frames
    (routing frames before <IDS|MSG> left out), or None when they are not one."""
    try:
        i = frames.index(DELIMITER)
    except ValueError:
        return None
    if len(frames) < i + 6:
        return None
    return frames[i + 1], frames[i + 2:i + 6], frames[i + 6:]


def encode_record(frames):
    """One journal record: u32 LE length of what follows, u32 LE frame count, then each frame as
    u32 LE length and bytes."""
    parts = [b"", _U32.pack(len(frames))]
    size = 4
    for frame in frames:
        parts.append(_U32.pack(len(frame)))
        parts.append(frame)
        size += 4 + len(frame)
    if size > 0xFFFFFFFF:
        raise ValueError("a message of %d bytes does not fit a journal record" % size)
    parts[0] = _U32.pack(size)
    return b"".join(parts)


def decode_records(data, offset=len(JOURNAL_MAGIC)):
    """The records of journal bytes from `offset` (a record's start): ([(offset, frames)], end),
    where end is where the first record cut short (or the data) ends."""
    records = []
    n = len(data)
    while offset + 4 <= n:
        (size,) = _U32.unpack_from(data, offset)
        end = offset + 4 + size
        if end > n or size < 4:
            break
        (count,) = _U32.unpack_from(data, offset + 4)
        pos = offset + 8
        frames = []
        for _ in range(count):
            if pos + 4 > end:
                break
            (length,) = _U32.unpack_from(data, pos)
            if pos + 4 + length > end:
                break
            frames.append(bytes(data[pos + 4:pos + 4 + length]))
            pos += 4 + length
        if len(frames) != count or pos != end:
            break
        records.append((offset, frames))
        offset = end
    return records, offset


class Redactor:
    """Hides byte patterns in the JSON frames (and buffers) of a message. Each pattern is matched as
    it is and as it appears inside a JSON string (escaped both with and without ensure_ascii)."""

    def __init__(self, patterns):
        found = set()
        for pattern in patterns:
            if not pattern:
                continue
            found.add(pattern)
            try:
                text = pattern.decode("utf-8")
            except UnicodeDecodeError:
                continue
            found.add(json.dumps(text, ensure_ascii=False)[1:-1].encode("utf-8"))
            found.add(json.dumps(text)[1:-1].encode("ascii"))
        # the longest first, so that one pattern inside another is hidden whole
        self.patterns = sorted(found, key=lambda p: (-len(p), p))

    def __bool__(self):
        return bool(self.patterns)

    def longest(self):
        return len(self.patterns[0]) if self.patterns else 0

    def redact(self, frame):
        for pattern in self.patterns:
            if pattern in frame:
                frame = frame.replace(pattern, REDACTED)
        return frame


def read_redact_file(path):
    """The patterns of a `redact` file (hex, one a line), which is then removed whatever it held."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return []
    try:
        data = _read_all(fd)
    finally:
        os.close(fd)
        os.unlink(path)
    patterns = []
    for number, line in enumerate(data.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        try:
            patterns.append(bytes.fromhex(line.decode("ascii")))
        except (ValueError, UnicodeDecodeError):
            raise Refused("redact, line %d: not hexadecimal" % number)
    return patterns


def iso_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _json_bytes(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


# --- processes and files --------------------------------------------------------------------------

def now_ms():
    return int(time.time() * 1000)


def _read_all(fd):
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except InterruptedError:
            continue
        view = view[written:]


def proc_stat(pid):
    """The fields of /proc/<pid>/stat after the command's name (field 3, the state, is [0]), or None."""
    try:
        fd = os.open("/proc/%s/stat" % pid, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        data = os.read(fd, 4096)
    except OSError:
        return None
    finally:
        os.close(fd)
    close = data.rfind(b")")
    if close < 0:
        return None
    return data[close + 2:].split()


def start_ticks(pid):
    """Field 22 of /proc/<pid>/stat: when the process started, in clock ticks since boot."""
    fields = proc_stat(pid)
    return int(fields[19]) if fields and len(fields) > 19 else None


def boot_id():
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            return f.read().strip()
    except OSError:
        return ""


_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def group_processes(pgid):
    """[(pid, rss bytes)] of the live (not zombie) processes in the process group or session
    `pgid` (the kernel leads both)."""
    found = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        fields = proc_stat(name)
        if not fields or len(fields) < 22:
            continue
        try:
            if int(fields[2]) != pgid and int(fields[3]) != pgid:
                continue
            if fields[0] in (b"Z", b"X"):
                continue
            found.append((int(name), int(fields[21]) * _PAGE_SIZE))
        except ValueError:
            continue
    return found


def _cgroup_event_files(pid):
    """The files that count out-of-memory kills for the cgroups of `pid` and their parents."""
    files = []
    try:
        with open("/proc/%d/cgroup" % pid) as f:
            lines = f.read().splitlines()
    except OSError:
        lines = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        hierarchy, controllers, path = parts
        if hierarchy == "0" and controllers == "":
            root, name = "/sys/fs/cgroup", "memory.events"  # cgroup v2
        elif "memory" in controllers.split(","):
            root, name = "/sys/fs/cgroup/memory", "memory.oom_control"  # cgroup v1
        else:
            continue
        path = path.strip("/")
        while True:
            files.append(os.path.join(root, path, name) if path else os.path.join(root, name))
            if not path:
                break
            path = os.path.dirname(path)
    for extra in ("/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"):
        if extra not in files:
            files.append(extra)
    return files


def oom_counters(pid):
    """{file: oom_kill count} of the cgroups of `pid` that say."""
    return oom_counters_of(_cgroup_event_files(pid))


def oom_counters_of(files):
    counters = {}
    for path in files:
        try:
            with open(path) as f:
                for line in f:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        counters[path] = int(value)
        except (OSError, ValueError):
            continue
    return counters


def tail_lines(text, count):
    lines = text.splitlines()[-count:]
    return [line if len(line) <= LINE_LIMIT else line[:LINE_LIMIT] + "…" for line in lines]


def check_private_dir(path, what):
    """Refuses a folder that is a link, not ours, or open to group or others."""
    try:
        st = os.lstat(path)
    except OSError as e:
        raise Refused("%s %s: %s" % (what, path, e.strerror))
    if stat.S_ISLNK(st.st_mode):
        raise Refused("%s %s is a symbolic link" % (what, path))
    if not stat.S_ISDIR(st.st_mode):
        raise Refused("%s %s is not a folder" % (what, path))
    if st.st_uid != os.geteuid():
        raise Refused("%s %s belongs to uid %d, not to this user" % (what, path, st.st_uid))
    if st.st_mode & 0o077:
        raise Refused("%s %s is open to others (mode %o; it must be 0700)"
                      % (what, path, stat.S_IMODE(st.st_mode)))


def ensure_socket_dir(path):
    """The socket folder: made 0700 (with any missing parents, also 0700) when missing; refused
    when it is not ours and private, or when its parent lets others rename it."""
    missing = []
    probe = path
    while not os.path.lexists(probe):
        missing.append(probe)
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass
    check_private_dir(path, "the socket folder")
    parent = os.path.dirname(path)
    st = os.stat(parent)
    if st.st_uid not in (0, os.geteuid()):
        raise Refused("the socket folder's parent %s belongs to uid %d" % (parent, st.st_uid))
    if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
        raise Refused("others may write in the socket folder's parent %s" % parent)


def remove_socket_dir(path, prefix):
    """Removes the socket folder: its sockets and the kernel's `<ip>-<port>` names, then the folder
    itself when that leaves it empty (anything else in it is not the keeper's to delete)."""
    if not path:
        return
    try:
        names = os.listdir(path)
    except OSError:
        return
    for name in names:
        entry = os.path.join(path, name)
        try:
            if name.startswith(prefix + "-") or stat.S_ISSOCK(os.lstat(entry).st_mode):
                os.unlink(entry)
        except OSError:
            pass
    try:
        os.rmdir(path)
    except OSError as e:
        sys.stderr.write("keeper.py: the socket folder %s is left: %s\n" % (path, e.strerror))


def read_connection(path):
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as e:
        raise Refused("connection.json: %s" % e.strerror)
    try:
        data = _read_all(fd)
    finally:
        os.close(fd)
    try:
        connection = json.loads(data.decode("utf-8"))
    except ValueError as e:
        raise Refused("connection.json is not JSON: %s" % e)
    if not isinstance(connection, dict):
        raise Refused("connection.json is not a JSON object")
    transport = connection.get("transport", "tcp")
    ip = connection.get("ip")
    port = connection.get("iopub_port")
    key = connection.get("key")
    scheme = connection.get("signature_scheme", "hmac-sha256")
    if transport not in ("ipc", "tcp"):
        raise Refused("connection.json: transport %r (ipc or tcp only)" % (transport,))
    if not isinstance(ip, str) or not ip:
        raise Refused("connection.json: no ip")
    if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
        raise Refused("connection.json: iopub_port %r" % (port,))
    if transport == "tcp" and ip != "127.0.0.1":
        raise Refused("connection.json: tcp on %s (127.0.0.1 only)" % ip)
    if transport == "ipc":
        if not os.path.isabs(ip):
            raise Refused("connection.json: ipc path %s is not absolute" % ip)
        if len(("%s-%d" % (ip, port)).encode()) > 107:
            raise Refused("connection.json: the ipc path %s-%d is longer than a Unix socket's "
                          "108 bytes" % (ip, port))
    if not isinstance(key, str) or not key:
        raise Refused("connection.json: no key (messages must be signed)")
    if scheme != "hmac-sha256":
        raise Refused("connection.json: signature_scheme %r (hmac-sha256 only)" % (scheme,))
    connection["transport"] = transport
    return connection


def write_file_atomic(directory, name, data):
    """`name` in `directory` replaced whole: a temporary file, then a rename."""
    tmp = os.path.join(directory, ".%s.%d.tmp" % (name, os.getpid()))
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        _write_all(fd, data)
    finally:
        os.close(fd)
    os.rename(tmp, os.path.join(directory, name))


def write_file_once(directory, name, data):
    """`name` created whole or not at all: a temporary file hard-linked to the name (which fails
    when it exists: the first writer wins), O_EXCL where links are not to be had. False when the
    file was there."""
    path = os.path.join(directory, name)
    tmp = os.path.join(directory, ".%s.%d.tmp" % (name, os.getpid()))
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        _write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)
        return True
    except FileExistsError:
        return False
    except OSError:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                         0o600)
        except FileExistsError:
            return False
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
        return True
    finally:
        os.unlink(tmp)


def signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return "signal %d" % number


# --- the keeper ---------------------------------------------------------------------------------

class Keeper:
    def __init__(self, kernel_dir, argv, idle_stop=0.0, grace=5.0):
        self.dir = os.path.abspath(kernel_dir)
        self.argv = argv
        self.idle_stop = idle_stop
        self.grace = grace
        self.conn_path = os.path.join(self.dir, "connection.json")
        # The kernel gets a copy of its own: ipykernel removes and rewrites the file it is given,
        # and Ferry must never read connection.json while it is missing or half written.
        self.kernel_conn_path = os.path.join(self.dir, "kernel-connection.json")
        self.connection = None
        self.socket_dir = None
        self.signer = None
        self.redactor = None
        # With secrets, the kernel's own output reaches kernel.log through the keeper, redacted.
        self.out_r = None
        self.out_held = b""
        self.session = uuid.uuid4().hex
        try:
            self.username = getpass.getuser()
        except Exception:  # no passwd entry (a container): the uid will do
            self.username = str(os.getuid())
        self.keeper_ticks = start_ticks(os.getpid())
        self.host = socket.gethostname()
        self.boot = boot_id()
        # the kernel
        self.proc = None
        self.pid = None
        self.kernel_ticks = None
        self.started_ms = None
        self.started_mono = 0.0
        self.pgid = None  # the kernel's process group and session (the kernel's first pid)
        self.exit_info = None  # set once waitid sees it ended (not yet reaped)
        self.exit_cgroup_files = []
        self.restart_status = None
        # A client's shutdown_request, as the kernel broadcasts its reply on iopub: with restart,
        # the kernel's exit is a restart (the keeper starts it again), without, a stop.
        self.restart_asked = False
        self.shutdown_asked = False
        # When the kernel answered a shutdown_request but has not ended (ipykernel stops only once
        # the cell it runs returns): past the grace it is killed, as jupyter_client does.
        self.shutdown_deadline = None
        self.keeper_json_due = False
        self.oom_before = {}
        self.restarts = 0
        self.subscribed = False
        # iopub
        self.sock = None
        self.parser = None
        self.next_connect = 0.0
        self.rbuf = bytearray(READ_CHUNK)
        self.rview = memoryview(self.rbuf)
        # journal and status
        self.jfd = None
        self.journal_size = 0
        self.records = 0
        self.dropped = 0
        self.lost = 0
        self.journal_error = None
        self.state = "starting"
        self.state_changed = True
        self.last_activity_mono = time.monotonic()
        self.last_activity_ms = now_ms()
        self.memory = 0
        self.peak = 0
        self.last_memory_sample = -1e9
        self.last_status_write = -1e9
        self.stream_tail = deque()  # the content frames of the last stream messages
        self.stream_tail_newlines = deque()
        self.stream_tail_bytes = 0
        self.stream_tail_total = 0
        # signals
        self.sig_stop = 0
        self.sig_hup = 0
        self.sig_usr1 = 0
        self.wake_r = None

    # -- setting up ------------------------------------------------------------------------------

    def prepare(self):
        """Everything that may refuse, before the kernel starts."""
        check_private_dir(self.dir, "the kernel's folder")
        self.connection = read_connection(self.conn_path)
        self.signer = Signer(self.connection["key"].encode("utf-8"))
        self.redactor = Redactor(read_redact_file(os.path.join(self.dir, "redact")))
        for name in ("journal", "keeper.json", "kernel-exit.json"):
            if os.path.lexists(os.path.join(self.dir, name)):
                raise Refused("%s exists: this folder has had a keeper (a kernel's folder serves "
                              "one)" % name)
        if self.connection["transport"] == "ipc":
            socket_dir = os.path.dirname(self.connection["ip"])
            inside = os.path.join(os.path.realpath(socket_dir), "")
            if os.path.join(os.path.realpath(self.dir), "").startswith(inside):
                raise Refused("the socket folder %s holds the kernel's folder (it is removed when "
                              "the kernel ends)" % socket_dir)
            ensure_socket_dir(socket_dir)
            self.socket_dir = socket_dir
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        self.log_fd = os.open(os.path.join(self.dir, "kernel.log"), flags, 0o600)
        if not stat.S_ISREG(os.fstat(self.log_fd).st_mode):
            raise Refused("kernel.log is not a regular file")
        self.jfd = os.open(os.path.join(self.dir, "journal"), flags | os.O_EXCL, 0o600)
        _write_all(self.jfd, JOURNAL_MAGIC)
        self.journal_size = len(JOURNAL_MAGIC)

    def install_signals(self):
        r, w = os.pipe()
        for fd in (r, w):
            os.set_blocking(fd, False)
            os.set_inheritable(fd, False)
        self.wake_r = r
        signal.set_wakeup_fd(w, warn_on_full_buffer=False)
        for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1,
                       signal.SIGCHLD):
            signal.signal(number, self._on_signal)

    def _on_signal(self, number, frame):
        if number in (signal.SIGTERM, signal.SIGINT):
            self.sig_stop += 1
        elif number == signal.SIGHUP:
            self.sig_hup += 1
        elif number == signal.SIGUSR1:
            self.sig_usr1 += 1

    # -- the kernel ------------------------------------------------------------------------------

    def write_kernel_connection(self):
        """A fresh copy of connection.json for the kernel (each start: a kernel may rewrite it)."""
        write_file_atomic(self.dir, os.path.basename(self.kernel_conn_path),
                          json.dumps(self.connection, indent=1).encode("utf-8"))

    def start_kernel(self):
        """Starts ARGV; None, or why it could not be started."""
        try:
            self.write_kernel_connection()
        except OSError as e:
            return "kernel-connection.json: %s" % e.strerror
        argv = [a.replace("{connection_file}", self.kernel_conn_path) for a in self.argv]
        self.exit_info = None
        self.subscribed = False
        self.shutdown_deadline = None
        self.state = "starting"
        self.state_changed = True
        out = self.log_fd
        pipe = None
        if self.redactor:
            self.read_output(final=True)  # what a kernel before this one left
            pipe = os.pipe()
            os.set_blocking(pipe[0], False)
            out = pipe[1]
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=out, start_new_session=True,
                                         close_fds=True)
        except (OSError, ValueError) as e:
            self.proc = None
            self.pid = None
            if pipe:
                os.close(pipe[0])
                os.close(pipe[1])
            return "%s: %s" % (argv[0] if argv else "ARGV", getattr(e, "strerror", None) or e)
        if pipe:
            os.close(pipe[1])
            self.out_r = pipe[0]
        self.pid = self.proc.pid
        self.pgid = self.pid
        self.kernel_ticks = start_ticks(self.pid)
        self.started_ms = now_ms()
        self.started_mono = time.monotonic()
        self.last_activity_mono = self.started_mono
        self.last_activity_ms = self.started_ms
        self.oom_before = oom_counters(self.pid)
        self.next_connect = 0.0
        self.last_memory_sample = -1e9  # a new group: measure it at the next status
        return None

    def kernel_ended(self):
        """Whether the kernel has ended (seen without reaping it, so that its pid, and the group's,
        cannot be taken by another process while the keeper still signals them)."""
        if self.pid is None or self.exit_info is not None:
            return True
        try:
            info = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            info = None
            self.exit_info = (0, 0)
            return True
        if info is None or info.si_pid == 0:
            return False
        self.exit_info = (info.si_code, info.si_status)
        # a zombie still says where it was: the cgroups whose oom_kill counters tell
        self.exit_cgroup_files = _cgroup_event_files(self.pid)
        return True

    def read_output(self, final=False):
        """Copies the kernel's output from its pipe to kernel.log, secrets hidden; holds back the
        bytes that may begin a secret until the next read (all of them when `final`)."""
        if self.out_r is None:
            return
        while True:
            try:
                data = os.read(self.out_r, 65536)
            except BlockingIOError:
                break
            except InterruptedError:
                continue
            if not data:
                final = True
                break
            self.out_held += data
            if len(self.out_held) > (1 << 20):
                break
        text = self.redactor.redact(self.out_held)
        keep = 0 if final else max(0, self.redactor.longest() - 1)
        cut = len(text) - keep
        if cut > 0:
            try:
                os.write(self.log_fd, text[:cut])
            except OSError:
                pass
        self.out_held = text[cut:] if cut > 0 else text
        if final:
            os.close(self.out_r)
            self.out_r = None
            self.out_held = b""

    def reap(self):
        """The kernel's wait status (None when there is no kernel to reap)."""
        if self.pid is None:
            return None
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            status = None
        if self.proc is not None:
            self.proc.returncode = -1 if status is None else status  # Popen must not wait for it
        self.pid = None
        self.read_output(final=True)
        return status

    def signal_group(self, number):
        if self.pgid is None:
            return
        try:
            os.killpg(self.pgid, number)
        except (ProcessLookupError, PermissionError):
            pass
        # members of the kernel's session that made a process group of their own
        for pid, _ in group_processes(self.pgid):
            try:
                os.kill(pid, number)
            except (ProcessLookupError, PermissionError):
                pass

    def group_left(self):
        return bool(self.pgid) and bool(group_processes(self.pgid))

    def kill_kernel(self):
        """TERM to the kernel's group, KILL to what is left after the grace; iopub is read
        meanwhile. Returns the kernel's wait status once it is reaped and its group is empty (or
        KILL has had a second to work)."""
        mark = self.sig_stop
        deadline = time.monotonic() + self.grace
        if not self.kernel_ended():
            self.signal_group(signal.SIGTERM)
        while not self.kernel_ended() and time.monotonic() < deadline and self.sig_stop == mark:
            self.pump(0.05)
        if not self.kernel_ended():
            self.signal_group(signal.SIGKILL)
            # KILL is not refused; a process stuck in an uninterruptible wait (a hung network file
            # system) is waited for, status.json's heartbeat going on
            while not self.kernel_ended():
                self.pump(0.05)
        self.drain()
        status = self.reap()
        self.clear_group(deadline, mark)
        return status

    def clear_group(self, deadline, mark):
        """Ends what is left of the kernel's group once the kernel has gone: TERM, KILL at
        `deadline`."""
        if not self.group_left():
            return
        self.signal_group(signal.SIGTERM)
        while self.group_left() and time.monotonic() < deadline and self.sig_stop == mark:
            self.pump(0.05)
        if self.group_left():
            self.signal_group(signal.SIGKILL)
            give_up = time.monotonic() + 1
            while self.group_left() and time.monotonic() < give_up:
                self.pump(0.02)

    # -- iopub -----------------------------------------------------------------------------------

    def try_connect(self):
        family, address, _ = iopub_endpoint(self.connection)
        try:
            self.sock, self.parser = connect_sub(family, address)
        except (OSError, ZmtpError):
            self.sock = None
            early = time.monotonic() - self.started_mono < 10
            self.next_connect = time.monotonic() + (0.02 if early else 0.25)
            return
        if not self.subscribed:
            self.subscribed = True
            if self.restarts == 0:
                self.journal_event("started", {"kernelPid": self.pid})
            self.write_keeper_json()
        else:
            self.journal_event("reconnected", {"kernelPid": self.pid})

    def disconnect(self):
        if self.sock is not None:
            self.sock.close()
        self.sock = None
        self.parser = None
        self.next_connect = time.monotonic() + 0.05

    def read_iopub(self):
        sock = self.sock
        size = len(self.rbuf)
        for _ in range(64):
            try:
                n = sock.recv_into(self.rbuf)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                self.disconnect()
                return
            if n == 0:
                self.disconnect()
                return
            try:
                messages, commands = self.parser.feed(self.rview[:n])
            except ZmtpError:
                self.disconnect()
                return
            for body in commands:
                self.command(body)
            if messages:
                self.take(messages)
            if n < size:
                return

    def command(self, body):
        try:
            name, data = zmtp_command_name(body)
        except ZmtpError:
            return
        if name == b"PING" and self.sock is not None:
            try:
                self.sock.send(zmtp_command(b"PONG", data[2:]))
            except OSError:
                pass

    def take(self, messages):
        """Verifies, redacts and journals `messages`, in order; notes the execution state."""
        signer = self.signer
        redactor = self.redactor
        loads = json.loads
        records = []
        for frames in messages:
            parts = split_message(frames)
            if parts is None:
                if len(frames) > 1:
                    self.dropped += 1  # one frame alone: an XPUB's welcome, not a message
                continue
            signature, (h, p, m, c), buffers = parts
            signature = signature.lower()
            if not signer.verify(signature, h, p, m, c):
                self.dropped += 1
                continue
            try:
                msg_type = loads(h).get("msg_type")
            except (ValueError, AttributeError):
                msg_type = None
            if msg_type == "status":
                try:
                    state = loads(c).get("execution_state")
                except (ValueError, AttributeError):
                    state = None
                if isinstance(state, str) and state != self.state:
                    self.state = state
                    self.state_changed = True
            if redactor:
                h2, p2, m2, c2 = (redactor.redact(h), redactor.redact(p), redactor.redact(m),
                                  redactor.redact(c))
                if h2 is not h or p2 is not p or m2 is not m or c2 is not c:
                    h, p, m, c = h2, p2, m2, c2
                    signature = signer.sign(h, p, m, c)
                buffers = [redactor.redact(b) for b in buffers]
            if msg_type == "stream":
                self.note_stream(c)
            elif msg_type == "shutdown_reply":
                try:
                    restart = bool(loads(c).get("restart"))
                except (ValueError, AttributeError):
                    restart = False
                if restart:
                    self.restart_asked = True
                else:
                    self.shutdown_asked = True
            try:
                records.append(encode_record([signature, h, p, m, c] + buffers))
            except ValueError:
                self.lost += 1
        if records:
            self.last_activity_mono = time.monotonic()
            self.last_activity_ms = now_ms()
            self.append(records)

    def note_stream(self, content):
        """Keeps the content of the last stream messages, enough for 20 lines of kernel-exit.json."""
        newlines = content.count(b"\\n")
        self.stream_tail.append(content)
        self.stream_tail_newlines.append(newlines)
        self.stream_tail_bytes += len(content)
        self.stream_tail_total += newlines
        while len(self.stream_tail) > 1 and (
                self.stream_tail_total - self.stream_tail_newlines[0] > STREAM_TAIL_LINES
                or self.stream_tail_bytes - len(self.stream_tail[0]) > (4 << 20)
                or len(self.stream_tail) > 1000):
            self.stream_tail_total -= self.stream_tail_newlines.popleft()
            self.stream_tail_bytes -= len(self.stream_tail.popleft())

    def append(self, records):
        """Appends whole records to the journal: one writev for up to a thousand of them. A write
        that fails (a full disk) is cut back to the last whole record, and its messages counted."""
        for start in range(0, len(records), 1000):
            batch = records[start:start + 1000]
            total = sum(len(r) for r in batch)
            try:
                written = os.writev(self.jfd, batch)
                if written < total:
                    _write_all(self.jfd, b"".join(batch)[written:])
            except OSError as e:
                self.journal_error = e.strerror
                self.lost += len(batch)
                try:
                    os.ftruncate(self.jfd, self.journal_size)
                except OSError:
                    pass
                continue
            self.journal_size += total
            self.records += len(batch)

    def journal_event(self, event, fields=None):
        content = {"event": event}
        if fields:
            content.update(fields)
        header = {"msg_id": uuid.uuid4().hex, "session": self.session, "username": self.username,
                  "date": iso_now(), "msg_type": KEEPER_MSG_TYPE, "version": PROTOCOL_VERSION}
        h, p, m, c = _json_bytes(header), b"{}", b"{}", _json_bytes(content)
        if self.redactor:
            c = self.redactor.redact(c)
        self.append([encode_record([self.signer.sign(h, p, m, c), h, p, m, c])])

    def drain(self):
        """Reads what the kernel left on iopub: until it closes, DRAIN_SECONDS at most."""
        deadline = time.monotonic() + DRAIN_SECONDS
        while self.sock is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self.pump(left, connect=False)
        self.disconnect()

    # -- the loop --------------------------------------------------------------------------------

    def pump(self, timeout, connect=True):
        """One turn: wait for iopub, a signal or a timer (at most `timeout`), and serve them."""
        now = time.monotonic()
        if connect and self.sock is None and self.pid is not None and not self.kernel_ended():
            if now >= self.next_connect:
                self.try_connect()
                now = time.monotonic()
            if self.sock is None:
                timeout = min(timeout, max(0.0, self.next_connect - now))
        timeout = min(timeout, self.status_due(now))
        readers = [self.wake_r]
        if self.sock is not None:
            readers.append(self.sock)
        if self.out_r is not None:
            readers.append(self.out_r)
        try:
            ready, _, _ = select.select(readers, [], [], max(0.0, timeout))
        except InterruptedError:
            ready = []
        if self.wake_r in ready:
            try:
                while os.read(self.wake_r, 512):
                    pass
            except (BlockingIOError, InterruptedError):
                pass
        if self.sock is not None and self.sock in ready:
            self.read_iopub()
        if self.out_r is not None and self.out_r in ready:
            self.read_output()
        if self.status_due(time.monotonic()) <= 0:
            self.write_status()

    def status_due(self, now):
        """Seconds until status.json is due."""
        interval = STATUS_MIN_INTERVAL if self.state_changed else STATUS_HEARTBEAT
        return self.last_status_write + interval - now

    def idle_due(self, now):
        """Seconds until the idle stop (a large number when it is off or the kernel is busy)."""
        if self.idle_stop <= 0 or not self.subscribed or self.state not in ("idle", "starting"):
            return 3600.0
        return self.last_activity_mono + self.idle_stop - now

    def run(self):
        """The keeper's life once prepared: start, keep, stop; returns the exit status."""
        self.install_signals()
        self.write_status()
        failure = self.start_kernel()
        if failure is not None:
            return self.finish("failed-to-start", None, failure)
        while True:
            wait = min(1.0, max(0.0, self.idle_due(time.monotonic())))
            if self.shutdown_deadline is not None:
                wait = min(wait, max(0.0, self.shutdown_deadline - time.monotonic()))
            self.pump(wait)
            if self.sig_stop:
                reason = "stopped" if os.path.lexists(
                    os.path.join(self.dir, "stop-request")) else "terminated"
                status = self.kill_kernel()
                return self.finish(reason, status)
            if self.sig_hup:
                self.sig_hup = 0
                failure = self.restart()
                if failure is not None:
                    return self.finish("failed-to-start", None, failure)
                continue
            if self.sig_usr1:
                self.sig_usr1 = 0
                self.signal_group(signal.SIGINT)
            asked = self.restart_asked or self.shutdown_asked
            if asked and self.shutdown_deadline is None:
                self.shutdown_deadline = time.monotonic() + self.grace
            ended = self.kernel_ended()
            if ended or (asked and time.monotonic() >= self.shutdown_deadline):
                subscribed = self.subscribed
                if ended:
                    self.drain()
                    status = self.reap()
                    self.clear_group(time.monotonic() + self.grace, self.sig_stop)
                else:  # it answered the shutdown but goes on (a cell that does not return)
                    status = self.kill_kernel()
                if self.restart_asked and not self.sig_stop:
                    # shutdown_request with restart: the same kernel command again
                    self.restart_asked = False
                    code, number = _decode_status(status)
                    self.restarts += 1
                    self.journal_event("restarted", {"restarts": self.restarts, "exitCode": code,
                                                     "signal": number})
                    failure = self.start_kernel()
                    if failure is not None:
                        return self.finish("failed-to-start", None, failure)
                    continue
                # A stop whose signal reached the kernel before the keeper (Slurm's scancel signals
                # every process of the job) is a stop all the same.
                if self.shutdown_asked or os.path.lexists(os.path.join(self.dir, "stop-request")):
                    return self.finish("stopped", status)
                return self.finish(None if subscribed else "failed-to-start", status)
            if self.idle_due(time.monotonic()) <= 0:
                return self.finish("idle", self.kill_kernel())

    def restart(self):
        old = self.kill_kernel()
        if self.sig_stop:
            # a stop came while the old kernel was going: end instead (the loop sees sig_stop)
            self.restart_status = old
            return None
        code, number = _decode_status(old)
        self.restarts += 1
        self.journal_event("restarted", {"restarts": self.restarts, "exitCode": code,
                                         "signal": number})
        return self.start_kernel()

    # -- the end ---------------------------------------------------------------------------------

    def finish(self, reason, status, failure=None):
        """Writes the last status, the `ended` event and kernel-exit.json; removes the socket folder."""
        if status is None and self.restart_status is not None:
            status = self.restart_status
        code, number = _decode_status(status)
        oom = {}
        if number == signal.SIGKILL:
            files = list(self.oom_before) + [f for f in self.exit_cgroup_files
                                             if f not in self.oom_before]
            after = oom_counters_of(files)
            oom = {path: count - self.oom_before.get(path, 0) for path, count in after.items()
                   if count > self.oom_before.get(path, 0)}
        if reason is None:
            if oom:
                reason = "out-of-memory"
            elif number:
                reason = "signal"
            else:
                reason = "exited"
        detail = self.detail(reason, code, number, failure, oom)
        try:
            children_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
        except (OSError, ValueError):
            children_peak = 0
        self.peak = max(self.peak, children_peak)
        self.sample_memory(force=True)
        self.journal_event("ended", {"reason": reason, "exitCode": code, "signal": number})
        self.state_changed = True
        self.write_status()
        log_lines = self.log_tail()
        stream_lines = self.stream_lines()
        record = {"reason": reason, "exitCode": code, "signal": number, "finishedMs": now_ms(),
                  "peakMemoryBytes": self.peak, "detail": detail,
                  "lastLines": log_lines + stream_lines, "logLines": log_lines,
                  "streamLines": stream_lines, "restarts": self.restarts}
        write_file_once(self.dir, "kernel-exit.json", json.dumps(record, ensure_ascii=False).encode())
        remove_socket_dir(self.socket_dir, os.path.basename(self.connection["ip"]))
        os.close(self.jfd)
        return 0

    def detail(self, reason, code, number, failure, oom):
        if reason == "failed-to-start":
            if failure:
                return "the kernel could not be started: %s" % failure
            if number:
                return ("the kernel was ended by %s before it opened its iopub socket"
                        % signal_name(number))
            return "the kernel exited with code %d before it opened its iopub socket" % code
        if reason == "out-of-memory":
            said = ", ".join("%s: oom_kill +%d" % (path, grew) for path, grew in sorted(oom.items()))
            return "the kernel was killed by the out-of-memory killer (%s)" % said
        if reason == "signal":
            return "the kernel was ended by %s" % signal_name(number)
        if reason == "exited":
            return "the kernel exited by itself with code %d" % code
        if reason == "stopped":
            return "the kernel was stopped at Ferry's request (stop-request)"
        if reason == "terminated":
            return ("the keeper was told to end (SIGTERM or SIGINT without a stop-request: a time "
                    "limit, the system) and stopped the kernel")
        if reason == "idle":
            return "the kernel was idle for %g s and was stopped (--idle-stop)" % self.idle_stop
        return reason

    def log_tail(self):
        try:
            fd = os.open(os.path.join(self.dir, "kernel.log"), os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            return []
        try:
            size = os.fstat(fd).st_size
            os.lseek(fd, max(0, size - (256 << 10)), os.SEEK_SET)
            data = _read_all(fd)
        finally:
            os.close(fd)
        return tail_lines(data.decode("utf-8", "replace"), LOG_TAIL_LINES)

    def stream_lines(self):
        text = []
        for content in self.stream_tail:
            try:
                value = json.loads(content).get("text", "")
            except (ValueError, AttributeError):
                continue
            if isinstance(value, str):
                text.append(value)  # redacted already, as journalled
        return tail_lines("".join(text), STREAM_TAIL_LINES)

    # -- files -----------------------------------------------------------------------------------

    def sample_memory(self, force=False):
        now = time.monotonic()
        if not force and now - self.last_memory_sample < MEMORY_SAMPLE_INTERVAL:
            return
        self.last_memory_sample = now
        pgid = self.pgid
        self.memory = sum(rss for _, rss in group_processes(pgid)) if pgid else 0
        self.peak = max(self.peak, self.memory)

    def write_status(self):
        if self.keeper_json_due:
            self.write_keeper_json()
        self.sample_memory()
        status = {"state": self.state, "lastActivityMs": self.last_activity_ms,
                  "updatedMs": now_ms(), "memoryBytes": self.memory,
                  "peakMemoryBytes": self.peak, "journalBytes": self.journal_size,
                  "journalRecords": self.records, "droppedMessages": self.dropped,
                  "lostMessages": self.lost}
        if self.journal_error:
            status["journalError"] = self.journal_error
        try:
            write_file_atomic(self.dir, "status.json", json.dumps(status).encode())
        except OSError:
            pass  # a full disk: the next write tries again
        self.last_status_write = time.monotonic()
        self.state_changed = False

    def write_keeper_json(self):
        """keeper.json, or a note to try again with the next status.json (a full disk)."""
        self.keeper_json_due = True
        record = {"keeperPid": os.getpid(), "keeperStartTicks": self.keeper_ticks,
                  "kernelPid": self.pid, "kernelStartTicks": self.kernel_ticks,
                  "bootId": self.boot, "host": self.host, "startedMs": self.started_ms,
                  "restarts": self.restarts, "socketDir": self.socket_dir}
        try:
            write_file_atomic(self.dir, "keeper.json", json.dumps(record).encode())
            self.keeper_json_due = False
        except OSError as e:
            sys.stderr.write("keeper.py: keeper.json: %s (trying again)\n" % e.strerror)

    def emergency_stop(self, error):
        """After a fault of the keeper's own: the kernel is not left running unrecorded."""
        try:
            if self.pid is not None and self.pgid:
                self.signal_group(signal.SIGTERM)
                deadline = time.monotonic() + self.grace
                while not self.kernel_ended() and time.monotonic() < deadline:
                    time.sleep(0.05)
                self.signal_group(signal.SIGKILL)
                status = self.reap()
            else:
                status = None
            code, number = _decode_status(status)
            record = {"reason": "keeper-failed", "exitCode": code, "signal": number,
                      "finishedMs": now_ms(), "peakMemoryBytes": self.peak,
                      "detail": "the keeper failed (%s) and stopped the kernel" % error,
                      "lastLines": [], "logLines": [], "streamLines": [],
                      "restarts": self.restarts}
            write_file_once(self.dir, "kernel-exit.json", json.dumps(record).encode())
            remove_socket_dir(self.socket_dir, os.path.basename(self.connection["ip"]))
        except Exception:
            traceback.print_exc()


def _decode_status(status):
    """(exitCode, signal) of a wait status: -1 for the one that does not apply."""
    if status is None:
        return -1, 0
    if os.WIFSIGNALED(status):
        return -1, os.WTERMSIG(status)
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status), 0
    return -1, 0


# --- follow ---------------------------------------------------------------------------------------

def keeper_gone(directory, started):
    """Whether the keeper of `directory` has ended without writing kernel-exit.json."""
    try:
        with open(os.path.join(directory, "keeper.json"), "rb") as f:
            record = json.loads(f.read().decode("utf-8"))
        # A keeper on another machine (a Slurm node, the journal on a shared file system): its
        # heartbeat says, not a pid of this one.
        if record.get("host") and record.get("host") != socket.gethostname():
            raise ValueError("another host")
        if record.get("bootId") and record.get("bootId") != boot_id():
            return True
        return start_ticks(record.get("keeperPid")) != record.get("keeperStartTicks")
    except (OSError, ValueError, AttributeError):
        pass
    try:  # no keeper.json yet: status.json is the heartbeat
        changed = os.stat(os.path.join(directory, "status.json")).st_mtime
        return time.time() - changed > FOLLOW_GONE_AFTER
    except OSError:
        return time.monotonic() - started > FOLLOW_GONE_AFTER


def follow(directory, offset, out_fd=1):
    """Copies the journal from `offset` to `out_fd` as it grows; returns once kernel-exit.json exists and
    all of it is copied (0), or the keeper has gone without one (3)."""
    journal = os.path.join(directory, "journal")
    ended = os.path.join(directory, "kernel-exit.json")
    started = time.monotonic()
    fd = None
    while fd is None:
        try:
            fd = os.open(journal, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            if os.path.lexists(ended):
                return 0
            if keeper_gone(directory, started):
                sys.stderr.write("keeper.py follow: no journal, and no keeper\n")
                return 3
            time.sleep(FOLLOW_POLL)
    try:
        os.lseek(fd, offset, os.SEEK_SET)
        quiet_since = time.monotonic()
        while True:
            data = os.read(fd, READ_CHUNK)
            if data:
                _write_all(out_fd, data)
                quiet_since = time.monotonic()
                continue
            if os.path.lexists(ended):
                # kernel-exit.json is written after the journal's last record: copy what is left
                while True:
                    data = os.read(fd, READ_CHUNK)
                    if not data:
                        return 0
                    _write_all(out_fd, data)
            if time.monotonic() - quiet_since > 1.0:
                quiet_since = time.monotonic()
                if keeper_gone(directory, started):
                    while True:
                        data = os.read(fd, READ_CHUNK)
                        if not data:
                            break
                        _write_all(out_fd, data)
                    if os.path.lexists(ended):
                        return 0
                    sys.stderr.write("keeper.py follow: the keeper has gone without kernel-exit.json\n")
                    return 3
            time.sleep(FOLLOW_POLL)
    except BrokenPipeError:
        return 1
    finally:
        os.close(fd)


# --- the command line -----------------------------------------------------------------------------

USAGE = ("usage: keeper.py run KERNEL_DIR [--idle-stop SECONDS] [--grace SECONDS] -- ARGV...\n"
         "       keeper.py follow KERNEL_DIR OFFSET\n"
         "       keeper.py bridge [--lines] SOCKET\n")


def _seconds(text, option):
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0 or value != value or value == float("inf"):
        raise Refused("%s wants a number of seconds, not %r" % (option, text))
    return value


def parse_run(args):
    if "--" not in args:
        raise Refused("run: no `--` before the kernel's ARGV")
    split = args.index("--")
    options, argv = args[:split], args[split + 1:]
    if not options or not argv:
        raise Refused("run: KERNEL_DIR and ARGV are needed")
    kernel_dir = options[0]
    idle_stop, grace = 0.0, 5.0
    rest = options[1:]
    while rest:
        if rest[0] in ("--idle-stop", "--grace") and len(rest) >= 2:
            value = _seconds(rest[1], rest[0])
            if rest[0] == "--idle-stop":
                idle_stop = value
            else:
                grace = value
            rest = rest[2:]
        else:
            raise Refused("run: unknown option %r" % rest[0])
    return kernel_dir, argv, idle_stop, grace


def run_command(args):
    try:
        kernel_dir, argv, idle_stop, grace = parse_run(args)
    except Refused as e:
        sys.stderr.write("keeper.py: %s\n%s" % (e, USAGE))
        return EXIT_REFUSED
    keeper = Keeper(kernel_dir, argv, idle_stop, grace)
    try:
        keeper.prepare()
    except Refused as e:
        sys.stderr.write("keeper.py: refused: %s\n" % e)
        return EXIT_REFUSED
    except OSError as e:
        sys.stderr.write("keeper.py: refused: %s: %s\n" % (e.filename or kernel_dir, e.strerror))
        return EXIT_REFUSED
    # HUP means restart: leave the starter's session, so a closed terminal or SSH connection
    # is not taken for one (where the starter made the keeper a group leader, Ferry uses setsid).
    try:
        os.setsid()
    except OSError:
        pass
    try:
        return keeper.run()
    except Exception as e:
        traceback.print_exc()
        keeper.emergency_stop("%s: %s" % (type(e).__name__, e))
        return 1


def follow_command(args):
    if len(args) != 2:
        sys.stderr.write(USAGE)
        return EXIT_REFUSED
    try:
        offset = int(args[1])
        if offset < 0:
            raise ValueError
    except ValueError:
        sys.stderr.write("keeper.py follow: OFFSET %r is not a byte offset\n" % args[1])
        return EXIT_REFUSED
    return follow(os.path.abspath(args[0]), offset)


def bridge(path, in_fd=0, out_fd=1, lines=False):
    """Joins this process's stdin and stdout to the Unix socket at `path` (a kernel's socket on a
    node Ferry reaches only through a command, as `srun --overlap`): bytes both ways until either
    side closes. With `lines`, what comes from the socket is written as base64 lines, one per read
    (slurmstepd passes a task's output on only in whole lines); stdin is taken as it is. Returns 0,
    or 1 when the socket cannot be reached."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as e:
        sys.stderr.write("keeper.py bridge: %s: %s\n" % (path, e.strerror or e))
        return 1
    open_in = True
    while True:
        readers = [sock] + ([in_fd] if open_in else [])
        try:
            ready, _, _ = select.select(readers, [], [])
        except InterruptedError:
            continue
        if sock in ready:
            try:
                data = sock.recv(65536)
            except OSError:
                data = b""
            if not data:
                return 0
            _write_all(out_fd, base64.b64encode(data) + b"\n" if lines else data)
        if open_in and in_fd in ready:
            data = os.read(in_fd, 65536)
            if not data:
                open_in = False
                try:
                    sock.shutdown(socket.SHUT_WR)
                except OSError:
                    return 0
                continue
            sock.sendall(data)


def main(argv):
    if len(argv) >= 2 and argv[1] == "run":
        return run_command(argv[2:])
    if len(argv) == 3 and argv[1] == "bridge":
        return bridge(argv[2])
    if len(argv) == 4 and argv[1] == "bridge" and argv[2] == "--lines":
        return bridge(argv[3], lines=True)
    if len(argv) >= 2 and argv[1] == "follow":
        return follow_command(argv[2:])
    sys.stderr.write(USAGE)
    return EXIT_REFUSED


if __name__ == "__main__":
    sys.exit(main(sys.argv))
