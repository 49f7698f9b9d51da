"""App factories for granian processes started by tests (`granian --factory
support.granian_apps:NAME`), each building a worker's app from the plan in the
`_MASTHEAD_SERVE_WORKER` variable, as `masthead serve` does (cli/server.py `worker_app`)."""

from __future__ import annotations

from typing import Any

from masthead.cli import server


def asgi_app() -> Any:
    """The worker's ASGI app, cache hits answered by the ASGI fast path (plan.server uvicorn)."""
    return server.worker_app()


def router_app() -> Any:
    """The worker's ASGI app with no fast path: every request goes through FastAPI's router."""
    app = server.worker_app()
    app.fast_path = None
    return app


def marked_rsgi_app() -> Any:
    """The worker's app over RSGI (web/cache/rsgi.py) with every response the ASGI app sends
    marked `x-through-asgi: 1`: what the RSGI fast path answers carries no mark."""
    from masthead.web.cache.rsgi import RSGIApp

    app = server.worker_app()

    async def marked(scope: Any, receive: Any, send: Any) -> None:
        async def marking(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (b"x-through-asgi", b"1")]
            await send(message)

        await app(scope, receive, marking)

    return RSGIApp(app, asgi=marked)
