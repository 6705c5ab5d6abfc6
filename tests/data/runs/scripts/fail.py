"""Fails the way SageMaker scripts report it: the reason in /opt/ml/output/failure (here
SM_OUTPUT_DIR/failure), a traceback on stderr, a non-zero exit."""
import os
import sys

message = "CUDA out of memory: tried to allocate 12.00 GiB (GPU 0; 7.79 GiB total capacity)"
with open(os.path.join(os.environ["SM_OUTPUT_DIR"], "failure"), "w") as f:
    f.write(message + "\n")
print("Traceback (most recent call last):\nRuntimeError: " + message, file=sys.stderr)
sys.exit(3)
