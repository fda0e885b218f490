#!/usr/bin/env python3
"""Compares the run records of one spec run on two devices (harness/scripts/device_check.sh).

    python3 harness/scripts/compare_device_records.py CPU_RESULTS GPU_RESULTS [--json out.json]

Each folder is a `capaboost run --results` folder. Runs pair up by their key (the configuration's
hash, which the device is not part of). The records of a pair must agree exactly on the data order
(training.data_order_sha256) and on the CapaBoost masks (masks_sha256, where a run has masks); their
losses and scores are printed side by side, since the devices' arithmetic and dropout streams differ.
Exit status 1 when a pair disagrees or a run is missing on either side. Standard library only.
"""
import argparse
import json
import pathlib
import sys


def records(folder: pathlib.Path) -> dict:
    runs = {}
    for path in sorted((folder / "runs").glob("*.json")):
        record = json.loads(path.read_text())
        if record.get("status") == "ok":
            runs[record["key"]] = record
    return runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cpu", type=pathlib.Path)
    parser.add_argument("gpu", type=pathlib.Path)
    parser.add_argument("--json", type=pathlib.Path, help="also write the comparison here")
    args = parser.parse_args()
    cpu, gpu = records(args.cpu), records(args.gpu)
    problems, pairs = [], []
    for key in sorted(set(cpu) | set(gpu)):
        if key not in cpu or key not in gpu:
            problems.append(f"run {key[:12]} finished only on the {'GPU' if key in gpu else 'CPU'}")
            continue
        a, b = cpu[key], gpu[key]
        pair = {"label": a["label"], "key": key}
        for field, read in (("data_order_sha256", lambda r: r["details"]["training"].get("data_order_sha256")),
                            ("masks_sha256", lambda r: r["details"].get("masks_sha256"))):
            pair[field] = {"cpu": read(a), "gpu": read(b)}
            if read(a) != read(b):
                problems.append(f"{a['label']}: {field} differs (cpu {read(a)}, gpu {read(b)})")
        if not pair["data_order_sha256"]["cpu"]:
            problems.append(f"{a['label']}: the record has no data_order_sha256 (built before it was recorded?)")
        pair["train_loss"] = {side: [e["train_loss"] for e in r["details"]["training"]["epochs"]]
                              for side, r in (("cpu", a), ("gpu", b))}
        pair["test_score"] = {"cpu": a["metrics"]["test_score"], "gpu": b["metrics"]["test_score"]}
        pair["wall_seconds"] = {"cpu": a["metrics"]["wall_seconds"], "gpu": b["metrics"]["wall_seconds"]}
        pairs.append(pair)
    for pair in pairs:
        masks = pair["masks_sha256"]["cpu"]
        print(f"{pair['label']}: data order {'same' if len(set(pair['data_order_sha256'].values())) == 1 else 'DIFFERENT'}"
              f" ({pair['data_order_sha256']['cpu'][:12]}), masks "
              f"{'none' if masks is None else ('same' if len(set(pair['masks_sha256'].values())) == 1 else 'DIFFERENT')}"
              f"{'' if masks is None else ' (' + masks[:12] + ')'}")
        print(f"  train loss per epoch  cpu {pair['train_loss']['cpu']}  gpu {pair['train_loss']['gpu']}")
        print(f"  test score            cpu {pair['test_score']['cpu']:.4f}  gpu {pair['test_score']['gpu']:.4f}")
        print(f"  wall seconds          cpu {pair['wall_seconds']['cpu']:.1f}  gpu {pair['wall_seconds']['gpu']:.1f}")
    for problem in problems:
        print("MISMATCH:", problem)
    if not pairs:
        problems.append("no run finished on both devices")
        print("MISMATCH: no run finished on both devices")
    if args.json:
        args.json.write_text(json.dumps({"pairs": pairs, "problems": problems}, indent=1))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
