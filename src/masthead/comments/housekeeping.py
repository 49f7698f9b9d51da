"""Housekeeping of the comment store, run by the server: IP hashes are forgotten after
`comments_ip_days`, spam and trash are emptied `comments_trash_days` after each comment went
there (its `trashed` time; as WordPress counts EMPTY_TRASH_DAYS, never from the comment's own
date), each run logged in the audit log as the actor 'system'.

Every worker runs it (an hourly pass of two indexed statements, idempotent), so no process has
to be elected for it; a pass that meets a busy database simply waits for the next one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from masthead.config import Settings
from masthead.store import comment_removal as removal
from masthead.store.db import Database

log = logging.getLogger(__name__)

EVERY = 3600.0  # seconds between passes
DAY = 86400.0


@dataclass(frozen=True)
class Swept:
    """What one pass did: IP hashes forgotten, spam and trash comments deleted for good."""

    ips: int = 0
    spam: int = 0
    trash: int = 0


def sweep(db: Database, settings: Settings, now: float) -> Swept:
    """One pass at time `now` (seconds since the epoch); a setting of 0 turns its part off."""
    ips = spam = trash = 0
    if settings.comments_ip_days:
        ips = removal.expire_ips(db, now - settings.comments_ip_days * DAY)
    if settings.comments_trash_days:
        before = now - settings.comments_trash_days * DAY
        spam = len(removal.empty(db, "spam", "system", before=before).changed)
        trash = len(removal.empty(db, "trash", "system", before=before).changed)
    if ips or spam or trash:
        log.info(
            "housekeeping: %d IP hashes forgotten, %d spam and %d trash emptied", ips, spam, trash
        )
    return Swept(ips, spam, trash)


async def run(
    db: Database,
    settings: Settings,
    stop: asyncio.Event,
    clock: Callable[[], float] = time.time,
    every: float = EVERY,
) -> None:
    """Sweep now and then every `every` seconds until `stop` is set; a failed pass is logged
    and retried at the next one, never raised into the server."""
    while not stop.is_set():
        try:
            await asyncio.to_thread(sweep, db, settings, clock())
        except Exception as exc:  # a busy or full database: the next pass tries again
            log.warning("housekeeping pass failed: %s", exc)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every)
