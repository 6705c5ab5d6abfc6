"""PyTorch eager reference for tests/bench/trainer.sh: the same model, data and initial weights
as trainerbench.cpp (same seeds, same calls), one thread. Prints samples per second."""
import sys
import time

import torch

SIZES = {
    "small": dict(inputs=16, hidden=[32], classes=2, batch=32, adam=True, samples=32768),
    "medium": dict(inputs=784, hidden=[256, 256], classes=10, batch=64, adam=False, samples=8192),
}


def main():
    size = SIZES[sys.argv[1]]
    epochs = int(sys.argv[2])
    torch.set_num_threads(1)
    torch.manual_seed(1)
    x = torch.randn(size["samples"], size["inputs"])
    y = torch.randint(0, size["classes"], (size["samples"],), dtype=torch.long)
    torch.manual_seed(0)
    layers = []
    fan_in = size["inputs"]
    for h in size["hidden"]:
        layers += [torch.nn.Linear(fan_in, h), torch.nn.ReLU()]
        fan_in = h
    layers.append(torch.nn.Linear(fan_in, size["classes"]))
    model = torch.nn.Sequential(*layers)
    print(f"checksum data {x.sum().item():.6f} weights {next(model.parameters()).sum().item():.6f}", file=sys.stderr)
    if size["adam"]:
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    else:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.functional.cross_entropy
    n, batch = size["samples"], size["batch"]
    start = time.perf_counter()
    for _ in range(epochs):
        for s in range(0, n, batch):
            optimizer.zero_grad()
            loss = loss_fn(model(x[s:s + batch]), y[s:s + batch])
            loss.backward()
            optimizer.step()
    seconds = time.perf_counter() - start
    print(f"{n * epochs / seconds:.1f}")


if __name__ == "__main__":
    main()
