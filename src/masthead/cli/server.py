"""How `masthead serve` runs: one port, the index brought up to date once, N workers.

Two servers (`--server`):
- uvicorn (`--server uvicorn`, always under `--dev`; uvloop + httptools): the parent binds and
  listens on the socket; one worker runs in this process (always so under `--dev`: live reload
  and template changes live in one process's memory), N under uvicorn's `Multiprocess`
  supervisor sharing the socket. A worker that dies is logged ("Child process [PID] died") and
  replaced.
- granian (the default in production): granian's supervisor starts N worker processes,
  serving over granian's RSGI interface (cache hits answered natively, the FastAPI app behind
  them: web/cache/rsgi.py), or its ASGI interface when `trusted_proxies` is set (granian reads
  X-Forwarded-* for ASGI only); the app's lifespan runs either way. On Linux
  each binds its own socket with SO_REUSEPORT, so the port is held for them by `reserve`: a socket
  bound first and never listened on (it takes no connection), kept open until `serve` exits. A
  worker that dies is logged ("Unexpected exit from worker-N") and replaced; a worker still busy
  `KILL_AFTER` seconds after SIGTERM (a request that never ends) is killed. granian always sends a
  `Server` header (docs/deploying.md, "Which server").
Either way the URL printed is the one listened on (`--port 0`: resolved once), workers build the
app with `worker_app` (a factory; the options travel in the `WORKER_ENV` variable), and SIGINT
or SIGTERM stops every worker. Forwarding headers (`X-Forwarded-For`, `X-Forwarded-Proto`) are
believed only from the proxies `trusted_proxies` names (`forwarded_trust`; uvicorn's
`FORWARDED_ALLOW_IPS` variable overrides it); by default none, so the client is the socket peer
(C52), and a warning is logged the first time a request carries such headers (one the fast
path does not answer: a page's first request is one). All workers share
the one SQLite file (WAL) and see each other's
commits through the index generation; one of them watches the files (indexing/watch_lock.py).
"""

from __future__ import annotations

import json
import logging
import os
import socket
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from masthead.comments.identity import forwarding_headers
from masthead.config import Settings, Site, load_site
from masthead.web.http.address import served_address

WORKER_ENV = "_MASTHEAD_SERVE_WORKER"  # not MASTHEAD_*: that prefix is for settings
GRACEFUL_SHUTDOWN = 2  # seconds a stopping uvicorn (--dev) waits for open requests
FORWARDED_ENV = "FORWARDED_ALLOW_IPS"  # uvicorn's variable, read for granian too
KILL_AFTER = 3  # seconds granian gives a stopping worker before killing it
LOG_FORMAT = "%(levelname)s %(name)s: %(message)s"
PROC_CGROUP = Path("/proc/self/cgroup")

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
    server: str = "uvicorn"  # or "granian": X-Forwarded-* then read by granian's wrapper


def default_workers(dev: bool) -> int:
    """One worker per CPU this process may use in production (`usable_cpus`); one under
    `--dev`."""
    return 1 if dev else usable_cpus()


CGROUP_ROOT = Path("/sys/fs/cgroup")


def usable_cpus(cgroup_root: Path = CGROUP_ROOT, proc_cgroup: Path = PROC_CGROUP) -> int:
    """The CPUs this process may use: those it may run on (`os.sched_getaffinity`; `taskset`,
    `docker --cpuset-cpus`), at most its cgroup's CPU quota (`cgroup_quota`; `docker --cpus
    1`, Kubernetes' CPU limit) rounded down, and at least one. Not the host's CPU count."""
    affinity = getattr(os, "sched_getaffinity", None)  # Linux; elsewhere every CPU
    cpus = len(affinity(0)) if affinity else os.cpu_count() or 1
    quota = cgroup_quota(cgroup_root, proc_cgroup)
    if quota is not None:
        cpus = min(cpus, int(quota))
    return max(1, cpus)


def cgroup_quota(cgroup_root: Path = CGROUP_ROOT, proc_cgroup: Path = PROC_CGROUP) -> float | None:
    """The CPU quota of this process's cgroup and of every cgroup above it, the smallest, in
    CPUs (quota / period): cgroup v2's `cpu.max` ("max 100000": none; "150000 100000": 1.5),
    or v1's `cpu.cfs_quota_us` / `cpu.cfs_period_us` (-1: none). None when there is none, or
    no cgroup file can be read (not Linux)."""
    try:
        lines = proc_cgroup.read_text().splitlines()
    except OSError:
        return None
    found: list[float] = []
    for line in lines:
        _, controllers, path = [*line.split(":", 2), "", ""][:3]
        if controllers == "":  # v2: 0::/path
            found += _walk(cgroup_root, path, _v2_quota)
        elif "cpu" in controllers.split(","):  # v1: N:cpu,cpuacct:/path
            for name in ("cpu,cpuacct", "cpu", "cpuacct,cpu"):
                if (cgroup_root / name).is_dir():
                    found += _walk(cgroup_root / name, path, _v1_quota)
                    break
    return min(found) if found else None


def _walk(mount: Path, path: str, read: Any) -> list[float]:
    """The quotas `read` finds in the cgroup at `mount`/`path` and each of its parents (in a
    container the process's cgroup path may not exist below the mount: then the mount's own
    files are the container's)."""
    out = []
    parts = [p for p in path.strip("/").split("/") if p]
    for depth in range(len(parts), -1, -1):
        quota = read(mount.joinpath(*parts[:depth]))
        if quota is not None:
            out.append(quota)
    return out


def _v2_quota(folder: Path) -> float | None:
    try:
        quota, period = (folder / "cpu.max").read_text().split()[:2]
        return None if quota == "max" else int(quota) / int(period)
    except (OSError, ValueError):
        return None


def _v1_quota(folder: Path) -> float | None:
    try:
        quota = int((folder / "cpu.cfs_quota_us").read_text())
        period = int((folder / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return None
    return None if quota <= 0 or period <= 0 else quota / period


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


def reserve(host: str, port: int) -> socket.socket:
    """A TCP socket bound to `(host, port)` that holds the port for granian's workers and
    never listens: the kernel queues no connection on it (one goes to a listening worker or is
    refused). Bound with SO_REUSEADDR (a restart binds over the last run's TIME_WAIT
    connections) and without SO_REUSEPORT, so the bind fails when any other socket holds the
    port; then SO_REUSEADDR is cleared (no other socket may bind beside it) and SO_REUSEPORT
    set (the workers' sockets, SO_REUSEPORT, join it; Linux lets only this user's do so).
    Raises OSError when the address cannot be bound. Linux (granian's SO_REUSEPORT workers)."""
    sock = listen(host, port)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 0)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    except OSError:
        sock.close()
        raise
    return sock


def address_of(sock: socket.socket, host: str) -> str:
    """The served address of bound `sock`, with the port it really got."""
    return served_address(host, sock.getsockname()[1])


def worker_app() -> Any:
    """The ASGI app of one worker (a granian factory), from the `Plan` in `WORKER_ENV`. The
    parent has indexed the site already."""
    from masthead.web.app import create_app, warm_up_soon

    logging.basicConfig(level=logging.INFO, format=LOG_FORMAT)
    plan = Plan(**json.loads(os.environ[WORKER_ENV]))
    site = load_site(plan.root, plan.overrides)
    app = create_app(
        site, dev=plan.dev, index=False, watch=plan.watch, served=plan.served, replicate=True
    )
    trusted = forwarded_trust(site.settings)
    if not trusted:
        app.add_middleware(ForwardingWarning)  # behind the fast path: misses only
    warm_up_soon(app)  # before the first reader, if it can, rather than during their request
    if plan.server != "granian":
        return app  # uvicorn reads X-Forwarded-* itself (proxy_options)
    if not trusted:  # granian's RSGI interface (`granian_interface`)
        from masthead.web.cache.rsgi import RSGIApp

        return RSGIApp(app)
    from granian.utils.proxies import wrap_asgi_with_proxy_headers

    return wrap_asgi_with_proxy_headers(app, trusted)


def granian_interface(settings: Settings) -> str:
    """The interface granian serves the app over: RSGI (cache hits answered natively,
    web/cache/rsgi.py) when no proxy is trusted, else ASGI, where granian's proxy-header
    wrapper sets the client and scheme its access log and the app see (it has none for RSGI).
    """
    return "asgi" if forwarded_trust(settings) else "rsgi"


def forwarded_trust(settings: Settings) -> list[str]:
    """The addresses and networks whose `X-Forwarded-For` and `X-Forwarded-Proto` the server
    believes: the `FORWARDED_ALLOW_IPS` environment variable when it is set (uvicorn's, a
    comma-separated list; an override for set-ups that already use it), else the
    `trusted_proxies` setting; empty (the default): forwarding headers are ignored."""
    env = os.environ.get(FORWARDED_ENV, "").strip()
    if env:
        return [item.strip() for item in env.split(",") if item.strip()]
    return list(settings.trusted_proxies)


def proxy_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's proxy-header options for `settings` (`forwarded_trust`): with nothing trusted,
    `proxy_headers` off, so the ASGI `client` is the socket peer whatever a request claims."""
    trusted = forwarded_trust(settings)
    return {"proxy_headers": bool(trusted), "forwarded_allow_ips": trusted}


class ForwardingWarning:
    """ASGI middleware for a server that trusts no proxy: logs one warning, the first time a
    request carries `X-Forwarded-For`, `X-Real-IP` or `Forwarded` (they are ignored: behind a
    reverse proxy, `trusted_proxies` must name it, or every reader shares its address), then
    only passes requests on. Installed in the app's middleware (`add_middleware`), behind the
    fast path: cache hits never pay for it, and a page's first request is a miss."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.warned = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if not self.warned and scope["type"] == "http":
            found = forwarding_headers(scope.get("headers") or [])
            if found:
                self.warned = True
                log.warning(
                    "a request carries %s, ignored: trusted_proxies is empty, so each client is "
                    "its socket address; behind a reverse proxy, set trusted_proxies to its "
                    "address (docs/deploying.md, 'Behind a reverse proxy')",
                    ", ".join(found),
                )
        await self.app(scope, receive, send)

    def __getattr__(self, name: str) -> Any:  # `.state` and the rest of the app's surface
        return getattr(self.app, name)


def _options(access_log: bool, settings: Settings) -> dict[str, Any]:
    # live-reload streams stay open: do not wait for them for ever on shutdown
    return {
        "log_level": "info",
        "access_log": access_log,
        "timeout_graceful_shutdown": GRACEFUL_SHUTDOWN,
        "server_header": False,
        **proxy_options(settings),
    }


def serve_one(app: Any, sock: socket.socket, *, access_log: bool) -> None:
    """Serve `app` (from `create_app`) with uvicorn on listening-to-be `sock` (`listen`) in
    this process until SIGINT or SIGTERM; open live-reload streams are ended first (they would
    hold the graceful shutdown)."""
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            reloader = getattr(app.state, "reloader", None)
            if reloader is not None:
                reloader.close()
            super().handle_exit(sig, frame)

    settings = app.state.masthead.site.settings
    if not forwarded_trust(settings):
        app.add_middleware(ForwardingWarning)  # behind the fast path: misses only
    Server(uvicorn.Config(app, **_options(access_log, settings))).run(sockets=[sock])


def index_once(site: Site) -> None:
    """Bring `site`'s index up to date (incremental) and log what it did. Raises sqlite3.Error
    or OSError when the index cannot be written (a full disk, a read-only folder)."""
    from masthead.indexing.indexer import index_and_log
    from masthead.store.db import Database

    db = Database(site.database_path, checkpoints=not site.replicated)
    try:
        index_and_log(site, db)
    finally:
        db.close()


def _granian_logging() -> dict[str, Any]:
    """granian's log configuration with its own messages on stderr (where masthead's go) and
    the access log alone on stdout (as uvicorn's was)."""
    line = {"()": "logging.Formatter", "fmt": "%(levelname)s granian: %(message)s"}
    bare = {"()": "logging.Formatter", "fmt": "%(message)s"}
    return {
        "formatters": {"generic": line, "access": bare},
        "handlers": {
            "console": {"formatter": "generic", "class": "logging.StreamHandler",
                        "stream": "ext://sys.stderr"},
            "access": {"formatter": "access", "class": "logging.StreamHandler",
                       "stream": "ext://sys.stdout"},
        },
        "loggers": {
            "_granian": {"handlers": ["console"], "level": "INFO", "propagate": False},
            "granian.access": {"handlers": ["access"], "level": "INFO", "propagate": False},
        },
    }  # fmt: skip


def serve_granian(plan: Plan, host: str, port: int, *, workers: int, access_log: bool) -> None:
    """Run `workers` granian worker processes serving `plan` on `(host, port)` until SIGINT or
    SIGTERM (the site indexed already: `index_once`; the port held by `reserve`). A worker that
    exits unexpectedly is replaced; one that fails again within seconds stops the server."""
    from granian import Granian
    from granian.constants import Interfaces

    os.environ[WORKER_ENV] = json.dumps(asdict(plan))  # the workers inherit it
    settings = load_site(plan.root, plan.overrides).settings
    Granian(
        "masthead.cli.server:worker_app",
        address=host,
        port=port,
        interface=Interfaces(granian_interface(settings)),  # the app's lifespan runs either way
        workers=workers,
        factory=True,
        respawn_failed_workers=True,
        workers_kill_timeout=KILL_AFTER,
        websockets=False,
        log_access=access_log,
        log_dictconfig=_granian_logging(),
    ).serve()


def serve_many(plan: Plan, sock: socket.socket, *, workers: int, access_log: bool) -> None:
    """Run `workers` uvicorn processes serving `plan` on `sock` (`listen`) until SIGINT or
    SIGTERM (the site indexed already: `index_once`)."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    os.environ[WORKER_ENV] = json.dumps(asdict(plan))  # the spawned workers inherit it
    settings = load_site(plan.root, plan.overrides).settings
    config = uvicorn.Config(
        "masthead.cli.server:worker_app",
        factory=True,
        workers=workers,
        **_options(access_log, settings),
    )
    Multiprocess(config, sockets=[sock]).run()
