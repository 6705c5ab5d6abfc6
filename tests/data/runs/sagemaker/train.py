"""A training script written the way SageMaker script-mode users write it.

It runs unchanged under Ferry. It also checks, from the inside, every part of the training
contract it is given (variables, config files, folders, arguments, process group); a wrong
one is written to the failure file, as SageMaker scripts do, and the script exits 1.
"""
import argparse
import json
import os
import pickle
import sys


def parse_args():
    parser = argparse.ArgumentParser()
    # Hyperparameters arrive as command-line arguments.
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--learning-rate", type=float, default=0.1)
    parser.add_argument("--optimizer", type=str, default="sgd")
    parser.add_argument("--layers", type=json.loads, default=[8])
    parser.add_argument("--use-bias", type=lambda s: s.lower() == "true", default=False)
    # Data, model and output folders from the SageMaker variables.
    parser.add_argument("--model-dir", type=str, default=os.environ["SM_MODEL_DIR"])
    parser.add_argument("--output-data-dir", type=str, default=os.environ["SM_OUTPUT_DATA_DIR"])
    parser.add_argument("--train", type=str, default=os.environ["SM_CHANNEL_TRAINING"])
    parser.add_argument("--validation", type=str, default=os.environ["SM_CHANNEL_VALIDATION"])
    parser.add_argument("--hosts", type=json.loads, default=os.environ["SM_HOSTS"])
    parser.add_argument("--current-host", type=str, default=os.environ["SM_CURRENT_HOST"])
    parser.add_argument("--num-gpus", type=int, default=os.environ["SM_NUM_GPUS"])
    # What the test expects, passed the same way as any hyperparameter.
    parser.add_argument("--expected-run-dir", required=True)
    parser.add_argument("--expected-training", required=True)
    parser.add_argument("--expected-validation", required=True)
    return parser.parse_known_args()


def check_contract(args, problems):
    def expect(what, actual, expected):
        if actual != expected:
            problems.append(f"{what}: got {actual!r}, expected {expected!r}")

    env = os.environ
    run = args.expected_run_dir
    here = os.path.dirname(os.path.abspath(__file__))

    expect("SM_MODEL_DIR", env.get("SM_MODEL_DIR"), run + "/model")
    expect("SM_OUTPUT_DIR", env.get("SM_OUTPUT_DIR"), run + "/output")
    expect("SM_OUTPUT_DATA_DIR", env.get("SM_OUTPUT_DATA_DIR"), run + "/output/data")
    expect("SM_INPUT_DIR", env.get("SM_INPUT_DIR"), run + "/input")
    expect("SM_INPUT_CONFIG_DIR", env.get("SM_INPUT_CONFIG_DIR"), run + "/input/config")
    expect("SM_CHECKPOINT_DIR", env.get("SM_CHECKPOINT_DIR"), run + "/checkpoints")
    expect("SM_MODULE_DIR", env.get("SM_MODULE_DIR"), here)
    expect("working directory", os.getcwd(), here)
    expect("SM_CHANNELS", json.loads(env.get("SM_CHANNELS", "null")), ["training", "validation"])
    expect("SM_CHANNEL_TRAINING", env.get("SM_CHANNEL_TRAINING"), args.expected_training)
    expect("SM_CHANNEL_VALIDATION", env.get("SM_CHANNEL_VALIDATION"), args.expected_validation)

    hps = json.loads(env.get("SM_HPS", "null"))
    expect("SM_HPS", hps, {
        "epochs": 3, "learning-rate": 0.05, "optimizer": "adam", "layers": [16, 8], "use-bias": True,
        "expected-run-dir": run, "expected-training": args.expected_training,
        "expected-validation": args.expected_validation,
    })
    expect("SM_HP_EPOCHS", env.get("SM_HP_EPOCHS"), "3")
    expect("SM_HP_LEARNING-RATE", env.get("SM_HP_LEARNING-RATE"), "0.05")
    expect("SM_HP_OPTIMIZER", env.get("SM_HP_OPTIMIZER"), "adam")
    expect("SM_HP_LAYERS", env.get("SM_HP_LAYERS"), "[16, 8]")
    expect("SM_HP_USE-BIAS", env.get("SM_HP_USE-BIAS"), "true")
    expect("SM_USER_ARGS", json.loads(env.get("SM_USER_ARGS", "null")), sys.argv[1:])
    num_gpus = env.get("SM_NUM_GPUS", "")
    if not num_gpus.isdigit():
        problems.append(f"SM_NUM_GPUS: {num_gpus!r} is not a count")
    expect("SM_NUM_CPUS", env.get("SM_NUM_CPUS"), str(os.cpu_count()))
    expect("SM_CURRENT_HOST", env.get("SM_CURRENT_HOST"), "algo-1")
    expect("SM_HOSTS", json.loads(env.get("SM_HOSTS", "null")), ["algo-1"])
    expect("PYTHONUNBUFFERED", env.get("PYTHONUNBUFFERED"), "1")

    training_env = json.loads(env.get("SM_TRAINING_ENV", "{}"))
    expect("SM_TRAINING_ENV", training_env, {
        "hyperparameters": hps,
        "channel_input_dirs": {"training": args.expected_training, "validation": args.expected_validation},
        "model_dir": run + "/model",
        "output_data_dir": run + "/output/data",
        "current_host": "algo-1",
        "hosts": ["algo-1"],
        "num_gpus": int(num_gpus) if num_gpus.isdigit() else None,
        "num_cpus": os.cpu_count(),
        "user_entry_point": "train.py",
        "job_name": os.path.basename(run),
    })

    config = env.get("SM_INPUT_CONFIG_DIR", "")

    def load(name):
        try:
            with open(os.path.join(config, name)) as f:
                return json.load(f)
        except (OSError, ValueError) as e:
            problems.append(f"{name}: {e}")
            return None

    argv = sys.argv[1:]
    # SageMaker writes every hyperparameter value as a string.
    expect("hyperparameters.json", load("hyperparameters.json"),
           {argv[i][2:]: argv[i + 1] for i in range(0, len(argv), 2)})
    data_config = load("inputdataconfig.json") or {}
    expect("inputdataconfig.json channels", sorted(data_config), ["training", "validation"])
    for name, channel in data_config.items():
        expect(f"inputdataconfig.json {name}", channel.get("TrainingInputMode"), "File")
    resources = load("resourceconfig.json") or {}
    expect("resourceconfig.json current_host", resources.get("current_host"), "algo-1")
    expect("resourceconfig.json hosts", resources.get("hosts"), ["algo-1"])

    for folder in (args.model_dir, args.output_data_dir, env.get("SM_CHECKPOINT_DIR", "")):
        if not os.path.isdir(folder):
            problems.append(f"{folder}: not a folder")
    if os.path.isdir(args.model_dir) and os.listdir(args.model_dir):
        problems.append(f"{args.model_dir}: not empty at the start")
    expect("--epochs", args.epochs, 3)
    expect("--learning-rate", args.learning_rate, 0.05)
    expect("--layers", args.layers, [16, 8])
    expect("--use-bias", args.use_bias, True)
    expect("--train", args.train, args.expected_training)
    expect("--hosts", args.hosts, ["algo-1"])
    # The run is in a process group of its own (cancel stops the group), reading nothing.
    expect("process group", os.getpgid(0), os.getpid())
    expect("stdin", sys.stdin.read(), "")


def read_points(folder):
    points = []
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name)) as f:
            for line in f:
                if line.strip() and not line.startswith("x"):
                    x, y = line.split(",")
                    points.append((float(x), float(y)))
    return points


def main():
    args, _ = parse_args()
    problems = []
    check_contract(args, problems)
    if problems:
        message = "contract broken:\n" + "\n".join(problems)
        print(message, file=sys.stderr)
        with open(os.path.join(os.environ["SM_OUTPUT_DIR"], "failure"), "w") as f:
            f.write(message)
        sys.exit(1)

    train = read_points(args.train)
    validation = read_points(args.validation)
    w = 0.0
    for epoch in range(1, args.epochs + 1):
        for x, y in train:
            w -= args.learning_rate * 2 * (w * x - y) * x
        loss = sum((w * x - y) ** 2 for x, y in validation) / len(validation)
        print(f"epoch={epoch} loss={loss:.6f} w={w:.4f}")
        with open(os.path.join(os.environ["SM_CHECKPOINT_DIR"], "last.ckpt"), "wb") as f:
            pickle.dump({"epoch": epoch, "w": w}, f)

    with open(os.path.join(args.model_dir, "model.pth"), "wb") as f:
        pickle.dump({"w": w, "layers": args.layers}, f)
    with open(os.path.join(args.output_data_dir, "metrics.json"), "w") as f:
        json.dump({"loss": loss}, f)


if __name__ == "__main__":
    main()
