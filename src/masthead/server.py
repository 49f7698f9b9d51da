"""How `masthead serve` runs: one listening socket, the index brought up to date once, N workers.

The parent binds the socket (so `--port 0` is resolved once and the URL printed is the one
listened on), indexes the site (once, not once per worker), then serves:
- one worker: uvicorn in this process (always so under `--dev`: live reload and template changes
  live in one process's memory);
- N workers: uvicorn's `Multiprocess` supervisor starts N spawned processes sharing the socket,
  each building the app with `worker_app` (a uvicorn app factory; the options travel in the
  `WORKER_ENV` variable). A worker that dies is logged ("Child process [PID] died") and replaced;
  SIGINT or SIGTERM stops every worker (each finishes its requests within
  `GRACEFUL_SHUTDOWN` seconds).
All workers share the one SQLite file (WAL) and see each other's commits through the index
generation; one of them watches the files (watch_lock.py). uvicorn runs on uvloop and httptools
(uvicorn[standard]); README "Production serving" has the figures against granian.
"""

from __future__ import annotations

import json
import logging
import os
import socket
from dataclasses import asdict, dataclass, field
from typing import Any

from masthead.config import Site, load_site
from masthead.web.address import served_address

WORKER_ENV = "_MASTHEAD_SERVE_WORKER"  # not MASTHEAD_*: that prefix is for settings
GRACEFUL_SHUTDOWN = 2  # seconds a stopping worker waits for open requests
LOG_FORMAT = "%(levelname)s %(name)s: %(message)s"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Plan:
    """What every worker builds: the site (folder and setting overrides, as `load_site` takes
    them), the mode, and the served address (`http://127.0.0.1:8123`)."""

    root: str
    served: str
    dev: bool = False
    watch: bool = True
    overrides: dict[str, Any] = field(default_factory=dict)


def default_workers(dev: bool) -> int:
    """One worker per CPU this process may run on in production; one under `--dev`."""
    if dev:
        return 1
    affinity = getattr(os, "sched_getaffinity", None)  # Linux; elsewhere every CPU
    return len(affinity(0)) if affinity else os.cpu_count() or 1


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket bound to `(host, port)` (IPv6 when `host` has a colon; port 0: a free
    one). Raises OSError when the address cannot be bound (in use, not ours)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def address_of(sock: socket.socket, host: str) -> str:
    """The served address of bound `sock`, with the port it really got."""
    return served_address(host, sock.getsockname()[1])


def worker_app() -> Any:
    """The ASGI app of one worker (a uvicorn factory), from the `Plan` in `WORKER_ENV`. The
    parent has indexed the site already."""
    from masthead.web.app import create_app

    logging.basicConfig(level=logging.INFO, format=LOG_FORMAT)
    plan = Plan(**json.loads(os.environ[WORKER_ENV]))
    site = load_site(plan.root, plan.overrides)
    return create_app(site, dev=plan.dev, index=False, watch=plan.watch, served=plan.served)


def _options(access_log: bool) -> dict[str, Any]:
    # live-reload streams stay open: do not wait for them for ever on shutdown
    return {
        "log_level": "info",
        "access_log": access_log,
        "timeout_graceful_shutdown": GRACEFUL_SHUTDOWN,
        "server_header": False,
    }


def serve_one(app: Any, sock: socket.socket, *, access_log: bool) -> None:
    """Serve `app` (from `create_app`) on `sock` in this process until SIGINT or SIGTERM;
    open live-reload streams are ended first (they would hold the graceful shutdown)."""
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            reloader = getattr(app.state, "reloader", None)
            if reloader is not None:
                reloader.close()
            super().handle_exit(sig, frame)

    Server(uvicorn.Config(app, **_options(access_log))).run(sockets=[sock])


def index_once(site: Site) -> None:
    """Bring `site`'s index up to date (incremental) and log what it did. Raises sqlite3.Error
    or OSError when the index cannot be written (a full disk, a read-only folder)."""
    from masthead.indexer import index_and_log
    from masthead.store.db import Database

    db = Database(site.database_path)
    try:
        index_and_log(site, db)
    finally:
        db.close()


def serve_many(plan: Plan, sock: socket.socket, *, workers: int, access_log: bool) -> None:
    """Run `workers` processes serving `plan` on `sock` until SIGINT or SIGTERM (the site
    indexed already: `index_once`)."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    os.environ[WORKER_ENV] = json.dumps(asdict(plan))  # the spawned workers inherit it
    config = uvicorn.Config(
        "masthead.server:worker_app", factory=True, workers=workers, **_options(access_log)
    )
    Multiprocess(config, sockets=[sock]).run()
