#!/usr/bin/env python3
"""The peer of tests/bench/eventfilebench.cpp: a TensorBoard event file read in pure Python, as a
script without TensorFlow would: the TFRecord framing with struct, both CRCs checked with a
table-driven CRC-32C in Python, each record parsed with python3-protobuf (classes protoc makes
from core/metrics/tensorboard_event.proto), its scalars counted by Ferry's rules (simple_value, or a
one-element float/double tensor of the scalars plugin or none). Prints "python POINTS SECONDS"
(file reading included; interpreter start and protoc left out).
    eventfile_reference.py FILE [PROTO]"""
import os
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_PROTO = os.path.join(HERE, "..", "..", "core", "metrics", "tensorboard_event.proto")


sys.path.insert(0, os.path.join(HERE, "..", "metrics"))
from event_oracle import load_messages as _load  # noqa: E402  (protoc's classes, made once per run)


def load_messages(proto=DEFAULT_PROTO):
    """The module protoc generates from PROTO (also used by make_event_file.py)."""
    return _load(proto)


def _table():
    table = []
    for byte in range(256):
        for _ in range(8):
            byte = (byte >> 1) ^ (0x82F63B78 if byte & 1 else 0)
        table.append(byte)
    return table


TABLE = _table()


def masked_crc32c(data):
    crc = 0xFFFFFFFF
    table = TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    crc ^= 0xFFFFFFFF
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def scalar_tensor(tensor):
    if any(dim.size != 1 for dim in tensor.tensor_shape.dim):
        return False
    content = tensor.tensor_content
    if tensor.dtype == 1:
        return len(content) == 4 or (not content and len(tensor.float_val) == 1)
    if tensor.dtype == 2:
        return len(content) == 8 or (not content and len(tensor.double_val) == 1)
    return False


def main():
    pb = load_messages(sys.argv[2] if len(sys.argv) > 2 else DEFAULT_PROTO)
    start = time.perf_counter()
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    points = 0
    plugins = {}
    event = pb.Event()
    at = 0
    while len(data) - at >= 12:
        header = data[at:at + 8]
        (length,) = struct.unpack("<Q", header)
        if struct.unpack_from("<I", data, at + 8)[0] != masked_crc32c(header):
            sys.exit("damaged length at byte %d" % at)
        if len(data) - at < 16 + length:
            break
        record = data[at + 12:at + 12 + length]
        if struct.unpack_from("<I", data, at + 12 + length)[0] != masked_crc32c(record):
            sys.exit("damaged data at byte %d" % at)
        at += 16 + length
        event.ParseFromString(record)
        if event.WhichOneof("what") != "summary":
            continue
        for value in event.summary.value:
            if value.HasField("metadata"):
                plugins[value.tag] = value.metadata.plugin_data.plugin_name
            kind = value.WhichOneof("value")
            if kind == "simple_value" or (kind == "tensor" and plugins.get(value.tag, b"") in (b"", b"scalars")
                                          and scalar_tensor(value.tensor)):
                points += 1
    print(f"python {points} {time.perf_counter() - start:.3f}")


if __name__ == "__main__":
    main()
