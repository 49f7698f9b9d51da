"""Waiting for a condition, never for a fixed time.

A test on a busy machine (two cores, other suites, `stress-ng`) may be slow anywhere: a server's
start-up, a worker's restart, a browser's frame. `until` polls a predicate until it holds; its
ceiling only ends a hang (a server that never comes up) and says what was awaited. No test
asserts that something took less than a number of seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

CEILING = 120.0  # seconds: only a hang takes this long, on any machine


class Timeout(AssertionError):
    """The condition never held: what was awaited, and the last error seen while polling."""


def until(
    predicate: Callable[[], T],
    *,
    timeout: float = CEILING,
    what: str = "the condition",
    interval: float = 0.02,
    retry: type[BaseException] | tuple[type[BaseException], ...] = (),
) -> T:
    """Call `predicate` until it returns a true value, and return that value. An exception of a
    type in `retry` (a connection refused or reset while a server starts or restarts) counts as
    "not yet". After `timeout` seconds, fail with `what` and the last such exception."""
    deadline = time.monotonic() + timeout
    last: BaseException | None = None
    while True:
        try:
            value = predicate()
        except retry as exc:
            last = exc
        else:
            if value:
                return value
        if time.monotonic() > deadline:
            suffix = f" (last: {last!r})" if last is not None else ""
            raise Timeout(f"not seen within {timeout:g} s: {what}{suffix}")
        time.sleep(interval)  # the poll interval: the one sleep of the suite's waits
