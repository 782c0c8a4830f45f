#!/usr/bin/env python3
"""GrowthBook's own Python SDK as a reference for Wellflow's assignments.

  reference.py assign < request.json   # {"experiments": [...], "users": [{attributes}, ...]}
      prints {"assignments": [[[variationId, inExperiment, hashUsed], ...per user], ...per experiment]}
  reference.py bench CALLS REPETITIONS # assignments/s of GrowthBook.run with a condition,
      one line per repetition (M/s), on the same experiment and users as wellflow-bench's figure 7

Needs `pip install growthbook` (tested with 4.0.0).
"""
import json
import sys
import time

try:
    from growthbook import Experiment, GrowthBook
except ImportError:
    print("the growthbook package is not installed: pip install growthbook", file=sys.stderr)
    sys.exit(3)

EXPERIMENT_FIELDS = {
    "key", "variations", "weights", "coverage", "condition", "hashAttribute", "hashVersion", "seed", "namespace",
}


def experiment(definition):
    unknown = set(definition) - EXPERIMENT_FIELDS
    if unknown:
        raise SystemExit(f"unsupported experiment fields: {sorted(unknown)}")
    fields = dict(definition)
    if "namespace" in fields:
        fields["namespace"] = tuple(fields["namespace"])
    return Experiment(**fields)


def assign(request):
    experiments = [experiment(d) for d in request["experiments"]]
    gb = GrowthBook()
    out = []
    for exp in experiments:
        rows = []
        for attributes in request["users"]:
            gb.set_attributes(attributes)
            result = gb.run(exp)
            rows.append([result.variationId, result.inExperiment, result.hashUsed])
        out.append(rows)
    gb.destroy()
    return {"assignments": out}


SKILLS = ["beginner", "intermediate", "advanced"]


def bench(calls, repetitions):
    exp = Experiment(
        key="checkin-length-targeted",
        variations=["full", "quick"],
        weights=[0.5, 0.5],
        condition={"skill": {"$in": ["beginner", "intermediate"]}, "daysSinceFirstLaunch": {"$gte": 1}},
    )
    users = [
        {"id": f"user-{i + 1}", "skill": SKILLS[i % 3], "daysSinceFirstLaunch": i % 30} for i in range(10_000)
    ]
    gb = GrowthBook()
    for _ in range(repetitions):
        start = time.perf_counter()
        for call in range(calls):
            gb.set_attributes(users[call % 10_000])
            gb.run(exp)
        print(calls / (time.perf_counter() - start) / 1e6, flush=True)
    gb.destroy()


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "assign":
        json.dump(assign(json.load(sys.stdin)), sys.stdout)
    elif len(sys.argv) == 4 and sys.argv[1] == "bench":
        bench(int(sys.argv[2]), int(sys.argv[3]))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
