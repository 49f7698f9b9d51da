"""Real servers for tests: an ASGI app under uvicorn in a thread of the test process, and
`masthead serve` as a process of its own; a static host for exported files.

Each yields its base URL once it answers; start-up waits for that condition, with a ceiling
(`support.wait.CEILING`) that only ends a hang.
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from support.client import get
from support.wait import CEILING, until


@contextmanager
def uvicorn_server(app: Any, *, timeout: float = CEILING, **config: Any) -> Iterator[str]:
    """Serve the ASGI `app` with a real uvicorn on a free 127.0.0.1 port in a thread; yields
    `http://127.0.0.1:PORT` once it accepts connections, and stops it afterwards."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", **config))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()

    def started() -> bool:
        assert thread.is_alive() or server.started, "uvicorn's thread ended before it started"
        return server.started

    until(started, timeout=timeout, what="uvicorn started")
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(CEILING)


def healthy(url: str, proc: subprocess.Popen[str] | None = None) -> bool:
    """Whether `url` + `healthz` answers (a refused or reset connection: not yet); fails at once
    if `proc`, the server, has ended."""
    if proc is not None:
        assert proc.poll() is None, f"the server exited with {proc.returncode}"
    try:
        get(url + "healthz")
    except httpx.TransportError:
        return False
    return True


@contextmanager
def cli_server(*args: str, timeout: float = CEILING, log: Path | None = None) -> Iterator[str]:
    """Run `masthead serve ARGS --port 0` as a real process; yields the URL it printed
    (`http://127.0.0.1:PORT/`) once `/healthz` answers, and stops the process afterwards. Its
    log (stderr) goes to the file `log` when given."""
    cmd = [sys.executable, "-m", "masthead", "serve", *args, "--port", "0"]
    err = log.open("w") if log else None
    try:
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=err or subprocess.DEVNULL, text=True
        )
    finally:
        if err:
            err.close()  # the process has its own copy
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        m = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
        assert m, f"serve printed no URL: {line!r}"
        until(lambda: healthy(m.group(1), proc), timeout=timeout, what=f"{m.group(1)} answered")
        yield m.group(1)
    finally:
        proc.terminate()
        try:
            proc.wait(CEILING)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def static_host(out: Path) -> Any:
    """A static host as Netlify or Cloudflare Pages: OUT's files (`index.html` for a folder),
    with the headers `_headers` gives for `/*`."""
    from starlette.staticfiles import StaticFiles

    files = StaticFiles(directory=out, html=True, check_dir=False)

    async def app(scope, receive, send):  # type: ignore[no-untyped-def]
        async def with_headers(message):  # type: ignore[no-untyped-def]
            if message["type"] == "http.response.start":
                lines = (out / "_headers").read_text().split("\n/")[0].splitlines()[1:]
                rules = [line.strip().split(": ", 1) for line in lines if line.strip()]
                extra = [(k.lower().encode(), v.encode()) for k, v in rules]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await files(scope, receive, with_headers)

    return app
