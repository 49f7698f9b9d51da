"""Readers' privacy requests (GDPR articles 15 and 17; notify/privacy.py does the work).

- `/comments/privacy`: the form (linked under every comment form): an address, and a copy or
  the erasure of its comments. Its POST mails a signed link there and answers the same words
  whatever the address (whether it wrote comments or not, whether it is known at all); past
  the rate limits it is a 429 and no mail, again whatever the address.
- `/comments/privacy/{token}`: the mailed link. GET shows what it will do and one button
  (mail scanners fetch links: a GET changes nothing); the button's POST exports (a JSON
  download) or erases, once (`used_tokens`), within a day of the request.

Every POST from another site's page is refused (403, as for mailed moderation links). The
pages are noindex and `Cache-Control: no-store`; the link pages keep their token out of
Referer headers (mail.py's `HEADERS`).
"""

from __future__ import annotations

import json
import time
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from masthead.comments.identity import client_ip_of, ip_hash
from masthead.comments.port import service as comments_io
from masthead.config import Language
from masthead.i18n import gettext
from masthead.notify import privacy, tokens
from masthead.store import comments as store
from masthead.store import site_secrets
from masthead.web.http import forms
from masthead.web.routes import add, renderer, site_state
from masthead.web.routes.mail import HEADERS, cross_site

ACTOR = "reader"  # the audit log's actor for what a reader's privacy link does
FORM_PATH = "/comments/privacy"


def router() -> APIRouter:
    routes = APIRouter()
    add(routes, FORM_PATH, form_page)
    routes.add_api_route(FORM_PATH, ask, methods=["POST"], include_in_schema=False)
    add(routes, FORM_PATH + "/{token}", confirm_page)
    routes.add_api_route(FORM_PATH + "/{token}", act, methods=["POST"], include_in_schema=False)
    return routes


def _lang(request: Request, code: str = "") -> Language:
    state = site_state(request)
    wanted = code or request.query_params.get("lang", "")
    return state.site.languages.get(wanted, state.site.default_language)


def _t(lang: Language, key: str, **values: object) -> str:
    return gettext(lang.locale, key, **values)


def _page(
    request: Request, lang: Language, status: int, template: str = "privacy.html", **context: Any
) -> Response:
    html, _ = renderer(request).page(
        template, lang, path=request.url.path, title=_t(lang, "privacy_title"), noindex=True,
        status=status, **context,
    )  # fmt: skip
    headers = dict(HEADERS)
    if status == 429:
        headers["Retry-After"] = str(int(privacy.WINDOW))
    return Response(html, status, headers=headers, media_type="text/html; charset=utf-8")


def form_page(request: Request) -> Response:
    """The request form. Changes nothing."""
    lang = _lang(request)
    return _page(request, lang, 200, form=True, kind="export", email="", lang_code=lang.code)


async def ask(request: Request) -> Response:
    """The form's POST: record the request and mail the link (notify/privacy.py)."""
    data = {k: str(v) for k, v in (await forms.read(request)).items()}
    lang = _lang(request, data.get("lang", ""))
    if cross_site(request):
        return _page(request, lang, 403, message=_t(lang, "mail_cross_site"))
    kind = data.get("kind", "")
    email = data.get("email", "")
    if kind not in ("export", "erase"):
        return _page(request, lang, 400, form=True, kind="export", email=email,
                     lang_code=lang.code, message=_t(lang, "privacy_bad_kind"))  # fmt: skip
    state = site_state(request)
    secret = site_secrets.site_secret(state.db)
    client = ip_hash(secret, client_ip_of(request.scope, state.site.settings.trusted_proxies))
    answer = privacy.ask(state.db, state.site, state.base_url, kind, email, client, time.time())
    if answer.asked is privacy.Asked.INVALID:
        return _page(request, lang, 400, form=True, kind=kind, email=email,
                     lang_code=lang.code, message=_t(lang, "privacy_bad_email"))  # fmt: skip
    if answer.asked is privacy.Asked.OFF:
        return _page(request, lang, 503, message=_t(lang, "privacy_no_mail"))
    if answer.asked is privacy.Asked.LIMITED:
        return _page(request, lang, 429, message=_t(lang, "privacy_limited"))
    mailer = getattr(request.app.state, "mailer", None)
    if mailer is not None:
        mailer.wake()
    hours = tokens.PRIVACY_MAX_AGE // 3600
    return _page(request, lang, 200, message=_t(lang, "privacy_sent", hours=hours))


def _checked(request: Request, token: str) -> privacy.Confirmed | Response:
    lang = _lang(request)
    try:
        confirmed = privacy.check(site_state(request).db, token)
    except tokens.TokenError as exc:
        if exc.reason == "expired":
            return _page(request, lang, 410, message=_t(lang, "privacy_link_expired"))
        return _page(request, lang, 400, message=_t(lang, "mail_link_invalid"))
    if confirmed.used:
        return _page(request, lang, 410, message=_t(lang, "mail_link_used"))
    return confirmed


def confirm_page(request: Request, token: str) -> Response:
    """What the link will do, for the address's owner only, and one button. Changes nothing."""
    checked = _checked(request, token)
    if isinstance(checked, Response):
        return checked
    lang = _lang(request)
    found = len(store.by_email(site_state(request).db.read(), checked.request.email))
    kind = checked.request.kind
    return _page(
        request,
        lang,
        200,
        question=_t(lang, f"privacy_confirm_{kind}", n=found, email=checked.request.email),
        button=_t(lang, f"privacy_button_{kind}"),
        form_action=request.url.path,
    )


def act(request: Request, token: str) -> Response:
    """The button's POST: export (a JSON download) or erase, once."""
    lang = _lang(request)
    if cross_site(request):
        return _page(request, lang, 403, message=_t(lang, "mail_cross_site"))
    checked = _checked(request, token)
    if isinstance(checked, Response):
        return checked
    state = site_state(request)
    if not privacy.use(state.db, token, time.time()):
        return _page(request, lang, 410, message=_t(lang, "mail_link_used"))
    req = checked.request
    if req.kind == "export":
        person = comments_io.export_person(state.db, req.email, ACTOR, req.id)
        return download(person)
    erased, kept = comments_io.erase(state.db, req.email, ACTOR, req.id)
    return _page(request, lang, 200, message=_t(lang, "privacy_erased", n=erased, kept=kept))


def download(person: dict[str, Any]) -> Response:
    """A data export as a JSON file to save (never cached)."""
    body = json.dumps(person, ensure_ascii=False, indent=2).encode("utf-8")
    headers = dict(HEADERS)
    headers["Content-Disposition"] = 'attachment; filename="comments.json"'
    return Response(body, 200, headers=headers, media_type="application/json")
