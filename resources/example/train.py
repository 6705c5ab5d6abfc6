"""Ferry's example training script: softmax regression on data/flowers.csv, in plain Python.

Written for the training contract Ferry shares with SageMaker script mode, so it runs
unchanged on every target (this machine, a container, an SSH host, Slurm, SageMaker):
hyperparameters arrive as --name value, the data folder as SM_CHANNEL_TRAINING, and the model
goes to SM_MODEL_DIR (packed as model.tar.gz when the run ends). Each epoch prints one JSON
line, which Ferry charts live.

    ferry run train.py --data training=data --hp epochs=40 --hp lr=0.5 --follow
"""
import argparse
import csv
import json
import math
import os
import random


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=30, help="passes over the data")
    parser.add_argument("--lr", type=float, default=0.3, help="learning rate")
    parser.add_argument("--seed", type=int, default=1, help="random seed")
    parser.add_argument("--model-dir", type=str, default=os.environ.get("SM_MODEL_DIR", "model"))
    parser.add_argument("--train", type=str, default=os.environ.get("SM_CHANNEL_TRAINING", "data"))
    return parser.parse_args()


def load(folder):
    path = folder if folder.endswith(".csv") else os.path.join(folder, "flowers.csv")
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, rows = rows[0], rows[1:]
    classes = sorted({r[-1] for r in rows})
    x = [[float(v) for v in r[:-1]] for r in rows]
    y = [classes.index(r[-1]) for r in rows]
    return header[:-1], classes, x, y


def standardise(x):
    columns = list(zip(*x))
    mean = [sum(c) / len(c) for c in columns]
    std = [math.sqrt(sum((v - m) ** 2 for v in c) / len(c)) or 1.0 for c, m in zip(columns, mean)]
    return [[(v - m) / s for v, m, s in zip(row, mean, std)] for row in x], mean, std


def softmax(z):
    top = max(z)
    e = [math.exp(v - top) for v in z]
    total = sum(e)
    return [v / total for v in e]


def main():
    args = parse_args()
    random.seed(args.seed)
    features, classes, x, y = load(args.train)
    x, mean, std = standardise(x)
    k, d = len(classes), len(features)
    w = [[0.0] * d for _ in range(k)]
    b = [0.0] * k
    order = list(range(len(x)))
    for epoch in range(1, args.epochs + 1):
        random.shuffle(order)
        loss = 0.0
        correct = 0
        for i in order:
            p = softmax([sum(wc[j] * x[i][j] for j in range(d)) + bc for wc, bc in zip(w, b)])
            loss -= math.log(max(p[y[i]], 1e-12))
            correct += max(range(k), key=lambda c: p[c]) == y[i]
            for c in range(k):
                g = p[c] - (1.0 if c == y[i] else 0.0)
                b[c] -= args.lr * g / len(x) * 10
                for j in range(d):
                    w[c][j] -= args.lr * g * x[i][j] / len(x) * 10
        print(json.dumps({"epoch": epoch, "loss": loss / len(x), "accuracy": correct / len(x)}), flush=True)
    os.makedirs(args.model_dir, exist_ok=True)
    with open(os.path.join(args.model_dir, "model.json"), "w") as f:
        json.dump({"features": features, "classes": classes, "mean": mean, "std": std, "weights": w, "bias": b}, f)


if __name__ == "__main__":
    main()
