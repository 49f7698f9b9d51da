"""granian's RSGI interface: cache hits answered natively, everything else by the ASGI app.

`RSGIApp(app)` is what a granian worker serves under `--server granian` when no proxy is trusted
(cli/server.py). Granian calls `__rsgi__(scope, protocol)` once per request: a current cache hit
(the same test and the same prepared headers as the ASGI fast path, web/cache/fastpath.py) is
answered with one `protocol.response_bytes` (or `response_empty` for a 304 or a HEAD), which
spares the ASGI bridge's per-request work (the scope dict, the message dicts and the two awaited
`send` calls, each a future crossing from Python to Rust). Every other request goes to the ASGI
app through `asgi`, a small RSGI→ASGI bridge (granian has none): an ASGI scope made from the
RSGI one, `receive` giving the whole body then waiting for the client to go, `send` answering in
one piece when the app does, else streaming; `http.response.pathsend` (Starlette's FileResponse)
becomes `response_file`. The app's lifespan (watcher, search log, mail, purge) runs in
`__rsgi_init__` / `__rsgi_del__`, with granian's own `LifespanProtocol`, as granian's ASGI
interface runs it.

What RSGI shows of a request differs from ASGI in two ways the bridge cannot undo: header values
that are not visible ASCII are left out by granian, and there is no `raw_path`. Neither matters
to masthead's routes (paths are matched decoded; no header it reads carries such bytes).
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI

from masthead.web.cache.conditional import choose
from masthead.web.cache.fastpath import App, FastPath

log = logging.getLogger(__name__)
ASGI_VERSION = {"version": "3.0", "spec_version": "2.3"}
Text = list[tuple[str, str]]


class RSGIApp:
    """The RSGI application in front of `app` (built by `create_app`); `asgi` is what the
    bridge calls for everything the fast path does not answer (`app` itself, or `app` wrapped).
    """

    def __init__(self, app: FastAPI, asgi: Any = None) -> None:
        self.app = app
        self.asgi = asgi if asgi is not None else app
        self.fast: FastPath | None = app.fast_path if isinstance(app, App) else None
        self.lifespan: Any = None
        app.state.interface = "rsgi"  # /healthz says so

    def __getattr__(self, name: str) -> Any:  # `.state` and the rest of the app's surface
        return getattr(self.app, name)

    def __rsgi_init__(self, loop: Any) -> None:
        """Run the app's lifespan startup (granian calls this before serving)."""
        from granian.asgi import LifespanProtocol

        self.lifespan = LifespanProtocol(self.asgi)
        loop.run_until_complete(self.lifespan.startup())
        if self.lifespan.interrupt:
            log.error("the app's lifespan startup failed", exc_info=self.lifespan.exc)
            raise SystemExit(1)

    def __rsgi_del__(self, loop: Any) -> None:
        """Run the app's lifespan shutdown (granian calls this after serving)."""
        if self.lifespan is not None:
            loop.run_until_complete(self.lifespan.shutdown())

    async def __rsgi__(self, scope: Any, protocol: Any) -> None:
        if not self.hit(scope, protocol):
            await self.bridge(scope, protocol)

    def hit(self, scope: Any, protocol: Any) -> bool:
        """Answer `scope` if it is a current cache hit with no query string; whether it was."""
        fast = self.fast
        if fast is None or scope.proto != "http" or scope.query_string:
            return False
        method = scope.method
        if method != "GET" and method != "HEAD":
            return False
        page = fast.lookup(scope.path)
        if page is None:
            return False
        headers = scope.headers
        status, ready = choose(
            page,
            headers.get("accept-encoding"),
            headers.get("if-none-match"),
            headers.get("if-modified-since"),
        )
        key = (ready.coding, status)
        text: Text | None = page.prepared.get(key)
        if text is None:
            text = _text(ready.not_modified if status == 304 else ready.ok)
            text += _text(fast.shared_headers(page))
            page.prepared[key] = text
        if status == 304 or method == "HEAD":
            protocol.response_empty(status, text)
        else:
            protocol.response_bytes(status, text, ready.body)
        return True

    async def bridge(self, scope: Any, protocol: Any) -> None:
        """Serve `scope` with the ASGI app."""
        await Exchange(protocol).run(self.asgi, self.asgi_scope(scope))

    def asgi_scope(self, scope: Any) -> dict[str, Any]:
        """The ASGI HTTP scope of RSGI `scope`."""
        headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in scope.headers.items()]
        if "host" not in scope.headers and scope.authority:
            headers.insert(0, (b"host", scope.authority.encode("latin-1")))
        state = self.lifespan.state.copy() if self.lifespan is not None else {}
        return {
            "type": "http",
            "asgi": ASGI_VERSION,
            "extensions": {"http.response.pathsend": {}},
            "http_version": scope.http_version,
            "server": _address(scope.server),
            "client": _address(scope.client),
            "scheme": scope.scheme,
            "method": scope.method,
            "root_path": "",
            "path": scope.path,
            "query_string": scope.query_string.encode("latin-1"),
            "headers": headers,
            "state": state,
        }


class Exchange:
    """One request's ASGI `receive` and `send` over an RSGI `protocol`."""

    def __init__(self, protocol: Any) -> None:
        self.protocol = protocol
        self.read = False
        self.status = 500
        self.headers: Text = []
        self.started = False  # http.response.start seen
        self.answered = False  # the response's head handed to granian
        self.stream: Any = None

    async def run(self, app: Any, scope: dict[str, Any]) -> None:
        try:
            await app(scope, self.receive, self.send)
        except Exception:
            log.exception("the app failed on %s %s", scope["method"], scope["path"])
            if not self.answered:
                self.protocol.response_empty(500, [])
            return
        if not self.answered:  # the app ended without a body message
            self.protocol.response_empty(self.status if self.started else 500, self.headers)

    async def receive(self) -> dict[str, Any]:
        if not self.read:
            self.read = True
            try:
                body = await self.protocol()
            except Exception:  # a malformed body (a bad chunk size), or the client went away:
                body = b""  # it ends here, as granian's ASGI interface ends it; the app says 400
            return {"type": "http.request", "body": body, "more_body": False}
        await self.protocol.client_disconnect()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "http.response.start":
            self.started = True
            self.status = message["status"]
            self.headers = _text(message.get("headers") or [])
        elif kind == "http.response.body":
            body = message.get("body", b"")
            if self.stream is None:
                if not message.get("more_body", False):
                    self.answered = True
                    self.protocol.response_bytes(self.status, self.headers, body)
                    return
                self.answered = True
                self.stream = self.protocol.response_stream(self.status, self.headers)
            if body:
                await self.stream.send_bytes(body)
        elif kind == "http.response.pathsend":
            self.answered = True
            self.protocol.response_file(self.status, self.headers, message["path"])


def _text(raw: Any) -> Text:
    return [(k.decode("latin-1"), v.decode("latin-1")) for k, v in raw]


def _address(value: str) -> tuple[str, int] | None:
    """`("1.2.3.4", 80)` of RSGI's `"1.2.3.4:80"` (`"[::1]:80"` for IPv6)."""
    host, _, port = value.rpartition(":")
    if not host:
        return None
    try:
        return host.strip("[]"), int(port)
    except ValueError:
        return None
