"""The moderation API for scripts (`/api/admin/`), on the same store actions as the dashboard.

Authenticated by `Authorization: Bearer TOKEN` (`masthead admin token`), or by the dashboard's
session cookie together with its CSRF token in `X-CSRF-Token` (and not from another site); 401
without either. A POST's body must be `application/json` (415 otherwise: a cross-site
`<form enctype="text/plain">` cannot send it, C46 case 2). Errors are the API's one shape
`{"error": {"status", "message"}}`.

- `GET /api/admin/comments?status=&q=&post=&lang=&page=&per_page=` (per_page 1-200):
  `{"comments": [{"id", "post", "parent", "name", "email", "url", "ip_hash", "lang", "status",
  "date", "body"}], "total", "page", "per_page"}`, newest first.
- `POST /api/admin/comments/{id}` `{"action"}` and `POST /api/admin/comments/bulk`
  `{"action", "ids": [...]}` or `{"action", "filter": {...}, "expect": N}` (409 when the filter
  no longer matches N comments): 200 `{"changed": N, "skipped": [{"id": ID, "reason": WHY}]}`.
"""

from __future__ import annotations

import hmac
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from masthead.accounts import service as accounts
from masthead.errors import BadRequest
from masthead.store import audit_log
from masthead.store import comment_moderation as moderation
from masthead.store import comments as cs
from masthead.store import posts as posts_store
from masthead.store.db import Database
from masthead.store.users import User
from masthead.web.http import forms
from masthead.web.routes import comments as _comments  # noqa: F401  (registers `commentid`)
from masthead.web.routes import site_state
from masthead.web.routes.guanli import SESSION_COOKIE, origin_problem

MAX_PER_PAGE = 200
MAX_IDS = 10_000
MAX_BODY = 1024 * 1024  # bytes of a JSON body: MAX_IDS ids take about 70 KB


Action = Literal["approve", "unapprove", "spam", "notspam", "trash", "restore", "delete"]
Id = Annotated[int, Field(ge=1, le=2**63 - 1)]  # what SQLite's INTEGER holds
Text = Annotated[str, Field(max_length=1000)]


class FilterBody(BaseModel):
    """A bulk action's `filter` (or the list's query parameters): every field checked."""

    model_config = ConfigDict(extra="forbid")

    status: Literal["all", "", "pending", "approved", "spam", "trash"] | None = None
    q: Text = ""
    post: Text | None = None
    lang: Annotated[str, Field(max_length=35)] | None = None
    max_id: Id | None = None


class OneBody(BaseModel):
    """`POST /api/admin/comments/{id}`."""

    model_config = ConfigDict(extra="forbid")

    action: Action


class BulkBody(BaseModel):
    """`POST /api/admin/comments/bulk`: `ids`, or a `filter` with the count it `expect`s."""

    model_config = ConfigDict(extra="forbid")

    action: Action
    ids: Annotated[list[Id], Field(max_length=MAX_IDS)] | None = None
    filter: FilterBody | None = None
    expect: Annotated[int, Field(ge=0, le=2**63 - 1)] | None = None


M = TypeVar("M", bound=BaseModel)


def _valid(model: type[M], raw: object, strict: bool = True) -> M:
    """`raw` as `model`; an `ApiError` 400 naming the first field at fault otherwise (JSON
    bodies strictly: `"1"` is not an id, `true` not a number)."""
    try:
        return model.model_validate(raw, strict=strict)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise ApiError(400, f"{where}: {first['msg']}") from None


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def router() -> APIRouter:
    routes = APIRouter(tags=["moderation"])
    routes.add_api_route("/api/admin/comments", list_comments, methods=["GET"])
    routes.add_api_route("/api/admin/comments/bulk", bulk, methods=["POST"])
    # `commentid`: 1-18 digits (comments.py), so a longer id is a 404, never an overflow
    routes.add_api_route("/api/admin/comments/{comment_id:commentid}", act_on_one, methods=["POST"])
    return routes


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse(
        {"error": {"status": status, "message": message, "field": None}},
        status,
        headers={"Cache-Control": "no-store"},
    )


def _caller(request: Request, writing: bool) -> User:
    """The user the request acts as; raises ApiError 401/403."""
    db = site_state(request).db
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        user = accounts.user_for_token(db, auth[7:].strip())
        if user is None:
            raise ApiError(401, "the bearer token is unknown or revoked")
        return user
    signed = accounts.session_for(db, request.cookies.get(SESSION_COOKIE, ""))
    if signed is None:
        raise ApiError(401, "sign in at /guanli/login or send Authorization: Bearer TOKEN")
    if writing:
        why = origin_problem(request)
        token = request.headers.get("x-csrf-token", "")
        if why is None and not hmac.compare_digest(token.encode(), signed.session.csrf.encode()):
            why = "refused: X-CSRF-Token is missing or wrong"
        if why:
            raise ApiError(403, why)
    return signed.user


async def _json(request: Request) -> dict[str, Any]:
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media != "application/json":
        raise ApiError(415, "the body must be application/json")
    try:
        body = forms.parse_json(await forms.read_body(request, MAX_BODY))
    except forms.FormTooLarge:
        raise ApiError(413, f"the body is larger than {MAX_BODY} bytes; it was not read") from None
    except BadRequest as exc:
        raise ApiError(400, exc.message) from None
    if not isinstance(body, dict):
        raise ApiError(400, "the body must be a JSON object")
    return body


def _filter(request: Request, raw: FilterBody) -> moderation.Filter:
    """A store filter from query parameters or a bulk body's `filter` object."""
    status = raw.status or None
    if status == "all":
        status = None
    thread = None
    if raw.post:
        row = posts_store.post_by_url(
            site_state(request).db.read(), raw.post, site_state(request).now(), drafts=True
        )
        if row is None:
            raise ApiError(400, f"post: no post at {raw.post!r}")
        thread = row.translation_key
    return moderation.Filter(
        status=status,
        q=raw.q[:200],
        thread=thread,
        lang=raw.lang or None,
        max_id=raw.max_id,
    )


def _row(c: cs.Comment) -> dict[str, Any]:
    return {
        "id": c.id,
        "post": c.post_url,
        "parent": c.parent_id,
        "name": c.author_name,
        "email": c.author_email,
        "url": c.author_url or None,
        "ip_hash": c.ip_hash,
        "lang": c.lang,
        "status": c.status,
        "date": c.date,
        "body": c.body,
    }


def _int(raw: str | None, name: str, default: int, low: int, high: int) -> int:
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ApiError(400, f"{name}: an integer from {low} to {high}") from None
    if not low <= value <= high:
        raise ApiError(400, f"{name}: an integer from {low} to {high}")
    return value


async def list_comments(request: Request) -> JSONResponse:
    """The comments screen's list, with its filters as query parameters."""
    try:
        _caller(request, writing=False)
        params = request.query_params
        page = _int(params.get("page"), "page", 1, 1, 1_000_000)
        per_page = _int(params.get("per_page"), "per_page", 20, 1, MAX_PER_PAGE)
        known = {k: params[k] for k in FilterBody.model_fields if k in params}
        where = _filter(request, _valid(FilterBody, known, strict=False))
    except ApiError as exc:
        return _error(exc.status, exc.message)
    rows, total = moderation.listing(
        site_state(request).db.read(), where, page=page, per_page=per_page
    )
    return JSONResponse(
        {"comments": [_row(c) for c in rows], "total": total, "page": page, "per_page": per_page},
        headers={"Cache-Control": "no-store"},
    )


async def act_on_one(request: Request, comment_id: int) -> JSONResponse:
    try:
        user = _caller(request, writing=True)
        action = _valid(OneBody, await _json(request)).action
    except ApiError as exc:
        return _error(exc.status, exc.message)
    db = site_state(request).db
    if cs.get(db.read(), comment_id) is None:
        return _error(404, f"no comment {comment_id}")
    done = moderation.moderate(db, action, [comment_id], f"editor:{user.name}")
    return JSONResponse(_result(db, action, done))


async def bulk(request: Request) -> JSONResponse:
    """A bulk action on explicit ids, or on a filter bound to the count the caller saw."""
    try:
        user = _caller(request, writing=True)
        body = _valid(BulkBody, await _json(request))
        action = body.action
        ids = _bulk_ids(request, body)
    except ApiError as exc:
        return _error(exc.status, exc.message)
    db = site_state(request).db
    done = moderation.moderate(db, action, ids, f"editor:{user.name}")
    with db.write() as conn:
        audit_log.log_event(
            conn,
            f"editor:{user.name}",
            f"bulk-{action}",
            detail={"ids": done.changed, "skipped": done.skipped},
        )
    return JSONResponse(_result(db, action, done))


def _result(db: Database, action: str, done: cs.Changed) -> dict[str, Any]:
    """An action's answer: how many changed, and each id skipped with why
    (`moderation.skip_reasons`: gone, already-STATUS, in-STATUS, changed)."""
    reasons = moderation.skip_reasons(db.read(), action, done.skipped)
    skipped = [{"id": i, "reason": reasons[i]} for i in done.skipped]
    return {"changed": len(done.changed), "skipped": skipped}


def _bulk_ids(request: Request, body: BulkBody) -> list[int]:
    if body.ids is not None:
        return body.ids
    if body.filter is None or body.expect is None:
        raise ApiError(400, 'send "ids": [...], or "filter": {...} with "expect": N')
    where = _filter(request, body.filter)
    ids = moderation.matching_ids(site_state(request).db.read(), where)
    if len(ids) != body.expect:
        raise ApiError(
            409,
            f"the filter matches {len(ids)} comments now, not {body.expect}: "
            "list them again before acting",
        )
    return ids
