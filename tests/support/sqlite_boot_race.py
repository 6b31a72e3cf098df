"""Processes that make an SQLiteStore on one new file at the same instant, as the workers
of a server boot: ``python sqlite_boot_race.py DIR ROUNDS PROCESSES`` prints how many
failed, one line per failure. Forked here, not from pytest, whose process has threads."""
from __future__ import annotations

import multiprocessing
import os
import sys

from framework.plugins.session import SQLiteStore


def make_store(path: str, barrier: multiprocessing.synchronize.Barrier, failures: multiprocessing.Queue) -> None:
    barrier.wait(timeout=30)
    try:
        SQLiteStore(path)
    except Exception as error:  # noqa: BLE001 - the test wants whatever escaped
        failures.put(repr(error))
    else:
        failures.put(None)


def main(directory: str, rounds: int, processes: int) -> None:
    context = multiprocessing.get_context("fork")
    outcomes = []
    for round_number in range(rounds):
        path = os.path.join(directory, f"sessions-{round_number}.db")
        barrier, failures = context.Barrier(processes), context.Queue()
        workers = [context.Process(target=make_store, args=(path, barrier, failures)) for _ in range(processes)]
        for worker in workers:
            worker.start()
        outcomes += [failures.get(timeout=30) for _ in workers]
        for worker in workers:
            worker.join(timeout=30)
    failed = [outcome for outcome in outcomes if outcome is not None]
    print(len(failed))
    for outcome in failed:
        print(outcome)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
