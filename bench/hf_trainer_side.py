#!/usr/bin/env python3
"""Child half of bench/hf_compare.py: ONE Hugging Face Trainer + PEFT LoRA fine-tuning, timed.

Run by hf_compare.py in its own process (so that its peak RSS is its own) with the oracle venv's
python (.venv/bin/python: Debian's torch 1.13, transformers 4.47.1, peft 0.21.2):

    .venv/bin/python bench/hf_trainer_side.py CONFIG.json RESULT.json

CONFIG.json (written by hf_compare.py) names the model directory, the task, the GLUE data root and
every training setting; RESULT.json receives per-epoch wall times (training only, and with the
evaluation), per-epoch dev metrics, the best epoch as the suite chooses it, the process's peak RSS and,
when asked, a torch.profiler table of one epoch.

What it does, setting by setting, so that it matches the suite's `finetune` measure:
- data: GLUE TSV read as the suite reads it (tab-split, no quoting, header by name, BOM stripped);
  train_limit keeps the first N of torch.randperm(n_train, generator seeded split_seed) (the suite's
  lib/data/eval_protocol.cpp: a uniform sample, the same permutation algorithm); eval = the whole dev
  file (the suite's `adalora` protocol: eval = test = dev).
- tokenization: tokenizer(a, b, truncation=True (longest_first), max_length); dynamic padding to the
  longest sequence of each batch (DataCollatorWithPadding), train and eval.
- model: from_pretrained when the directory holds weights (minilm); otherwise from_config with the
  run seed (roberta-base-random, tiny): a random backbone per seed, as the suite's random backbones.
- PEFT LoraConfig(SEQ_CLS, r, alpha, target_modules, lora_dropout, bias="none"): Kaiming-uniform A,
  zero B, the classifier trains (modules_to_save; BERT's pooler too, as the suite's head), everything
  else frozen.
- training order: by default the suite's own epoch orders (a Sampler yielding them; config order=suite),
  so both sides see the same batches; order=hf keeps the Trainer's RandomSampler.
- Trainer: AdamW (torch, betas 0.9/0.999, eps 1e-8), weight decay on every trainable parameter whose
  name has no "bias" and is not a LayerNorm's (the suite: names ending in "bias" and LayerNorm
  parameters), linear warm-up of ceil(ratio x steps) then linear decay to 0, max_grad_norm, eval every
  epoch with batch 64, no checkpoints, dataloader workers 0.
"""
import json
import math
import os
import resource
import sys
import time


def read_glue(path, task):
    """(text_a, text_b, label) rows of one GLUE TSV, as lib/data/glue_loader.cpp reads them."""
    columns = {
        "RTE": ("sentence1", "sentence2", "label", {"entailment": 0, "not_entailment": 1}),
        "MRPC": ("#1 String", "#2 String", "Quality", {"0": 0, "1": 1}),
    }[task]
    a_col, b_col, label_col, labels = columns
    with open(path, encoding="utf-8-sig", newline="") as f:
        lines = f.read().split("\n")
    header = lines[0].rstrip("\r").split("\t")
    ia, ib, il = header.index(a_col), header.index(b_col), header.index(label_col)
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        line = line.rstrip("\r")
        if not line:
            continue
        cells = line.split("\t")
        if len(cells) != len(header):
            raise SystemExit(f"{path}:{number}: {len(cells)} columns, header has {len(header)}")
        rows.append((cells[ia], cells[ib], labels[cells[il]]))
    return rows


def scores(task, predictions, labels):
    """The suite's metrics (fractions) and its selection score: accuracy (RTE); accuracy, F1 of class 1
    and their mean (MRPC)."""
    n = len(labels)
    correct = sum(int(p == y) for p, y in zip(predictions, labels))
    metrics = {"accuracy": correct / n}
    if task == "MRPC":
        tp = sum(int(p == 1 and y == 1) for p, y in zip(predictions, labels))
        fp = sum(int(p == 1 and y == 0) for p, y in zip(predictions, labels))
        fn = sum(int(p == 0 and y == 1) for p, y in zip(predictions, labels))
        metrics["f1"] = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn > 0 else 0.0
        metrics["selection"] = (metrics["accuracy"] + metrics["f1"]) / 2
    else:
        metrics["selection"] = metrics["accuracy"]
    return metrics


MASK64 = (1 << 64) - 1


def splitmix64(z):
    """lib/util/seed_mixer.h's splitmix64 on unsigned 64-bit integers."""
    z = (z + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def suite_epoch_order(torch, n, seed, epoch):
    """The suite's training order of `epoch` (0-based; lib/data/batching.cpp epoch_order): torch.randperm(n)
    from a generator seeded with derive_seed(seed, epoch) = splitmix64(splitmix64(seed) ^ epoch), mod 2^32."""
    derived = splitmix64(splitmix64(seed & MASK64) ^ epoch)
    return torch.randperm(n, generator=torch.Generator().manual_seed(derived & 0xFFFFFFFF)).tolist()


def make_suite_sampler(torch, n, seed):
    class SuiteOrderSampler(torch.utils.data.Sampler):
        """Yields the suite's epoch orders, epoch k on the k-th pass (the Trainer makes one pass per epoch)."""

        def __init__(self):
            self.passes = 0

        def __iter__(self):
            order = suite_epoch_order(torch, n, seed, self.passes)
            self.passes += 1
            return iter(order)

        def __len__(self):
            return n

    return SuiteOrderSampler()


def openblas_corename():
    import ctypes
    for name in ("libblas.so.3", "libopenblas.so.0"):
        try:
            function = ctypes.CDLL(name).openblas_get_corename
            function.restype = ctypes.c_char_p
            return function().decode()
        except (OSError, AttributeError):
            continue
    return ""


def main():
    config_path, result_path = sys.argv[1], sys.argv[2]
    with open(config_path) as f:
        cfg = json.load(f)
    started = time.perf_counter()

    import torch

    torch.set_num_threads(cfg["threads"])
    import numpy as np
    import transformers
    from peft import LoraConfig, TaskType, get_peft_model
    from transformers import (AutoConfig, AutoModelForSequenceClassification, AutoTokenizer,
                              DataCollatorWithPadding, Trainer, TrainerCallback, TrainingArguments)

    transformers.logging.set_verbosity_error()
    task, seed = cfg["task"], cfg["seed"]

    # --- data -------------------------------------------------------------------------------------
    data_dir = os.path.join(cfg["data_root"], task)
    train_rows = read_glue(os.path.join(data_dir, "train.tsv"), task)
    dev_rows = read_glue(os.path.join(data_dir, "dev.tsv"), task)
    limit = cfg.get("train_limit", 0)
    if limit and limit < len(train_rows):
        order = torch.randperm(len(train_rows), generator=torch.Generator().manual_seed(cfg["split_seed"]))
        train_rows = [train_rows[i] for i in order[:limit].tolist()]

    tokenizer = AutoTokenizer.from_pretrained(cfg["model_dir"])

    def encode(rows):
        out = []
        for a, b, label in rows:
            item = dict(tokenizer(a, b, truncation=True, max_length=cfg["max_length"]))
            item["labels"] = label
            out.append(item)
        return out

    train_set, dev_set = encode(train_rows), encode(dev_rows)
    # The suite's own test values (tests/lib/data/batching_test.cpp): this is its order, bit for bit.
    assert suite_epoch_order(torch, 10, 42, 0) == [4, 1, 2, 0, 9, 6, 3, 8, 7, 5]
    assert suite_epoch_order(torch, 10, 42, 1) == [7, 1, 5, 8, 2, 6, 4, 3, 9, 0]
    dev_labels = [label for _, _, label in dev_rows]

    # --- model ------------------------------------------------------------------------------------
    transformers.set_seed(seed)
    has_weights = any(os.path.exists(os.path.join(cfg["model_dir"], name))
                      for name in ("model.safetensors", "pytorch_model.bin"))
    if has_weights:
        model = AutoModelForSequenceClassification.from_pretrained(cfg["model_dir"], num_labels=2)
    else:
        model = AutoModelForSequenceClassification.from_config(
            AutoConfig.from_pretrained(cfg["model_dir"], num_labels=2))
    # The head trains as the suite's does: PEFT's SEQ_CLS saves "classifier" (RoBERTa's dense -> tanh ->
    # out_proj head) and BERT's pooler too, which is BERT's head layer on [CLS] (lib/models/
    # bert_for_sequence_classification.h says why).
    head = ["classifier", "pooler"] if model.config.model_type == "bert" else ["classifier"]
    lora = LoraConfig(task_type=TaskType.SEQ_CLS, r=cfg["rank"], lora_alpha=cfg["alpha"],
                      target_modules=cfg["targets"], lora_dropout=cfg["lora_dropout"], bias="none",
                      modules_to_save=head)
    model = get_peft_model(model, lora)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    total = sum(p.numel() for p in model.parameters())

    # --- timing and profiling ---------------------------------------------------------------------
    epochs = []
    profile_epoch = cfg.get("profile_epoch", 0)  # 1-based; 0: no profiling
    profile_text = {}

    class Timer(TrainerCallback):
        def __init__(self):
            self.profiler = None

        def on_epoch_begin(self, args, state, control, **kwargs):
            epochs.append({"epoch": len(epochs) + 1})
            if len(epochs) == profile_epoch:
                self.profiler = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU])
                self.profiler.__enter__()
            epochs[-1]["_start"] = time.perf_counter()

        def on_epoch_end(self, args, state, control, **kwargs):
            epochs[-1]["train_seconds"] = time.perf_counter() - epochs[-1]["_start"]
            if self.profiler is not None:
                self.profiler.__exit__(None, None, None)
                averages = self.profiler.key_averages()
                profile_text["table"] = averages.table(sort_by="self_cpu_time_total", row_limit=cfg.get("profile_rows", 25))
                total_self = sum(e.self_cpu_time_total for e in averages)
                profile_text["top"] = [
                    {"op": e.key, "self_cpu_ms": e.self_cpu_time_total / 1000.0, "calls": e.count,
                     "self_cpu_percent": 100.0 * e.self_cpu_time_total / total_self if total_self else 0.0}
                    for e in sorted(averages, key=lambda e: -e.self_cpu_time_total)[:cfg.get("profile_rows", 25)]
                ]
                self.profiler = None
                epochs[-1]["profiled"] = True

        def on_log(self, args, state, control, logs=None, **kwargs):
            if logs and "loss" in logs and epochs:
                epochs[-1]["train_loss"] = logs["loss"]

        def on_evaluate(self, args, state, control, metrics=None, **kwargs):
            epochs[-1]["seconds"] = time.perf_counter() - epochs[-1].pop("_start")
            epochs[-1]["eval"] = {k[len("eval_"):]: v for k, v in (metrics or {}).items()
                                  if k in ("eval_accuracy", "eval_f1", "eval_selection")}

    def compute_metrics(prediction):
        predictions = np.argmax(prediction.predictions, axis=-1).tolist()
        return scores(task, predictions, prediction.label_ids.tolist())

    out_dir = cfg["output_dir"]
    args = TrainingArguments(
        output_dir=out_dir,
        per_device_train_batch_size=cfg["batch_size"],
        per_device_eval_batch_size=cfg["eval_batch_size"],
        num_train_epochs=cfg["epochs"],
        learning_rate=cfg["lr"],
        weight_decay=cfg["weight_decay"],
        adam_beta1=0.9, adam_beta2=0.999, adam_epsilon=1e-8,
        optim="adamw_torch",
        lr_scheduler_type="linear",
        warmup_ratio=cfg["warmup_ratio"],
        max_grad_norm=cfg["grad_clip"] if cfg["grad_clip"] > 0 else 0.0,
        eval_strategy="epoch",
        logging_strategy="epoch",
        save_strategy="no",
        report_to="none",
        use_cpu=True,
        seed=seed,
        dataloader_num_workers=0,
        dataloader_pin_memory=False,
        disable_tqdm=True,
        label_names=["labels"],
    )
    samplers = []

    class OrderedTrainer(Trainer):
        def _get_train_sampler(self):
            samplers.append(make_suite_sampler(torch, len(self.train_dataset), seed))
            return samplers[-1]

    trainer_class = OrderedTrainer if cfg.get("order", "suite") == "suite" else Trainer
    trainer = trainer_class(model=model, args=args, train_dataset=train_set, eval_dataset=dev_set,
                      data_collator=DataCollatorWithPadding(tokenizer), processing_class=tokenizer,
                      compute_metrics=compute_metrics, callbacks=[Timer()])
    # The optimizer's groups, to check the weight-decay split against the suite's.
    trainer.create_optimizer()
    groups = [{"weight_decay": g["weight_decay"], "tensors": len(g["params"]),
               "entries": sum(p.numel() for p in g["params"])} for g in trainer.optimizer.param_groups]
    decay_names = [n for n in trainer.get_decay_parameter_names(model)]
    no_decay_trainable = sorted(n for n, p in model.named_parameters() if p.requires_grad and n not in decay_names)
    train_started = time.perf_counter()
    trainer.train()
    train_wall = time.perf_counter() - train_started

    # The suite's best epoch: highest selection score on eval, the earliest on ties.
    best = None
    for e in epochs:
        if "eval" in e and (best is None or e["eval"]["selection"] > best["eval"]["selection"]):
            best = e
    steps_per_epoch = math.ceil(len(train_set) / cfg["batch_size"])
    result = {
        "system": "theirs",
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__,
                     "peft": __import__("peft").__version__, "accelerate": __import__("accelerate").__version__},
        "threads": torch.get_num_threads(),
        "order": cfg.get("order", "suite"),
        "sampler_passes": [sampler.passes for sampler in samplers],
        "blas_kernel": openblas_corename(),
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", ""),
        "train_examples": len(train_set),
        "dev_examples": len(dev_set),
        "steps": trainer.state.global_step,
        "steps_per_epoch": steps_per_epoch,
        "warmup_steps": args.get_warmup_steps(steps_per_epoch * cfg["epochs"]),
        "trainable": trainable,
        "total_parameters": total,
        "optimizer_groups": groups,
        "no_decay_trainable": no_decay_trainable,
        "epochs": epochs,
        "best_epoch": best["epoch"] if best else 0,
        "best": best["eval"] if best else {},
        "last": epochs[-1].get("eval", {}) if epochs else {},
        "train_call_seconds": train_wall,
        "process_seconds": time.perf_counter() - started,
        "self_maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        "dev_label_balance": sum(dev_labels) / len(dev_labels),
    }
    if profile_text:
        result["profile"] = profile_text
    with open(result_path, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
