#!/usr/bin/env python3
"""TensorBoard event files read independently of Ferry's reader (core/metrics/eventfile.cpp), and the
synthetic ones tests/metrics/tst_eventfile.cpp needs, written with python3-protobuf (Debian has no
TensorFlow, TensorBoard or tensorboardX to write them).

    event_oracle.py points PROTO FILE [PREFIX]   one line per scalar point, in the file's order:
                                                 name TAB step TAB value TAB wall ms (repr()s),
                                                 then "damaged AT" if a record at byte AT is
    event_oracle.py write PROTO FOLDER           writes FOLDER/<case>.tfevents for every case below

PROTO is core/metrics/tensorboard_event.proto: protoc turns it into Python classes in a temporary
folder, so that this script shares the field numbers with Ferry and nothing else. The framing is
read with struct, both CRCs checked with a byte-at-a-time CRC-32C table (Ferry's slices by 8 or
uses the CPU). The rules: a point is a value's simple_value, or its tensor when the tag's plugin
(the value's metadata, else the one its tag had last) is "scalars" or none and the tensor is one
DT_FLOAT or DT_DOUBLE element; named PREFIX + tag, at the event's step, at round(wall_time * 1000)
with halves rounded away from 0.
"""
import importlib
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile

from google.protobuf.message import DecodeError

DT_FLOAT, DT_DOUBLE, DT_STRING = 1, 2, 7


def load_messages(proto):
    out = tempfile.mkdtemp(prefix="ferry-event-oracle-")
    subprocess.run(["protoc", "--python_out=" + out, "-I", os.path.dirname(os.path.abspath(proto)),
                    os.path.abspath(proto)], check=True)
    sys.path.insert(0, out)
    try:
        return importlib.import_module(os.path.splitext(os.path.basename(proto))[0] + "_pb2")
    finally:
        sys.path.remove(out)
        shutil.rmtree(out)


def _byte_crc(byte):
    for _ in range(8):
        byte = (byte >> 1) ^ (0x82F63B78 if byte & 1 else 0)
    return byte


CRC_TABLE = [_byte_crc(b) for b in range(256)]


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc = (crc >> 8) ^ CRC_TABLE[(crc ^ byte) & 0xFF]
    return crc ^ 0xFFFFFFFF


def masked(data):
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def frame(data):
    """One TFRecord record around `data`."""
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", masked(length)) + data + struct.pack("<I", masked(data))


def ms(wall_time):
    whole = math.floor(abs(wall_time * 1000))
    rounded = whole + (1 if abs(wall_time * 1000) - whole >= 0.5 else 0)
    return int(math.copysign(rounded, wall_time))


def tensor_scalar(tensor):
    if any(dim.size != 1 for dim in tensor.tensor_shape.dim):
        return None
    content = tensor.tensor_content
    if tensor.dtype == DT_FLOAT:
        if len(content) == 4:
            return struct.unpack("<f", content)[0]
        if not content and len(tensor.float_val) == 1:
            return tensor.float_val[0]
    if tensor.dtype == DT_DOUBLE:
        if len(content) == 8:
            return struct.unpack("<d", content)[0]
        if not content and len(tensor.double_val) == 1:
            return tensor.double_val[0]
    return None


def points(pb, path, prefix):
    data = open(path, "rb").read()
    plugins = {}  # tag -> the plugin its last metadata named
    at = 0
    while len(data) - at >= 12:
        header = data[at:at + 8]
        (length,) = struct.unpack("<Q", header)
        if struct.unpack_from("<I", data, at + 8)[0] != masked(header):
            print("damaged", at)
            return
        if len(data) - at < 16 + length:
            return  # a partial record waits
        record = data[at + 12:at + 12 + length]
        if struct.unpack_from("<I", data, at + 12 + length)[0] != masked(record):
            print("damaged", at)
            return
        event = pb.Event()
        try:
            event.ParseFromString(record)
        except DecodeError:
            print("damaged", at)
            return
        at += 16 + length
        if event.WhichOneof("what") != "summary":
            continue
        for value in event.summary.value:
            if value.HasField("metadata"):
                plugins[value.tag] = value.metadata.plugin_data.plugin_name
            kind = value.WhichOneof("value")
            number = None
            if kind == "simple_value":
                number = value.simple_value
            elif kind == "tensor" and plugins.get(value.tag, b"") in (b"", b"scalars"):
                number = tensor_scalar(value.tensor)
            if number is not None:
                name = prefix + value.tag.decode("utf-8", "replace")
                print("%s\t%r\t%r\t%d" % (name, float(event.step), float(number), ms(event.wall_time)))


def field_bytes(field, payload):
    """A length-delimited field by hand: one this .proto does not declare (an image, a histogram)."""
    size = len(payload)
    varint = b""
    while True:
        byte = size & 0x7F
        size >>= 7
        varint += bytes([byte | (0x80 if size else 0)])
        if not size:
            return bytes([(field << 3) | 2]) + varint + payload


class Writer:
    def __init__(self, pb):
        self.pb = pb
        self.out = frame(pb.Event(wall_time=1700000000.0, file_version=b"brain.Event:2").SerializeToString())

    def event(self, step=None, wall=1700000001.25, values=(), extra=b""):
        event = self.pb.Event(wall_time=wall)
        if step is not None:
            event.step = step
        for value in values:
            event.summary.value.append(value)
        self.out += frame(event.SerializeToString() + extra)

    def simple(self, tag, number):
        return self.pb.Summary.Value(tag=tag.encode(), simple_value=number)

    def tensor(self, tag, plugin=b"scalars", dtype=DT_FLOAT, dims=(), **fields):
        value = self.pb.Summary.Value(tag=tag.encode())
        if plugin is not None:
            value.metadata.plugin_data.plugin_name = plugin
        value.tensor.dtype = dtype
        for size in dims:
            value.tensor.tensor_shape.dim.add().size = size
        for name, content in fields.items():
            if name == "tensor_content":
                value.tensor.tensor_content = content
            else:
                getattr(value.tensor, name).extend(content)
        return value


def write(pb, folder):
    os.makedirs(folder, exist_ok=True)
    cases = {}

    # torch's SummaryWriter and tensorboardX: simple_value, one value per event.
    w = Writer(pb)
    for step, (loss, acc) in enumerate([(0.5, 0.75), (0.25, 0.875), (0.125, 0.9375)], start=1):
        w.event(step, 1700000000.0 + step * 0.5, [w.simple("loss", loss)])
        w.event(step, 1700000000.0 + step * 0.5, [w.simple("acc", acc)])
    cases["scalars"] = w.out

    # Keras and TensorFlow 2: rank-0 float tensors of the scalars plugin, packed or in float_val.
    w = Writer(pb)
    for step, number in enumerate([1.5, 0.75, 0.375]):
        w.event(step, 1700000010.0 + step, [w.tensor("epoch_loss", tensor_content=struct.pack("<f", number))])
        w.event(step, 1700000010.0 + step, [w.tensor("epoch_accuracy", dims=(1,), float_val=[number / 2])])
    cases["keras"] = w.out

    # Double tensors, both ways; the second without metadata, its tag's plugin the first's.
    w = Writer(pb)
    w.event(5, values=[w.tensor("lr", dtype=DT_DOUBLE, double_val=[0.001])])
    w.event(6, values=[w.tensor("lr", plugin=None, dtype=DT_DOUBLE, tensor_content=struct.pack("<d", 0.1))])
    cases["double"] = w.out

    # An event without a step: at step 0.
    w = Writer(pb)
    w.event(None, values=[w.simple("loss", 2.5)])
    w.event(3, values=[w.simple("loss", 1.25)])
    cases["nostep"] = w.out

    # What is no scalar, with one scalar among it.
    w = Writer(pb)
    # A graph_def after the summary: they share a oneof, the last one read wins, so no point.
    w.event(1, values=[w.simple("kept", 4.0)], extra=field_bytes(4, b"graph"))
    w.out += frame(pb.Event(wall_time=1700000002.0, graph_def=b"\x0a\x03abc").SerializeToString())
    image = pb.Summary.Value(tag=b"image")
    image.MergeFromString(field_bytes(4, b"\x08\x02\x10\x02\x18\x03\x22\x04\x89PNG"))
    histo = pb.Summary.Value(tag=b"histo")
    histo.MergeFromString(field_bytes(5, b"\x09" + struct.pack("<d", 1.0)))
    w.event(2, values=[image, histo, w.simple("kept", 3.0)])
    w.event(2, values=[w.tensor("hist2", plugin=b"histograms", dtype=DT_DOUBLE, dims=(30, 3),
                                double_val=[0.5] * 90)])
    w.event(2, values=[w.tensor("hist1", plugin=b"histograms", dtype=DT_DOUBLE, dims=(1,), double_val=[0.5])])
    w.event(3, values=[w.tensor("hist1", plugin=None, dtype=DT_DOUBLE, double_val=[0.25])])  # still a histogram
    w.event(2, values=[w.tensor("text", plugin=b"text", dtype=DT_STRING)])
    w.event(2, values=[w.tensor("curve", plugin=b"pr_curves", float_val=[0.5])])
    w.event(2, values=[w.tensor("three", dims=(3,), float_val=[1.0, 2.0, 3.0])])
    w.event(2, values=[w.tensor("wide", dims=(2, 1), float_val=[1.0])])
    w.event(2, values=[w.tensor("int", dtype=3)])
    w.event(2, values=[w.tensor("short", tensor_content=b"\x00\x00")])
    hparams = pb.Summary.Value(tag=b"_hparams_/experiment")
    hparams.metadata.plugin_data.plugin_name = b"hparams"
    hparams.metadata.plugin_data.content = b"\x12\x00"
    w.event(0, values=[hparams])
    w.event(4, values=[w.simple("kept", 2.0)])
    cases["ignored"] = w.out

    # Records over 1 MiB, which Ferry walks instead of parsing whole: a TensorFlow 1 merged summary
    # with an image among its scalars (its step after the summary), and a large graph.
    w = Writer(pb)
    big = pb.Summary.Value(tag=b"big image")
    big.MergeFromString(field_bytes(4, field_bytes(4, b"x" * (2 << 20))))
    summary = pb.Summary(value=[w.simple("loss", 0.5), big, w.tensor("accuracy", float_val=[0.75])])
    w.out += frame(pb.Event(wall_time=1700000003.5, summary=summary).SerializeToString() + b"\x10\x07")
    w.out += frame(pb.Event(wall_time=1700000004.0, step=8, graph_def=b"g" * (3 << 20)).SerializeToString())
    w.event(9, values=[w.simple("loss", 0.25)])
    cases["large"] = w.out

    # Damage: a header that claims 2^62 bytes with a length CRC that matches; a record whose data
    # (with a matching CRC) is no Event.
    w = Writer(pb)
    w.event(1, values=[w.simple("loss", 1.0)])
    length = struct.pack("<Q", 1 << 62)
    cases["huge"] = w.out + length + struct.pack("<I", masked(length)) + b"\x00" * 20
    w = Writer(pb)
    w.event(1, values=[w.simple("loss", 1.0)])
    cases["garbage"] = w.out + frame(b"\xff\xff\xff\xff")

    for name, data in cases.items():
        with open(os.path.join(folder, name + ".tfevents"), "wb") as f:
            f.write(data)


def main():
    command, proto, target = sys.argv[1], sys.argv[2], sys.argv[3]
    pb = load_messages(proto)
    if command == "points":
        points(pb, target, sys.argv[4] if len(sys.argv) > 4 else "")
    elif command == "write":
        write(pb, target)
    else:
        sys.exit("unknown command " + command)


if __name__ == "__main__":
    main()
