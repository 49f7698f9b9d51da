"""`masthead import ...`: move a whole site in (Hugo), made into a masthead site folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from masthead.cli.common import fail
from masthead.errors import MastheadError, visible

import_app = typer.Typer(
    help="Move a whole site in: Hugo.",
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
