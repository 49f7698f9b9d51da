"""The commands on a site's database: search-log, backup, vacuum, restore (from a backup or
the replica)."""

from __future__ import annotations

import json
import sqlite3
import time
from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.text import Text

from masthead.cli.common import (
    PIPE_WIDTH,
    SiteArg,
    fail,
    open_site,
    out,
)
from masthead.errors import ConfigError, MastheadError, StorageError, visible

if TYPE_CHECKING:
    from masthead.config import Site
    from masthead.store.restore import Restored


def search_log(
    site: SiteArg = None,
    days: Annotated[int, typer.Option(help="The period: the last N days.", min=1)] = 30,
    limit: Annotated[int, typer.Option(help="Rows per table.", min=1)] = 20,
) -> None:
    """Print the top queries and the top queries that found nothing, for the last N days."""

    from rich.table import Table

    from masthead.store import search_log as store
    from masthead.store.db import Database

    try:
        s = open_site(site)
        db = Database(s.database_path, checkpoints=not s.replicated)
    except MastheadError as exc:
        raise fail(exc) from None
    since = time.time() - days * 86400
    conn = db.read()
    # in a pipe, one line per row (for grep and scripts), not rows wrapped at 80 columns
    console = out if out.is_terminal else Console(width=PIPE_WIDTH)
    for title, rows in (
        (f"Top queries, last {days} days", store.top_queries(conn, since, limit)),
        (
            f"Top queries with no results, last {days} days",
            store.top_queries(conn, since, limit, no_results=True),
        ),
    ):
        table = Table(title=title, title_justify="left")
        table.add_column("query")
        table.add_column("filters")
        table.add_column("searches", justify="right")
        table.add_column("results (last)", justify="right")
        for row in rows:
            filters = ", ".join(f"{k}={v}" for k, v in json.loads(row["filters"]).items())
            # readers' text: never markup, emoji codes or terminal escapes
            table.add_row(
                Text(visible(row["query"])),
                Text(visible(filters)),
                str(row["searches"]),
                str(row["results"]),
            )
        if not rows:
            table.add_row("(none)", "", "", "")
        console.print(table)
    db.close()


def backup(
    site: Annotated[Path, typer.Argument(help="Site folder whose database to copy.")],
    destination: Annotated[
        Path, typer.Argument(metavar="DEST", help="New file to write the copy to.")
    ],
    force: Annotated[
        bool,
        typer.Option("--force", help="Replace DEST when it is an earlier backup (a database)."),
    ] = False,
) -> None:
    """Copy the site's database (posts index, search log, comments, users) with
    SQLite's online backup: safe while the site is serving. Never over an existing file
    unless --force, and then only over an SQLite database or an empty file."""
    from masthead.store.db import BackupExists
    from masthead.store.db import backup as sqlite_backup

    try:
        s = open_site(site)
        if not s.database_path.exists():
            raise ConfigError(f"{s.database_path}: no database yet (run masthead index first)")
        try:
            pages = sqlite_backup(s.database_path, destination, replace=force)
        except BackupExists as exc:
            raise StorageError(
                exc.path, f"{exc.cause} (pass --force to replace a backup)"
            ) from None
    except MastheadError as exc:
        raise fail(exc) from None
    size = destination.stat().st_size
    typer.echo(
        f"Backed up {visible(str(s.database_path))} to {visible(str(destination))} "
        f"({pages} pages, {size:,} bytes)"
    )


def vacuum(
    site: Annotated[Path, typer.Argument(help="Site folder whose database to compact.")],
) -> None:
    """Give the space of deleted posts and comments back to the disk: merge the search
    index's segments (FTS5 optimize), then rebuild the site's database in place (SQLite's
    VACUUM). Safe while the site is serving: pages and search are
    answered throughout, and writes (the watcher, new comments) wait until it is done. Needs
    free disk space of about twice the database."""
    from masthead.store import search as search_store
    from masthead.store.db import Database, file_size, storage_error
    from masthead.store.db import vacuum as sqlite_vacuum

    try:
        s = open_site(site)
        if not s.database_path.exists():
            raise ConfigError(f"{s.database_path}: no database yet (run masthead index first)")
        before = file_size(s.database_path)
        db = Database(s.database_path, checkpoints=not s.replicated)
        try:  # FTS5 keeps a deleted post's terms until its segments merge: merge them first
            with db.write() as conn:
                search_store.optimize(conn)
        except sqlite3.Error as exc:
            raise storage_error(s.database_path, exc) from None
        finally:
            db.close()
        after = sqlite_vacuum(s.database_path, checkpoint=not s.replicated)[1]
    except MastheadError as exc:
        raise fail(exc) from None
    typer.echo(
        f"Compacted {visible(str(s.database_path))}: {before:,} bytes before, {after:,} bytes "
        f"after ({max(before - after, 0):,} bytes given back)"
    )


def restore(
    site: Annotated[Path, typer.Argument(help="Site folder whose database to replace.")],
    backup_file: Annotated[
        Path | None,
        typer.Argument(metavar="[BACKUP]", help="A masthead backup (not with --from-replica)."),
    ] = None,
    from_replica: Annotated[
        bool,
        typer.Option(
            "--from-replica",
            help="Restore from the site's replica ([replica] url, Litestream) instead of a file.",
        ),
    ] = False,
    timestamp: Annotated[
        str | None,
        typer.Option(
            help="With --from-replica: the state at this time, ISO 8601 (2026-12-06T17:58:00Z; "
            "without a zone, in the site's timezone), e.g. just before a bad bulk action.",
        ),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")] = False,
) -> None:
    """Replace the site's database by BACKUP, or by its replica's latest state (or its state
    at --timestamp), once it has passed an integrity and a schema check (an older schema is
    migrated); the database as it was is kept beside it. Safe while the site is serving."""
    from masthead.store.restore import check_backup
    from masthead.store.restore import restore as restore_db

    try:
        if from_replica == (backup_file is not None):
            raise ConfigError("give either BACKUP or --from-replica (one of them)")
        if timestamp is not None and not from_replica:
            raise ConfigError("--timestamp goes with --from-replica")
        s = open_site(site)
        if backup_file is None:
            source, done = _restore_from_replica(s, timestamp, yes)
        else:
            check_backup(backup_file)  # refused before asking
            if s.database_path.exists() and not yes:
                typer.confirm(f"Replace {s.database_path} by {backup_file}?", abort=True)
            source, done = str(backup_file), restore_db(backup_file, s.database_path)
    except MastheadError as exc:
        raise fail(exc) from None
    kept = f"; the previous database is kept as {visible(str(done.kept))}" if done.kept else ""
    migrated = (
        f", migrated from schema {done.from_version}"
        if done.to_version != done.from_version
        else ""
    )
    typer.echo(
        f"Restored {visible(source)} into {visible(str(s.database_path))} "
        f"(schema {done.to_version}{migrated}, {done.comments} comments){kept}"
    )


def _restore_from_replica(s: Site, timestamp: str | None, yes: bool) -> tuple[str, Restored]:
    """The replica (at `timestamp`) fetched, checked, confirmed and put in place."""
    from masthead.replica import restore as replica_restore
    from masthead.replica.litestream import redacted_url

    when = _when(timestamp, s.tz) if timestamp else None
    url = redacted_url(s.settings.replica.url or "")
    source = f"{url} as of {when.isoformat()}" if when else url
    staged = replica_restore.fetch(s, when)
    try:
        if s.database_path.exists() and not yes:
            typer.confirm(f"Replace {s.database_path} by {source}?", abort=True)
    except BaseException:
        replica_restore.discard(s)
        raise
    return source, replica_restore.put_in_place(s, staged)


def _when(text: str, zone: tzinfo) -> datetime:
    """`text`, an ISO 8601 time, as an aware datetime (no zone: `zone`'s)."""
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(
            f"--timestamp {visible(text)!r}: not an ISO 8601 time such as 2026-12-06T17:58:00Z"
        ) from None
    return when if when.tzinfo else when.replace(tzinfo=zone)
