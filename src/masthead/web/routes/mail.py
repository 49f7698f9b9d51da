"""The pages that links in notification mails open.

- `/guanli/mail/{token}`: a moderation link from a "held comment" mail (notify/tokens.py).
  GET only shows the comment and a button (mail scanners fetch links by themselves: a GET
  changes nothing, C46); the button's POST acts, through `store.comments.set_status(...,
  expect={"pending"})`. The token is bound to one comment and one action, works once
  (`used_tokens`), expires after 7 days, and dies once the comment changed after the mail.
- `/comments/unsubscribe/{token}`: the one-click unsubscribe of a reply mail. GET shows a
  button; POST (the button, or a mail client's RFC 8058 `List-Unsubscribe=One-Click`) stops
  reply mails to that address; answered 200 with a page, never a redirect (RFC 8058 §3.2).

Every POST is refused (403) when the browser says it comes from another site
(`Sec-Fetch-Site: cross-site`/`same-site`, or a foreign `Origin`); a request without either
header (a mail provider's one-click POST, a script) is judged by its token alone. The pages are
noindex, `Cache-Control: no-store` and `Referrer-Policy: same-origin` (the token is in the URL).
"""

from __future__ import annotations

import hmac
import time
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from markupsafe import Markup

from masthead.config import Language
from masthead.i18n import gettext
from masthead.notify import tokens
from masthead.store import audit_log, outbox, site_secrets
from masthead.store import comments as store
from masthead.store import posts as store_posts
from masthead.web.http import csrf
from masthead.web.routes import add, renderer, site_state

ACTOR = "mail"  # the audit log's actor for what mailed links do
HEADERS = {
    "Cache-Control": "no-store",
    "X-Robots-Tag": "noindex, nofollow",
    # the token is in the URL: no Referer to other sites; not `no-referrer`, under which
    # browsers send `Origin: null` with the page's own form POST (Fetch, "serializing a
    # request origin")
    "Referrer-Policy": "same-origin",
}


def router() -> APIRouter:
    routes = APIRouter()
    add(routes, "/guanli/mail/{token}", moderate_page)
    routes.add_api_route(
        "/guanli/mail/{token}", moderate, methods=["POST"], include_in_schema=False
    )
    add(routes, "/comments/unsubscribe/{token}", unsubscribe_page)
    routes.add_api_route(
        "/comments/unsubscribe/{token}", unsubscribe, methods=["POST"], include_in_schema=False
    )
    return routes


def cross_site(request: Request) -> bool:
    """True when the request comes from another site's page (web/http/csrf.py: `Origin`, else
    `Sec-Fetch-Site`; `Origin: null` is foreign)."""
    own = csrf.own_origins(request, site_state(request).base_url)
    return csrf.origin_problem(request.headers, own, ()) is not None


def _page(request: Request, lang: Language, status: int, title: str, **context: Any) -> Response:
    html, _ = renderer(request).page(
        "mail.html", lang, path=request.url.path, title=title, noindex=True, status=status,
        **context,
    )  # fmt: skip
    return Response(html, status, headers=HEADERS, media_type="text/html; charset=utf-8")


def _t(lang: Language, key: str, **values: object) -> str:
    return gettext(lang.locale, key, **values)


# --- moderation links ---------------------------------------------------------------------


def _check(request: Request, token: str) -> tuple[tokens.Action, store.Comment] | Response:
    """The action and comment `token` stands for, or the page saying why it cannot be used."""
    state = site_state(request)
    lang = state.site.default_language
    title = _t(lang, "mail_page_title")
    try:
        action = tokens.read_action(site_secrets.site_secret(state.db), token)
    except tokens.TokenError as exc:
        key = "mail_link_expired" if exc.reason == "expired" else "mail_link_invalid"
        return _page(request, lang, 410 if exc.reason == "expired" else 400, title,
                     message=_t(lang, key))  # fmt: skip
    conn = state.db.read()
    comment = store.get(conn, action.comment_id)
    if comment is None or comment.status == store.PLACEHOLDER or not _same(comment, action.key):
        return _page(request, lang, 410, title, message=_t(lang, "mail_comment_gone"))
    if outbox.token_used(conn, token):
        return _page(request, lang, 410, title, message=_t(lang, "mail_link_used"))
    if comment.status != "pending" or outbox.comment_version(conn, comment.id) != action.version:
        return _stale(request, lang, comment)
    return action, comment


def _same(comment: store.Comment, key: str) -> bool:
    """Whether `comment` is the row a link was mailed for (not another that has its id now)."""
    return hmac.compare_digest(comment.token_key, key)


def _stale(request: Request, lang: Language, comment: store.Comment) -> Response:
    message = _t(lang, "mail_link_stale", status=comment.status)
    return _page(request, lang, 409, _t(lang, "mail_page_title"), message=message)


def _comment_context(request: Request, comment: store.Comment) -> dict[str, Any]:
    state = site_state(request)
    post = store_posts.post_by_url(state.db.read(), comment.post_url, state.now())
    return {
        "comment": comment,
        "comment_html": Markup(comment.body_html),  # nosec B704: sanitized when stored (nh3)
        "post_title": post.title if post is not None else comment.post_url,
        "post_url": comment.post_url,
    }


def moderate_page(request: Request, token: str) -> Response:
    """The confirmation page of a moderation link: the comment, and one button. Changes
    nothing."""
    checked = _check(request, token)
    if isinstance(checked, Response):
        return checked
    action, comment = checked
    lang = site_state(request).site.default_language
    return _page(
        request,
        lang,
        200,
        _t(lang, "mail_page_title"),
        question=_t(lang, f"mail_confirm_{action.action}"),
        button=_t(lang, "mail_approve" if action.action == "approve" else "mail_spam"),
        form_action=request.url.path,
        **_comment_context(request, comment),
    )


def moderate(request: Request, token: str) -> Response:
    """The button's POST: the action, once, while the comment is still pending as mailed."""
    state = site_state(request)
    lang = state.site.default_language
    title = _t(lang, "mail_page_title")
    if cross_site(request):
        return _page(request, lang, 403, title, message=_t(lang, "mail_cross_site"))
    checked = _check(request, token)
    if isinstance(checked, Response):
        return checked
    action, comment = checked
    with state.db.write() as conn:
        fresh = outbox.use_token(conn, token, time.time())
    if not fresh:  # a second click that raced the first
        return _page(request, lang, 410, title, message=_t(lang, "mail_link_used"))
    to = tokens.ACTIONS[action.action]
    result = store.set_status(state.db, [comment.id], to, ACTOR, expect={"pending"})
    if not result.changed:
        now = store.get(state.db.read(), comment.id)
        if now is None:
            return _page(request, lang, 410, title, message=_t(lang, "mail_comment_gone"))
        return _stale(request, lang, now)
    return _page(request, lang, 200, title, message=_t(lang, f"mail_done_{to}"))


# --- unsubscribe --------------------------------------------------------------------------


def _unsubscribe_check(request: Request, token: str) -> tuple[Language, int] | Response:
    state = site_state(request)
    try:
        comment_id, key = tokens.read_unsubscribe(site_secrets.site_secret(state.db), token)
    except tokens.TokenError:
        lang = state.site.default_language
        return _page(request, lang, 400, _t(lang, "unsubscribe_title"),
                     message=_t(lang, "mail_link_invalid"))  # fmt: skip
    comment = store.get(state.db.read(), comment_id)
    code = comment.lang if comment is not None else ""
    lang = state.site.languages.get(code, state.site.default_language)
    if key is not None and (comment is None or not _same(comment, key)):
        # that comment is gone: its id may be someone else's now, whose mails must go on
        return _page(request, lang, 410, _t(lang, "unsubscribe_title"),
                     message=_t(lang, "mail_comment_gone"))  # fmt: skip
    return lang, comment_id


def unsubscribe_page(request: Request, token: str) -> Response:
    """The page of an unsubscribe link: one button. Changes nothing."""
    checked = _unsubscribe_check(request, token)
    if isinstance(checked, Response):
        return checked
    lang, _ = checked
    return _page(
        request,
        lang,
        200,
        _t(lang, "unsubscribe_title"),
        question=_t(lang, "unsubscribe_confirm"),
        button=_t(lang, "unsubscribe_button"),
        form_action=request.url.path,
        one_click=True,
    )


def unsubscribe(request: Request, token: str) -> Response:
    """Stop reply mails to the address of the token's comment (every comment with it):
    RFC 8058's one-click POST, or the page's button. Doing it twice changes nothing more."""
    state = site_state(request)
    checked = _unsubscribe_check(request, token)
    if isinstance(checked, Response):
        return checked
    lang, comment_id = checked
    title = _t(lang, "unsubscribe_title")
    if cross_site(request):
        return _page(request, lang, 403, title, message=_t(lang, "mail_cross_site"))

    def apply(conn: Any) -> None:
        for cid in outbox.unsubscribe(conn, comment_id):
            audit_log.log_event(conn, ACTOR, "unsubscribe", comment_id=cid)

    store.commit(state.db, apply)
    return _page(request, lang, 200, title, message=_t(lang, "unsubscribe_done"))
