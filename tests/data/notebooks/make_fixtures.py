#!/usr/bin/python3
"""Writes the notebook fixtures of tests/notebook (run once; the .ipynb files are committed).

Each notebook is checked against nbformat's own schema before it is written.
"""
import json

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell

PY = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
      "language_info": {"name": "python", "version": "3.11.2", "mimetype": "text/x-python",
                        "file_extension": ".py"}}


def save(nb, name, as_strings=False, minor=5):
    d = json.loads(nbformat.writes(nb))
    d["nbformat_minor"] = minor
    for c in d["cells"]:
        if minor < 5:
            c.pop("id", None)  # cell ids arrived with nbformat 4.5
        if as_strings and isinstance(c["source"], list):
            c["source"] = "".join(c["source"])
    nbformat.validate(nbformat.reads(json.dumps(d), as_version=nbformat.NO_CONVERT))
    with open(name, "w") as f:
        json.dump(d, f, indent=1, ensure_ascii=False)
        f.write("\n")


# A small regression notebook that runs with the standard library only.
nb = new_notebook(metadata=PY)
nb.cells = [
    new_markdown_cell("# Linear regression with SGD\n\nFits `y = 3x + 2` on noisy data. "
                      "The constants below are the knobs."),
    new_code_cell("import json\nimport math\nimport os\nimport random\n%matplotlib inline", execution_count=1),
    new_code_cell("# Hyperparameters\nlr = 0.05\nepochs = 20\nbatch_size = 16\nseed: int = 7\n"
                  "optimizer = \"sgd\"  # only plain SGD here\nverbose = True\nnoise = 1e-1\nn_samples = 256",
                  execution_count=2),
    new_code_cell("!pip install --quiet numpy", execution_count=3,
                  outputs=[new_output("stream", name="stdout", text="Requirement already satisfied: numpy\n")]),
    new_markdown_cell("## Data"),
    new_code_cell("random.seed(seed)\nxs = [random.uniform(-1, 1) for _ in range(n_samples)]\n"
                  "ys = [3 * x + 2 + random.gauss(0, noise) for x in xs]\nprint(f\"{len(xs)} samples\")",
                  execution_count=4),
    new_code_cell("w, b = 0.0, 0.0\nstep = 0\nfor epoch in range(epochs):\n    order = list(range(n_samples))\n"
                  "    random.shuffle(order)\n    for start in range(0, n_samples, batch_size):\n"
                  "        batch = order[start:start + batch_size]\n"
                  "        gw = sum(2 * (w * xs[i] + b - ys[i]) * xs[i] for i in batch) / len(batch)\n"
                  "        gb = sum(2 * (w * xs[i] + b - ys[i]) for i in batch) / len(batch)\n"
                  "        w -= lr * gw\n        b -= lr * gb\n        step += 1\n"
                  "    loss = sum((w * x + b - y) ** 2 for x, y in zip(xs, ys)) / n_samples\n"
                  "    if verbose:\n        print(json.dumps({\"epoch\": epoch, \"loss\": loss}))",
                  execution_count=5),
    new_code_cell("%%time\nprint(f\"w={w:.3f} b={b:.3f}\")", execution_count=6),
    new_code_cell("model_path = os.path.join(model_dir if \"model_dir\" in globals() else \".\", \"model.json\")\n"
                  "with open(model_path, \"w\") as f:\n"
                  "    json.dump({\"w\": w, \"b\": b, \"optimizer\": optimizer, \"epochs\": epochs}, f)",
                  execution_count=7),
]
save(nb, "linear_regression.ipynb")

# Sources as one string, an older minor version, a papermill parameters cell, tricky Python.
nb = new_notebook(metadata=PY)
nb.cells = [
    new_markdown_cell("Tricky syntax: strings with `#` and `%`, brackets over lines, magics in blocks."),
    new_code_cell("import os, sys\nTITLE = 'run # 1'\nlearning_rate = 3e-4"),
    new_code_cell("# Parameters (papermill)\nepochs = 5\ndropout = 0.25\nname = \"mlp\"",
                  metadata={"tags": ["parameters"]}),
    new_code_cell("doc = \"\"\"\n%not a magic inside a string\n!nor a shell escape\n\"\"\"\nsizes = [\n    64,  # hidden\n"
                  "    32,\n]\ntotal = (1 +\n         2)\nline = 'a' \\\n    + 'b'\nprint(doc, sizes, total, line)"),
    new_code_cell("for d in ['a', 'b']:\n    !echo {d}\n    print(d)\nfiles = !ls\nos.getcwd?\n%env FOO=bar"),
    new_code_cell("%%bash\necho hello from bash\nls -l"),
    new_code_cell("epochs_done = 0\nfor _ in range(epochs):\n    epochs_done += 1\n"
                  "print(epochs_done, learning_rate, TITLE)"),
    new_raw_cell("This raw cell is left as it is.\n"),
    new_code_cell(""),
]
save(nb, "tricky_syntax.ipynb", as_strings=True, minor=2)

# nbformat 4.5 with rich outputs; hyperparameters of several types, one reassigned later.
nb = new_notebook(metadata=PY)
nb.cells = [
    new_code_cell("import base64\nBATCH = 32\nhidden_units = 1_024\nuse_bn = False\n"
                  "classes = ['cat', 'dog']  # a list: no hyperparameter\nthreshold = -0.5\ncounter = 0",
                  execution_count=1,
                  outputs=[new_output("execute_result", data={"text/plain": "0"}, execution_count=1)]),
    new_code_cell("counter += 1\nprint(BATCH * hidden_units, use_bn, threshold, counter)", execution_count=2,
                  outputs=[new_output("display_data", data={
                      "image/png": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
                      "text/plain": "<Figure>"})]),
    new_markdown_cell("Done."),
]
save(nb, "rich_outputs.ipynb")


# `ferry notebook execute` against `jupyter nbconvert --execute` (tests/kernelhost/tst_notebookexecute):
# state, both streams, rich outputs, a plot, clear_output(wait=True), an updated display, a file
# read from the notebook's folder (numbers.txt), an error with cells after it.
nb = new_notebook(metadata=PY)
nb.cells = [
    new_markdown_cell("# Exploring\nState, streams, rich outputs, a plot, an error."),
    new_code_cell("x = 41\nprint(x + 1)"),
    new_code_cell("import sys\nprint('to stderr', file=sys.stderr)\nprint('to stdout')\nx * 2"),
    new_code_cell("from IPython.display import display, Markdown\ndisplay(Markdown('**bold**'))\n"
                  "display({'application/json': {'a': [1, 2]}, 'text/plain': 'a: 1, 2'}, raw=True)"),
    new_code_cell("import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.title('loss')\nplt.show()"),
    new_code_cell("from IPython.display import clear_output\nfor i in range(5):\n    clear_output(wait=True)\n"
                  "    print('step', i)\n"),
    new_code_cell("h = display('one', display_id=True)\nh.update('two')\n'done'"),
    new_code_cell("with open('numbers.txt') as f:\n    total = sum(int(line) for line in f)\ntotal"),
    new_code_cell("raise ValueError('bad value')"),
    new_code_cell("print('after the error', x)"),
]
save(nb, "explore.ipynb")

# Stops at its second cell unless errors are allowed (nbformat 4.4: no cell ids).
nb = new_notebook(metadata=PY)
nb.cells = [new_code_cell("print('first')"), new_code_cell("1 / 0"), new_code_cell("print('never')")]
save(nb, "stops.ipynb", minor=4)
