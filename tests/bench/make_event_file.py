#!/usr/bin/env python3
"""A TensorBoard event file for tests/bench/eventfile.sh, about MB megabytes, as torch's
SummaryWriter and Keras write them: the file version first, then one value per event; every step
train/loss, train/lr and train/grad_norm as simple_value, every 50 steps epoch_loss and
epoch_accuracy as rank-0 float tensors of the scalars plugin (Keras: tensor_content), every 500
steps val/loss and val/accuracy; steps counting up, wall times 40 ms apart. Written with
python3-protobuf from core/metrics/tensorboard_event.proto, framed with masked CRC-32Cs.
    make_event_file.py MB OUT"""
import random
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the sources for the import below
from eventfile_reference import load_messages, masked_crc32c  # noqa: E402

megabytes, out = float(sys.argv[1]), sys.argv[2]
pb = load_messages()
rng = random.Random(20241203)


def record(event):
    data = event.SerializeToString()
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", masked_crc32c(length)) + data + struct.pack("<I", masked_crc32c(data))


def simple(step, wall, tag, number):
    event = pb.Event(wall_time=wall, step=step)
    event.summary.value.add(tag=tag, simple_value=number)
    return record(event)


def tensor(step, wall, tag, number):
    event = pb.Event(wall_time=wall, step=step)
    value = event.summary.value.add(tag=tag)
    value.metadata.plugin_data.plugin_name = b"scalars"
    value.metadata.data_class = 1
    value.tensor.dtype = 1
    value.tensor.tensor_content = struct.pack("<f", number)
    return record(event)


limit = int(megabytes * 1e6)
written = 0
step = 0
start = 1733220000.0
with open(out, "wb") as f:
    first = record(pb.Event(wall_time=start, file_version=b"brain.Event:2"))
    f.write(first)
    written += len(first)
    while written < limit:
        wall = start + step * 0.04
        loss = 4.0 / (1 + step / 1000) + rng.random() * 0.1
        chunk = [simple(step, wall, b"train/loss", loss), simple(step, wall, b"train/lr", 7e-05 * (1 - step / 1e7)),
                 simple(step, wall, b"train/grad_norm", rng.random() * 10)]
        if step % 50 == 49:
            chunk += [tensor(step, wall, b"epoch_loss", loss), tensor(step, wall, b"epoch_accuracy", 1 - loss / 5)]
        if step % 500 == 499:
            chunk += [simple(step, wall, b"val/loss", loss * 1.1), simple(step, wall, b"val/accuracy", 1 - loss / 4)]
        data = b"".join(chunk)
        f.write(data)
        written += len(data)
        step += 1
