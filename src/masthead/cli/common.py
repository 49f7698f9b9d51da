"""What every `masthead` command shares: the site folder it works on, one-line errors
(`error: PATH: cause`, exit 2), the consoles."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from masthead import __version__
from masthead.config import CONFIG_FILE, Site, load_site
from masthead.errors import ConfigError, MastheadError, visible

if TYPE_CHECKING:
    from masthead.store.db import Database


err = Console(stderr=True)


out = Console()


DEMO = Path(__file__).parent.parent / "demo"


PIPE_WIDTH = 10_000  # columns of a table printed to a pipe or file: rows never wrap


SiteArg = Annotated[
    Path | None, typer.Argument(help="Site folder (with masthead.toml); default: this folder.")
]


SiteFolder = Annotated[Path, typer.Argument(help="Site folder (with masthead.toml).")]


def demo_site() -> Site:
    """The bundled demo, with its database in the user's cache folder (not the package), one
    per installed copy (named by a hash of its folder and version): two checkouts or versions
    never share, nor migrate each other's, demo database."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "masthead"
    key = hashlib.sha256(f"{DEMO.resolve()}\0{__version__}".encode()).hexdigest()[:12]
    database = cache / f"demo-{key}.db"
    try:
        cache.mkdir(parents=True, exist_ok=True)  # our own folder: its parents too
    except OSError as exc:
        raise storage_failure(database, exc) from None
    return load_site(DEMO, {"database": str(database)})


def open_site(path: Path | None, empty_ok: bool = False) -> Site:
    """The site in folder `path` (None: the current folder). A folder with neither a
    `masthead.toml` file nor its content folder (`content/`, or `MASTHEAD_CONTENT_DIR`) is
    no site: `ConfigError` (exit 2), before anything is written there (the database would be
    created in it), unless `empty_ok` (`serve DIR`: an empty folder is served as an empty
    site, as the Docker image's empty `/site` volume is). A folder with `content/` and no
    `masthead.toml` is a site of default settings (and `MASTHEAD_*` variables)."""
    root = path or Path.cwd()
    if not root.is_dir():
        raise ConfigError(f"{root}: no such site folder")
    site = load_site(root)
    if not empty_ok and not is_site(site):
        raise ConfigError(not_a_site(root))
    return site


def is_site(site: Site) -> bool:
    """Whether `site`'s folder has a `masthead.toml` or its content folder."""
    return (site.root / CONFIG_FILE).is_file() or site.content_dir.is_dir()


def not_a_site(root: Path) -> str:
    """The one line for a folder that is no site (no `masthead.toml`, no content folder)."""
    return (
        f"{root.absolute()}: not a site folder (it has no {CONFIG_FILE} file and no content "
        "folder); `masthead init DIR` makes one"
    )


def fail(exc: MastheadError) -> typer.Exit:
    """Print `exc` as one line on stderr (never wrapped, no markup, controls escaped)."""
    typer.echo(typer.style("error:", fg="red") + " " + visible(str(exc)), err=True)
    return typer.Exit(2)


def os_cause(exc: BaseException) -> str:
    """The OS's words for `exc` without Python's `[Errno N]` prefix."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror + (f": {exc.filename}" if exc.filename else "")
    return str(exc)


def storage_failure(path: Path, exc: BaseException) -> MastheadError:
    from masthead.store.db import storage_error

    return storage_error(path, exc)


def open_db(site: Path) -> tuple[Site, Database]:
    from masthead.store.db import Database

    s = open_site(site)
    return s, Database(s.database_path, checkpoints=not s.replicated)
