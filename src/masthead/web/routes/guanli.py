"""`/guanli/` (管理, "manage"): sign-in, sign-out, the overview with the sessions list.

Every page is `noindex` and `no-store`. Everything under `/guanli/` but the sign-in page needs a
session (`masthead.accounts`): a GET without one is sent to `/guanli/login?next=PATH`, a POST
without one is a 403. Every POST is refused when it comes from another site (web/origin.py)
and must carry the session's CSRF token (C46); the sign-in form, which has no session yet,
carries a double-submit token against login CSRF. A refused attempt is written to the audit log.
"""

from __future__ import annotations

import hmac
import secrets
import time
from datetime import datetime
from typing import Any
from urllib.parse import quote, urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from masthead import accounts
from masthead.comments import identity
from masthead.i18n import gettext
from masthead.store import comments as cs
from masthead.store import posts as posts_store
from masthead.store import users as store
from masthead.web import csrf, forms
from masthead.web.charts import bars, per_day
from masthead.web.routes import renderer, site_state

SESSION_COOKIE = "masthead_session"
LOGIN_COOKIE = "masthead_login"  # the sign-in form's double-submit token
LANG_COOKIE = "masthead_guanli_lang"
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
    """The dashboard's language code: `?lang=`, else the editor's pick (a cookie), else the
    first of `Accept-Language` (RFC 9110 §12.5.4) we have, else English."""
    picked = request.query_params.get("lang") or request.cookies.get(LANG_COOKIE)
    if picked in LANGS:
        return picked
    for part in request.headers.get("accept-language", "").split(","):
        tag = part.split(";")[0].strip().lower()
        primary = tag.split("-")[0]
        if primary in LANGS:
            return primary
    return "en"


def render(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    """A dashboard page: private, never cached, never indexed."""
    lang = interface_language(request)
    locale = LANGS[lang]

    def t(key: str, **values: Any) -> str:
        return gettext(locale, key, **values)

    html = (
        renderer(request)
        .env.get_template(template)
        .render(
            site=site_state(request).site.settings,
            lang_code=lang,
            hreflang="zh-Hans" if lang == "zh" else "en",
            t=t,
            path=request.url.path,
            # the language switch reloads this page; a page answering a POST (a bulk action's
            # confirmation) cannot be reloaded by a link: it leads to the overview
            lang_base="" if request.method in ("GET", "HEAD") else "/guanli/",
            **context,
        )
    )
    response = HTMLResponse(html, status, headers=PRIVATE)
    if request.query_params.get("lang") in LANGS:
        response.set_cookie(LANG_COOKIE, lang, max_age=365 * 86400, samesite="lax", path="/guanli")
    return response


def client_hash(request: Request) -> str:
    """Keyed hash of the client's address (the one resolver, C52), for throttling and the log."""
    state = site_state(request)
    ip = identity.client_ip_of(request.scope, state.site.settings.trusted_proxies)
    return identity.ip_hash(cs.site_secret(state.db), ip)


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
        cs.log_event(conn, actor, "refused", detail={"path": request.url.path, "why": why[:200]})
    return render(request, "guanli/message.html", 403, title="403", message=why)


def origin_problem(request: Request) -> str | None:
    """Why a dashboard POST comes from another site (web/csrf.py), or None."""
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
    return RedirectResponse(f"/guanli/login?next={quote(here, safe='/')}", 303, headers=PRIVATE)


# --- endpoints ----------------------------------------------------------------------------


def to_dashboard() -> Response:
    return RedirectResponse("/guanli/", 301)


def overview(request: Request) -> Response:
    """The overview: comments per status and the sessions of the signed-in editor (of every
    user, for an admin), each revocable."""
    signed = signed_in(request)
    if signed is None:
        return to_login(request)
    conn = site_state(request).db.read()
    sessions = store.sessions_of(conn, None if signed.user.role == "admin" else signed.user.id)
    names = {u.id: u.name for u in store.users(conn)}
    zone = site_state(request).site.tz
    now = time.time()
    series = per_day(cs.created_since(conn, now - 30 * 86400), zone, 30, now)
    top = cs.top_threads(conn, now - 30 * 86400)
    titles = posts_store.titles_by_url(conn, [r["post_url"] for r in top])
    return render(
        request,
        "guanli/overview.html",
        title="overview",
        user=signed.user,
        csrf=signed.session.csrf,
        counts=cs.status_counts(conn),
        bars=bars(series),
        total=sum(c for _, c in series),
        top=[{**dict(r), "title": titles.get(r["post_url"], r["post_url"])} for r in top],
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
