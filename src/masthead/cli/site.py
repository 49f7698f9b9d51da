"""The commands that make and read a site's files: init, new, index, check, build."""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import shutil
import signal
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TextColumn
from rich.text import Text

from masthead.cli.common import (
    DEMO,
    SiteArg,
    err,
    fail,
    open_site,
    os_cause,
    storage_failure,
)
from masthead.config import Site, load_site
from masthead.errors import ConfigError, ContentIssue, MastheadError, visible

if TYPE_CHECKING:
    from masthead.export.build import BuildReport


def init(
    directory: Annotated[Path, typer.Argument(help="New site folder (empty or absent).")],
    empty: Annotated[
        bool,
        typer.Option(
            "--empty",
            help="Settings and an empty content folder: no sample posts, pages, authors or menu.",
        ),
    ] = False,
) -> None:
    """Create a new site: settings, sample posts (a bilingual pair among them), ready to serve;
    with --empty, the settings alone and an empty `content/posts/`."""
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise fail(ConfigError(f"{directory}: folder is not empty (or not a folder)"))
    try:
        if empty:
            (directory / "content" / "posts").mkdir(parents=True, exist_ok=True)
        else:
            shutil.copytree(
                DEMO, directory, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".masthead")
            )
        toml = directory / "masthead.toml"
        toml.write_text(_settings(directory, empty), encoding="utf-8")
    except (OSError, shutil.Error) as exc:  # a read-only or missing parent, a full disk
        raise fail(ConfigError(f"{directory}: cannot create the site ({os_cause(exc)})")) from None
    shown = visible(str(directory))
    what = "an empty site (no posts yet: `masthead new TITLE` starts one)" if empty else "a site"
    typer.echo(f"Created {what} in {shown}. Serve it with: masthead serve {shown}")


def _settings(directory: Path, empty: bool) -> str:
    """The demo's `masthead.toml` made the new site's: its folder's name as the title, the
    documented default zone; without the demo's descriptions and menu when `empty`."""
    text = (DEMO / "masthead.toml").read_text(encoding="utf-8")
    text = text.replace(
        'title = "masthead demo"', f"title = {json.dumps(directory.resolve().name)}"
    )
    # the demo's zone is its author's; a new site starts at the documented default
    text = text.replace(
        'timezone = "Asia/Shanghai"',
        'timezone = "UTC"  # the IANA zone of dates without an offset, e.g. "Asia/Shanghai"',
    )
    if empty:  # the menu links the demo's About page; the descriptions describe the demo
        text = text.split("# header and footer links", 1)[0].rstrip() + "\n"
        text = "".join(
            line for line in text.splitlines(keepends=True) if not line.startswith("description")
        )
    return text


def new(
    args: Annotated[
        list[str],
        typer.Argument(
            metavar="[SITE] TITLE",
            help="The post's title; before it, the site folder (default: this folder).",
            show_default=False,
        ),
    ],
    lang: Annotated[
        str | None, typer.Option("--lang", help="Language code (default: the site's).")
    ] = None,
    translation_of: Annotated[
        Path | None,
        typer.Option("--translation-of", help="The content file this post translates."),
    ] = None,
) -> None:
    """Start a post: a draft file with front matter (title, date now, slug from the title),
    where the site's layout puts it; prints its path. Never overwrites a file. Inside a site
    folder: `masthead new "Title"`; elsewhere: `masthead new SITE "Title"`."""
    from datetime import UTC, datetime

    from masthead.content import new as newpost

    if len(args) > 2:
        raise fail(
            ConfigError(
                f"{len(args)} arguments: give the title as one (quote it: "
                f'masthead new "{" ".join(args)}"), after the site folder if you name one'
            )
        )
    site, title = (None, args[0]) if len(args) == 1 else (Path(args[0]), args[1])
    try:
        planned = newpost.plan(open_site(site), title, datetime.now(UTC), lang, translation_of)
        path = newpost.create(planned)
    except MastheadError as exc:
        raise fail(exc) from None
    except OSError as exc:
        raise fail(ConfigError(f"cannot write the post ({os_cause(exc)})")) from None
    typer.echo(visible(str(path)))


class _PostsPerSecond(ProgressColumn):
    """The parsing rate of an index bar (rich's speed: a moving average over the last seconds)."""

    def render(self, task: Task) -> Text:
        return Text(f"{task.speed:,.0f} posts/s" if task.speed else "", style="progress.data.speed")


def index(
    site: SiteArg = None,
    full: Annotated[bool, typer.Option("--full", help="Re-parse every file.")] = False,
    workers: Annotated[
        int | None,
        typer.Option(help="Processes that parse (default: every core, from 64 files).", min=1),
    ] = None,
) -> None:
    """Bring the SQLite index in step with the content files (incremental by default)."""
    from masthead.indexing.indexer import index_site
    from masthead.store import posts as store
    from masthead.store.db import Database

    logging.getLogger("masthead").addHandler(logging.NullHandler())  # errors are echoed below
    try:
        s = open_site(site)
        db = Database(s.database_path, checkpoints=not s.replicated)
    except MastheadError as exc:
        raise fail(exc) from None
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
        raise fail(storage_failure(s.database_path, exc)) from None
    finally:
        db.close()
    for issue in errors:
        typer.echo(issue.format(), err=True)
    typer.echo(  # plain: one line at any width, in a terminal or a pipe
        f"{report.files} files: {report.parsed} parsed, {report.unchanged} unchanged, "
        f"{report.deleted} removed, {len(errors)} with errors "
        f"({report.seconds:.2f}s, generation {report.generation})"
    )


def build(
    site: Annotated[Path, typer.Argument(help="Site folder (with masthead.toml).")],
    out: Annotated[Path, typer.Argument(help="Folder to write the static site into.")],
    base_url: Annotated[
        str | None,
        typer.Option(help="Absolute URL the site is served at (default: the base_url setting)."),
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option(
            help="Processes that render pages (default: one per 320 pages, at most one per "
            "core this process may use; a smaller site renders in this process, as 1 does).",
            min=1,
        ),
    ] = None,
    watch: Annotated[
        bool,
        typer.Option(
            "--watch",
            help="Keep building after every change to the site's files or database (a saved "
            "post, a moderated comment) until interrupted.",
        ),
    ] = False,
) -> None:
    """Write the whole public site into OUT as files for a static host or CDN (incremental)."""
    from masthead.export.build import build as build_site

    logging.getLogger("masthead").addHandler(logging.NullHandler())  # missing URLs echoed below
    try:
        s = open_site(site)
        if base_url is not None:
            s = with_base_url(s, base_url)
        elif "base_url" not in s.settings.model_fields_set or not s.settings.base_url:
            raise ConfigError(
                f"{s.root}: no base_url; an export needs the site's absolute URL for canonical "
                "links and feeds: set base_url in masthead.toml or pass --base-url"
            )
        if watch:
            _watch(s, out, jobs, base_url)
            return
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
        raise fail(exc) from None
    except (sqlite3.Error, OSError) as exc:  # a full disk while indexing, say
        raise fail(storage_failure(s.database_path, exc)) from None
    _built(report, out)


def _built(report: BuildReport, out: Path) -> None:
    """Say what a build did: the URLs left out, then one summary line."""
    for url in report.missing:
        typer.echo(f"warning: {visible(url)}: not answered with 200; left out", err=True)
    out_console = out.resolve()
    typer.echo(
        f"{report.files} files in {visible(str(out_console))}: {report.written} written, "
        f"{report.unchanged} unchanged, {report.removed} removed ({report.seconds:.2f}s)"
    )


def _watch(site: Site, out: Path, jobs: int | None, base_url: str | None) -> None:
    """`build --watch`: build, then again after every change, until Ctrl-C (export/watch.py)."""
    from masthead.export.watch import watch

    def reload(old: Site) -> Site:
        fresh = open_site(old.root)
        return with_base_url(fresh, base_url) if base_url is not None else fresh

    def failed(exc: Exception) -> None:
        typer.echo(f"error: {exc}", err=True)

    stop = threading.Event()
    typer.echo("watching for changes (Ctrl-C to stop)", err=True)
    with signals_end_watch(stop):
        watch(
            site,
            out,
            jobs=jobs,
            reload=reload,
            on_build=lambda r: _built(r, out),
            on_error=failed,
            stop=stop,
        )


class WatchEnded(KeyboardInterrupt):
    """Ctrl-C or SIGTERM during `build --watch`. A subclass, not KeyboardInterrupt itself:
    CPython marks a plain KeyboardInterrupt raised inside `eval()` of a string (FastAPI
    evaluates a route's annotations so, the first time a build's page is routed) as
    unhandled, and the process then ends killed by SIGINT (exit -2) after it was caught."""


@contextlib.contextmanager
def signals_end_watch(stop: threading.Event) -> Iterator[None]:
    """Within the block, Ctrl-C or SIGTERM (`docker stop`) sets `stop` and ends the block,
    quietly: the end of watching, not an error. A build under way stops at once (its files
    are written whole); the watch, if the build swallowed the interrupt, at its next look.
    Installed whatever the signals' disposition was (a process started in the background of
    a script inherits SIGINT ignored; as a container's first process SIGTERM does nothing
    without a handler), as `masthead serve`'s servers do; put back after."""

    def end(_signum: int, _frame: object) -> None:
        stop.set()
        raise WatchEnded

    ends = (signal.SIGINT, signal.SIGTERM)
    previous = {sig: signal.signal(sig, end) for sig in ends}
    try:
        yield
    except KeyboardInterrupt:  # WatchEnded, or watchfiles' own when it saw the signal first
        end_thread_workers()
    finally:
        for sig, handler in previous.items():
            if handler is not None:  # None: set outside Python, cannot be put back
                signal.signal(sig, handler)


def end_thread_workers() -> None:
    """Tell AnyIO's idle worker threads to end. Starlette runs a sync route in one; they are
    not daemons, and each ends when the task that ran the event loop is done (a callback on
    it). A signal raised inside a build's event loop can leave one waiting for work that never
    comes, and the process then waited for it at exit for good: `build --watch` did not end
    on Ctrl-C (3 times in 7 under a CPU hog). AnyIO has no public way to end them."""
    from anyio._backends._asyncio import WorkerThread

    for thread in threading.enumerate():
        if isinstance(thread, WorkerThread) and thread.is_alive():
            with contextlib.suppress(queue.Full):  # never for an idle one: its queue is empty
                thread.stop()


def with_base_url(site: Site, base_url: str) -> Site:
    """`site` with `--base-url` as its base_url; a bad value is blamed on the option, not on
    masthead.toml (which may have no base_url at all)."""
    try:
        return load_site(site.root, {"base_url": base_url})
    except ConfigError as exc:
        if "base_url" not in str(exc):
            raise
        reason = "must be an absolute http(s) URL, e.g. https://blog.example.com"
        raise ConfigError(f"--base-url {base_url}: {reason}") from None


def check(
    site: SiteArg = None,
    strict: Annotated[bool, typer.Option("--strict", help="Warnings fail too.")] = False,
) -> None:
    """Validate every content file; print `path:line: reason` for each problem."""
    from masthead.indexing.check import check_site

    try:
        s = open_site(site)
    except MastheadError as exc:
        raise fail(exc) from None
    issues: list[ContentIssue] = check_site(s)
    for issue in issues:
        typer.echo(issue.format())  # one line per problem, never wrapped: editors parse it
    errors = sum(1 for i in issues if i.severity == "error")
    warnings = sum(1 for i in issues if i.severity == "warning")
    infos = len(issues) - errors - warnings  # "info": expected on a normal site, never fails
    typer.echo(f"errors: {errors}, warnings: {warnings}, info: {infos}", err=True)
    if errors or (strict and warnings):
        raise typer.Exit(1)
