"""The `masthead` command: serve, init, index, build, check, search-log, backup, vacuum, restore,
comments (import, export, export-person, erase), translation (mark-current), import (hugo,
wordpress, ghost).

Errors a user can fix (bad settings, a missing folder, a folder that is no site because it has
no masthead.toml, a full disk, a database folder or file this user may not write) are printed as
one line naming the path and the cause, and exit 2 (a command never reads a folder without
masthead.toml as a site of default settings, nor creates its database there: `_site`; only
`serve` with no SITE falls back, saying so, to the bundled demo);
`check` exits 1 when a content file has an error (or a warning under `--strict`). Every path,
reason and reader's text printed goes through `masthead.errors.visible` (control characters
escaped: no terminal escape sequence from a file name or a link target reaches the terminal).
"""

from __future__ import annotations

import inspect
import sys
from typing import Annotated

import typer

from masthead.cli import comments, database, imports, serve, site
from masthead.cli.admin import admin
from masthead.cli.mail import mail
from masthead.cli.replica import replica
from masthead.cli.translation import translation
from masthead.errors import visible

app = typer.Typer(
    help="masthead: an editorial web platform on Markdown files and SQLite.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,  # plain help: paragraphs re-wrapped as prose, no <bool> per flag
    context_settings={"max_content_width": 100},  # help as wide as the terminal, up to 100
)


def _version(value: bool) -> None:
    if value:
        import masthead

        typer.echo(f"masthead {masthead.__version__}")
        raise typer.Exit()


def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """masthead: an editorial web platform on Markdown files and SQLite."""


app.command()(serve.serve)
app.command()(site.init)
app.callback()(_main)
app.command()(site.new)
app.command()(site.index)
app.command()(site.build)
app.command()(site.check)
app.command("search-log")(database.search_log)
app.command()(database.backup)
app.command()(database.vacuum)
app.add_typer(comments.comments_app, name="comments")
app.add_typer(imports.import_app, name="import")
app.command()(database.restore)
app.add_typer(admin, name="admin")
app.add_typer(mail, name="mail")
app.add_typer(translation, name="translation")
app.add_typer(replica, name="replica")


def _short_helps(group: typer.Typer) -> None:
    """Give each command of `group` its docstring's first paragraph, on one line, as the text
    listed in its group's help (Click would cut it to one line of the terminal, with "...")."""
    for info in group.registered_commands:
        doc = info.help or inspect.getdoc(info.callback) or ""
        if info.short_help is None:
            info.short_help = " ".join(doc.split("\n\n")[0].split())
    for sub in group.registered_groups:  # their help is given as `typer.Typer(help=...)`
        if sub.typer_instance is not None and isinstance(sub.typer_instance.info.help, str):
            first = sub.typer_instance.info.help.split("\n\n")[0]
            sub.typer_instance.info.short_help = " ".join(first.split())


for _group in (app, comments.comments_app, admin, mail, imports.import_app, translation, replica):
    _short_helps(_group)


def main() -> None:
    """The `masthead` program: the app, with a usage error (a missing argument, an unknown
    option or command, a bad option value) printed as one line like every other error,
    `error: COMMAND: what (see COMMAND --help)`, exit 2, instead of Typer's boxed panel."""
    try:
        code = app(standalone_mode=False)
    except typer.Abort:  # a confirmation answered no, or end of input
        typer.echo("Aborted.", err=True)
        code = 1
    except typer.TyperException as exc:  # click's ClickException and UsageError
        code = exc.exit_code
        if type(exc).__name__ == "NoArgsIsHelpError":  # a group alone: its help (Typer's test)
            typer.echo(exc.format_message())
            sys.exit(code)
        message = exc.format_message().strip().rstrip(".")
        ctx = getattr(exc, "ctx", None)
        if message:  # empty for a bare command group: its help is printed already
            command = ctx.command_path if ctx is not None else "masthead"
            said = message[:1].lower() + message[1:]
            typer.echo(
                typer.style("error:", fg="red")
                + f" {visible(command)}: {visible(said)} (see {visible(command)} --help)",
                err=True,
            )
    sys.exit(code or 0)
