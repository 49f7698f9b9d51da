"""Security headers on every response (OWASP Secure Headers Project,
https://owasp.org/www-project-secure-headers/).

`security_headers(settings, base_url)` builds the header list once, from the site's settings;
`SecurityHeaders` is the pure ASGI middleware that adds it to every response (pages, errors,
500s included, static and media files, feeds, redirects, 304s), keeping a header a response set
itself (an SVG's own sandbox policy). `install(app, headers)` puts it outside the whole
Starlette stack, so even the server-error handler's response carries the headers.

The Content-Security-Policy (CSP Level 3, https://www.w3.org/TR/CSP3/) allows no inline script
and no inline style: every script and style sheet is a file under `/static/` (JSON-LD blocks are
data, not script). `[security] csp` adds sources to a directive (see `config.SecuritySettings`).
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.applications import Starlette
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from masthead.config import Settings
from masthead.config.origins import origin_of

BASE_POLICY: dict[str, list[str]] = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'"],
    "connect-src": ["'self'"],  # the --dev live reload's EventSource
    "media-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'none'"],
    "frame-ancestors": ["'none'"],
    "form-action": ["'self'"],
}
# Fetch directives fall back to default-src (CSP3 §6.1): a new one starts from its sources.
FETCH_DIRECTIVES = frozenset(
    {
        "child-src", "connect-src", "default-src", "font-src", "frame-src", "img-src",
        "manifest-src", "media-src", "object-src", "script-src", "script-src-elem",
        "script-src-attr", "style-src", "style-src-elem", "style-src-attr", "worker-src",
    }
)  # fmt: skip
# Powerful features nothing on a magazine page needs; fullscreen, autoplay and
# picture-in-picture stay allowed so embedded players work once `frame-src` allows them.
DENIED_FEATURES = (
    "accelerometer", "browsing-topics", "camera", "display-capture", "geolocation",
    "gyroscope", "hid", "idle-detection", "magnetometer", "microphone", "midi", "payment",
    "publickey-credentials-get", "screen-wake-lock", "serial", "usb", "xr-spatial-tracking",
)  # fmt: skip


def content_security_policy(extra: dict[str, list[str]]) -> str:
    """The CSP header value: `BASE_POLICY` with `extra`'s sources added per directive ('none'
    is dropped from a directive that gains a source). `extra` is validated by the settings."""
    policy = {name: list(sources) for name, sources in BASE_POLICY.items()}
    for name, sources in extra.items():
        start = policy.get(name)
        if start is None:
            start = list(policy["default-src"]) if name in FETCH_DIRECTIVES else []
        merged = [s for s in start if s != "'none'"] if sources else start
        merged += [s for s in sources if s not in merged]
        policy[name] = merged
    return "; ".join(" ".join([name, *sources]) for name, sources in policy.items())


def security_headers(settings: Settings, base_url: str) -> list[tuple[str, str]]:
    """The headers every response carries, as `(name, value)` pairs; HSTS only when `base_url`
    (the site's effective base URL, `SiteState.base_url`) is https."""
    extra = settings.security.csp
    if settings.api_url:  # exported pages send the search form (and fetch) to a masthead
        api = origin_of(settings.api_url)
        extra = {**extra, **{d: [*extra.get(d, []), api] for d in ("form-action", "connect-src")}}
    headers = [
        ("Content-Security-Policy", content_security_policy(extra)),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "strict-origin-when-cross-origin"),
        ("Permissions-Policy", ", ".join(f"{f}=()" for f in DENIED_FEATURES)),
        ("Cross-Origin-Opener-Policy", "same-origin"),
    ]
    if not extra.get("frame-ancestors"):  # the legacy header agrees with frame-ancestors 'none'
        headers.append(("X-Frame-Options", "DENY"))
    max_age = settings.security.hsts_max_age
    if base_url.startswith("https://") and max_age > 0:  # RFC 6797
        value = f"max-age={max_age}"
        if settings.security.hsts_include_subdomains:
            value += "; includeSubDomains"
        headers.append(("Strict-Transport-Security", value))
    return headers


# Every response names the software without a version (OWASP: "remove or set non-informative
# values"): granian always sends a Server header (the app's own in place of its `granian`), so
# both servers send this one.
SERVER = ("Server", "masthead")


def response_headers(settings: Settings, base_url: str) -> list[tuple[str, str]]:
    """What every response carries: `security_headers` and `SERVER`."""
    return [*security_headers(settings, base_url), SERVER]


class SecurityHeaders:
    """Pure ASGI middleware adding `headers` to every HTTP response that does not set them
    itself, and removing any `Server` or `X-Powered-By` header the app sets (`headers` brings
    the one `Server` header)."""

    def __init__(self, app: ASGIApp, headers: Sequence[tuple[str, str]]) -> None:
        self.app = app
        self.headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                own = [
                    (k, v)
                    for k, v in message.get("headers", [])
                    if k.lower() not in (b"server", b"x-powered-by")
                ]
                names = {k.lower() for k, _ in own}
                own += [(k, v) for k, v in self.headers if k not in names]
                message = {**message, "headers": own}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def install(app: Starlette, headers: Sequence[tuple[str, str]]) -> None:
    """Wrap `app`'s whole middleware stack in `SecurityHeaders`. Middleware added with
    `add_middleware` runs inside Starlette's ServerErrorMiddleware, whose 500 responses would
    go out without the headers; this wraps that too."""
    build = app.build_middleware_stack

    def build_with_headers() -> ASGIApp:
        return SecurityHeaders(build(), headers)

    app.build_middleware_stack = build_with_headers  # type: ignore[method-assign]
