// Notebooks written out by tst_notebookdocument (in a header: moc reads raw strings with braces
// badly).
#pragma once

namespace {

// Keys nobody knows at every level, numbers, escapes, strings where nbformat writes lists.
const char *const kOddNotebook =
    R"({"nbformat": 4, "nbformat_minor": 5, "zeta_top": {"b": 1, "a": [2.5, 2, 1e-05, 1.25e+20, 0.1, -3.5e-7, 1e+300]},
 "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
              "Zebra": "\u0001ctl \u001f", "emoji": "\ud835\udd18 \u2028 x", "trusted": true, "aa": null},
 "cells": [
  {"id": "c1", "cell_type": "code", "source": "x = 1\r\ny = 2\rz", "metadata": {"tags": ["a"], "Custom": {"k": false}},
   "execution_count": 3, "outputs": [
     {"output_type": "stream", "name": "stdout", "text": "one\ntwo\n"},
     {"output_type": "execute_result", "execution_count": 3, "metadata": {"x": 1},
      "data": {"text/plain": "3\n4", "image/png": "iVBORw0KGgo=\n", "application/json": {"a": [1, 2]},
               "image/svg+xml": "<svg>\n</svg>"}},
     {"output_type": "error", "ename": "E", "evalue": "v", "traceback": ["\u001b[0;31mE\u001b[0m"]}]},
  {"id": "m1", "cell_type": "markdown", "source": "", "metadata": {},
   "attachments": {"a.png": {"image/png": "iVBORw0KGgo="}}},
  {"id": "r1", "cell_type": "raw", "source": ["raw\n", "text"], "metadata": {"format": "text/x-python"}}
 ]})";

// A minor version newer than Ferry knows, with a cell key of its own.
const char *const kNewerNotebook =
    R"({"nbformat": 4, "nbformat_minor": 9, "metadata": {}, "cells": [{"id": "a", "cell_type": "code",
"source": "1", "metadata": {}, "outputs": [], "execution_count": null, "new_key": 1}]})";

} // namespace
