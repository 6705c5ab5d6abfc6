#!/usr/bin/env python3
"""The notebook of tests/bench/notebookview.sh: CELLS cells (a third markdown, a third code cells
whose output is a 640x480 matplotlib figure, a third code cells printing a training log, a
DataFrame's HTML table or a result), the figures' PNGs about IMAGE_KB kilobytes each (a field of
smooth noise drawn with imshow, a colour bar and a curve: denser than a line plot, as an image
or a heat map is), valid nbformat 4.5 (nbformat.validate). Also writes OUT.html, the notebook as
`jupyter nbconvert --to html --template basic` makes it (the peer's page).
    make_notebook.py OUT.ipynb [CELLS] [IMAGE_KB]"""
import base64
import io
import random
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import nbformat  # noqa: E402
import numpy as np  # noqa: E402
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output  # noqa: E402

out = sys.argv[1]
cells_wanted = int(sys.argv[2]) if len(sys.argv) > 2 else 300
image_kb = int(sys.argv[3]) if len(sys.argv) > 3 else 140
rng = random.Random(36)
nrng = np.random.default_rng(36)


def figure_png(seed, noise):
    """A 640x480 PNG: a smooth random field (imshow) and a training curve."""
    g = np.random.default_rng(seed)
    field = g.standard_normal((60, 80))
    for _ in range(3):  # smoothed by a few box blurs
        field = (field + np.roll(field, 1, 0) + np.roll(field, -1, 0) + np.roll(field, 1, 1) + np.roll(field, -1, 1)) / 5
    field = np.kron(field, np.ones((4, 4))) + noise * g.standard_normal((240, 320))
    fig, (a, b) = plt.subplots(1, 2, figsize=(6.4, 4.8), dpi=100, gridspec_kw={"width_ratios": [3, 2]})
    im = a.imshow(field, cmap="viridis", interpolation="nearest")
    fig.colorbar(im, ax=a, shrink=0.6)
    a.set_title(f"activation map {seed}")
    steps = np.arange(200)
    b.plot(steps, 2.0 * np.exp(-steps / 40) + 0.05 * g.standard_normal(200) + 0.2, label="loss")
    b.plot(steps, 2.1 * np.exp(-steps / 45) + 0.07 * g.standard_normal(200) + 0.3, label="val_loss")
    b.legend()
    b.set_xlabel("step")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


def tuned_noise():
    """The noise that makes a figure about image_kb kilobytes (PNG size grows with it)."""
    low, high = 0.0, 2.0
    for _ in range(8):
        mid = (low + high) / 2
        if len(figure_png(0, mid)) < image_kb * 1024:
            low = mid
        else:
            high = mid
    return (low + high) / 2


WORDS = ("the model loss learning rate batch epoch validation accuracy gradient optimizer weights layer "
         "dataset features label training curve schedule warmup dropout regularisation").split()


def sentence(n):
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def markdown(i):
    return (f"## Step {i // 3 + 1}: {sentence(4)[:-1]}\n\n{sentence(25)} {sentence(18)}\n\n"
            f"- `{rng.choice(WORDS)}`: {sentence(8)}\n- **{rng.choice(WORDS)}**: {sentence(10)}\n"
            f"- *{rng.choice(WORDS)}*: {sentence(6)}\n\n"
            f"| parameter | value |\n| --- | --- |\n| lr | {rng.uniform(1e-4, 1e-2):.4f} |\n"
            f"| batch | {rng.choice([32, 64, 128])} |\n")


def code(i, lines):
    body = [f"# cell {i}: {sentence(6)}", "import numpy as np", f"rng = np.random.default_rng({i})"]
    for k in range(lines):
        body.append(rng.choice([
            f"x_{k} = rng.normal(size=({rng.randint(10, 500)}, {rng.randint(2, 64)}))",
            f"loss_{k} = float(np.mean((x_{max(k - 1, 0)} - {rng.random():.3f}) ** 2))",
            f"for epoch in range({rng.randint(2, 20)}):\n    lr = {rng.random():.4f} * 0.9 ** epoch",
            f"model = {{'layers': [{rng.randint(16, 512)}, {rng.randint(16, 512)}], 'dropout': {rng.random():.2f}}}",
            f"print(f'step {{epoch}}: loss={{loss_{max(k - 1, 0)}:.4f}}')  # {sentence(3)}",
        ]))
    return "\n".join(body)


def table_html(i):
    cols = ["epoch", "loss", "val_loss", "accuracy", "lr", "seconds"]
    head = "".join(f"<th>{c}</th>" for c in cols)
    rows = "".join(
        f"<tr><th>{r}</th>" + "".join(f"<td>{rng.random():.4f}</td>" for _ in cols) + "</tr>\n" for r in range(12))
    return (f'<div>\n<table border="1" class="dataframe">\n<thead><tr style="text-align: right;"><th></th>{head}'
            f"</tr></thead>\n<tbody>\n{rows}</tbody>\n</table>\n<p>12 rows × 6 columns</p>\n</div>")


noise = tuned_noise()
cells = []
count = 0
for i in range(cells_wanted):
    kind = i % 3
    if kind == 0:
        cells.append(new_markdown_cell(markdown(i)))
        continue
    count += 1
    cell = new_code_cell(code(i, rng.randint(6, 20)), execution_count=count)
    if kind == 1:
        png = base64.b64encode(figure_png(i, noise)).decode()
        cell.outputs = [new_output("display_data", data={"image/png": png,
                                                         "text/plain": "<Figure size 640x480 with 3 Axes>"},
                                   metadata={})]
    elif i % 9 == 2:
        log = "".join(f"epoch {e}: loss={2 * 0.93 ** e:.4f} val_loss={2.1 * 0.94 ** e:.4f} "
                      f"accuracy={1 - 0.9 ** e:.3f}\n" for e in range(rng.randint(20, 60)))
        cell.outputs = [new_output("stream", name="stdout", text=log)]
    elif i % 9 == 5:
        cell.outputs = [new_output("execute_result", data={"text/html": table_html(i),
                                                           "text/plain": "   epoch  loss ...\n[12 rows x 6 columns]"},
                                   metadata={}, execution_count=count)]
    else:
        cell.outputs = [new_output("execute_result", data={"text/plain": repr(nrng.normal(size=8).round(4))},
                                   metadata={}, execution_count=count)]
    cells.append(cell)

nb = new_notebook(cells=cells, metadata={
    "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
    "language_info": {"name": "python"}})
nbformat.validate(nb)
nbformat.write(nb, out)

from nbconvert import HTMLExporter  # noqa: E402

html, _ = HTMLExporter(template_name="basic").from_notebook_node(nb)
with open(out + ".html", "w", encoding="utf-8") as f:
    f.write(html)
