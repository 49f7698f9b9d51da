"""Replication in tests: moto's S3 server on 127.0.0.1 (a real S3 API), the environment
Litestream reads its credentials from, `masthead serve` as a process group of its own (so a
test can kill -9 all of it: workers and Litestream), and comments posted and read back.

The credentials are made-up values that are easy to find in any output (`ACCESS_KEY`,
`SECRET_KEY`): a test greps logs, `/healthz`, the dashboard and error messages for them.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from support import client
from support.wait import CEILING, until

ACCESS_KEY = "AKIAMASTHEADTESTKEY7"  # pragma: allowlist secret
SECRET_KEY = "mAsThEaD/tEsT+sEcReT/kEy0123456789abcd"  # pragma: allowlist secret
BUCKET = "masthead-replica"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def replica_env(**extra: str) -> dict[str, str]:
    """This process's environment for a masthead that replicates: the test credentials, and
    no AWS_CA_BUNDLE (a certificate bundle for plain-HTTP moto makes Litestream's S3 client
    refuse to start)."""
    env = {k: v for k, v in os.environ.items() if k != "AWS_CA_BUNDLE"}
    env.update(AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY, COLUMNS="200")
    env.update(extra)
    return env


@dataclass
class Moto:
    """moto's S3 server: its endpoint and process."""

    endpoint: str
    process: subprocess.Popen[bytes]
    log: Path

    def url(self, path: str) -> str:
        """A Litestream replica URL for `path` in the test bucket."""
        return f"s3://{BUCKET}/{path}?endpoint={self.endpoint}&region=us-east-1"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(CEILING)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@contextmanager
def moto_s3(folder: Path) -> Iterator[Moto]:
    """moto's S3 server on a free 127.0.0.1 port, with the bucket `BUCKET`, until the block
    ends."""
    port = free_port()
    log = folder / "moto.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=replica_env(),
        )
    moto = Moto(f"http://127.0.0.1:{port}", process, log)
    try:

        def bucket_made() -> bool:
            assert process.poll() is None, log.read_text()
            return client.put(f"{moto.endpoint}/{BUCKET}").status_code == 200

        until(bucket_made, what="moto's S3 server answered", retry=httpx.TransportError)
        yield moto
    finally:
        moto.stop()


def replica_toml(url: str, sync_interval: float = 1.0) -> str:
    """A site's settings: comments taken at any rate (the tests post many), replicated to
    `url`."""
    return (
        'title = "Replicated"\n'
        "comments_flood_seconds = 0\ncomments_per_minute = 0\n"
        f'\n[replica]\nurl = "{url}"\nsync_interval = {sync_interval}\n'
    )


@dataclass
class Served:
    """`masthead serve` as a process group: its URL, process and output files."""

    url: str
    process: subprocess.Popen[str]
    out: Path
    err: Path
    killed_at: float = 0.0
    extra: dict[str, str] = field(default_factory=dict)

    def health(self) -> dict[str, object]:
        data: dict[str, object] = client.get(self.url + "healthz").json()
        return data

    def output(self) -> str:
        return self.out.read_text() + self.err.read_text()

    def kill9(self) -> None:
        """SIGKILL to every process of the server (workers and Litestream), all at once."""
        self.killed_at = time.time()
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(CEILING)

    def stop(self) -> int:
        """SIGTERM, as a service manager stops it; its exit status."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(CEILING)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        return int(self.process.returncode)


@contextmanager
def serve(site: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[Served]:
    """`masthead serve SITE ARGS --port 0` in a session of its own; yields once `/healthz`
    answers; killed (the whole group) if still running at the end."""
    out, err = site.parent / f"{site.name}.out", site.parent / f"{site.name}.err"
    cmd = [sys.executable, "-m", "masthead", "serve", str(site), "--port", "0", *args]
    with open(out, "w") as o, open(err, "w") as e:
        process = subprocess.Popen(
            cmd, stdout=o, stderr=e, text=True, env=env or replica_env(), start_new_session=True
        )
    served = Served("", process, out, err)
    try:

        def printed() -> str:
            assert process.poll() is None, served.output()
            found = re.search(r"at (http://127\.0\.0\.1:\d+/)", out.read_text())
            return found.group(1) if found else ""

        served.url = until(printed, what="serve printed its URL")

        def answers() -> bool:
            assert process.poll() is None, served.output()
            return client.get(served.url + "healthz").status_code == 200

        until(answers, what="/healthz answered", retry=httpx.TransportError)
        yield served
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def replica_status(health: dict[str, object]) -> str:
    replica = health.get("replica")
    assert isinstance(replica, dict), health
    return str(replica["status"])


def in_step(served: Served) -> dict[str, object]:
    """Wait until the served site's replica holds every transaction committed before this
    call; its report. Only a report checked after the call counts: an older one may predate
    the last commits and show a replica in step with a past transaction."""
    since = time.time()

    def caught_up() -> dict[str, object] | None:
        replica = served.health()["replica"]
        assert isinstance(replica, dict)
        fresh = float(replica.get("checked_at") or 0) > since  # type: ignore[arg-type]
        ok = fresh and replica["status"] == "ok" and replica["position"] == replica["txid"]
        return replica if ok and replica["txid"] else None

    return until(caught_up, what="the replica in step", interval=0.1)


def comment_bodies(database: Path) -> dict[str, str]:
    """Body → status of every comment in the database at `database`."""
    conn = sqlite3.connect(database)
    try:
        return dict(conn.execute("SELECT body, status FROM comments"))
    finally:
        conn.close()


def integrity(database: Path) -> str:
    conn = sqlite3.connect(database)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()
