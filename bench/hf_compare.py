#!/usr/bin/env python3
"""The bar to beat: the same LoRA fine-tuning in Hugging Face Trainer + PEFT and in the suite, timed
one after the other on the same machine.

Rows (--variants; all four by default):
  hf-lora         theirs: Trainer + PEFT LoRA, rank r                        (the anchor)
  ours-lora       ours:   `capaboost run`, method lora, rank r, branches 1
  ours-capaboost  ours:   CapaBoost-LoRA, d branches, rank r, diff masks of density 0.5
  hf-lora-dr      theirs: PEFT LoRA at rank d*r (what a user would pick instead of CapaBoost)
  ours-lora-dr    ours:   LoRA at rank d*r (not run unless named)
Every row uses alpha = alpha_over_rank x its rank (2 by default: r=8, alpha=16), so that the scale
alpha/r is the same in every row (CapaBoost-LoRA applies alpha/r once to the sum of its branches).

Each run is its own child process, so its peak RSS (os.wait4's ru_maxrss) is its own:
  theirs: .venv/bin/python bench/hf_trainer_side.py (the oracle venv: Debian's torch 1.13 — the same
          torch as our LibTorch — transformers 4.47.1, peft 0.21.2, accelerate 1.1.1)
  ours:   build/harness/capaboost --threads N run SPEC --profile paper --results TMP --jobs 1, with a
          one-run spec written for it; the run record (TMP/runs/<key>.json) gives the numbers.
Runs are interleaved (for each task, for each seed, every variant) so both sides see the same machine.

Both sides: the same task (GLUE TSVs under the data root), the full dev set as the evaluation set
(the suite's `adalora` protocol: eval = test = dev; --protocol propetl is also accepted, then HF
still evaluates on the full dev set and the two are NOT like-for-like), train_limit as the suite defines
it (the first N of torch.randperm(n_train) seeded with split seed 42), batch size, epochs, peak lr,
AdamW (0.9, 0.999, 1e-8) with weight decay on matrices only, linear warm-up ceil(ratio*steps) then
linear decay, gradient clipping, max length with longest_first truncation, dynamic padding, eval batch
64 every epoch, dropout 0.1 in the backbone, lora_dropout 0, the classifier head trained, the same
thread count, and (--hf-order suite, the default) the same training order: HF's sampler yields the
suite's epoch orders, so both sides see the same batches (checked: the same examples and token counts).
What still differs: initial values and dropout masks come from each side's own random streams (same
distributions); HF's evaluation also computes the eval loss; capaboost sets OMP_WAIT_POLICY=PASSIVE for
itself (--theirs-env suite gives HF the same); capaboost measures the ranks of the updates after
training (in its process time, not in the epochs'). The reported dev metric is the best epoch's (highest selection score, earliest on ties:
accuracy for RTE, mean of accuracy and F1 for MRPC), as the suite reports it; the last epoch's is in
the JSON.

Timings per run: s/epoch training only (ours: training seconds = tokens / tokens-per-second of the
record, i.e. the sum of the epochs' training loops; theirs: on_epoch_begin .. on_epoch_end), s/epoch with
the evaluation (ours: the record's epoch seconds; theirs: on_epoch_begin .. on_evaluate), the mean
over epochs; process seconds (start-up, tokenization, model build included) in the JSON.

Examples:
  # the tiny check (seconds): 2-layer 32-wide random RoBERTa both sides
  python3 bench/hf_compare.py --tiny --tasks RTE --seeds 42 --epochs 1 --train-limit 64 --threads 1
  # the measurement
  python3 bench/hf_compare.py --model roberta-base-random --tasks RTE MRPC --seeds 42 43 44 \\
      --epochs 3 --threads 2 --out results/hf_compare_roberta.json
  # where HF's time goes
  python3 bench/hf_compare.py --tiny --profile-theirs --profile-only --tasks RTE --train-limit 64
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHILD = os.path.join(REPO, "bench", "hf_trainer_side.py")

VARIANTS = ["hf-lora", "ours-lora", "ours-capaboost", "hf-lora-dr", "ours-lora-dr"]
DEFAULT_VARIANTS = ["hf-lora", "ours-lora", "ours-capaboost", "hf-lora-dr"]
METRICS = {"RTE": ["accuracy"], "MRPC": ["f1", "accuracy"]}

# RoBERTa-base's shape as the suite's roberta_options() (lib/models/bert_config.cpp) and the suite's
# `tiny-random` backbone (lib/backbones/bert_family_backbones.cpp).
ROBERTA_BASE = dict(vocab_size=50265, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                    intermediate_size=3072, max_position_embeddings=514, type_vocab_size=1,
                    layer_norm_eps=1e-5, pad_token_id=1, bos_token_id=0, eos_token_id=2,
                    hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1, hidden_act="gelu",
                    initializer_range=0.02)
ROBERTA_TINY = dict(ROBERTA_BASE, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                    intermediate_size=64, max_position_embeddings=130)

MAKE_MODEL_DIR = r"""
import json, sys
from transformers import RobertaConfig, RobertaTokenizerFast
shape, tok_dir, out = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
RobertaConfig(**shape).save_pretrained(out)
tok = RobertaTokenizerFast(vocab_file=tok_dir + "/vocab.json", merges_file=tok_dir + "/merges.txt",
                           model_max_length=512)
tok.save_pretrained(out)
"""


def log(message):
    print(message, file=sys.stderr, flush=True)


def variant_setup(variant, args):
    """(system, label, rank, branches) of a variant."""
    r, d = args.rank, args.branches
    return {
        "hf-lora": ("theirs", f"LoRA r={r}", r, 1),
        "ours-lora": ("ours", f"LoRA r={r}", r, 1),
        "ours-capaboost": ("ours", f"CapaBoost-LoRA d={d} r={r}", r, d),
        "hf-lora-dr": ("theirs", f"LoRA r={d * r}", d * r, 1),
        "ours-lora-dr": ("ours", f"LoRA r={d * r}", d * r, 1),
    }[variant]


def run_child(command, env, log_path, timeout=None):
    """Runs `command`, output to log_path; returns (returncode, seconds, maxrss MiB of that child)."""
    start = time.perf_counter()
    with open(log_path, "w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=REPO)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status
    return process.returncode, time.perf_counter() - start, usage.ru_maxrss / 1024.0


def tail(path, lines=25):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""


def child_env(args, system):
    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = str(args.threads)
    env["MKL_NUM_THREADS"] = str(args.threads)
    env["CAPABOOST_DATA_DIR"] = args.data_root
    env["PYTHONUNBUFFERED"] = "1"
    if system == "theirs":
        env["TOKENIZERS_PARALLELISM"] = "false"
        env["HF_HUB_OFFLINE"] = "1"
        env["TRANSFORMERS_OFFLINE"] = "1"
        if args.theirs_env == "suite":
            # What capaboost sets for itself before it starts (lib/runtime/blas_runtime.cpp).
            env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    return env


# --------------------------------------------------------------------------------------------------
# their side

def make_hf_model_dir(args, work):
    if args.model == "minilm":
        root = os.environ.get("CAPABOOST_CHECKPOINTS") or os.path.expanduser("~/.cache/capaboost/checkpoints")
        path = os.path.join(root, "minilm")
        if not os.path.exists(os.path.join(path, "config.json")):
            raise SystemExit(f"hf_compare: no minilm checkpoint in {path}; run `make backbone-minilm`")
        return path
    shape = ROBERTA_TINY if args.tiny else ROBERTA_BASE
    out = os.path.join(work, "hf_model_tiny" if args.tiny else "hf_model_roberta_base")
    tok_dir = os.path.join(args.data_root, "tokenizers", "roberta-base")
    subprocess.run([args.python, "-c", MAKE_MODEL_DIR, json.dumps(shape), tok_dir, out], check=True,
                   env=child_env(args, "theirs"))
    return out


def run_theirs(args, work, model_dir, task, seed, variant, profile_epoch=0):
    _, label, rank, _ = variant_setup(variant, args)
    tag = f"{variant}_{task}_{seed}" + ("_profile" if profile_epoch else "")
    config = {
        "model_dir": model_dir, "data_root": args.data_root, "task": task, "seed": seed,
        "split_seed": args.split_seed, "train_limit": args.train_limit, "max_length": args.max_length,
        "rank": rank, "alpha": args.alpha_over_rank * rank, "targets": args.targets,
        "lora_dropout": 0.0, "lr": args.lr, "epochs": args.epochs if not profile_epoch else args.profile_epochs,
        "batch_size": args.batch_size, "eval_batch_size": 64, "weight_decay": args.weight_decay,
        "warmup_ratio": args.warmup_ratio, "grad_clip": args.grad_clip, "threads": args.threads,
        "output_dir": os.path.join(work, "hf_out_" + tag), "profile_epoch": profile_epoch,
        "profile_rows": args.profile_rows, "order": args.hf_order,
    }
    config_path = os.path.join(work, f"hf_{tag}.config.json")
    result_path = os.path.join(work, f"hf_{tag}.result.json")
    log_path = os.path.join(work, f"hf_{tag}.log")
    with open(config_path, "w") as f:
        json.dump(config, f, indent=1)
    code, seconds, maxrss = run_child([args.python, CHILD, config_path, result_path], child_env(args, "theirs"), log_path)
    if code != 0 or not os.path.exists(result_path):
        raise RuntimeError(f"theirs {tag} failed (exit {code}); log {log_path}:\n{tail(log_path)}")
    with open(result_path) as f:
        result = json.load(f)
    shutil.rmtree(config["output_dir"], ignore_errors=True)
    epochs = result["epochs"]
    return {
        "system": "theirs", "variant": variant, "label": label, "task": task, "seed": seed, "rank": rank,
        "best": {k: v for k, v in result["best"].items()}, "last": result["last"],
        "best_epoch": result["best_epoch"],
        "train_s_per_epoch": statistics.mean(e["train_seconds"] for e in epochs),
        "epoch_s": statistics.mean(e["seconds"] for e in epochs if "seconds" in e),
        "epochs": [{k: e.get(k) for k in ("epoch", "train_seconds", "seconds", "train_loss", "eval")} for e in epochs],
        "process_seconds": seconds, "peak_rss_mib": maxrss, "trainable": result["trainable"],
        "train_examples": result["train_examples"], "dev_examples": result["dev_examples"],
        "steps": result["steps"], "warmup_steps": result["warmup_steps"],
        "optimizer_groups": result["optimizer_groups"], "versions": result["versions"],
        "threads": result["threads"], "order": result["order"], "blas_kernel": result["blas_kernel"],
        "omp_wait_policy": result["omp_wait_policy"], "log": log_path, "profile": result.get("profile"),
    }


# --------------------------------------------------------------------------------------------------
# our side

def spec_text(args, task, seed, variant):
    _, label, rank, branches = variant_setup(variant, args)
    model = "tiny-random" if args.tiny else args.model
    lines = [
        "# written by bench/hf_compare.py: one run of the HF comparison",
        "name: hf_compare",
        f"title: HF comparison, {label} on {task}",
        "measure: finetune",
        "defaults:",
        f"  model: {model}",
        f"  task: {task}",
        f"  protocol: {args.protocol}",
        f"  split_seed: {args.split_seed}",
        "  method: lora",
        f"  targets: [{', '.join(args.targets)}]",
        f"  rank: {rank}",
        f"  alpha: {args.alpha_over_rank * rank!r}",
        "  lora_dropout: 0.0",
        "  lora_init: peft",
        f"  lr: {args.lr!r}",
        f"  epochs: {args.epochs}",
        f"  batch_size: {args.batch_size}",
        f"  max_length: {args.max_length}",
        f"  warmup_ratio: {args.warmup_ratio!r}",
        f"  weight_decay: {args.weight_decay!r}",
        f"  grad_clip: {args.grad_clip!r}",
    ]
    if args.train_limit:
        lines.append(f"  train_limit: {args.train_limit}")
    if branches > 1:
        row = f"{{label: '{label}', branches: {branches}, mask: diff, density: {args.density!r}}}"
    else:
        row = f"{{label: '{label}', branches: 1, mask: none}}"
    lines += ["rows:", f"  - {row}", f"seeds: [{seed}]", ""]
    return "\n".join(lines)


def run_ours(args, work, task, seed, variant):
    _, label, rank, _ = variant_setup(variant, args)
    tag = f"{variant}_{task}_{seed}"
    spec_path = os.path.join(work, f"ours_{tag}.yaml")
    results = os.path.join(work, f"ours_{tag}_results")
    log_path = os.path.join(work, f"ours_{tag}.log")
    shutil.rmtree(results, ignore_errors=True)
    with open(spec_path, "w") as f:
        f.write(spec_text(args, task, seed, variant))
    command = [args.capaboost, "--threads", str(args.threads), "run", spec_path, "--profile", "paper",
               "--results", results, "--jobs", "1", "--data-root", args.data_root]
    code, seconds, maxrss = run_child(command, child_env(args, "ours"), log_path)
    runs = os.path.join(results, "runs")
    records = [n for n in os.listdir(runs) if n.endswith(".json")] if os.path.isdir(runs) else []
    if code != 0 or len(records) != 1:
        raise RuntimeError(f"ours {tag} failed (exit {code}, {len(records)} records); log {log_path}:\n{tail(log_path)}")
    with open(os.path.join(runs, records[0])) as f:
        record = json.load(f)
    if record.get("status") != "ok":
        raise RuntimeError(f"ours {tag}: run recorded as {record.get('status')}: {record.get('reason')}")
    metrics, training = record["metrics"], record["details"]["training"]
    epochs = training["epochs"]
    tokens = sum(e["train_tokens"] for e in epochs)
    train_seconds = tokens / training["train_tokens_per_second"] if training["train_tokens_per_second"] else float("nan")
    best_epoch = training["best_epoch"]
    splits = record["details"].get("splits", {})
    return {
        "system": "ours", "variant": variant, "label": label, "task": task, "seed": seed, "rank": rank,
        "best": {name: metrics["test_" + name] for name in METRICS[task] if "test_" + name in metrics},
        "last": epochs[-1].get("test") or epochs[-1].get("eval"),
        "best_epoch": best_epoch,
        "train_s_per_epoch": train_seconds / len(epochs),
        "epoch_s": statistics.mean(e["seconds"] for e in epochs),
        "epochs": [{"epoch": e["epoch"], "seconds": e["seconds"], "train_tokens": e["train_tokens"],
                    "train_loss": e["train_loss"], "eval": e.get("eval")} for e in epochs],
        "process_seconds": seconds, "peak_rss_mib": maxrss, "record_peak_rss_mib": metrics.get("peak_rss_mib"),
        "trainable": metrics.get("trainable"), "train_examples": splits.get("train"),
        "dev_examples": splits.get("eval"), "steps": metrics.get("steps"),
        "train_tokens_per_second": training["train_tokens_per_second"], "run_wall_seconds": training["wall_seconds"],
        "record": os.path.join(runs, records[0]), "log": log_path,
        "provenance": {k: record.get("provenance", {}).get(k) for k in ("git_sha", "git_dirty", "threads", "libtorch", "blas_kernel", "omp_wait_policy")
                       if k in record.get("provenance", {})},
    }


# --------------------------------------------------------------------------------------------------
# summary

def mean_std(values):
    values = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if not values:
        return None, None
    return statistics.mean(values), (statistics.stdev(values) if len(values) > 1 else 0.0)


def summarize(runs, args):
    groups = {}
    for run in runs:
        groups.setdefault((run["task"], run["variant"]), []).append(run)
    rows = []
    for task in args.tasks:
        for variant in args.variants:
            group = groups.get((task, variant))
            if not group:
                continue
            row = {"system": group[0]["system"], "variant": variant, "label": group[0]["label"], "task": task,
                   "seeds": [r["seed"] for r in group]}
            for name in METRICS[task]:
                row[name] = mean_std([100.0 * r["best"][name] for r in group if name in r["best"]])
                row["last_" + name] = mean_std([100.0 * r["last"][name] for r in group if r["last"] and name in r["last"]])
            for key in ("train_s_per_epoch", "epoch_s", "peak_rss_mib", "process_seconds"):
                row[key] = mean_std([r[key] for r in group])
            row["trainable"] = group[0]["trainable"]
            rows.append(row)
    ratios = []
    by = {(r["task"], r["variant"]): r for r in rows}
    pairs = [("ours-lora", "hf-lora", "ours LoRA / HF LoRA (same rank)"),
             ("ours-capaboost", "hf-lora", "ours CapaBoost-LoRA / HF LoRA r"),
             ("ours-capaboost", "hf-lora-dr", "ours CapaBoost-LoRA / HF LoRA d*r"),
             ("ours-lora-dr", "hf-lora-dr", "ours LoRA d*r / HF LoRA d*r")]
    for task in args.tasks:
        for num, den, what in pairs:
            a, b = by.get((task, num)), by.get((task, den))
            if not a or not b:
                continue
            ratio = {"task": task, "what": what, "numerator": num, "denominator": den}
            for key in ("train_s_per_epoch", "epoch_s", "peak_rss_mib"):
                ratio[key] = a[key][0] / b[key][0] if b[key][0] else None
            metric = METRICS[task][0]
            ratio["metric_difference"] = {metric: a[metric][0] - b[metric][0]} if a[metric][0] is not None and b[metric][0] is not None else {}
            ratios.append(ratio)
    return rows, ratios


def fmt_ms(value, decimals=1):
    mean, std = value
    if mean is None:
        return "—"
    return f"{mean:.{decimals}f} ± {std:.{decimals}f}"


def markdown(rows, ratios, args):
    out = []
    model = "tiny-random (2×32 RoBERTa)" if args.tiny else args.model
    out.append(f"Model {model}; protocol {args.protocol} (dev metric at the best epoch, ×100, mean ± std over "
               f"seeds); batch {args.batch_size}, {args.epochs} epoch(s), lr {args.lr:g}, "
               f"train_limit {args.train_limit or 'all'}, {args.threads} thread(s); peak RSS of each run's process.")
    out.append("")
    out.append("| system | variant | task | dev metric | s/epoch train | s/epoch incl. eval | peak RSS MB | trainable |")
    out.append("|---|---|---|---|---:|---:|---:|---:|")
    for row in rows:
        metric = "; ".join(f"{name} {fmt_ms(row[name])}" for name in METRICS[row["task"]])
        system = "ours (capaboost)" if row["system"] == "ours" else "theirs (HF Trainer+PEFT)"
        out.append(f"| {system} | {row['label']} | {row['task']} | {metric} | {fmt_ms(row['train_s_per_epoch'], 2)} | "
                   f"{fmt_ms(row['epoch_s'], 2)} | {fmt_ms(row['peak_rss_mib'], 0)} | {row['trainable']} |")
    if ratios:
        out.append("")
        out.append("| task | ratio | s/epoch train | s/epoch incl. eval | peak RSS | Δ dev metric (points) |")
        out.append("|---|---|---:|---:|---:|---:|")
        for r in ratios:
            diff = "; ".join(f"{k} {v:+.1f}" for k, v in r["metric_difference"].items()) or "—"
            cells = [f"{r[k]:.2f}x" if r[k] is not None else "—" for k in ("train_s_per_epoch", "epoch_s", "peak_rss_mib")]
            out.append(f"| {r['task']} | {r['what']} | {cells[0]} | {cells[1]} | {cells[2]} | {diff} |")
    return "\n".join(out)


def main():
    default_capaboost = os.path.join(REPO, "build", "harness", "capaboost")
    default_python = os.path.join(REPO, ".venv", "bin", "python")
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--model", default="roberta-base-random", choices=["roberta-base-random", "minilm"])
    p.add_argument("--tiny", action="store_true",
                   help="a 2-layer 32-wide random RoBERTa (the suite's tiny-random) on both sides, for checks")
    p.add_argument("--tasks", nargs="+", default=["RTE", "MRPC"], choices=sorted(METRICS))
    p.add_argument("--seeds", nargs="+", type=int, default=[42, 43, 44])
    p.add_argument("--variants", nargs="+", default=DEFAULT_VARIANTS, choices=VARIANTS)
    p.add_argument("--ours-only", action="store_true")
    p.add_argument("--theirs-only", action="store_true")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--train-limit", type=int, default=0,
                   help="train on N examples: the first N of the split-seed permutation (the suite's train_limit)")
    p.add_argument("--threads", type=int, default=2, help="torch intra-op threads, both sides")
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--max-length", type=int, default=128)
    p.add_argument("--warmup-ratio", type=float, default=0.06)
    p.add_argument("--weight-decay", type=float, default=0.1)
    p.add_argument("--grad-clip", type=float, default=1.0)
    p.add_argument("--rank", type=int, default=8)
    p.add_argument("--alpha-over-rank", type=float, default=2.0, help="alpha = this x rank in every row (16 at r=8)")
    p.add_argument("--branches", type=int, default=2, help="CapaBoost d")
    p.add_argument("--density", type=float, default=0.5)
    p.add_argument("--targets", nargs="+", default=["query", "value"])
    p.add_argument("--protocol", default="adalora", choices=["adalora", "propetl"],
                   help="the suite's protocol; adalora = eval on the full dev set, what the HF side does")
    p.add_argument("--split-seed", type=int, default=42)
    p.add_argument("--theirs-env", default="user", choices=["user", "suite"],
                   help="user: HF runs in the environment as given; suite: with OMP_WAIT_POLICY=PASSIVE, "
                        "which capaboost sets for itself")
    p.add_argument("--hf-order", default="suite", choices=["suite", "hf"],
                   help="HF's training order: suite = the suite's epoch orders (same batches both sides), "
                        "hf = the Trainer's own RandomSampler")
    p.add_argument("--profile-theirs", action="store_true",
                   help="also run one HF epoch (first task and seed, LoRA r) under torch.profiler and print the "
                        "top operators by self CPU time")
    p.add_argument("--profile-only", action="store_true", help="with --profile-theirs: skip the measurement")
    p.add_argument("--profile-epochs", type=int, default=1, help="epochs of the profiled HF run (the last is profiled)")
    p.add_argument("--profile-rows", type=int, default=25)
    p.add_argument("--out", help="write the JSON summary here")
    p.add_argument("--work-dir", help="keep configs, specs, logs and records here (default: a temp dir, removed)")
    p.add_argument("--data-root", default=os.environ.get("CAPABOOST_DATA_DIR") or os.path.join(os.path.dirname(REPO), "shared", "data"))
    p.add_argument("--capaboost", default=default_capaboost)
    p.add_argument("--python", default=default_python, help="the oracle venv's python")
    p.add_argument("--dry-run", action="store_true", help="print the runs and our specs, run nothing")
    args = p.parse_args()

    if args.ours_only and args.theirs_only:
        p.error("--ours-only and --theirs-only exclude each other")
    if args.tiny and args.model != "roberta-base-random":
        p.error("--tiny replaces roberta-base-random; leave --model out")
    if args.protocol != "adalora":
        log("hf_compare: warning: HF evaluates on the full dev set; ours under propetl scores half of it")
    args.data_root = os.path.abspath(args.data_root)
    if args.ours_only:
        args.variants = [v for v in args.variants if v.startswith("ours")]
    if args.theirs_only:
        args.variants = [v for v in args.variants if v.startswith("hf")]
    if args.profile_only and not args.profile_theirs:
        p.error("--profile-only goes with --profile-theirs")
    measure = not args.profile_only
    plan = [(task, seed, v) for task in args.tasks for seed in args.seeds for v in args.variants] if measure else []

    if args.dry_run:
        for task, seed, variant in plan:
            print(f"# {variant} {task} seed {seed}")
            if variant.startswith("ours"):
                print(spec_text(args, task, seed, variant))
        return
    needs_ours = any(v.startswith("ours") for _, _, v in plan)
    needs_theirs = any(v.startswith("hf") for _, _, v in plan) or args.profile_theirs
    if needs_ours and not os.access(args.capaboost, os.X_OK):
        raise SystemExit(f"hf_compare: {args.capaboost} is not built yet (cmake --build build --target capaboost)")
    if needs_theirs and not os.access(args.python, os.X_OK):
        raise SystemExit(f"hf_compare: {args.python} missing; `make oracle-env` makes the venv")

    work = args.work_dir or tempfile.mkdtemp(prefix="hf_compare_")
    os.makedirs(work, exist_ok=True)
    started = time.perf_counter()
    try:
        model_dir = make_hf_model_dir(args, work) if needs_theirs else None
        runs = []
        for i, (task, seed, variant) in enumerate(plan, start=1):
            log(f"[{i}/{len(plan)}] {variant} {task} seed {seed} ...")
            run = run_ours(args, work, task, seed, variant) if variant.startswith("ours") else \
                run_theirs(args, work, model_dir, task, seed, variant)
            log(f"    {run['train_s_per_epoch']:.2f} s/epoch train, {run['epoch_s']:.2f} s/epoch with eval, "
                f"peak {run['peak_rss_mib']:.0f} MiB, process {run['process_seconds']:.1f} s, best "
                + ", ".join(f"{k} {100 * v:.1f}" for k, v in run["best"].items()))
            runs.append(run)
        rows, ratios = summarize(runs, args)
        if runs:
            print(markdown(rows, ratios, args))
        profile = None
        if args.profile_theirs:
            task, seed = args.tasks[0], args.seeds[0]
            log(f"profiling one HF epoch: hf-lora {task} seed {seed} ...")
            profiled = run_theirs(args, work, model_dir, task, seed, "hf-lora", profile_epoch=args.profile_epochs)
            profile = profiled["profile"]
            print(f"\nHF Trainer + PEFT, LoRA r={args.rank}, {task}, epoch {args.profile_epochs} of "
                  f"{args.profile_epochs} under torch.profiler (CPU), top {args.profile_rows} operators by self CPU "
                  f"time (profiled epoch: {profiled['epochs'][-1]['train_seconds']:.2f} s training, with profiler "
                  f"overhead):\n")
            print(profile["table"])
        summary = {
            "settings": {k: v for k, v in vars(args).items() if k not in ("dry_run",)},
            "rows": rows, "ratios": ratios, "runs": runs, "profile_theirs": profile,
            "host": os.uname().nodename, "cores": os.cpu_count(), "total_seconds": time.perf_counter() - started,
        }
        if args.out:
            os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
            with open(args.out, "w") as f:
                json.dump(summary, f, indent=1)
            log(f"wrote {args.out}")
    finally:
        if not args.work_dir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
