#!/usr/bin/env python3
"""Images, histograms, text and hparams as TensorBoard writes them, for tests/metrics/tst_media.cpp and
tests/tracking/tst_metricsources.cpp: event files written through the records' protobuf
(core/metrics/tensorboard_event.proto, as event_oracle.py does: Debian has no TensorFlow, TensorBoard or
tensorboardX), real PNG files (zlib and struct), histograms.jsonl, an output/images folder, and the
attacks the issue names: a decompression bomb, a 60,000 x 60,000 PNG header, 10^9 buckets, NaN edges.

    media_writer.py write PROTO FOLDER        writes the files below into FOLDER, and FOLDER/expected.json:
                                              every item as written (images' bytes in hex), in file order
    media_writer.py histograms PROTO FILE     one JSON line per HistogramProto value of an event file
                                              (tag, step, min, max, num, sum, sum_squares, bucket_limit,
                                              bucket), read by Python's protobuf
    media_writer.py hparams PROTO FILE        the hparams plugin's session start values, as JSON
    media_writer.py attack-images PROTO FOLDER  FOLDER/bomb.png (a decompression bomb, 50,000 x 50,000) and
                                              FOLDER/huge.png (a 60,000 x 60,000 header)
    media_writer.py steps PROTO FILE RUN STEP...
                                              an event file of one run for the window's views
                                              (tests/ui/media/): at each step an image of tag "samples"
                                              (8 x 6, one colour: red RUN * 60, green STEP % 256), two
                                              of tag "grid" (the images plugin's tensor: that image and
                                              its colours inverted) and a
                                              histogram of tag "weights" (30 buckets, moving with the
                                              step); prints what it wrote as JSON

FOLDER gets:
    media.tfevents          images (Summary.Image, the images plugin's tensor, one over 1 MiB),
                            histograms (HistogramProto, the histograms plugin's [k, 3] tensors), text
                            (the text plugin: one string, a vector, a matrix), hparams, and scalars
    hostile.tfevents        each attack once, between two scalars
    crowded.tfevents        one event of 5,000 images and a scalar
    histograms.jsonl        histograms as a script without TensorBoard writes them
    hostile.jsonl           lines to refuse between good ones
    run/output/images/      the folder layout: <tag>/<step>.png (.jpg, .gif), and hostile images
"""
import json
import math
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from event_oracle import DT_DOUBLE, DT_FLOAT, DT_STRING, Writer, field_bytes, frame, load_messages  # noqa: E402

DBL_MAX = sys.float_info.max


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(width, height, pixel=lambda x, y: (x * 40 % 256, y * 60 % 256, (x + y) * 20 % 256), extra=b""):
    """A real RGB PNG; `extra`: an ancillary chunk's data (tEXt), to make it large."""
    rows = b"".join(b"\0" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height))
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    if extra:
        out += chunk(b"tEXt", b"Comment\0" + extra)
    return out + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def bomb_png(side):
    """A grey PNG of side x side pixels, all zero: a few MB that inflate to side * (side + 1) bytes. The
    deflate stream is one 1 MiB block of zeros repeated (a full flush makes each block's bytes the
    same), the rest, an empty final block and the Adler-32 of that many zeros."""
    raw = side * (side + 1)  # each row: its filter byte and its pixels
    block = 1 << 20
    compressor = zlib.compressobj(9)
    head = compressor.compress(b"\0" * block) + compressor.flush(zlib.Z_FULL_FLUSH)
    header, first = head[:2], head[2:]
    repeated = compressor.compress(b"\0" * block) + compressor.flush(zlib.Z_FULL_FLUSH)
    assert repeated == first
    rest = zlib.compressobj(9)
    tail = rest.compress(b"\0" * (raw % block)) + rest.flush(zlib.Z_FULL_FLUSH)
    adler = ((raw % 65521) << 16) | 1
    stream = header + first * (raw // block) + tail[2:] + b"\x03\x00" + struct.pack(">I", adler)
    # The construction checked on a small one: it inflates to exactly its size.
    if side > 2000:
        check = bomb_png(1500)
        idat = check[check.index(b"IDAT") + 4:-16]
        assert len(zlib.decompress(idat)) == 1500 * 1501
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)) +
            chunk(b"IDAT", stream) + chunk(b"IEND", b""))


def header_only_png(width, height):
    """What a 60,000 x 60,000 image claims in 60 bytes."""
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b""))


def jpeg(width, height):
    """A JPEG's markers as a reader walks them: SOI, APP0 (JFIF), a comment, SOF0, EOI."""
    app0 = b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0"
    com = b"written by media_writer.py"
    sof = struct.pack(">BHHB", 8, height, width, 3) + b"\x01\x22\0\x02\x11\x01\x03\x11\x01"
    return (b"\xff\xd8" + b"\xff\xe0" + struct.pack(">H", len(app0) + 2) + app0 + b"\xff\xfe" +
            struct.pack(">H", len(com) + 2) + com + b"\xff\xc0" + struct.pack(">H", len(sof) + 2) + sof + b"\xff\xd9")


def gif(width, height):
    return b"GIF89a" + struct.pack("<HH", width, height) + b"\x00\x00\x00" + b";"


class MediaWriter(Writer):
    def __init__(self, pb):
        super().__init__(pb)
        self.expected = []

    def image(self, tag, data, width, height, fmt):
        value = self.pb.Summary.Value(tag=tag.encode())
        value.image = self.pb.Summary.Image(height=height, width=width, colorspace=3,
                                            encoded_image_string=data).SerializeToString()
        self.expected.append(dict(kind="image", tag=tag, sample=0, format=fmt, width=width, height=height,
                                  bytes=data.hex()))
        return value

    def image_tensor(self, tag, images):
        """The images plugin (TensorFlow 2): width, height, then the encoded images."""
        value = self.tensor(tag, plugin=b"images", dtype=DT_STRING, dims=(len(images) + 2,))
        value.tensor.string_val.extend([b"8", b"4"] + [data for data, _, _, _ in images])
        for sample, (data, width, height, fmt) in enumerate(images):
            self.expected.append(dict(kind="image", tag=tag, sample=sample, format=fmt, width=width, height=height,
                                      bytes=data.hex()))
        return value

    def histo(self, tag, lo, hi, num, total, squares, limits, counts):
        value = self.pb.Summary.Value(tag=tag.encode())
        value.histo = self.pb.HistogramProto(min=lo, max=hi, num=num, sum=total, sum_squares=squares,
                                             bucket_limit=limits, bucket=counts).SerializeToString()
        self.expected.append(dict(kind="histogram", tag=tag, sample=0, format="histo", min=lo, max=hi, num=num,
                                  sum=total, sum_squares=squares, bucket_limit=limits, bucket=counts))
        return value

    def histo_tensor(self, tag, triples, dtype=DT_DOUBLE, packed=True, metadata=True):
        flat = [x for t in triples for x in t]
        if dtype == DT_FLOAT:
            flat = [struct.unpack("<f", struct.pack("<f", x))[0] for x in flat]  # as float32 holds them
        plugin = b"histograms" if metadata else None
        if packed:
            content = struct.pack("<%d%s" % (len(flat), "d" if dtype == DT_DOUBLE else "f"), *flat)
            value = self.tensor(tag, plugin=plugin, dtype=dtype, dims=(len(triples), 3), tensor_content=content)
        else:
            field = "double_val" if dtype == DT_DOUBLE else "float_val"
            value = self.tensor(tag, plugin=plugin, dtype=dtype, dims=(len(triples), 3), **{field: flat})
        lefts, rights, counts = flat[0::3], flat[1::3], flat[2::3]
        self.expected.append(dict(kind="histogram", tag=tag, sample=0, format="tensor",
                                  min=lefts[0] if lefts else None, max=rights[-1] if rights else None,
                                  num=sum(counts), sum=None, sum_squares=None, bucket_limit=rights, bucket=counts))
        return value

    def text(self, tag, strings, dims, expected):
        value = self.tensor(tag, plugin=b"text", dtype=DT_STRING, dims=dims)
        value.tensor.string_val.extend(s.encode() for s in strings)
        self.expected.append(dict(kind="text", tag=tag, sample=0, format="tensor", text=expected))
        return value

    def hparams(self, values):
        """torch's SummaryWriter.add_hparams: the experiment, the session start (the values), its end."""
        pb = self.pb
        start = pb.HParamsPluginData(version=0)
        for key, v in values.items():
            entry = start.session_start_info.hparams.add()
            entry.key = key.encode()
            if v is None:
                entry.value.null_value = 0
            elif isinstance(v, bool):
                entry.value.bool_value = v
            elif isinstance(v, (int, float)):
                entry.value.number_value = float(v)
            else:
                entry.value.string_value = v.encode()
        out = []
        for tag, content in [(b"_hparams_/experiment", b"\x12\x00"),
                             (b"_hparams_/session_start_info", start.SerializeToString()),
                             (b"_hparams_/session_end_info", b"\x22\x02\x08\x01")]:
            value = pb.Summary.Value(tag=tag)
            value.metadata.plugin_data.plugin_name = b"hparams"
            value.metadata.plugin_data.content = content
            out.append(value)
        return out

    def event(self, step=None, wall=1700000001.25, values=(), extra=b""):
        for item in self.expected:
            item.setdefault("step", step or 0)
            item.setdefault("wallMs", round(wall * 1000))
        super().event(step, wall, values, extra)


def write_media(pb, folder):
    w = MediaWriter(pb)
    w.event(1, 1700000001.0, [w.simple("loss", 0.5)])
    # SummaryWriter.add_image: an Image per value, one tag's steps, and a scalar in the same event.
    for step in (0, 10, 20):
        w.event(step, 1700000002.0 + step,
                [w.image("samples", png(3, 2, lambda x, y, s=step: (s * 10 % 256, x * 80, y * 120)), 3, 2, "png")])
    w.event(10, 1700000003.5, [w.simple("loss", 0.25), w.image("train/grid", png(64, 48), 64, 48, "png")])
    # The images plugin's tensor: two images at one step (a PNG and a JPEG).
    w.event(5, 1700000004.0, [w.image_tensor("tf2/images", [(png(8, 4), 8, 4, "png"),
                                                             (jpeg(640, 480), 640, 480, "jpeg")])])
    # An image over 1 MiB: its record is walked, not parsed whole.
    w.event(7, 1700000005.0, [w.image("big", png(16, 16, extra=os.urandom(1536 * 1024).hex().encode()[:3 << 19]),
                                      16, 16, "png")])
    # HistogramProto, as SummaryWriter.add_histogram and TensorFlow 1 write it (the last limit DBL_MAX).
    for step in (0, 100, 200):
        w.event(step, 1700000010.0 + step,
                [w.histo("weights/fc1", -0.1 - step * 1e-3, 0.3, 10.0 + step, 1.25, 0.1 + step / 7,
                         [-0.05, 0.0, 1e-300, 0.1 + step, DBL_MAX], [1.0, 2.0, 3.5, 0.0, 3.5 + step])])
    # The histograms plugin's tensors: doubles packed, floats in float_val, the second without metadata.
    w.event(3, 1700000020.0, [w.histo_tensor("tf2/hist", [(-1.0, -0.5, 2.0), (-0.5, 0.1, 5.0), (0.1, 2.5, 1.0)])])
    w.event(4, 1700000021.0, [w.histo_tensor("tf2/hist", [(0.0, 0.3, 1.0), (0.3, 0.7, 4.0)], dtype=DT_FLOAT,
                                             packed=False, metadata=False)])
    # The text plugin: one string (add_text's [1]), a scalar string, a matrix (a table).
    w.event(1, 1700000030.0, [w.text("notes", ["hello ünïcode\nsecond line"], (1,), "hello ünïcode\nsecond line")])
    w.event(2, 1700000031.0, [w.text("notes", ["step two"], (), "step two")])
    w.event(1, 1700000032.0, [w.text("table", ["a", "b", "c", "d"], (2, 2), "a\tb\nc\td")])
    # hparams: number, string, bool, an integer number, a null (no parameter).
    w.event(0, 1700000000.5, w.hparams({"lr": 0.001, "optimizer": "adam", "nesterov": True, "layers": 4,
                                        "nothing": None}))
    w.event(30, 1700000040.0, [w.simple("loss", 0.125)])
    with open(os.path.join(folder, "media.tfevents"), "wb") as f:
        f.write(w.out)
    expected = dict(items=w.expected,
                    points=["loss 1 0.5", "loss 10 0.25", "loss 30 0.125"],
                    hparams={"lr": "0.001", "optimizer": "adam", "nesterov": "true", "layers": "4"})

    # The attacks, each between scalars: nothing of them is indexed, each is refused by name.
    h = Writer(pb)
    h.event(1, values=[h.simple("kept", 1.0)])
    attacks = []

    def image(tag, data):
        value = pb.Summary.Value(tag=tag.encode())
        value.image = pb.Summary.Image(encoded_image_string=data).SerializeToString()
        return value

    bomb = bomb_png(50000)
    h.event(2, values=[image("bomb", bomb)])
    attacks.append(dict(tag="bomb", words=["50000 x 50000", "decompression bomb"]))
    h.event(3, values=[image("huge header", header_only_png(60000, 60000))])
    attacks.append(dict(tag="huge header", words=["60000 x 60000"]))
    h.event(4, values=[image("no image", b"hello, not an image")])
    attacks.append(dict(tag="no image", words=["not a PNG"]))
    # A HistogramProto whose packed bucket_limit claims 10^9 doubles (8e9 bytes) and holds three.
    claim = 8 * 10**9
    varint = b""
    while True:
        byte, claim = claim & 0x7F, claim >> 7
        varint += bytes([byte | (0x80 if claim else 0)])
        if not claim:
            break
    many = pb.Summary.Value(tag=b"many buckets")
    many.MergeFromString(field_bytes(5, b"\x32" + varint + struct.pack("<3d", 0.0, 1.0, 2.0)))
    h.event(5, values=[many])
    attacks.append(dict(tag="many buckets", words=["1000000000 buckets"]))
    nan = pb.Summary.Value(tag=b"nan limit",
                           histo=pb.HistogramProto(bucket_limit=[0.0, float("nan"), 2.0],
                                                   bucket=[1.0, 1.0, 1.0]).SerializeToString())
    h.event(6, values=[nan])
    attacks.append(dict(tag="nan limit", words=["NaN bucket limit"]))
    h.event(7, values=[h.tensor("tf2 many buckets", plugin=b"histograms", dtype=DT_DOUBLE, dims=(10**9, 3),
                                double_val=[0.0, 1.0, 1.0])])
    attacks.append(dict(tag="tf2 many buckets", words=["1000000000 buckets"]))
    h.event(8, values=[h.tensor("tf2 nan", plugin=b"histograms", dtype=DT_DOUBLE, dims=(2, 3),
                                double_val=[float("nan"), 0.0, 1.0, 0.0, 1.0, 1.0])])
    attacks.append(dict(tag="tf2 nan", words=["NaN bucket edge"]))
    long_text = h.tensor("long text", plugin=b"text", dtype=DT_STRING, dims=(1,))
    long_text.tensor.string_val.append(b"x" * (2 << 20))
    h.event(9, values=[long_text])
    attacks.append(dict(tag="long text", words=["longer than 1048576 bytes"]))
    h.event(10, values=[h.simple("kept", 2.0)])
    with open(os.path.join(folder, "hostile.tfevents"), "wb") as f:
        f.write(h.out)
    expected["attacks"] = attacks

    # One event crowded with 5,000 tiny images (a reader holds a record's items until it is whole).
    c = Writer(pb)
    c.event(1, values=[pb.Summary.Value(tag=("crowd/%d" % i).encode(),
                                        image=pb.Summary.Image(encoded_image_string=gif(2, 2)).SerializeToString())
                       for i in range(5000)] + [c.simple("kept", 3.0)])
    with open(os.path.join(folder, "crowded.tfevents"), "wb") as f:
        f.write(c.out)

    # histograms.jsonl: what a script without TensorBoard writes (json.dumps, one object a line).
    lines, jsonl = [], []
    for step, extra in [(0, {}), (1, dict(min=-1.0, max=3.0, num=6.0, sum=2.5, sum_squares=9.25, wall_time=1700000050.5))]:
        entry = dict(tag="jsonl/w", step=step, bucket_limit=[-0.5, 0.0, 0.1 * (step + 1), 3.0],
                     bucket=[1.0, 2.0, step + 0.5, 1.0], **extra)
        lines.append(json.dumps(entry))
        jsonl.append(entry)
    lines.insert(1, "")  # a blank line is no histogram, and no error
    with open(os.path.join(folder, "histograms.jsonl"), "w") as f:
        f.write("\n".join(lines) + "\n")
    expected["jsonl"] = jsonl

    good = json.dumps(dict(tag="ok", step=1, bucket_limit=[1.0], bucket=[1.0]))
    hostile = [
        (json.dumps(dict(tag="nan", step=2, bucket_limit=[0.0, float("nan")], bucket=[1.0, 1.0])), "NaN"),
        (json.dumps(dict(tag="many", step=3, bucket_limit=list(range(70000)), bucket=[1.0] * 70000)),
         "70000 buckets"),
        (json.dumps(dict(tag="long", step=4, bucket_limit=[1.0], bucket=[1.0], pad="x" * (5 << 20))),
         "longer than 4194304 bytes"),
        ("{not json", "not JSON"),
        (json.dumps(dict(tag="uneven", step=5, bucket_limit=[1.0, 2.0], bucket=[1.0])), "2 bucket limits for 1"),
        (json.dumps(dict(tag="negative", step=6, bucket_limit=[1.0], bucket=[-1.0])), "a count of -1"),
        (json.dumps(dict(step=7, bucket_limit=[1.0], bucket=[1.0])), "no tag"),
    ]
    text = good + "\n"
    refusals = []
    for line, words in hostile:
        refusals.append(dict(at=len(text.encode()), words=words))
        text += line + "\n"
    last = json.dumps(dict(tag="ok", step=8, bucket_limit=[2.0], bucket=[3.0]))
    text += last + "\n"
    with open(os.path.join(folder, "hostile.jsonl"), "w") as f:
        f.write(text)
    expected["hostileJsonl"] = dict(refusals=refusals, kept=[1, 8])

    # The folder layout: output/images/<tag>/<step>.<ext>, a tag of two folders, a bad name, attacks.
    images = os.path.join(folder, "run", "output", "images")
    folder_items = []
    for path, data, width, height, fmt in [
            ("gen/0.png", png(5, 4), 5, 4, "png"),
            ("gen/10.png", png(5, 4, lambda x, y: (255, x, y)), 5, 4, "png"),
            ("val/grid/5.jpg", jpeg(320, 200), 320, 200, "jpeg"),
            ("anim/3.gif", gif(12, 9), 12, 9, "gif")]:
        os.makedirs(os.path.dirname(os.path.join(images, path)), exist_ok=True)
        with open(os.path.join(images, path), "wb") as f:
            f.write(data)
        tag, name = path.rsplit("/", 1)
        folder_items.append(dict(kind="image", tag=tag, step=int(name.split(".")[0]), sample=0, format=fmt,
                                 width=width, height=height, bytes=data.hex(), file="output/images/" + path))
    with open(os.path.join(images, "gen", "final.png"), "wb") as f:
        f.write(png(2, 2))
    os.makedirs(os.path.join(images, "attacks"), exist_ok=True)
    with open(os.path.join(images, "attacks", "1.png"), "wb") as f:
        f.write(bomb)
    with open(os.path.join(images, "attacks", "2.png"), "wb") as f:
        f.write(header_only_png(60000, 60000))
    expected["folder"] = folder_items
    expected["folderAttacks"] = [dict(file="output/images/attacks/1.png", words=["50000 x 50000"]),
                                 dict(file="output/images/attacks/2.png", words=["60000 x 60000"])]
    expected["folderBadName"] = "output/images/gen/final.png"

    with open(os.path.join(folder, "expected.json"), "w") as f:
        json.dump(expected, f, allow_nan=False)


def records(path):
    data = open(path, "rb").read()
    at = 0
    while len(data) - at >= 16:
        (length,) = struct.unpack_from("<Q", data, at)
        yield data[at + 12:at + 12 + length]
        at += 16 + length


def histograms(pb, path):
    for record in records(path):
        event = pb.Event()
        event.ParseFromString(record)
        if event.WhichOneof("what") != "summary":
            continue
        for value in event.summary.value:
            if value.WhichOneof("value") != "histo":
                continue
            h = pb.HistogramProto()
            h.ParseFromString(value.histo)
            print(json.dumps(dict(tag=value.tag.decode("utf-8", "replace"), step=event.step, min=h.min, max=h.max,
                                  num=h.num, sum=h.sum, sum_squares=h.sum_squares,
                                  bucket_limit=list(h.bucket_limit), bucket=list(h.bucket))))


def hparams(pb, path):
    out = {}
    for record in records(path):
        event = pb.Event()
        event.ParseFromString(record)
        for value in event.summary.value:
            if value.metadata.plugin_data.plugin_name != b"hparams":
                continue
            data = pb.HParamsPluginData()
            data.ParseFromString(value.metadata.plugin_data.content)
            if data.WhichOneof("data") == "session_start_info":
                for entry in data.session_start_info.hparams:
                    kind = entry.value.WhichOneof("kind")
                    if kind == "number_value":
                        out[entry.key.decode()] = entry.value.number_value
    print(json.dumps(out))


def steps(pb, path, run, step_list):
    w = MediaWriter(pb)
    out = dict(images=[], histograms=[])
    for step in step_list:
        color = (run * 60 % 256, step % 256, 200)
        data = png(8, 6, lambda x, y, c=color: c)
        mu = -0.5 + step / max(1, max(step_list))
        limits = [-1.0 + (i + 1) * (3.0 / 30) for i in range(30)]
        counts = [float(round(100 * math.exp(-(((l - 0.05) - mu) / 0.3) ** 2))) for l in limits]
        other = tuple(255 - c for c in color)
        second = png(8, 6, lambda x, y, c=other: c)
        w.event(step, 1700000000.0 + step, [w.image("samples", data, 8, 6, "png"),
                                            w.image_tensor("grid", [(data, 8, 6, "png"), (second, 8, 6, "png")]),
                                            w.histo("weights", -1.0, 2.0, sum(counts), 0.0, 0.0, limits, counts)])
        out["images"].append(dict(step=step, hex=data.hex(), color=list(color), second=second.hex(),
                                  secondColor=list(other)))
        out["histograms"].append(dict(step=step, bucket_limit=limits, bucket=counts))
    with open(path, "wb") as f:
        f.write(w.out)
    print(json.dumps(out))


def main():
    command, proto, target = sys.argv[1], sys.argv[2], sys.argv[3]
    pb = load_messages(proto)
    if command == "write":
        os.makedirs(target, exist_ok=True)
        write_media(pb, target)
    elif command == "histograms":
        histograms(pb, target)
    elif command == "hparams":
        hparams(pb, target)
    elif command == "attack-images":
        os.makedirs(target, exist_ok=True)
        with open(os.path.join(target, "bomb.png"), "wb") as f:
            f.write(bomb_png(50000))
        with open(os.path.join(target, "huge.png"), "wb") as f:
            f.write(header_only_png(60000, 60000))
    elif command == "steps":
        steps(pb, target, int(sys.argv[4]), [int(a) for a in sys.argv[5:]])
    else:
        sys.exit("unknown command " + command)


if __name__ == "__main__":
    main()
