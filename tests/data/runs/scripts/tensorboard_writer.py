# A training script that logs like SummaryWriter and Keras' TensorBoard callback, written with
# nothing but python3-protobuf (Debian 12 has no tensorboard): TFRecord-framed Event messages
# in runs/<name>/ (scalars as simple_value, as torch writes them) and in logs/train/ and
# logs/validation/ (scalars as float tensors of the "scalars" plugin, as Keras writes them),
# relative to the working folder. Prints a line per step too, with a metric of its own.
import argparse, os, socket, struct, time

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=20)
p.add_argument("--delay", type=float, default=0.0)
a = p.parse_args()

# The few messages of TensorFlow's event.proto / summary.proto this needs, same field numbers.
f = descriptor_pb2.FileDescriptorProto(name="ferry_test_event.proto", package="t", syntax="proto3")
F = descriptor_pb2.FieldDescriptorProto


def message(name, *fields):
    m = f.message_type.add(name=name)
    for number, field_name, kind, type_name, label in fields:
        field = m.field.add(name=field_name, number=number, type=kind, label=label or F.LABEL_OPTIONAL)
        if type_name:
            field.type_name = type_name


message("PluginData", (1, "plugin_name", F.TYPE_STRING, None, None))
message("SummaryMetadata", (1, "plugin_data", F.TYPE_MESSAGE, ".t.PluginData", None))
message("TensorProto", (1, "dtype", F.TYPE_INT32, None, None), (4, "tensor_content", F.TYPE_BYTES, None, None),
        (5, "float_val", F.TYPE_FLOAT, None, F.LABEL_REPEATED))
message("Value", (1, "tag", F.TYPE_STRING, None, None), (2, "simple_value", F.TYPE_FLOAT, None, None),
        (8, "tensor", F.TYPE_MESSAGE, ".t.TensorProto", None), (9, "metadata", F.TYPE_MESSAGE, ".t.SummaryMetadata", None))
message("Summary", (1, "value", F.TYPE_MESSAGE, ".t.Value", F.LABEL_REPEATED))
message("Event", (1, "wall_time", F.TYPE_DOUBLE, None, None), (2, "step", F.TYPE_INT64, None, None),
        (3, "file_version", F.TYPE_STRING, None, None), (5, "summary", F.TYPE_MESSAGE, ".t.Summary", None))
pool = descriptor_pool.DescriptorPool()
pool.Add(f)
Event = message_factory.MessageFactory(pool).GetPrototype(pool.FindMessageTypeByName("t.Event"))

# CRC-32C, masked as TFRecord stores it.
TABLE = []
for n in range(256):
    c = n
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    TABLE.append(c)


def masked_crc(data):
    c = 0xFFFFFFFF
    for b in data:
        c = TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    c ^= 0xFFFFFFFF
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


class Writer:
    def __init__(self, folder):
        os.makedirs(folder, exist_ok=True)
        name = "events.out.tfevents.%d.%s.%d.0" % (time.time(), socket.gethostname(), os.getpid())
        self.file = open(os.path.join(folder, name), "wb")
        self.write(Event(wall_time=time.time(), file_version="brain.Event:2"))

    def write(self, event):
        data = event.SerializeToString()
        header = struct.pack("<Q", len(data))
        self.file.write(header + struct.pack("<I", masked_crc(header)) + data + struct.pack("<I", masked_crc(data)))
        self.file.flush()

    def scalar(self, tag, value, step):
        e = Event(wall_time=time.time(), step=step)
        e.summary.value.add(tag=tag, simple_value=value)
        self.write(e)

    def tensor(self, tag, value, step):
        e = Event(wall_time=time.time(), step=step)
        v = e.summary.value.add(tag=tag)
        v.metadata.plugin_data.plugin_name = "scalars"
        v.tensor.dtype = 1  # DT_FLOAT
        v.tensor.tensor_content = struct.pack("<f", value)
        self.write(e)


torch_style = Writer(os.path.join("runs", "exp1"))
train, validation = Writer(os.path.join("logs", "train")), Writer(os.path.join("logs", "validation"))
for step in range(a.steps):
    torch_style.scalar("Loss/train", 1.0 / (step + 1), step)
    train.tensor("epoch_loss", 2.0 / (step + 1), step)
    validation.tensor("epoch_loss", 3.0 / (step + 1), step)
    print("step=%d samples_per_s=%d" % (step, 100 + step), flush=True)
    time.sleep(a.delay)
