"""The `masthead` command: serve, init, index, build, check, search-log, backup, vacuum, restore,
comments (import, export, export-person, erase).

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

import hashlib
import inspect
import json
import logging
import os
import shutil
import sqlite3
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TextColumn
from rich.text import Text

from masthead import __version__
from masthead.config import CONFIG_FILE, Site, load_site
from masthead.errors import ConfigError, ContentIssue, MastheadError, StorageError
from masthead.errors import visible as _visible

if TYPE_CHECKING:
    from masthead.store.db import Database

app = typer.Typer(
    help="masthead: an editorial web platform on Markdown files and SQLite.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,  # plain help: paragraphs re-wrapped as prose, no <bool> per flag
    context_settings={"max_content_width": 100},  # help as wide as the terminal, up to 100
)
err = Console(stderr=True)
out = Console()
DEMO = Path(__file__).parent / "demo"
_PIPE_WIDTH = 10_000  # columns of a table printed to a pipe or file: rows never wrap
SiteArg = Annotated[
    Path | None, typer.Argument(help="Site folder (with masthead.toml); default: this folder.")
]


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
        raise _storage(database, exc) from None
    return load_site(DEMO, {"database": str(database)})


def _site(path: Path | None, empty_ok: bool = False) -> Site:
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


def _fail(exc: MastheadError) -> typer.Exit:
    """Print `exc` as one line on stderr (never wrapped, no markup, controls escaped)."""
    typer.echo(typer.style("error:", fg="red") + " " + _visible(str(exc)), err=True)
    return typer.Exit(2)


def _cause(exc: BaseException) -> str:
    """The OS's words for `exc` without Python's `[Errno N]` prefix."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror + (f": {exc.filename}" if exc.filename else "")
    return str(exc)


def _storage(path: Path, exc: BaseException) -> MastheadError:
    from masthead.store.db import storage_error

    return storage_error(path, exc)


@app.command()
def serve(
    site: Annotated[
        Path | None,
        typer.Argument(
            help="Site folder; default: this folder if it has a masthead.toml, else the demo."
        ),
    ] = None,
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option(help="TCP port; 0 picks a free one.", min=0, max=65535)
    ] = 8000,
    dev: Annotated[
        bool,
        typer.Option(help="Development mode: drafts shown, no caching, pages reload on save."),
    ] = False,
    watch: Annotated[
        bool, typer.Option("--watch/--no-watch", help="Re-index files as they change.")
    ] = True,
    workers: Annotated[
        int | None,
        typer.Option(help="Worker processes; default: one per usable CPU, one under --dev.", min=1),
    ] = None,
    access_log: Annotated[
        bool | None,
        typer.Option(
            "--access-log/--no-access-log",
            help="Log one line per request; default: on under --dev only.",
        ),
    ] = None,
    server_name: Annotated[
        str | None,
        typer.Option(
            "--server",
            help="HTTP server: granian (default in production) or uvicorn (always under --dev).",
        ),
    ] = None,
) -> None:
    """Index the site (incrementally, once) and serve it over HTTP with N worker processes."""
    from masthead import server
    from masthead.web.address import base_url

    n = workers or server.default_workers(dev)
    if dev and n > 1:
        raise _fail(
            ConfigError(
                "--dev serves with one worker (live reload and template changes live in one "
                "process); drop --workers or --dev"
            )
        )
    server_name = server_name or ("uvicorn" if dev else "granian")
    if server_name not in ("uvicorn", "granian") or (dev and server_name != "uvicorn"):
        raise _fail(
            ConfigError(f"--server {server_name}: choose uvicorn or granian (not under --dev)")
        )
    on_granian = server_name == "granian"
    logging.basicConfig(level=logging.INFO, format=server.LOG_FORMAT)
    demo_because = None
    try:
        if site is None and is_site(load_site(Path.cwd())):
            site = Path.cwd()  # as check and index do; elsewhere (no site) the bundled demo
        elif site is None:
            demo_because = Path.cwd().absolute()
        s = _site(site, empty_ok=True) if site else demo_site()
    except MastheadError as exc:
        raise _fail(exc) from None
    try:  # bound first: the URL printed is the one listened on (--port 0: one port, picked once)
        sock = server.reserve(host, port) if on_granian else server.listen(host, port)
    except OSError as exc:
        raise _fail(ConfigError(f"cannot listen on {host}:{port}: {exc.strerror}")) from None
    served = server.address_of(sock, host)
    log_requests = dev if access_log is None else access_log
    in_process = n == 1 and not on_granian
    try:
        if in_process:
            from masthead.web.app import create_app, warm_up_soon

            application = create_app(s, dev=dev, watch=watch, served=served)
            warm_up_soon(application)
        else:
            server.index_once(s)  # once, before the workers start
        if demo_because is not None:  # the Quick start: say it is the demo, and why
            typer.echo(
                f"masthead: serving the bundled demo site {_visible(str(s.root))} at {served}/ "
                f"({_visible(str(demo_because))} has no {CONFIG_FILE}: `masthead init DIR` "
                "makes a site, `masthead serve DIR` serves it)"
            )
        elif not is_site(s):  # the Docker image's empty /site: say it is empty, and why
            typer.echo(
                f"masthead: serving {_visible(str(s.root))} at {served}/ as an empty site "
                f"(it has no {CONFIG_FILE} and no content folder yet)"
            )
        else:
            typer.echo(f"masthead: serving {_visible(str(s.root))} at {served}/")
        base = base_url(s.settings, dev=dev, served=served)
        typer.echo(f"masthead: base URL {_visible(base.url)}, from {base.source}; {n} worker(s)")
        overrides = {} if site else {"database": str(s.database_path)}
        plan = server.Plan(str(s.root), served, dev, watch, overrides, server_name)
        if in_process:
            server.serve_one(application, sock, access_log=log_requests)
        elif on_granian:
            port = sock.getsockname()[1]  # the reservation stays open: the port is ours
            server.serve_granian(plan, host, port, workers=n, access_log=log_requests)
        else:
            server.serve_many(plan, sock, workers=n, access_log=log_requests)
    except (sqlite3.Error, OSError) as exc:  # a full disk while indexing, say
        raise _fail(_storage(s.database_path, exc)) from None
    except MastheadError as exc:
        raise _fail(exc) from None
    finally:
        sock.close()  # the reservation ends with the server


def _with_base_url(site: Site, base_url: str) -> Site:
    """`site` with `--base-url` as its base_url; a bad value is blamed on the option, not on
    masthead.toml (which may have no base_url at all)."""
    try:
        return load_site(site.root, {"base_url": base_url})
    except ConfigError as exc:
        if "base_url" not in str(exc):
            raise
        reason = "must be an absolute http(s) URL, e.g. https://blog.example.com"
        raise ConfigError(f"--base-url {base_url}: {reason}") from None


@app.command()
def init(
    directory: Annotated[Path, typer.Argument(help="New site folder (empty or absent).")],
) -> None:
    """Create a new site: settings, sample posts (a bilingual pair among them), ready to serve."""
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise _fail(ConfigError(f"{directory}: folder is not empty (or not a folder)"))
    try:
        shutil.copytree(
            DEMO, directory, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".masthead")
        )
        toml = directory / "masthead.toml"
        text = toml.read_text(encoding="utf-8").replace(
            'title = "masthead demo"', f"title = {json.dumps(directory.resolve().name)}"
        )
        # the demo's zone is its author's; a new site starts at the documented default
        text = text.replace(
            'timezone = "Asia/Shanghai"',
            'timezone = "UTC"  # the IANA zone of dates without an offset, e.g. "Asia/Shanghai"',
        )
        toml.write_text(text, encoding="utf-8")
    except (OSError, shutil.Error) as exc:  # a read-only or missing parent, a full disk
        raise _fail(ConfigError(f"{directory}: cannot create the site ({_cause(exc)})")) from None
    shown = _visible(str(directory))
    typer.echo(f"Created a site in {shown}. Serve it with: masthead serve {shown}")


def _version(value: bool) -> None:
    if value:
        import masthead

        typer.echo(f"masthead {masthead.__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """masthead: an editorial web platform on Markdown files and SQLite."""


@app.command()
def new(
    site: Annotated[Path, typer.Argument(help="Site folder (with masthead.toml).")],
    title: Annotated[str, typer.Argument(help="The post's title.")],
    lang: Annotated[
        str | None, typer.Option("--lang", help="Language code (default: the site's).")
    ] = None,
    translation_of: Annotated[
        Path | None,
        typer.Option("--translation-of", help="The content file this post translates."),
    ] = None,
) -> None:
    """Start a post: a draft file with front matter (title, date now, slug from the title),
    where the site's layout puts it; prints its path. Never overwrites a file."""
    from datetime import UTC, datetime

    from masthead import newpost

    try:
        planned = newpost.plan(_site(site), title, datetime.now(UTC), lang, translation_of)
        path = newpost.create(planned)
    except MastheadError as exc:
        raise _fail(exc) from None
    except OSError as exc:
        raise _fail(ConfigError(f"cannot write the post ({_cause(exc)})")) from None
    typer.echo(_visible(str(path)))


class _PostsPerSecond(ProgressColumn):
    """The parsing rate of an index bar (rich's speed: a moving average over the last seconds)."""

    def render(self, task: Task) -> Text:
        return Text(f"{task.speed:,.0f} posts/s" if task.speed else "", style="progress.data.speed")


@app.command()
def index(
    site: SiteArg = None,
    full: Annotated[bool, typer.Option("--full", help="Re-parse every file.")] = False,
    workers: Annotated[
        int | None,
        typer.Option(help="Processes that parse (default: every core, from 64 files).", min=1),
    ] = None,
) -> None:
    """Bring the SQLite index in step with the content files (incremental by default)."""
    from masthead.indexer import index_site
    from masthead.store import posts as store
    from masthead.store.db import Database

    logging.getLogger("masthead").addHandler(logging.NullHandler())  # errors are echoed below
    try:
        s = _site(site)
        db = Database(s.database_path)
    except MastheadError as exc:
        raise _fail(exc) from None
    try:
        with Progress(
            TextColumn("indexing"),
            BarColumn(),
            MofNCompleteColumn(),
            _PostsPerSecond(),
            console=err,
            transient=True,
            disable=not err.is_terminal,  # a log or a pipe gets no bar (not even a blank line)
            auto_refresh=False,  # no refresh thread: the indexer may fork its worker pool
        ) as bar:
            task = bar.add_task("index", total=None)
            shown = [0.0]

            def progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)
                now = time.monotonic()
                if now - shown[0] >= 0.1 or done == total:
                    shown[0] = now
                    bar.refresh()

            report = index_site(s, db, full=full, progress=progress, workers=workers)
        # every open error, also of files this pass did not re-read (their last good post is served)
        errors = [i for i in store.issues(db.read()) if i.severity == "error"]
    except (sqlite3.Error, OSError) as exc:  # a full disk while writing the index, say
        raise _fail(_storage(s.database_path, exc)) from None
    finally:
        db.close()
    for issue in errors:
        typer.echo(issue.format(), err=True)
    typer.echo(  # plain: one line at any width, in a terminal or a pipe
        f"{report.files} files: {report.parsed} parsed, {report.unchanged} unchanged, "
        f"{report.deleted} removed, {len(errors)} with errors "
        f"({report.seconds:.2f}s, generation {report.generation})"
    )


@app.command()
def build(
    site: Annotated[Path, typer.Argument(help="Site folder (with masthead.toml).")],
    out: Annotated[Path, typer.Argument(help="Folder to write the static site into.")],
    base_url: Annotated[
        str | None,
        typer.Option(help="Absolute URL the site is served at (default: the base_url setting)."),
    ] = None,
    jobs: Annotated[
        int, typer.Option(help="Processes that render pages (worth it on idle cores).", min=1)
    ] = 1,
) -> None:
    """Write the whole public site into OUT as files for a static host or CDN (incremental)."""
    from masthead.export import build as build_site

    logging.getLogger("masthead").addHandler(logging.NullHandler())  # missing URLs echoed below
    try:
        s = _site(site)
        if base_url is not None:
            s = _with_base_url(s, base_url)
        elif "base_url" not in s.settings.model_fields_set or not s.settings.base_url:
            raise ConfigError(
                f"{s.root}: no base_url; an export needs the site's absolute URL for canonical "
                "links and feeds: set base_url in masthead.toml or pass --base-url"
            )
        with Progress(
            TextColumn("building"),
            BarColumn(),
            MofNCompleteColumn(),
            console=err,
            transient=True,
            disable=not err.is_terminal,
        ) as bar:
            task = bar.add_task("build", total=None)
            report = build_site(
                s,
                out,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
                jobs=jobs,
            )
    except MastheadError as exc:
        raise _fail(exc) from None
    except (sqlite3.Error, OSError) as exc:  # a full disk while indexing, say
        raise _fail(_storage(s.database_path, exc)) from None
    for url in report.missing:
        typer.echo(f"warning: {_visible(url)}: not answered with 200; left out", err=True)
    out_console = out.resolve()
    typer.echo(
        f"{report.files} files in {_visible(str(out_console))}: {report.written} written, "
        f"{report.unchanged} unchanged, {report.removed} removed ({report.seconds:.2f}s)"
    )


@app.command()
def check(
    site: SiteArg = None,
    strict: Annotated[bool, typer.Option("--strict", help="Warnings fail too.")] = False,
) -> None:
    """Validate every content file; print `path:line: reason` for each problem."""
    from masthead.checker import check_site

    try:
        s = _site(site)
    except MastheadError as exc:
        raise _fail(exc) from None
    issues: list[ContentIssue] = check_site(s)
    for issue in issues:
        typer.echo(issue.format())  # one line per problem, never wrapped: editors parse it
    errors = sum(1 for i in issues if i.severity == "error")
    warnings = sum(1 for i in issues if i.severity == "warning")
    infos = len(issues) - errors - warnings  # "info": expected on a normal site, never fails
    typer.echo(f"errors: {errors}, warnings: {warnings}, info: {infos}", err=True)
    if errors or (strict and warnings):
        raise typer.Exit(1)


@app.command("search-log")
def search_log(
    site: SiteArg = None,
    days: Annotated[int, typer.Option(help="The period: the last N days.", min=1)] = 30,
    limit: Annotated[int, typer.Option(help="Rows per table.", min=1)] = 20,
) -> None:
    """Print the top queries and the top queries that found nothing, for the last N days."""
    import time

    from rich.table import Table
    from rich.text import Text

    from masthead.store import search as store
    from masthead.store.db import Database

    try:
        s = _site(site)
        db = Database(s.database_path)
    except MastheadError as exc:
        raise _fail(exc) from None
    since = time.time() - days * 86400
    conn = db.read()
    # in a pipe, one line per row (for grep and scripts), not rows wrapped at 80 columns
    console = out if out.is_terminal else Console(width=_PIPE_WIDTH)
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
                Text(_visible(row["query"])),
                Text(_visible(filters)),
                str(row["searches"]),
                str(row["results"]),
            )
        if not rows:
            table.add_row("(none)", "", "", "")
        console.print(table)
    db.close()


@app.command()
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
        s = _site(site)
        if not s.database_path.exists():
            raise ConfigError(f"{s.database_path}: no database yet (run masthead index first)")
        try:
            pages = sqlite_backup(s.database_path, destination, replace=force)
        except BackupExists as exc:
            raise StorageError(
                exc.path, f"{exc.cause} (pass --force to replace a backup)"
            ) from None
    except MastheadError as exc:
        raise _fail(exc) from None
    size = destination.stat().st_size
    typer.echo(
        f"Backed up {_visible(str(s.database_path))} to {_visible(str(destination))} "
        f"({pages} pages, {size:,} bytes)"
    )


@app.command()
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
        s = _site(site)
        if not s.database_path.exists():
            raise ConfigError(f"{s.database_path}: no database yet (run masthead index first)")
        before = file_size(s.database_path)
        db = Database(s.database_path)
        try:  # FTS5 keeps a deleted post's terms until its segments merge: merge them first
            with db.write() as conn:
                search_store.optimize(conn)
        except sqlite3.Error as exc:
            raise storage_error(s.database_path, exc) from None
        finally:
            db.close()
        after = sqlite_vacuum(s.database_path)[1]
    except MastheadError as exc:
        raise _fail(exc) from None
    typer.echo(
        f"Compacted {_visible(str(s.database_path))}: {before:,} bytes before, {after:,} bytes "
        f"after ({max(before - after, 0):,} bytes given back)"
    )


# --- comments: import, export and a commenter's data request (comments_io) ---------------------

comments_app = typer.Typer(
    help="Comments: import (WordPress WXR, Disqus XML, masthead JSON), export, data requests.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(comments_app, name="comments")
SiteFolder = Annotated[Path, typer.Argument(help="Site folder (with masthead.toml).")]


def _open_db(site: Path) -> tuple[Site, Database]:
    from masthead.store.db import Database

    s = _site(site)
    return s, Database(s.database_path)


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
    from masthead import comments_io
    from masthead.indexer import index_site

    logging.getLogger("masthead").addHandler(logging.NullHandler())
    try:
        s, db = _open_db(site)
    except MastheadError as exc:
        raise _fail(exc) from None
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
        raise _fail(ConfigError(f"{file}: cannot read the export ({_cause(exc)})")) from None
    except sqlite3.Error as exc:
        raise _fail(_storage(s.database_path, exc)) from None
    finally:
        db.close()
    for line in report.lines():
        typer.echo(_visible(line), err=bool(report.problems))
    raise typer.Exit(report.exit_code)


@comments_app.command("export")
def comments_export(
    site: SiteFolder,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="File to write; default: stdout.")
    ] = None,
) -> None:
    """Write every comment (every status, placeholders too) as JSON; `import` reads it back."""
    from masthead import comments_io

    try:
        s, db = _open_db(site)
    except MastheadError as exc:
        raise _fail(exc) from None
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
        raise _fail(ConfigError(f"{output}: cannot write the export ({_cause(exc)})")) from None
    finally:
        db.close()
    typer.echo(f"{count} comments exported", err=True)


@comments_app.command("export-person")
def comments_export_person(
    site: SiteFolder,
    email: Annotated[str, typer.Argument(help="The commenter's email address.")],
) -> None:
    """Print, as JSON, every comment written with EMAIL (a commenter's data request)."""
    from masthead import comments_io
    from masthead.store import comments as store

    try:
        _, db = _open_db(site)
    except MastheadError as exc:
        raise _fail(exc) from None
    try:
        found = store.by_email(db.read(), email)
    finally:
        db.close()
    typer.echo(json.dumps(comments_io.person_json(found, email), ensure_ascii=False, indent=2))


@comments_app.command("erase")
def comments_erase(
    site: SiteFolder,
    email: Annotated[str, typer.Argument(help="The commenter's email address.")],
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")] = False,
) -> None:
    """Erase every comment written with EMAIL; a comment with replies leaves an anonymous
    placeholder so the thread keeps its shape. Cannot be undone (a backup can)."""
    from masthead import comments_io
    from masthead.store import comments as store

    try:
        _, db = _open_db(site)
    except MastheadError as exc:
        raise _fail(exc) from None
    try:
        found = store.by_email(db.read(), email)
        if found and not yes:
            typer.confirm(f"Erase {len(found)} comment(s) for good?", abort=True)
        erased, kept = comments_io.erase(db, email) if found else (0, 0)
    finally:
        db.close()
    typer.echo(
        f"{erased} comment(s) erased, {kept} left as anonymous placeholders for their replies"
    )


@app.command()
def restore(
    site: Annotated[Path, typer.Argument(help="Site folder whose database to replace.")],
    backup_file: Annotated[Path, typer.Argument(metavar="BACKUP", help="A masthead backup.")],
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")] = False,
) -> None:
    """Replace the site's database by BACKUP, once it has passed an integrity and a schema
    check (an older schema is migrated); the database as it was is kept beside it."""
    from masthead.store.restore import check_backup
    from masthead.store.restore import restore as restore_db

    try:
        s = _site(site)
        check_backup(backup_file)  # refused before asking
        if s.database_path.exists() and not yes:
            typer.confirm(f"Replace {s.database_path} by {backup_file}?", abort=True)
        done = restore_db(backup_file, s.database_path)
    except MastheadError as exc:
        raise _fail(exc) from None
    kept = f"; the previous database is kept as {_visible(str(done.kept))}" if done.kept else ""
    migrated = (
        f", migrated from schema {done.from_version}"
        if done.to_version != done.from_version
        else ""
    )
    typer.echo(
        f"Restored {_visible(str(backup_file))} into {_visible(str(s.database_path))} "
        f"(schema {done.to_version}{migrated}, {done.comments} comments){kept}"
    )


def _subcommands() -> None:
    from masthead.cli_admin import admin
    from masthead.cli_mail import mail

    app.add_typer(admin, name="admin")
    app.add_typer(mail, name="mail")
    for group in (app, comments_app, admin, mail):
        _short_helps(group)


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


_subcommands()


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
                + f" {_visible(command)}: {_visible(said)} (see {_visible(command)} --help)",
                err=True,
            )
    sys.exit(code or 0)
