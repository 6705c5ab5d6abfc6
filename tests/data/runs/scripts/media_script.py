# A training script that writes what tests/metrics/media_writer.py made, as a run writes it while it
# trains: an event file appended record by record in runs/exp/ (relative to the working folder, as
# SummaryWriter does), histograms.jsonl line by line and images into $SM_OUTPUT_DIR (the run's
# output/ folder) as output/images/<tag>/<step>.png. Prints a line per piece.
import argparse, os, shutil, struct, time

p = argparse.ArgumentParser()
p.add_argument("--events", default="")
p.add_argument("--histograms", default="")
p.add_argument("--images", default="")
p.add_argument("--delay", type=float, default=0.0)
a = p.parse_args()
output = os.environ["SM_OUTPUT_DIR"]

if a.events:
    os.makedirs("runs/exp", exist_ok=True)
    data = open(a.events, "rb").read()
    with open("runs/exp/events.out.tfevents.1700000000.host.1.0", "wb") as out:
        at = 0
        while at < len(data):
            (length,) = struct.unpack_from("<Q", data, at)
            out.write(data[at:at + 16 + length])
            out.flush()
            at += 16 + length
            print("record at=%d" % at, flush=True)
            time.sleep(a.delay)
if a.histograms:
    with open(os.path.join(output, "histograms.jsonl"), "w") as out:
        for line in open(a.histograms):
            out.write(line)
            out.flush()
            time.sleep(a.delay)
if a.images:
    shutil.copytree(a.images, os.path.join(output, "images"), dirs_exist_ok=True)
print("done", flush=True)
