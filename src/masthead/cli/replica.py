"""`masthead replica ...`: the site's Litestream replica (`[replica]`), a thin wrapper around
masthead.replica. Errors are one line on stderr and exit 2, like every other command."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from masthead.cli.common import fail, open_site
from masthead.errors import ConfigError, MastheadError, visible

replica = typer.Typer(
    help="Continuous replication of the database with Litestream ([replica] settings).",
    no_args_is_help=True,
    rich_markup_mode=None,
)
SiteArg = Annotated[
    Path | None, typer.Argument(help="Site folder (with masthead.toml); default: this folder.")
]


@replica.command("status")
def replica_status(site: SiteArg = None) -> None:
    """Print what the replica holds (its newest transaction and how old it is, how far back a
    restore may go) and, while `masthead serve` runs, whether it is in step or behind."""
    from masthead.replica import litestream, state

    try:
        s = open_site(site)
        if s.settings.replica.url is None:
            raise ConfigError(f"{s.root}: no [replica] url is set: the database is not replicated")
        held = litestream.holdings(s)
    except MastheadError as exc:
        raise fail(exc) from None
    now = time.time()
    settings = s.settings.replica
    url = litestream.redacted_url(settings.url or "")
    typer.echo(f"replica:   {visible(url)} (every {settings.sync_interval:g} s, "
               f"{settings.retention} h kept)")  # fmt: skip
    if held.latest is None:
        typer.echo("holds:     nothing yet (no process has replicated this database)")
    else:
        age = now - held.latest.timestamp()
        typer.echo(f"holds:     transaction {held.txid}, written {_at(held.latest)} "
                   f"({_ago(age)}), in {held.files} files")  # fmt: skip
        if held.earliest is not None:
            typer.echo(f"restores:  to any time from {_at(held.earliest)} on (--timestamp)")
    report = state.summary(state.load(s.database_path), url, settings.sync_interval, now)
    typer.echo("serving:   " + describe(report, now))


def describe(report: dict[str, object], now: float) -> str:
    """One line on the replicating server's last report (`state.summary`)."""
    status = report["status"]
    if status == "ok":
        checked = _ago(now - _f(report["checked_at"]))
        return f"in step at transaction {report['txid']} (checked {checked})"
    if status == "behind":
        since = _f(report["behind_since"])
        text = f"BEHIND since {_at(datetime.fromtimestamp(since, UTC))} ({_ago(now - since)})"
        text += f": local transaction {report['txid']}, replica at {report['position']}"
        return text + (f"; {report['error']}" if report.get("error") else "")
    if status == "unknown":
        return "no masthead serve replicates this database now"
    return str(status) + (f": {report['error']}" if report.get("error") else "")


def _f(value: object) -> float:
    return float(value) if isinstance(value, int | float) else 0.0


def _at(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _ago(seconds: float) -> str:
    seconds = max(0, round(seconds))
    if seconds < 120:
        return f"{seconds} s ago"
    if seconds < 7200:
        return f"{seconds // 60} min ago"
    return f"{seconds // 3600} h ago"
