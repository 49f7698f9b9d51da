"""A reader's comment acknowledged only once it is on the replica.

Litestream uploads on its own every part of the sync interval, so a change normally reaches
the replica within `[replica] sync_interval`; on a busy machine or with a slow store an upload
takes longer, and a machine that died then would take acknowledged comments with it. So,
after a comment is stored, the request asks the running Litestream (over its control socket,
named in the state report, whichever worker runs it) to upload what the replica lacks and
waits for that, `WAIT` seconds at most. It does not wait when no Litestream reports, when the
replica is already behind (a store that is down must not hold every comment for `WAIT`
seconds) or when Litestream does not answer: the comment is stored locally either way, and
the dashboard says the replica is behind.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from masthead.config import Site
from masthead.replica import state, supervisor

log = logging.getLogger(__name__)

RETRY = 0.01  # seconds between two asks for the same comment (Litestream uploads one at a time)


def wait_seconds(sync_interval: float) -> float:
    """How long an acknowledgement may wait for its upload: the grace before "behind"."""
    return state.grace(sync_interval)


def wait_replicated(site: Site) -> bool:
    """Wait until the replica holds every transaction committed so far (see the module);
    True if it does, False when it was not waited for or the wait failed."""
    if not site.replicated:
        return False
    database = site.database_path
    report = state.load(database)
    if report is None or not _waitable(report, time.time()):
        return False
    deadline = time.monotonic() + wait_seconds(report.sync_interval)
    sock, path = Path(report.socket), database.resolve()
    target = 0  # the local position once this comment is folded in: the first answer's
    while (left := deadline - time.monotonic()) > 0:
        try:
            txid, replicated = supervisor.ask(sock, path, left, upload=True)
        except (OSError, ValueError) as exc:
            log.warning("a comment was not confirmed on the replica: %s", exc)
            return False
        target = target or txid
        if replicated >= target:
            return True
        # another request's upload was under way and did not carry this one: ask again
        time.sleep(RETRY)
    log.warning("a comment was not on the replica after %.0f s", wait_seconds(report.sync_interval))
    return False


def _waitable(report: state.Report, now: float) -> bool:
    """A Litestream reports recently, names its socket and keeps up with the database."""
    if not report.socket or report.state != "replicating":
        return False
    if now - report.checked_at > state.STALE:
        return False
    behind = report.behind_since is not None and now - report.behind_since > state.grace(
        report.sync_interval
    )
    return not behind
