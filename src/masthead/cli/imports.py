"""`masthead import ...`: move a blog in whole (WordPress WXR, Ghost JSON); the work is in
`masthead.importing`."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import Annotated

import typer

from masthead.cli.common import SiteFolder, fail, open_db, os_cause, storage_failure
from masthead.errors import ConfigError, MastheadError, visible

import_app = typer.Typer(
    help="Move a blog in: WordPress (WXR) and Ghost (JSON) exports as posts, pages, images, "
    "old URLs and comments.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

DryRun = Annotated[
    bool, typer.Option("--dry-run", help="Report what would be imported; write nothing.")
]


def _print(lines: list[str], code: int) -> None:
    for line in lines:
        typer.echo(visible(line))
    raise typer.Exit(code)


@import_app.command("wordpress")
def import_wordpress(
    site: SiteFolder,
    export: Annotated[Path, typer.Argument(help="The WXR file (Tools > Export in WordPress).")],
    uploads: Annotated[
        Path | None,
        typer.Option("--uploads", help="A copy of wp-content/uploads: images are copied from it."),
    ] = None,
    dry_run: DryRun = False,
) -> None:
    """Import the posts, pages, images, old URLs and comments of a WordPress export into SITE.
    Run it again after a new export: unchanged files are not rewritten, and a file edited since
    the last import is kept and listed. Exits 1 when a file was kept or an image is missing, 2
    when the export cannot be read."""
    from masthead.comments.port.records import ExportFormatError
    from masthead.importing.wordpress import import_wordpress as run

    logging.getLogger("masthead").addHandler(logging.NullHandler())
    if uploads is not None and not uploads.is_dir():
        raise fail(ConfigError(f"{uploads}: --uploads is not a folder"))
    try:
        s, db = open_db(site)
    except MastheadError as exc:
        raise fail(exc) from None
    try:
        report = run(s, db, export, uploads=uploads, dry_run=dry_run)
    except ExportFormatError as exc:
        raise fail(ConfigError(f"{export}: {exc}")) from None
    except OSError as exc:
        raise fail(ConfigError(f"{export}: cannot read the export ({os_cause(exc)})")) from None
    except sqlite3.Error as exc:
        raise fail(storage_failure(s.database_path, exc)) from None
    finally:
        db.close()
    _print(report.lines(), report.exit_code)


@import_app.command("ghost")
def import_ghost(
    site: SiteFolder,
    export: Annotated[Path, typer.Argument(help="The JSON file (Settings > Labs > Export).")],
    content: Annotated[
        Path | None,
        typer.Option("--content", help="A copy of Ghost's content/ folder: images from it."),
    ] = None,
    routes: Annotated[
        Path | None,
        typer.Option("--routes", help="Ghost's routes.yaml: its collections' old URLs are kept."),
    ] = None,
    dry_run: DryRun = False,
) -> None:
    """Import the posts, pages, authors, images and old URLs of a Ghost export (Ghost 4, 5
    or 6) into SITE; run again, it keeps your edits as `import wordpress` does. Exits 1 when a
    file was kept or an image is missing, 2 when the export cannot be read."""
    from masthead.importing.ghost import GhostExportError
    from masthead.importing.ghost import import_ghost as run
    from masthead.indexing.indexer import index_site

    if content is not None and not content.is_dir():
        raise fail(ConfigError(f"{content}: --content is not a folder"))
    if routes is not None and not routes.is_file():
        raise fail(ConfigError(f"{routes}: --routes is not a file"))
    try:
        s, db = open_db(site)
    except MastheadError as exc:
        raise fail(exc) from None
    try:
        report = run(s, export, content=content, routes=routes, dry_run=dry_run)
        if not dry_run:
            index_site(s, db)
    except GhostExportError as exc:
        raise fail(ConfigError(f"{export}: {exc}")) from None
    except OSError as exc:
        raise fail(ConfigError(f"{export}: cannot read ({os_cause(exc)})")) from None
    except sqlite3.Error as exc:
        raise fail(storage_failure(s.database_path, exc)) from None
    finally:
        db.close()
    _print(report.lines(), report.exit_code)
