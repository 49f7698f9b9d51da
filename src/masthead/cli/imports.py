"""`masthead import ...`: move a site or a blog in whole (a Hugo site folder, a WordPress WXR or
Ghost JSON export); the work is in `masthead.importing`."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from masthead.cli.common import SiteFolder, fail, open_db, os_cause, storage_failure
from masthead.errors import ConfigError, MastheadError, visible

if TYPE_CHECKING:
    from masthead.config import Site
    from masthead.importing.report import Report
    from masthead.store.db import Database

import_app = typer.Typer(
    help="Move a site or blog in: a Hugo site; WordPress (WXR) and Ghost (JSON) exports as "
    "posts, pages, images, old URLs and comments.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@import_app.command("hugo")
def hugo(
    hugo_dir: Annotated[
        Path, typer.Argument(help="The Hugo site folder (with hugo.toml or config.*).")
    ],
    site: Annotated[Path, typer.Argument(help="The masthead site to make (absent or empty).")],
    link: Annotated[
        bool,
        typer.Option(
            "--link",
            help="Link the Hugo content and static folders instead of copying them (the Hugo "
            "site stays the one copy; top-level pages are then not moved to pages/).",
        ),
    ] = False,
) -> None:
    """Make SITE from the Hugo site HUGO_DIR: masthead.toml from its configuration, its content
    and static folders copied (or linked). Prints what was carried over, every setting that was
    not and why, and what masthead check says of the new site. Exits 1 when check finds errors,
    2 when HUGO_DIR cannot be imported."""
    from masthead.importing.hugo import import_hugo

    try:
        result = import_hugo(hugo_dir, site, link=link)
    except (MastheadError, OSError) as exc:
        raise fail(exc if isinstance(exc, MastheadError) else MastheadError(str(exc))) from None
    conv = result.converted
    say = typer.echo
    say(f"settings: {visible(str(site / 'masthead.toml'))} (from {', '.join(conv.source)})")
    for line in conv.carried:
        say(f"  carried: {visible(line)}")
    for name, why in conv.dropped:
        say(f"  not carried: {visible(name)}: {visible(why)}")
    how = "linked" if result.linked else "copied"
    say(f"content: {result.posts} posts and pages {how}")
    for old, new in result.pages:
        say(f"  page: {visible(old)} -> {visible(new)} (its URL stays)")
    say(f"static: {result.static} files {how}")
    for path, why in result.skipped:
        say(f"  skipped: {visible(path)}: {visible(why)}")
    for warning in result.warnings:
        say(f"warning: {visible(warning)}")
    errors = sum(1 for i in result.issues if i.severity == "error")
    warnings = len(result.issues) - errors
    say(f"check: errors: {errors}, warnings: {warnings}")
    for issue in result.issues:
        say(f"  {issue.format()}")
    if errors:
        raise typer.Exit(1)


DryRun = Annotated[
    bool, typer.Option("--dry-run", help="Report what would be imported; write nothing.")
]


def _import(
    site: Path,
    export: Path,
    run: Callable[[Site, Database], Report],
    format_error: type[Exception],
) -> None:
    """Open SITE's database, `run` the import and print its report; an export that cannot be
    read (`format_error`, or the file itself) or a database that fails is one line, exit 2."""
    try:
        s, db = open_db(site)
    except MastheadError as exc:
        raise fail(exc) from None
    try:
        report = run(s, db)
    except format_error as exc:
        raise fail(ConfigError(f"{export}: {exc}")) from None
    except OSError as exc:
        raise fail(ConfigError(f"{export}: cannot read the export ({os_cause(exc)})")) from None
    except sqlite3.Error as exc:
        raise fail(storage_failure(s.database_path, exc)) from None
    finally:
        db.close()
    for line in report.lines():
        typer.echo(visible(line))
    raise typer.Exit(report.exit_code)


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
    _import(
        site,
        export,
        lambda s, db: run(s, db, export, uploads=uploads, dry_run=dry_run),
        ExportFormatError,
    )


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

    def ghost(s: Site, db: Database) -> Report:
        report = run(s, export, content=content, routes=routes, dry_run=dry_run)
        if not dry_run:
            index_site(s, db)
        return report

    _import(site, export, ghost, GhostExportError)
