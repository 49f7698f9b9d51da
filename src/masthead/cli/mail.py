"""`masthead mail ...`: the notification outbox (status, send), a thin wrapper around
masthead.notify. Errors a user can fix are one line on stderr and exit 2, like every other
command; `send` exits 1 when a mail failed or waits for a retry."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Annotated

import typer

from masthead.cli.common import fail, open_site, storage_failure
from masthead.errors import ConfigError, MastheadError
from masthead.errors import visible as _visible

mail = typer.Typer(
    help="Notification mails: the outbox and its sending.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
SiteArg = Annotated[
    Path | None, typer.Argument(help="Site folder (with masthead.toml); default: this folder.")
]


@mail.command("status")
def mail_status(site: SiteArg = None) -> None:
    """Print whether mail is on, the outbox's counts, and every mail that failed or waits for
    a retry, with its last error."""
    from masthead.notify.report import status_lines
    from masthead.store.db import Database

    try:
        s = open_site(site)
        db = Database(s.database_path, checkpoints=not s.replicated)
    except MastheadError as exc:
        raise fail(exc) from None
    try:
        for line in status_lines(db.read(), s.settings):
            typer.echo(_visible(line))
    finally:
        db.close()


@mail.command("send")
def mail_send(
    site: SiteArg = None,
    retry_failed: Annotated[
        bool, typer.Option("--retry-failed", help="Queue the failed mails again first.")
    ] = False,
) -> None:
    """Queue the mails of new comment events and send every mail due now (what the server
    does in the background), then print what happened. Links in mails use base_url."""
    import time

    from masthead.notify.collect import collect
    from masthead.notify.sender import drain, off_reason
    from masthead.store import outbox
    from masthead.store.db import Database

    try:
        s = open_site(site)
        reason = off_reason(s.settings)
        if reason is not None:
            raise ConfigError(f"mail is off: {reason}")
        if not s.settings.base_url:
            raise ConfigError("base_url is not set: links in mails need the public address")
        db = Database(s.database_path, checkpoints=not s.replicated)
    except MastheadError as exc:
        raise fail(exc) from None
    try:
        now = time.time()
        if retry_failed:
            with db.write() as conn:
                outbox.requeue_failed(conn, now)
        queued = collect(db, s, s.settings.base_url, now)
        report = drain(db, s.settings, now=now)
    except (sqlite3.Error, OSError) as exc:
        raise fail(storage_failure(s.database_path, exc)) from None
    finally:
        db.close()
    typer.echo(
        f"{queued} queued, {report.sent} sent, {report.retried} to retry, {report.failed} failed"
    )
    if report.retried or report.failed:
        raise typer.Exit(1)
