"""`masthead admin ...`: the /guanli accounts (add-user, list, remove, password, token).

Passwords come from a prompt (asked twice, never echoed) or, with `--password-stdin`, from the
first line of standard input, so scripts never put one on a command line; without a terminal
and without `--password-stdin` the command says to use it. Errors a user can fix
are one line on stderr and exit 2, like every other command.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TypeVar

import typer

from masthead.accounts import service as accounts
from masthead.cli.common import fail, open_site
from masthead.errors import ConfigError, MastheadError
from masthead.errors import visible as _visible
from masthead.store.db import Database

T = TypeVar("T")
admin = typer.Typer(
    help="Accounts of the /guanli dashboard.", no_args_is_help=True, rich_markup_mode=None
)
SitePath = Annotated[Path, typer.Argument(help="Site folder (with masthead.toml).")]
Name = Annotated[str, typer.Argument(help="User name (letters, digits, '.', '_', '-').")]
Stdin = Annotated[
    bool, typer.Option("--password-stdin", help="Read the password from standard input.")
]


def _with_db(site: Path, act: Callable[[Database], T]) -> T:

    try:
        s = open_site(site)
        db = Database(s.database_path, checkpoints=not s.replicated)
    except MastheadError as exc:
        raise fail(exc) from None
    try:
        return act(db)
    except MastheadError as exc:
        raise fail(exc) from None
    finally:
        db.close()


def _require_site(site: Path) -> None:
    """Exit 2 with one line when `site` is no site folder, before a password is asked for."""

    try:
        open_site(site)
    except MastheadError as exc:
        raise fail(exc) from None


def _password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    if not _terminal():  # getpass would warn, read the pipe and echo it: say what to do
        raise fail(
            ConfigError(
                "no terminal to type the password in: pipe it in with --password-stdin "
                "(printf '%s\\n' \"$PASSWORD\" | masthead admin ... --password-stdin)"
            )
        )
    return str(typer.prompt("Password", hide_input=True, confirmation_prompt=True))


def _terminal() -> bool:
    """Whether this process has a terminal a hidden prompt can read (getpass uses /dev/tty)."""
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return sys.stdin.isatty()  # no /dev/tty (Windows): getpass reads the console
    os.close(fd)
    return True


@admin.command("add-user")
def add_user(
    site: SitePath,
    name: Name,
    role: Annotated[str, typer.Option(help="editor (moderates) or admin (also users).")] = "editor",
    email: Annotated[str, typer.Option(help="Their address (comments claiming it are held).")] = "",
    password_stdin: Stdin = False,
) -> None:
    """Add a dashboard user."""
    _require_site(site)
    password = _password(password_stdin)
    user = _with_db(site, lambda db: accounts.add_user(db, name, password, role, email))
    typer.echo(f"Added {_visible(user.name)} ({user.role})")


@admin.command("list")
def list_users(site: SitePath) -> None:
    """List the dashboard users with their role, sessions and tokens."""
    from masthead.store import users as store

    def rows(db: Database) -> list[str]:
        conn = db.read()
        out = []
        for u in store.users(conn):
            sessions = len(store.sessions_of(conn, u.id))
            tokens = store.token_count(conn, u.id)
            out.append(
                f"{_visible(u.name)}\t{u.role}\t{_visible(u.email) or '-'}\t"
                f"{sessions} sessions\t{tokens} tokens"
            )
        return out

    lines = _with_db(site, rows)
    typer.echo("\n".join(lines) if lines else "(no users: add one with masthead admin add-user)")


@admin.command("remove")
def remove(site: SitePath, name: Name) -> None:
    """Remove a user, their sessions and tokens."""
    _with_db(site, lambda db: accounts.remove_user(db, name))
    typer.echo(f"Removed {_visible(name)}")


@admin.command("password")
def password(site: SitePath, name: Name, password_stdin: Stdin = False) -> None:
    """Set a user's password; their sessions end."""
    _require_site(site)
    secret = _password(password_stdin)
    _with_db(site, lambda db: accounts.set_password(db, name, secret))
    typer.echo(f"Password of {_visible(name)} changed; their sessions ended")


@admin.command("token")
def token(
    site: SitePath,
    name: Name,
    revoke: Annotated[bool, typer.Option("--revoke", help="Revoke all their tokens.")] = False,
) -> None:
    """Print a new API token (alone on the last line, once), or revoke them all."""
    if revoke:
        count = _with_db(site, lambda db: accounts.revoke_tokens(db, name))
        typer.echo(f"Revoked {count} tokens of {_visible(name)}")
        return
    secret = _with_db(site, lambda db: accounts.new_token(db, name))
    typer.echo(f"API token for {_visible(name)} (shown once; keep it secret):")
    typer.echo(secret)
