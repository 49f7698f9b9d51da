"""`masthead translation ...`: translations that fall behind their original (a thin wrapper
around masthead.indexing.mark)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from masthead.cli.common import SiteArg, fail, open_site
from masthead.errors import MastheadError, visible

translation = typer.Typer(
    help="Translations: mark one up to date with its original.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@translation.command("mark-current")
def mark_current(
    path: Annotated[Path, typer.Argument(help="The translation's content file.")],
    site: SiteArg = None,
) -> None:
    """Record that the translation in PATH is up to date with its original now: its front
    matter gets translation_of, the hash of the original's body as it is now. When the
    original's body changes after this, the translation shows a notice and masthead check
    and the dashboard list it. Indexes the site before and after."""
    from masthead.indexing.mark import mark_current as mark
    from masthead.store.db import Database

    try:
        s = open_site(site)
        db = Database(s.database_path)
    except MastheadError as exc:
        raise fail(exc) from None
    try:
        done = mark(s, db, path)
    except MastheadError as exc:
        raise fail(exc) from None
    finally:
        db.close()
    state = "marked current" if done.changed else "already current"
    typer.echo(visible(f"{done.translation}: {state} with {done.original} ({done.digest})"))
