"""`/guanli/` (管理, "manage"): sign-in, sign-out, the overview with the sessions list.

Every page is `noindex` and `no-store`. The interface language is `?ui=en|zh` (remembered in a
cookie), else that cookie, else `Accept-Language`: a parameter of its own, since `lang` is the
Comments screen's language filter, as it is the public search's; the header's switch reloads the
screen it is on with every parameter kept. An error under `/guanli/` (a 404, a 405) is the
dashboard's own page for a signed-in editor, and for anyone else what a dashboard page is without
a session (web/errors.py calls `error_page`).

Everything under `/guanli/` but the sign-in page needs a session (`masthead.accounts.service`):
a GET
without one is sent to `/guanli/login?next=PATH`, a POST without one is a 403. Every POST is
refused when it comes from another site (web/http/csrf.py) and must carry the session's CSRF token
(C46); the sign-in form, which has no session yet, carries a double-submit token against login
CSRF. A refused attempt is written to the audit log.
"""

from __future__ import annotations

import hmac
import secrets
import time
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from masthead.accounts import service as accounts
from masthead.comments import identity
from masthead.i18n import CATALOGS, gettext
from masthead.store import audit_log, site_secrets
from masthead.store import comment_moderation as moderation
from masthead.store import posts as posts_store
from masthead.store import users as store
from masthead.web.http import csrf, forms
from masthead.web.render.charts import bars, per_day
from masthead.web.routes import guanli_text, ops, renderer, site_state

SESSION_COOKIE = "masthead_session"
LOGIN_COOKIE = "masthead_login"  # the sign-in form's double-submit token
LANG_COOKIE = "masthead_guanli_lang"
LANG_PARAM = "ui"  # the interface language's parameter (`lang` is a listing filter)
LANGS = {"en": "en", "zh": "zh_Hans_CN"}
PRIVATE = {"Cache-Control": "no-store", "X-Robots-Tag": "noindex, nofollow"}


def router() -> APIRouter:
    routes = APIRouter(include_in_schema=False)
    routes.add_api_route("/guanli", to_dashboard, methods=["GET", "HEAD"])
    routes.add_api_route("/guanli/", overview, methods=["GET", "HEAD"])
    routes.add_api_route("/guanli/login", login_page, methods=["GET", "HEAD"])
    routes.add_api_route("/guanli/login", login, methods=["POST"])
    routes.add_api_route("/guanli/logout", logout, methods=["POST"])
    routes.add_api_route("/guanli/sessions/revoke", revoke_session, methods=["POST"])
    return routes


# --- helpers ------------------------------------------------------------------------------


def interface_language(request: Request) -> str:
    """The dashboard's language code: `?ui=`, else the editor's pick (a cookie), else the
    first of `Accept-Language` (RFC 9110 §12.5.4) we have, else English. Never `?lang=`: that
    is the Comments screen's filter of the comments' language."""
    picked = request.query_params.get(LANG_PARAM) or request.cookies.get(LANG_COOKIE)
    if picked in LANGS:
        return picked
    for part in request.headers.get("accept-language", "").split(","):
        tag = part.split(";")[0].strip().lower()
        primary = tag.split("-")[0]
        if primary in LANGS:
            return primary
    return "en"


def switch_url(request: Request, to: str, page: str | None = None) -> str:
    """The header's link to the interface in language `to`: this screen with all its
    parameters (filters, page, notice) and `ui=to`. A page answering a POST cannot be reloaded
    by a link: `page` (a path under /guanli/ with its query, e.g. a confirmation's listing)
    stands for it, else the overview."""
    if request.method in ("GET", "HEAD"):
        path = quote(request.url.path, safe="/")
        items = list(request.query_params.multi_items())
    else:
        parts = urlsplit(page or "/guanli/")
        if parts.scheme or parts.netloc or not parts.path.startswith("/guanli/"):
            parts = urlsplit("/guanli/")
        path = quote(parts.path, safe="/%")
        items = parse_qsl(parts.query, keep_blank_values=True)
    kept = [(k, v) for k, v in items if k != LANG_PARAM]
    return path + "?" + urlencode([*kept, (LANG_PARAM, to)])


def remember_language(request: Request, response: Response) -> Response:
    """Keep a `?ui=` pick in a cookie (a year, the dashboard's paths only)."""
    if request.query_params.get(LANG_PARAM) in LANGS:
        lang = request.query_params[LANG_PARAM]
        response.set_cookie(LANG_COOKIE, lang, max_age=365 * 86400, samesite="lax", path="/guanli")
    return response


def render(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    """A dashboard page: private, never cached, never indexed."""
    lang = interface_language(request)
    locale = LANGS[lang]

    def t(key: str, **values: Any) -> str:
        return gettext(locale, key, **values)

    other = "en" if lang == "zh" else "zh"
    html = (
        renderer(request)
        .env.get_template(template)
        .render(
            site=site_state(request).site.settings,
            lang_code=lang,
            hreflang="zh-Hans" if lang == "zh" else "en",
            t=t,
            path=request.url.path,
            lang_switch=switch_url(request, other, context.get("switch_page")),
            reason=lambda stored: guanli_text.reason_text(t, stored),
            detail=lambda raw: guanli_text.detail_text(t, raw),
            status_name=lambda status: guanli_text.status_name(t, status),
            **context,
        )
    )
    response = HTMLResponse(html, status, headers=PRIVATE)
    remember_language(request, response)
    return response


def client_hash(request: Request) -> str:
    """Keyed hash of the client's address (the one resolver, C52), for throttling and the log."""
    state = site_state(request)
    ip = identity.client_ip_of(request.scope, state.site.settings.trusted_proxies)
    return identity.ip_hash(site_secrets.site_secret(state.db), ip)


def when(request: Request, ts: float) -> dict[str, str]:
    """A time (seconds since the epoch) in the site's zone: `iso` (with its offset, for
    `datetime`, C54) and `text` (2024-05-02 07:30)."""
    moment = datetime.fromtimestamp(ts, site_state(request).site.tz)
    return {"iso": moment.isoformat(timespec="seconds"), "text": moment.strftime("%Y-%m-%d %H:%M")}


def secure(request: Request) -> bool:
    return site_state(request).base_url.startswith("https://")


def signed_in(request: Request) -> accounts.SignedIn | None:
    """The request's live session, or None."""
    return accounts.session_for(site_state(request).db, request.cookies.get(SESSION_COOKIE, ""))


def refused(request: Request, why: str, actor: str = "anonymous") -> HTMLResponse:
    """A 403 page for a state change that did not prove it came from the editor; logged."""
    with site_state(request).db.write() as conn:
        audit_log.log_event(
            conn, actor, "refused", detail={"path": request.url.path, "why": why[:200]}
        )
    return render(request, "guanli/message.html", 403, title="403", message=why)


def origin_problem(request: Request) -> str | None:
    """Why a dashboard POST comes from another site (web/http/csrf.py), or None."""
    state = site_state(request)
    why = csrf.origin_problem(request.headers, csrf.own_origins(request, state.base_url), ())
    return f"refused: {why}" if why else None


async def checked_form(request: Request) -> tuple[accounts.SignedIn | None, dict[str, str], str]:
    """The session and form of a dashboard POST, and why it is refused ('' when it is not):
    another site, no session, or a missing or wrong CSRF token. A body that is not UTF-8 raises
    `forms.FormNotUTF8` (a 400 page, nothing changed)."""
    form = {k: str(v) for k, v in (await forms.read(request)).items()}
    why = origin_problem(request)
    signed = signed_in(request)
    if why is None and signed is None:
        why = "refused: you are not signed in (or the session expired)"
    if why is None and signed is not None:
        token = form.get("csrf", "")
        if not hmac.compare_digest(token.encode(), signed.session.csrf.encode()):
            why = "refused: the form's security token is missing or wrong; reload the page"
    return signed, form, why or ""


def safe_next(target: str | None) -> str:
    """`next` after sign-in: only a path under /guanli/ on this origin, else /guanli/."""
    if not target:
        return "/guanli/"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or "\\" in target or not parts.path.startswith("/guanli/"):
        return "/guanli/"
    if target.startswith("//"):
        return "/guanli/"
    return target


def to_login(request: Request) -> Response:
    here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    response = RedirectResponse(f"/guanli/login?next={quote(here, safe='/')}", 303, headers=PRIVATE)
    return remember_language(request, response)


def is_dashboard(path: str) -> bool:
    return path == "/guanli" or path.startswith("/guanli/")


def error_page(request: Request, status: int, message: str = "") -> Response:
    """The answer to an error under /guanli/ (no such page, a method it does not take, a
    crash): for a signed-in editor, the dashboard's message page with the status (and the
    error's `message`, but never a crash's); for anyone else exactly what a dashboard page
    answers without a session (a GET goes to sign in, any other method is a 403), so that
    nobody learns which dashboard addresses exist."""
    signed = signed_in(request)
    if signed is None:
        if request.method in ("GET", "HEAD"):
            return to_login(request)
        why = "refused: you are not signed in (or the session expired)"
        return render(request, "guanli/message.html", 403, title="403", message=why)
    locale = LANGS[interface_language(request)]
    if status == 404:
        message = gettext(locale, "g_not_found_text")
    elif status == 405:
        message = gettext(locale, "g_method_text", method=request.method)
    elif status >= 500 or not message:  # a crash's own words stay in the log
        message = gettext(locale, "guanli_500" if status >= 500 else "guanli_400")
    title = (
        str(status) if f"guanli_{status}" in CATALOGS["en"] else str(500 if status >= 500 else 400)
    )
    return render(
        request,
        "guanli/message.html",
        status,
        title=title,
        message=message,
        user=signed.user,
        csrf=signed.session.csrf,
    )


# --- endpoints ----------------------------------------------------------------------------


def to_dashboard() -> Response:
    return RedirectResponse("/guanli/", 301)


RECENT = 5  # comments in the overview's "Recent comments"


def recent_comments(conn: Any, request: Request) -> list[dict[str, Any]]:
    """The newest pending and approved comments (WordPress's Activity box: spam and trash
    left out), each with its post's title and its date in the site's zone."""
    rows = [
        c
        for status in ("pending", "approved")
        for c in moderation.listing(conn, moderation.Filter(status=status), per_page=RECENT)[0]
    ]
    rows = sorted(rows, key=lambda c: (c.created, c.id), reverse=True)[:RECENT]
    titles = posts_store.titles_by_url(conn, [c.post_url for c in rows])
    return [
        {"c": c, "title": titles.get(c.post_url, c.post_url), "date": when(request, c.created)}
        for c in rows
    ]


def overview(request: Request) -> Response:
    """The overview, as quick to read as WordPress's dashboard: the comments per status (each
    a link to its moderation queue view), the recent comments, the site's health (content
    errors, the replica), then the charts and the sessions of the signed-in editor (of every
    user, for an admin), each revocable."""
    signed = signed_in(request)
    if signed is None:
        return to_login(request)
    conn = site_state(request).db.read()
    sessions = store.sessions_of(conn, None if signed.user.role == "admin" else signed.user.id)
    names = {u.id: u.name for u in store.users(conn)}
    zone = site_state(request).site.tz
    now = time.time()
    series = per_day(moderation.created_since(conn, now - 30 * 86400), zone, 30, now)
    top = moderation.top_threads(conn, now - 30 * 86400)
    titles = posts_store.titles_by_url(conn, [r["post_url"] for r in top])
    return render(
        request,
        "guanli/overview.html",
        title="overview",
        user=signed.user,
        csrf=signed.session.csrf,
        counts=moderation.status_counts(conn),
        recent=recent_comments(conn, request),
        content_errors=sum(1 for i in posts_store.issues(conn) if i.severity == "error"),
        bars=bars(series),
        total=sum(c for _, c in series),
        top=[{**dict(r), "title": titles.get(r["post_url"], r["post_url"])} for r in top],
        replica=replica_view(request),
        sessions=[
            {
                "s": s,
                "user": names.get(s.user_id, "?"),
                "current": s.id_hash == signed.session.id_hash,
                "seen": when(request, s.seen),
            }
            for s in sessions
        ],
    )


def replica_view(request: Request) -> dict[str, Any] | None:
    """The replica's state for the overview (None: the site is not replicated), its times in
    the site's zone (`when`)."""
    site = site_state(request).site
    if not site.replicated:
        return None
    summary = ops.replica_summary(site)
    times = ("checked_at", "replicated_at", "behind_since")
    return {
        **summary,
        **{f"{k}_when": when(request, summary[k]) if summary.get(k) else None for k in times},
    }


def login_page(request: Request, next: str = "") -> Response:
    if signed_in(request) is not None:
        return RedirectResponse(safe_next(next), 303, headers=PRIVATE)
    return login_form(request, next)


def login_form(
    request: Request, next: str, status: int = 200, error: str = "", name: str = ""
) -> Response:
    token = request.cookies.get(LOGIN_COOKIE) or secrets.token_urlsafe(24)
    response = render(
        request,
        "guanli/login.html",
        status,
        title="sign_in",
        csrf=token,
        next=safe_next(next),
        error=error,
        username=name,
        switch_page="/guanli/login?" + urlencode({"next": safe_next(next)}),
    )
    response.set_cookie(
        LOGIN_COOKIE,
        token,
        httponly=True,
        samesite="strict",
        secure=secure(request),
        path="/guanli",
    )
    return response


async def login(request: Request) -> Response:
    """Sign in: the form's `username` and `password`; a 303 to `next` (under /guanli/ only).
    A form that is not UTF-8 is the sign-in page again (400) with the name as sent."""
    try:
        form = {k: str(v) for k, v in (await forms.read(request)).items()}
    except forms.FormNotUTF8 as exc:
        kept = {k: str(v) for k, v in exc.kept.items()}
        name = kept.get("username", "").strip()
        return login_form(request, kept.get("next", ""), 400, exc.message, name)
    why = origin_problem(request)
    cookie = request.cookies.get(LOGIN_COOKIE, "")
    if why is None and (
        not cookie or not hmac.compare_digest(cookie.encode(), form.get("csrf", "").encode())
    ):
        why = "refused: the sign-in form's security token is missing or wrong; reload the page"
    if why:
        return refused(request, why)
    name = form.get("username", "").strip()
    state = site_state(request)
    try:
        signed = accounts.login(
            state.db,
            name,
            form.get("password", ""),
            client=client_hash(request),
            user_agent=request.headers.get("user-agent", ""),
        )
    except accounts.LoginRefused as exc:
        status = 429 if exc.retry_after else 401
        response = login_form(request, form.get("next", ""), status, str(exc), name)
        if exc.retry_after:
            response.headers["Retry-After"] = str(exc.retry_after)
        return response
    response = RedirectResponse(safe_next(form.get("next")), 303, headers=PRIVATE)
    response.set_cookie(
        SESSION_COOKIE,
        signed.cookie_id,
        httponly=True,
        samesite="lax",
        secure=secure(request),
        path="/",
        max_age=int(accounts.SESSION_MAX),
    )
    response.delete_cookie(LOGIN_COOKIE, path="/guanli")
    return response


async def logout(request: Request) -> Response:
    signed, _, why = await checked_form(request)
    if why:
        return refused(request, why, f"editor:{signed.user.name}" if signed else "anonymous")
    accounts.logout(site_state(request).db, request.cookies.get(SESSION_COOKIE, ""))
    response = RedirectResponse("/guanli/login", 303, headers=PRIVATE)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


async def revoke_session(request: Request) -> Response:
    """End one session from the list (an editor their own; an admin anyone's)."""
    signed, form, why = await checked_form(request)
    if why or signed is None:
        return refused(request, why, f"editor:{signed.user.name}" if signed else "anonymous")
    db = site_state(request).db
    target = form.get("session", "")
    mine = {s.id_hash for s in store.sessions_of(db.read(), signed.user.id)}
    if signed.user.role != "admin" and target not in mine:
        return render(
            request, "guanli/message.html", 403, title="403", message="refused: not your session"
        )
    accounts.revoke_session(db, target, f"editor:{signed.user.name}")
    return RedirectResponse("/guanli/", 303, headers=PRIVATE)
