"""`masthead serve`: index the site once, then serve it with N worker processes."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import Annotated

import typer

from masthead.cli.common import (
    demo_site,
    fail,
    is_site,
    open_site,
    storage_failure,
)
from masthead.config import CONFIG_FILE, load_site
from masthead.errors import ConfigError, MastheadError, visible


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
    from masthead.cli import server
    from masthead.web.http.address import base_url

    n = workers or server.default_workers(dev)
    if dev and n > 1:
        raise fail(
            ConfigError(
                "--dev serves with one worker (live reload and template changes live in one "
                "process); drop --workers or --dev"
            )
        )
    server_name = server_name or ("uvicorn" if dev else "granian")
    if server_name not in ("uvicorn", "granian") or (dev and server_name != "uvicorn"):
        raise fail(
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
        s = open_site(site, empty_ok=True) if site else demo_site()
    except MastheadError as exc:
        raise fail(exc) from None
    try:  # bound first: the URL printed is the one listened on (--port 0: one port, picked once)
        sock = server.reserve(host, port) if on_granian else server.listen(host, port)
    except OSError as exc:
        raise fail(ConfigError(f"cannot listen on {host}:{port}: {exc.strerror}")) from None
    served = server.address_of(sock, host)
    log_requests = dev if access_log is None else access_log
    in_process = n == 1 and not on_granian
    try:
        if in_process:
            from masthead.web.app import create_app, warm_up_soon

            application = create_app(s, dev=dev, watch=watch, served=served, replicate=True)
            warm_up_soon(application)
        else:
            server.index_once(s)  # once, before the workers start
        if demo_because is not None:  # the Quick start: say it is the demo, and why
            typer.echo(
                f"masthead: serving the bundled demo site {visible(str(s.root))} at {served}/ "
                f"({visible(str(demo_because))} has no {CONFIG_FILE}: `masthead init DIR` "
                "makes a site, `masthead serve DIR` serves it)"
            )
        elif not is_site(s):  # the Docker image's empty /site: say it is empty, and why
            typer.echo(
                f"masthead: serving {visible(str(s.root))} at {served}/ as an empty site "
                f"(it has no {CONFIG_FILE} and no content folder yet)"
            )
        else:
            typer.echo(f"masthead: serving {visible(str(s.root))} at {served}/")
        base = base_url(s.settings, dev=dev, served=served)
        typer.echo(f"masthead: base URL {visible(base.url)}, from {base.source}; {n} worker(s)")
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
        raise fail(storage_failure(s.database_path, exc)) from None
    except MastheadError as exc:
        raise fail(exc) from None
    finally:
        sock.close()  # the reservation ends with the server
