"""S2's floor in-process: what the framework's API costs at the least, beside ours and the twin.

``python -m benchmarks.floor [--rounds N]`` times, in one process and interleaved, three
WSGI callables answering S2 (``GET /users/42?fields=a&fields=b``): ours
(``benchmarks/contenders/ours.py``), the hand-written twin
(``benchmarks/contenders/handwritten.py``) and the floor (``benchmarks/contenders/floor.py``:
the twin's routing, then what the API asks of any implementation, written out by hand).

The floor over the twin is the price of the API itself (a request and a reply, a query
dict with every key); ours over the floor is what the framework could still save. Ratios
are medians of per-round ratios, as in the in-process runner. Over HTTP, the floor is a
contender of the HTTP runner (``--contenders ours,handwritten,floor --scenarios S2``).
"""
from __future__ import annotations

import argparse
import statistics
from typing import Any

from benchmarks import contenders, inprocess
from benchmarks import scenarios as sc


def measure(rounds: int = 15, calls: int = 20_000) -> dict[str, Any]:
    """Per-call microseconds of each callable (median over rounds) and the medians of the
    per-round ratios to the twin."""
    apps = {"ours": contenders.load("ours").create_app(), "floor": contenders.load("floor").create_app(),
            "twin": contenders.load("handwritten").create_app()}
    for name, app in apps.items():
        reason = inprocess.check(app, sc.S2)
        if reason is not None:
            raise AssertionError(f"{name} answers S2 wrong: {reason}")
    environ, body = inprocess.make_environ(sc.S2)
    per_round: dict[str, list[float]] = {name: [] for name in apps}
    for _ in range(rounds):
        for name, app in apps.items():
            per_round[name].append(inprocess._timer(app, environ, body, calls) / calls * 1e6)
    return {
        "us": {name: statistics.median(times) for name, times in per_round.items()},
        "twin_over": {name: statistics.median(t / o for t, o in zip(per_round["twin"], times))
                      for name, times in per_round.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=20_000)
    args = parser.parse_args()
    result = measure(args.rounds, args.calls)
    print(f"S2 {sc.S2.title}: {args.rounds} rounds of {args.calls:,} calls")
    for name in ("twin", "floor", "ours"):
        print(f"  {name:6s} {result['us'][name]:6.3f} us/call   twin/{name} {result['twin_over'][name]:.2f}x")


if __name__ == "__main__":
    main()
