"""The dashboard's Privacy screen: readers' privacy requests (a copy or the erasure of their
comments, notify/privacy.py) with their state, and both actions for an editor, for a request's
address or any address typed in. Every action writes an audit row (`export-person`,
`erase-person`, actor `editor:NAME`) and closes the request it answers. Needs a session; its
POSTs go through the dashboard's Origin and CSRF checks (`checked_form`)."""

from __future__ import annotations

import time

from fastapi import APIRouter, Request
from fastapi.responses import Response

from masthead.accounts.service import SignedIn
from masthead.comments.port import service as comments_io
from masthead.notify import privacy, tokens
from masthead.store import privacy_requests as requests
from masthead.web.routes import site_state
from masthead.web.routes.guanli import checked_form, refused, render, signed_in, to_login, when
from masthead.web.routes.privacy import download

PATH = "/guanli/privacy"


def router() -> APIRouter:
    routes = APIRouter(include_in_schema=False)
    routes.add_api_route(PATH, screen, methods=["GET", "HEAD"])
    routes.add_api_route(PATH, act, methods=["POST"])
    return routes


def screen(request: Request) -> Response:
    """The requests, newest first, and the form that runs either action for an address."""
    signed = signed_in(request)
    if signed is None:
        return to_login(request)
    return _screen(request, signed, 200)


def _screen(
    request: Request,
    signed: SignedIn,
    status: int,
    notice: str = "",
    email: str = "",
    **values: object,
) -> Response:
    """The screen, with `notice` (a catalog key, filled from `values`) above the list."""
    now = time.time()
    rows = [
        {
            "r": r,
            "when": when(request, r.requested),
            "state": requests.state_of(r, now, tokens.PRIVACY_MAX_AGE),
            "done": when(request, r.done) if r.done else None,
        }
        for r in requests.listing(site_state(request).db.read())
    ]
    return render(
        request,
        "guanli/privacy.html",
        status,
        title="privacy",
        user=signed.user,
        csrf=signed.session.csrf,
        rows=rows,
        notice=notice,
        notice_values=values,
        email=email,
    )


async def act(request: Request) -> Response:
    """Export (a JSON download) or erase the comments of the form's address (`email`, or the
    address of request `request`)."""
    signed, form, why = await checked_form(request)
    if why or signed is None:
        return refused(request, why, f"editor:{signed.user.name}" if signed else "anonymous")
    db = site_state(request).db
    actor = f"editor:{signed.user.name}"
    action = form.get("action", "")
    email, request_id = form.get("email", "").strip(), None
    raw_id = form.get("request", "")
    if raw_id:
        small = raw_id.isdigit() and len(raw_id) < 12
        found = requests.get(db.read(), int(raw_id)) if small else None
        if found is None or found.state == "done":
            return _screen(request, signed, 409, "g_privacy_gone")
        email, request_id = found.email, found.id
    if action not in ("export", "erase") or not privacy.valid(email):
        return _screen(request, signed, 400, "privacy_bad_email", email)
    if action == "export":
        return download(comments_io.export_person(db, email, actor, request_id))
    if form.get("confirm") != "yes":
        return _screen(request, signed, 400, "g_privacy_unconfirmed", email)
    erased, kept = comments_io.erase(db, email, actor, request_id)
    return _screen(request, signed, 200, "g_privacy_erased", n=erased, kept=kept, address=email)
