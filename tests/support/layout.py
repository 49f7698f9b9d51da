"""Measuring layout in Chromium: layout shifts recorded from before the page's own scripts, the
frames a measurement waits for, and a proxy that delivers each HTML page in two parts."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

OBSERVE = """
window.__shifts = [];
new PerformanceObserver(function (list) {
  list.getEntries().forEach(function (e) {
    window.__shifts.push({value: e.value, sources: (e.sources || []).map(function (s) {
      return s.node ? s.node.nodeName + "." + String(s.node.className || "") : "?";
    })});
  });
}).observe({type: "layout-shift", buffered: true});
"""


def two_part_proxy(upstream: str, cut: str) -> Any:
    """An ASGI app that serves `upstream`'s responses, each HTML page in two writes 1.5 s apart,
    the second starting at `cut`."""

    async def app(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        path = scope["path"] + (
            "?" + scope["query_string"].decode() if scope["query_string"] else ""
        )
        async with httpx.AsyncClient() as client:
            response = await client.get(upstream + path)
        keep = {"content-type", "content-security-policy", "cache-control"}
        headers = [(k.encode(), v.encode()) for k, v in response.headers.items() if k in keep]
        await send(
            {"type": "http.response.start", "status": response.status_code, "headers": headers}
        )
        body = response.content
        at = (
            body.find(cut.encode())
            if b"text/html" in response.headers.get("content-type", "").encode()
            else -1
        )
        if at > 0:
            await send({"type": "http.response.body", "body": body[:at], "more_body": True})
            await asyncio.sleep(1.5)
            body = body[at:]
        await send({"type": "http.response.body", "body": body})

    return app
