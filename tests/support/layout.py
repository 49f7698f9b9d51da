"""Measuring layout in Chromium: layout shifts recorded from before the page's own scripts, the
conditions a measurement waits for (fonts, the TOC, frames drawn), and a proxy that delivers
each HTML page in two parts, the second once the browser has painted the first."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import httpx
from playwright.sync_api import Page, Route

from support.browser import FRAMES
from support.wait import CEILING

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


# Resolves once the page is still: its fonts loaded, the TOC's reading position marked (site.js
# marks it in an IntersectionObserver callback after the first layout), then two frames drawn and
# a task run after them (the layout-shift observer's callbacks are tasks queued by the frames).
SETTLED = """async () => {
  await document.fonts.ready;
  const toc = () => !document.querySelector(".toc a[href^='#']")
    || document.querySelector(".toc a.is-current");
  while (!toc()) await new Promise(r => requestAnimationFrame(r));
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  await new Promise(r => setTimeout(r));
}"""


def shifts_when_settled(page: Page) -> list[dict[str, Any]]:
    """The layout shifts `OBSERVE` recorded, once the loaded page is still (`SETTLED`)."""
    page.wait_for_load_state("load")
    page.evaluate(SETTLED)
    return page.evaluate("window.__shifts")


FIRST_PAINT = "() => performance.getEntriesByType('paint').length > 0"


class TwoPartProxy:
    """An ASGI app that serves `upstream`'s responses, each HTML page in two writes, the second
    starting at `cut` and held back until the test calls `release` (once the browser has painted
    the first part: `paint_then_release`). Other responses pass at once."""

    def __init__(self, upstream: str, cut: str) -> None:
        self.upstream = upstream
        self.cut = cut.encode()
        self.released = threading.Event()
        self.before_release: Any = None

    def release(self) -> None:
        self.released.set()

    def paint_then_release(self, page: Page, before: str = "null") -> None:
        """Wait until `page` has painted (the first part only: the rest is held), draw two more
        frames, evaluate `before` there (kept in `before_release`), then let the rest come."""
        page.wait_for_function(FIRST_PAINT, polling="raf", timeout=CEILING * 1000)
        page.evaluate(FRAMES)
        self.before_release = page.evaluate(before)
        self.release()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        path = scope["path"] + (
            "?" + scope["query_string"].decode() if scope["query_string"] else ""
        )
        async with httpx.AsyncClient(timeout=CEILING) as client:
            response = await client.get(self.upstream + path)
        keep = {"content-type", "content-security-policy", "cache-control"}
        headers = [(k.encode(), v.encode()) for k, v in response.headers.items() if k in keep]
        await send(
            {"type": "http.response.start", "status": response.status_code, "headers": headers}
        )
        body = response.content
        html = b"text/html" in response.headers.get("content-type", "").encode()
        at = body.find(self.cut) if html else -1
        if at > 0:
            await send({"type": "http.response.body", "body": body[:at], "more_body": True})
            released = await asyncio.to_thread(self.released.wait, CEILING)
            assert released, "the test never released the second part"
            body = body[at:]
        await send({"type": "http.response.body", "body": body})


def two_part_proxy(upstream: str, cut: str) -> TwoPartProxy:
    return TwoPartProxy(upstream, cut)


class HeldBack:
    """A route handler that holds requests back, as a slow network would, until `release` (once
    the page has painted without them: `paint_then_release`); later ones pass at once."""

    def __init__(self) -> None:
        self.held: list[Route] = []
        self.released = False

    def __call__(self, route: Route) -> None:
        if self.released:
            route.continue_()
        else:
            self.held.append(route)

    def paint_then_release(self, page: Page) -> None:
        page.wait_for_function(FIRST_PAINT, polling="raf", timeout=CEILING * 1000)
        page.evaluate(FRAMES)
        self.released = True
        for route in self.held:
            route.continue_()


# Resolves once the page has stopped moving: the same scroll position and the same box for every
# block on screen over two frames (a smooth scroll ended, a block that was skipped took its size).
STILL = """async () => {
  const frame = () => new Promise(r => requestAnimationFrame(r));
  const state = () => JSON.stringify([scrollX, scrollY, [...document.querySelectorAll(
    '.post-body > *')].map(e => e.getBoundingClientRect()).filter(
    r => r.bottom > 0 && r.top < innerHeight).map(r => [r.top, r.height])]);
  await document.fonts.ready;
  let before = state();
  for (;;) {
    await frame();
    await frame();
    const now = state();
    if (now === before) return;
    before = now;
  }
}"""


def still(page: Page) -> None:
    """Wait until `page` has stopped moving (`STILL`)."""
    page.evaluate(STILL)
