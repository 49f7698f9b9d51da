"""Each test's CPU time, for finding what makes the suite slow (docs/contributing.md).

With MASTHEAD_TEST_CPU=DIR set, every test process appends a line per test to DIR/WORKER.tsv:
the test's id, the CPU seconds of the test process itself (user + system, setup to teardown),
those of the child processes it reaped in that time (`masthead serve`, Litestream, pip…) and
the wall seconds, and whether it is marked `slow`. `python3 tests/support/cpu.py DIR` prints the
costliest tests and modules, and the tests of the everyday loop over `SLOW_CPU` seconds of CPU
(to mark `slow`, docs/contributing.md).
Chromium is a child of Playwright's driver, reaped when the session ends: browser tests show
only their own process's share, and a worker's whole browser is charged to its last test (its
teardown ends the session). Read a browser module's cost by running it alone under
`/usr/bin/time`.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

ENV = "MASTHEAD_TEST_CPU"
SLOW_CPU = 1.5  # seconds of CPU (its processes included) from which a test is marked `slow`


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


class Recorder:
    """A pytest plugin: measures each test's whole protocol (setup, call, teardown)."""

    def __init__(self, folder: Path, worker: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.out = (folder / f"{worker}.tsv").open("a", encoding="utf-8")

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[object]:
        own, children = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
        wall = time.monotonic()
        try:
            return (yield)
        finally:
            own = _cpu(resource.RUSAGE_SELF) - own
            children = _cpu(resource.RUSAGE_CHILDREN) - children
            wall = time.monotonic() - wall
            slow = "slow" if item.get_closest_marker("slow") else ""
            self.out.write(f"{item.nodeid}\t{own:.3f}\t{children:.3f}\t{wall:.3f}\t{slow}\n")
            self.out.flush()


def report(folder: Path, top: int = 40) -> None:
    tests: list[tuple[float, float, float, str]] = []
    unmarked: list[tuple[float, str]] = []  # over SLOW_CPU, not marked slow
    modules: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for path in sorted(folder.glob("*.tsv")):
        for line in path.read_text(encoding="utf-8").splitlines():
            nodeid, own, children, wall, *marked = line.split("\t")
            row = (float(own), float(children), float(wall))
            tests.append((row[0] + row[1], row[1], row[2], nodeid))
            if row[0] + row[1] > SLOW_CPU and marked != ["slow"]:
                unmarked.append((row[0] + row[1], nodeid))
            totals = modules[nodeid.split("::")[0]]
            for i, value in enumerate(row):
                totals[i] += value
    own_all = sum(t[0] - t[1] for t in tests)
    children_all = sum(t[1] for t in tests)
    print(f"{len(tests)} tests: {own_all:.0f} s CPU in the test processes,", end=" ")
    print(f"{children_all:.0f} s in their children")
    print(f"\n{'CPU s':>8} {'children':>9} {'wall s':>8}  test")
    for cpu, children, wall, nodeid in sorted(tests, reverse=True)[:top]:
        print(f"{cpu:8.1f} {children:9.1f} {wall:8.1f}  {nodeid}")
    print(f"\n{'CPU s':>8} {'children':>9} {'wall s':>8}  module")
    ranked = sorted(modules.items(), key=lambda kv: -(kv[1][0] + kv[1][1]))
    for module, (own, children, wall) in ranked[:top]:
        print(f"{own + children:8.1f} {children:9.1f} {wall:8.1f}  {module}")
    print(f"\ntests over {SLOW_CPU} s of CPU not marked slow (in the everyday loop):", end=" ")
    print("none" if not unmarked else "")
    for cpu, nodeid in sorted(unmarked, reverse=True):
        print(f"{cpu:8.1f}  {nodeid}")


if __name__ == "__main__":
    report(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 40)


def register(config: pytest.Config) -> None:
    """Called by conftest.py: records only when MASTHEAD_TEST_CPU names a folder."""
    folder = os.environ.get(ENV)
    if folder:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        config.pluginmanager.register(Recorder(Path(folder), worker), "masthead-test-cpu")
