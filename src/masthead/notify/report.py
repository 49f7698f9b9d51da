"""What `masthead mail status` prints: whether mail is on, the outbox's counts, and each mail
that failed or waits for a retry, with its last error (plain lines, newest first)."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

from masthead.config import Settings
from masthead.notify.sender import off_reason
from masthead.store import outbox


def _when(ts: float | None) -> str:
    if ts is None:
        return "-"
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def status_lines(conn: sqlite3.Connection, settings: Settings, limit: int = 50) -> list[str]:
    """The report, one line each (readers' and servers' text as stored: the caller escapes)."""
    reason = off_reason(settings)
    if reason is None:
        lines = [
            f"mail: on, via {settings.smtp_host}:{settings.smtp_port} ({settings.smtp_tls}), "
            f"from {settings.mail_from}; {len(settings.editor_emails)} editor address(es)"
        ]
    else:
        lines = [f"mail: off ({reason})"]
    n = outbox.counts(conn)
    lines.append(f"outbox: {n['queued']} queued, {n['sent']} sent, {n['failed']} failed")
    due = outbox.next_due(conn)
    if due is not None:
        lines.append(f"next attempt: {_when(due)}")
    for mail in outbox.troubles(conn, limit):
        state = "failed" if mail.status == "failed" else f"retry at {_when(mail.next_attempt)}"
        about = f"comment {mail.comment_id}" if mail.comment_id is not None else "-"
        lines.append(
            f"#{mail.id} {mail.kind} to {mail.recipient or '(nobody)'} ({about}): {state} "
            f"after {mail.attempts} attempt(s); last error: {mail.last_error}"
        )
    return lines
