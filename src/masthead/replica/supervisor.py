"""One `litestream replicate` per site, however many processes serve it.

Every worker of `masthead serve` starts `replicate_alone` (a replicated site only); as with the
watcher (indexing/watch_lock.py), only the process holding an exclusive `flock(2)` on
`SITE.db.replica.lock` runs Litestream, the others try again every `LOCK_POLL` seconds and take
over when the holder dies. Litestream inherits the locked file, so the lock is free only once
both are gone, and it is started with a parent-death signal (SIGTERM when its worker dies,
even by kill -9), so a replaced worker never leaves a second Litestream on the database.

While it runs, the holder asks Litestream every `poll` seconds, over its control socket
(https://litestream.io/reference/), where the database and its replica are, and saves a report
(`state.py`). Litestream's output goes to masthead's log, line by line, redacted. When it exits
it is started again after `RESTART` seconds (doubled, up to `RESTART_MAX`, while it keeps
exiting soon after its start). On stop it gets SIGTERM (its last upload,
`litestream.SHUTDOWN_SYNC` seconds at most) and, still running after `STOP_WAIT`, SIGKILL.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import fcntl
import http.client
import json
import logging
import os
import shutil
import signal
import socket
import subprocess  # nosec B404 - the litestream binary, never a shell
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from masthead.config import Site
from masthead.replica import litestream, state

log = logging.getLogger(__name__)

LOCK_POLL = 1.0  # seconds between tries of a worker that does not replicate
RESTART = 2.0  # seconds before an exited Litestream is started again, doubled each time it
RESTART_MAX = 60.0  # exits again soon after (up to this), back to RESTART after a long run
STOP_WAIT = litestream.SHUTDOWN_SYNC + 0.5  # seconds a stopping Litestream is given
_PR_SET_PDEATHSIG = 1
UNANSWERED = "Litestream did not answer: it may be waiting for its store"


def lock_path(site: Site) -> Path:
    db = site.database_path
    return db.with_name(db.name + ".replica.lock")


def _die_with_parent() -> None:  # pragma: no cover - runs in the child, between fork and exec
    """Ask Linux to send SIGTERM to this (child) process when its parent thread dies."""
    with contextlib.suppress(Exception):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


class _UnixHTTP(http.client.HTTPConnection):
    """HTTP over Litestream's control socket."""

    def __init__(self, path: Path, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self.socket_path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        sock.connect(str(self.socket_path))
        self.sock = sock


def ask(
    sock: Path, database: Path, timeout: float = 5.0, *, upload: bool = False
) -> tuple[int, int]:
    """(local transaction ID, replicated transaction ID) of `database`, from the Litestream
    listening on `sock` (POST /sync: it folds the WAL into its local log and, with `upload`,
    also uploads what the replica lacks before it answers, within `timeout` seconds).
    Raises OSError or ValueError when it does not answer."""
    conn = _UnixHTTP(sock, timeout + 1 if upload else timeout)
    try:
        request: dict[str, Any] = {"path": str(database)}
        if upload:
            request.update(wait=True, timeout=max(1, round(timeout)))
        body = json.dumps(request)
        conn.request("POST", "/sync", body, {"Content-Type": "application/json"})
        response = conn.getresponse()
        data: dict[str, Any] = json.loads(response.read() or b"{}")
    except http.client.HTTPException as exc:
        raise OSError(str(exc)) from None
    finally:
        conn.close()
    if response.status != 200:
        raise ValueError(str(data.get("error", response.status)))
    return int(data.get("txid", 0)), int(data.get("replicated_txid", 0))


class Litestream:
    """One running `litestream replicate` for a site, its folder (configuration and control
    socket, private, removed on `stop`) and its log relay."""

    def __init__(self, site: Site, lock_fd: int) -> None:
        self.site = site
        self.folder = Path(tempfile.mkdtemp(prefix="masthead-litestream-"))
        self.sock = self.folder / "control.sock"  # short: a socket path has 108 bytes at most
        config = self.folder / "litestream.yml"
        config.write_text(litestream.config_text(site, self.sock), encoding="utf-8")
        self.last_error = ""
        self.process = subprocess.Popen(  # nosec B603 - fixed binary and arguments
            [str(litestream.binary()), "replicate", "-no-expand-env", "-config", str(config)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            pass_fds=(lock_fd,),  # the lock is held while Litestream lives
            preexec_fn=_die_with_parent,  # nosec B603
        )
        self.relay = threading.Thread(
            target=self._relay, args=(self.process.stdout,), name="litestream-log", daemon=True
        )
        self.relay.start()

    def _relay(self, stream: IO[bytes] | None) -> None:
        """Litestream's lines into masthead's log, redacted; warnings and errors kept as the
        last error."""
        if stream is None:
            return
        for raw in stream:
            line = litestream.redact(raw.decode("utf-8", "replace").rstrip())
            if not line:
                continue
            if "level=ERROR" in line or "level=WARN" in line or line.startswith("Error"):
                self.last_error = line
                log.warning("litestream: %s", line)
            else:
                log.info("litestream: %s", line)

    def exited(self) -> int | None:
        return self.process.poll()

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after `STOP_WAIT` seconds; the folder removed."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(STOP_WAIT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.relay.join(1)
        shutil.rmtree(self.folder, ignore_errors=True)


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


async def _wait(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)


async def replicate_alone(site: Site, stop: asyncio.Event) -> None:
    """Run Litestream for `site` until `stop` is set, once this process holds the replica
    lock (see the module). Returns at once when `stop` is set while waiting, or, logging why,
    when the lock file cannot be opened or Litestream is not installed."""
    try:
        fd = os.open(lock_path(site), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        log.error("not replicating %s: cannot open %s (%s)", site.root, lock_path(site), exc)
        return
    try:
        while not _try_lock(fd):
            await _wait(stop, LOCK_POLL)
            if stop.is_set():
                return
        await _supervise(site, fd, stop)
    finally:
        os.close(fd)


async def _supervise(site: Site, fd: int, stop: asyncio.Event) -> None:
    replica = site.settings.replica
    url = litestream.redacted_url(replica.url or "")
    poll = max(0.5, min(replica.sync_interval, 5.0))
    report = state.Report(url=url, sync_interval=replica.sync_interval, state="starting",
                          checked_at=time.time())  # fmt: skip
    delay = RESTART
    while not stop.is_set():
        started = time.monotonic()
        try:
            running = Litestream(site, fd)
        except (litestream.ReplicaError, OSError) as exc:
            log.error("not replicating %s: %s", site.root, litestream.redact(str(exc)))
            error = litestream.redact(str(exc))
            report = _saved(site, replace(report, state="exited", error=error))
            await _wait(stop, RESTART_MAX)
            continue
        log.info("replicating %s to %s (Litestream pid %d)", site.root, url, running.process.pid)
        try:
            report = await _watch(site, running, report, poll, stop)
        finally:
            await asyncio.to_thread(running.stop)
        if not stop.is_set():
            delay = RESTART if time.monotonic() - started > RESTART_MAX else delay
            await _wait(stop, delay)
            delay = min(delay * 2, RESTART_MAX)
    _saved(site, replace(report, state="stopped", checked_at=time.time()))


async def _watch(
    site: Site, running: Litestream, report: state.Report, poll: float, stop: asyncio.Event
) -> state.Report:
    """Ask `running` where things are every `poll` seconds, saving each report, until `stop`
    is set or Litestream exits."""
    database = site.database_path.resolve()
    report = _saved(
        site,
        replace(report, state="starting", pid=running.process.pid, socket=str(running.sock),
                checked_at=time.time()),
    )  # fmt: skip
    while not stop.is_set():
        code = running.exited()
        if code is not None:
            log.error("litestream exited (status %d); starting it again", code)
            error = running.last_error or f"exited ({code})"
            return _saved(site, replace(report, state="exited", checked_at=time.time(),
                                        error=error))  # fmt: skip
        try:
            txid, replicated = await asyncio.to_thread(state_of, running.sock, database)
        except TimeoutError:
            # listening but not answering: Litestream is stuck on its store (it tries an
            # unreachable one for about two minutes, holding the database's position)
            report = _saved(site, report.unanswered(time.time(), UNANSWERED))
        except (OSError, ValueError):
            pass  # not listening yet, or busy: the next poll asks again
        else:
            report = report.observe(txid, replicated, time.time())
            if report.behind_since is not None and running.last_error:
                report = replace(report, error=running.last_error)
            _saved(site, report)
        await _wait(stop, poll)
    return report


def state_of(sock: Path, database: Path) -> tuple[int, int]:
    return ask(sock, database)


def _saved(site: Site, report: state.Report) -> state.Report:
    try:
        state.save(site.database_path, report)
    except OSError as exc:
        log.warning("cannot save the replica's state beside %s: %s", site.database_path, exc)
    return report
