"""Reads back what `capaboost tensorboard` and `capaboost export-mlflow` wrote, with the real tensorboard
event loader and the real MLflow client (pinned in tests/oracle/requirements.txt), and checks it against
the runs' scalars files (runs/<key>.scalars.csv: step,seconds,tag,value).

    tracking_reference.py TB_LOGDIR MLFLOW_DIR EXPERIMENT_NAME RUN_FOLDER SCALARS_CSV [RUN_FOLDER SCALARS_CSV ...]

For each run: TensorBoard must hold exactly the CSV's tags, and per tag the same steps in order with the
value as float32 (simple_value is a float); MLflow must hold one FINISHED run whose tag capaboost.key
starts the run id, whose metric history per tag has the CSV's steps and values (float64 as written, 9
significant digits). Prints one line per run; exits 1 on the first mismatch.
"""
import csv
import os
import sys
import warnings

import numpy as np

warnings.filterwarnings("ignore")
os.environ.setdefault("MLFLOW_TRACKING_URI", "")


def read_csv(path):
    series = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            series.setdefault(row["tag"], []).append((int(row["step"]), float(row["value"])))
    return series


def fail(message):
    print("MISMATCH:", message)
    sys.exit(1)


def check_tensorboard(logdir, folder, expected):
    from tensorboard.backend.event_processing import event_accumulator

    run_dir = os.path.join(logdir, folder)
    files = [f for f in os.listdir(run_dir) if "tfevents" in f]
    if len(files) != 1:
        fail(f"{run_dir}: {len(files)} event files")
    accumulator = event_accumulator.EventAccumulator(os.path.join(run_dir, files[0]), size_guidance={"scalars": 0})
    accumulator.Reload()
    tags = sorted(accumulator.Tags()["scalars"])
    if tags != sorted(expected):
        fail(f"{folder}: tensorboard tags {tags} != {sorted(expected)}")
    for tag, points in expected.items():
        events = accumulator.Scalars(tag)
        got = [(e.step, e.value) for e in events]
        want = [(step, float(np.float32(value))) for step, value in points]
        if [s for s, _ in got] != [s for s, _ in want]:
            fail(f"{folder} {tag}: steps {[s for s, _ in got][:5]}… != {[s for s, _ in want][:5]}…")
        for (step, a), (_, b) in zip(got, want):
            if not (a == b or (np.isnan(a) and np.isnan(b))):
                fail(f"{folder} {tag} step {step}: {a!r} != {b!r}")
    return sum(len(p) for p in expected.values())


def check_mlflow(store, experiment_name, folder, expected, client):
    experiment = client.get_experiment_by_name(experiment_name)
    if experiment is None:
        fail(f"no experiment {experiment_name!r} in {store}")
    key12 = folder.rsplit("-", 1)[1]
    runs = [r for r in client.search_runs([experiment.experiment_id], max_results=10000)
            if r.data.tags.get("capaboost.key", "").startswith(key12)]
    if len(runs) != 1:
        fail(f"{folder}: {len(runs)} MLflow runs with key {key12}")
    run = runs[0]
    if run.info.status != "FINISHED" or not run.data.tags["capaboost.key"].startswith(run.info.run_id):
        fail(f"{folder}: status {run.info.status}, run id {run.info.run_id}")
    for tag, points in expected.items():
        history = client.get_metric_history(run.info.run_id, tag)
        got = [(m.step, m.value) for m in history]
        if got != points and not all(a == b or (np.isnan(a[1]) and np.isnan(b[1])) for a, b in zip(got, points)):
            fail(f"{folder} {tag}: MLflow history {got[:3]}… != {points[:3]}…")
        if len(got) != len(points):
            fail(f"{folder} {tag}: {len(got)} MLflow points, {len(points)} in the CSV")
    return len(run.data.params), len(run.data.metrics)


def main():
    logdir, store, experiment_name = sys.argv[1:4]
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri="file://" + os.path.abspath(store))
    pairs = sys.argv[4:]
    for folder, csv_path in zip(pairs[0::2], pairs[1::2]):
        expected = read_csv(csv_path)
        points = check_tensorboard(logdir, folder, expected)
        params, metrics = check_mlflow(store, experiment_name, folder, expected, client)
        print(f"ok {folder}: {points} points in {len(expected)} tags; MLflow {params} params, {metrics} metrics")


if __name__ == "__main__":
    main()
