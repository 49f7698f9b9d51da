"""`masthead comments ...`: import (WordPress WXR, Disqus XML, masthead JSON), export, a
commenter's data request (export-person, erase)."""

from __future__ import annotations

import json
import logging
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from masthead.cli.common import (
    SiteFolder,
    fail,
    open_db,
    os_cause,
    storage_failure,
)
from masthead.errors import ConfigError, MastheadError, visible

if TYPE_CHECKING:
    pass


ACTOR = "cli"  # the audit log's actor for data requests answered from the command line

comments_app = typer.Typer(
    help="Comments: import (WordPress WXR, Disqus XML, masthead JSON), export, data requests.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@comments_app.command("import")
def comments_import(
    site: SiteFolder,
    file: Annotated[Path, typer.Argument(help="A WXR, Disqus XML or masthead JSON export.")],
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Report what would be imported; write nothing.")
    ] = False,
    skip_pings: Annotated[
        bool, typer.Option("--skip-pings", help="Leave pingbacks and trackbacks out (counted).")
    ] = False,
) -> None:
    """Import the comments of FILE, each thread mapped to a post; idempotent. Exits 1 when some
    threads matched no post (the rest is imported), 2 when the file cannot be imported."""
    from masthead.comments.port import service as comments_io
    from masthead.indexing.indexer import index_site

    logging.getLogger("masthead").addHandler(logging.NullHandler())
    try:
        s, db = open_db(site)
    except MastheadError as exc:
        raise fail(exc) from None
    try:
        index_site(s, db)  # threads are mapped to the posts the files have now
        report = comments_io.import_file(
            db,
            file,
            site=s,
            dry_run=dry_run,
            skip_pings=skip_pings,
        )
    except OSError as exc:
        raise fail(ConfigError(f"{file}: cannot read the export ({os_cause(exc)})")) from None
    except sqlite3.Error as exc:
        raise fail(storage_failure(s.database_path, exc)) from None
    finally:
        db.close()
    for line in report.lines():
        typer.echo(visible(line), err=bool(report.problems))
    raise typer.Exit(report.exit_code)


@comments_app.command("export")
def comments_export(
    site: SiteFolder,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="File to write; default: stdout.")
    ] = None,
) -> None:
    """Write every comment (every status, placeholders too) as JSON; `import` reads it back."""
    from masthead.comments.port import service as comments_io

    try:
        s, db = open_db(site)
    except MastheadError as exc:
        raise fail(exc) from None
    where = s.settings.base_url or str(s.root)
    try:
        if output is None:
            count = comments_io.export_json(comments_io.iter_all(db), site=where, out=sys.stdout)
        else:
            partial = output.with_name(output.name + ".partial")
            with open(partial, "w", encoding="utf-8") as out_file:
                count = comments_io.export_json(comments_io.iter_all(db), site=where, out=out_file)
            partial.replace(output)
    except OSError as exc:
        raise fail(ConfigError(f"{output}: cannot write the export ({os_cause(exc)})")) from None
    finally:
        db.close()
    typer.echo(f"{count} comments exported", err=True)


@comments_app.command("export-person")
def comments_export_person(
    site: SiteFolder,
    email: Annotated[str, typer.Argument(help="The commenter's email address.")],
) -> None:
    """Print, as JSON, every comment written with EMAIL (a commenter's data request); the
    audit log gets an `export-person` row."""
    from masthead.comments.port import service as comments_io

    try:
        _, db = open_db(site)
    except MastheadError as exc:
        raise fail(exc) from None
    try:
        person = comments_io.export_person(db, email, ACTOR)
    finally:
        db.close()
    typer.echo(json.dumps(person, ensure_ascii=False, indent=2))


@comments_app.command("erase")
def comments_erase(
    site: SiteFolder,
    email: Annotated[str, typer.Argument(help="The commenter's email address.")],
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")] = False,
) -> None:
    """Erase every comment written with EMAIL; a comment with replies leaves an anonymous
    placeholder so the thread keeps its shape; the audit log gets an `erase-person` row.
    Cannot be undone (a backup can)."""
    from masthead.comments.port import service as comments_io
    from masthead.store import comments as store

    try:
        _, db = open_db(site)
    except MastheadError as exc:
        raise fail(exc) from None
    try:
        found = store.by_email(db.read(), email)
        if found and not yes:
            typer.confirm(f"Erase {len(found)} comment(s) for good?", abort=True)
        erased, kept = comments_io.erase(db, email, ACTOR)
    finally:
        db.close()
    typer.echo(
        f"{erased} comment(s) erased, {kept} left as anonymous placeholders for their replies"
    )
