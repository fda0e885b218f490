#!/usr/bin/env python3
"""Total a LibTorch profiler trace (Chrome trace JSON, as the benchmarks write under
CAPABOOST_PROFILE_DIR) by op name: self time per op, so nested ops are not counted twice.

Usage: profile_summary.py trace.json [top]
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


def main(path, top=25):
    with open(path) as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    totals, counts = self_times(events)
    whole = sum(totals.values())
    print(f"{path}: {whole / 1e3:.1f} ms of op self time")
    for name, micros in totals.most_common(top):
        print(f"{micros / 1e3:10.1f} ms {100 * micros / whole:5.1f}%  {counts[name]:6d}x  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 25))
