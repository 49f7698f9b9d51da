"""Live reload for `--dev`: pages open in a browser reload themselves after a save.

The watcher calls `Reloader.notify` after each applied batch; `GET /_dev/reload` is a
Server-Sent Events stream (https://html.spec.whatwg.org/multipage/server-sent-events.html) that
sends the current version on connect and again after every change. Pages served in `--dev` load
`/static/js/dev-reload.js`, which reloads when the version differs from the one the page was
rendered with. Production pages carry no script for this.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from fastapi import Request
from fastapi.responses import StreamingResponse

KEEPALIVE = 10.0  # seconds between comments that keep proxies from closing the stream


class Reloader:
    """A version number and an event that wakes every open stream when it changes."""

    def __init__(self) -> None:
        self.version = 0
        self.state: Any = None  # the SiteState, whose theme epoch a template change bumps
        self._event = asyncio.Event()
        self._closed = False

    def notify(self, kind: str) -> None:
        """Called in the event loop after a batch: "content" or "theme" changed."""
        if kind == "theme" and self.state is not None:
            self.state.theme_epoch += 1
        self.version += 1
        event, self._event = self._event, asyncio.Event()
        event.set()

    def close(self) -> None:
        self._closed = True
        self._event.set()

    async def _stream(self, request: Request) -> AsyncIterator[str]:
        yield f"retry: 500\nevent: version\ndata: {self.version}\n\n"
        while not self._closed:
            event = self._event
            try:
                await asyncio.wait_for(event.wait(), KEEPALIVE)
            except TimeoutError:
                if await request.is_disconnected():
                    return
                yield ": keepalive\n\n"
                continue
            if self._closed:
                return
            yield f"event: version\ndata: {self.version}\n\n"

    async def endpoint(self, request: Request) -> StreamingResponse:
        return StreamingResponse(
            self._stream(request),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )
