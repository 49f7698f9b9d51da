"""The replica's state as the serving process that runs Litestream last saw it: a small JSON
file beside the database (`SITE.db.replica.json`, replaced whole on every report), read by any
worker for `/healthz` and the dashboard.

A report says the local position (Litestream's transaction ID of the database), the position
the replica has, when the replica last held every local transaction (`replicated_at`) and, when
it does not, since when it has not (`behind_since`). The replica counts as behind once it has
not caught up for `grace(sync_interval)` seconds (an upload in flight is not "behind"). A report
older than `STALE` seconds says nothing any more: no process replicates (the server stopped or
died).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

STALE = 30.0  # seconds after which a report is no longer believed


def grace(sync_interval: float) -> float:
    """Seconds a replica may lag before it counts as behind: a few sync intervals."""
    return max(5.0, 3 * sync_interval)


def path_for(database: Path) -> Path:
    return database.with_name(database.name + ".replica.json")


@dataclass(frozen=True)
class Report:
    """One report of the replicating process (see the module). Times are seconds since the
    epoch; `url` is redacted; `error` is Litestream's last complaint, redacted."""

    url: str
    sync_interval: float
    state: str  # "starting", "replicating", "exited" (restarted soon), "stopped" (server stopped)
    checked_at: float
    pid: int = 0  # Litestream's
    socket: str = ""  # Litestream's control socket, for `durable.wait_replicated` in any worker
    txid: int = 0
    replicated_txid: int = 0
    replicated_at: float | None = None
    behind_since: float | None = None
    waiting_txid: int = 0  # the transaction missing from the replica since `behind_since`
    error: str = ""

    def observe(self, txid: int, replicated: int, at: float) -> Report:
        """This report after Litestream said the database is at `txid` and the replica at
        `replicated`, at time `at`.

        Under a steady stream of writes the replica seldom holds the very last transaction
        when asked, though it keeps up: so "behind since" is the time a transaction was first
        seen missing that is still missing. Once the replica has it, the replica holds the
        database as it was then (`replicated_at`), and the wait starts again from now for
        what is missing now."""
        if replicated >= txid:
            return replace(
                self,
                state="replicating",
                checked_at=at,
                txid=txid,
                replicated_txid=replicated,
                replicated_at=at,
                behind_since=None,
                waiting_txid=0,
                error="",
            )
        if self.behind_since is not None and replicated >= self.waiting_txid:
            return replace(
                self,
                state="replicating",
                checked_at=at,
                txid=txid,
                replicated_txid=replicated,
                replicated_at=self.behind_since,
                behind_since=at,
                waiting_txid=txid,
                error="",
            )
        first = self.behind_since is None
        return replace(
            self,
            state="replicating",
            checked_at=at,
            txid=txid,
            replicated_txid=max(replicated, 0),
            behind_since=at if first else self.behind_since,
            waiting_txid=txid if first else self.waiting_txid,
        )

    def unanswered(self, at: float, error: str) -> Report:
        """This report after Litestream did not answer at time `at` (listening, but stuck):
        checked, with the positions it last gave, and lacking what it cannot say it holds."""
        since = self.behind_since if self.behind_since is not None else at
        return replace(self, checked_at=at, behind_since=since, error=self.error or error)


def save(database: Path, report: Report) -> None:
    """Replace the report file of `database` by `report` (a rename: readers see one whole)."""
    target = path_for(database)
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump(asdict(report), file)
        os.replace(name, target)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise


def load(database: Path) -> Report | None:
    """The last report for `database`, or None when there is none (or it cannot be read)."""
    try:
        data = json.loads(path_for(database).read_text(encoding="utf-8"))
        return Report(**data)
    except (OSError, ValueError, TypeError):
        return None


def summary(report: Report | None, url: str, sync_interval: float, now: float) -> dict[str, Any]:
    """What `/healthz`, the dashboard and `masthead replica status` say about the replica:

    - `status`: "ok" (the replica holds every transaction, or lags less than the grace),
      "behind" (it has not caught up for longer), "starting", "exited" (Litestream stopped and
      is being restarted), "stopped" (the server stopped cleanly) or "unknown" (no process
      has reported for `STALE` seconds: none replicates);
    - `position` (the replicated transaction ID), `txid` (the local one), `replicated_at` and
      its `age` in seconds, `behind_since`, `checked_at`, `error`, and the redacted `url`.
    """
    out: dict[str, Any] = {"url": url, "sync_interval": sync_interval}
    if report is not None and report.state == "stopped":
        out.update(status="stopped", checked_at=report.checked_at, **_positions(report, now))
        return out
    if report is None or now - report.checked_at > STALE:
        out.update(status="unknown", checked_at=report.checked_at if report else None)
        if report is not None:
            out.update(_positions(report, now))
        return out
    status = report.state if report.state != "replicating" else "ok"
    if report.behind_since is not None and now - report.behind_since > grace(sync_interval):
        status = "behind"
    out.update(status=status, checked_at=report.checked_at, error=report.error)
    out.update(_positions(report, now))
    return out


def _positions(report: Report, now: float) -> dict[str, Any]:
    return {
        "txid": report.txid,
        "position": report.replicated_txid,
        "replicated_at": report.replicated_at,
        "age": None if report.replicated_at is None else max(0.0, now - report.replicated_at),
        "behind_since": report.behind_since,
    }
