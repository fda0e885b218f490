#!/usr/bin/env python3
"""Total a LibTorch profiler trace (Chrome trace JSON, as the benchmarks write under
CAPABOOST_PROFILE_DIR) by op name: self time per op, so nested ops are not counted twice.

With --split (a trace of exactly one step, as the step benchmarks write), the step's wall time from its
first event to its last is divided into matrix products, other operators, and time between operators
(the autograd engine, allocation, Python-free dispatch), each in ms and as a share of the step.

Usage: profile_summary.py trace.json [top] [--split]
"""
import collections
import json
import sys


def self_times(events):
    """Self time of each complete event: its duration minus that of its direct children (same thread)."""
    by_thread = collections.defaultdict(list)
    for event in events:
        if event.get("ph") == "X":
            by_thread[event.get("tid")].append(event)
    totals = collections.Counter()
    counts = collections.Counter()
    for thread_events in by_thread.values():
        thread_events.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []  # [event, child time]
        for event in thread_events:
            while stack and stack[-1][0]["ts"] + stack[-1][0]["dur"] <= event["ts"]:
                done, children = stack.pop()
                totals[done["name"]] += done["dur"] - children
            if stack:
                stack[-1][1] += event["dur"]
            stack.append([event, 0.0])
            counts[event["name"]] += 1
        while stack:
            done, children = stack.pop()
            totals[done["name"]] += done["dur"] - children
    return totals, counts


# Operators whose self time is a matrix product: ATen's GEMMs and the suite's batched attention GEMM.
PRODUCTS = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::addmv", "aten::mv",
            "capaboost::batched_gemm"}


def split(events, totals):
    """(step ms, products ms, other operators ms, between ms) of a one-step trace."""
    complete = [e for e in events if e.get("ph") == "X"]
    step = (max(e["ts"] + e["dur"] for e in complete) - min(e["ts"] for e in complete)) / 1e3
    products = sum(micros for name, micros in totals.items() if name in PRODUCTS) / 1e3
    other = sum(micros for name, micros in totals.items() if name not in PRODUCTS) / 1e3
    return step, products, other, step - products - other


def main(path, top=25, with_split=False):
    with open(path) as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    totals, counts = self_times(events)
    whole = sum(totals.values())
    print(f"{path}: {whole / 1e3:.1f} ms of op self time, {sum(counts.values())} op calls")
    for name, micros in totals.most_common(top):
        print(f"{micros / 1e3:10.1f} ms {100 * micros / whole:5.1f}%  {counts[name]:6d}x  {name}")
    if with_split:
        step, products, other, between = split(events, totals)
        print(f"step {step:.1f} ms: products {products:.1f} ms ({100 * products / step:.1f}%), "
              f"other operators {other:.1f} ms ({100 * other / step:.1f}%), "
              f"between operators {between:.1f} ms ({100 * between / step:.1f}%)")
    return 0


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--split"]
    sys.exit(main(args[0], int(args[1]) if len(args) > 1 else 25, "--split" in sys.argv[1:]))
