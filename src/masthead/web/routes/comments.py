"""Comment routes: the no-JavaScript form, the JSON API, and the small uncached pages around them.

- `POST /comments[?post=URL]` (form, `application/x-www-form-urlencoded` or
  `multipart/form-data`): a 303 to the post's root-relative path with `?c=<status>-<id>` and
  `#c-<id>` (published) or `#c-form` (held), C50; a 4xx is the comment page with the message
  and the text sent back. A body the server did not read (over `MAX_REQUEST`: 413) or could
  not parse has no text to send back: that page says so (nothing stored, the browser's Back
  button has the text) and links to the post that the URL's `post` (the form's action carries
  it) or a Referer on this site's own origin names; nothing else about the request is trusted.
- `GET /comments/{id}/reply?post=URL`: the form, replying to comment `id` (no script needed).
- `GET /comments/mine?post=URL`: the commenter's own pending comments on that post's thread.
- `GET /api/comments?post=URL[&page=N]`: the approved thread, nested, with `total`.
- `POST /api/comments` (JSON `{post, parent?, name, email, url?, body, lang?, notify?,
  remember?, elapsed?}`): `201 {id, status, token, ...}` (a duplicate: `200` with the first).
- `PATCH /api/comments/{id}` (JSON `{body}`), `DELETE /api/comments/{id}`: with the edit token
  the POST answered (`Authorization: Bearer TOKEN`), for `comments_edit_minutes`.
- `GET /api/comments/mine?post=URL`: own pending comments, by the signed commenter cookie.

Every POST, PATCH and DELETE passes the origin check (web/http/csrf.py); script requests that are
not JSON the double-submit check too. Errors under `/api/` are `{"error": {"status", "message",
"field"}}` (a body over `MAX_REQUEST` too: 413, `field` null, a message saying that nothing was
read or stored); nothing is stored on an error. Every answer here is `Cache-Control: no-store`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.convertors import Convertor, register_url_convertor

from masthead.accounts import service as accounts
from masthead.comments import identity, rules, sanitize, text
from masthead.comments import threads as thread_tree
from masthead.comments.submit import Outcome, Submission, submit
from masthead.config import Language
from masthead.config.origins import origin_of
from masthead.errors import BadRequest, CommentError
from masthead.replica import durable
from masthead.store import comments as store
from masthead.store import posts as posts_store
from masthead.store import site_secrets
from masthead.store.rows import PostRow
from masthead.web.cache.state import SiteState
from masthead.web.http import csrf, forms
from masthead.web.http.redirects import location
from masthead.web.render import discussion
from masthead.web.routes import renderer, site_state
from masthead.web.routes.guanli import SESSION_COOKIE

NO_STORE = "no-store"
MAX_REQUEST = 1024 * 1024  # bytes of one comment request (the body limit is 65,525 characters)
REMEMBER_COOKIE = "masthead_author"  # name, email, website: only when the box is ticked
REMEMBER_DAYS = 347  # as WordPress's comment cookies
COMMENTED_COOKIE = "masthead_commented"  # "1": the script may ask /api/comments/mine
URL_SAFE = "/:@!$&'()*+,;=-._~"  # what a stored permalink keeps unencoded
FIELDS = ("post", "parent", "name", "email", "url", "body", "lang")


class CommentId(Convertor[int]):
    """`{id:commentid}`: a comment id, 1 to 18 digits with no leading zero, so none overflows
    SQLite's 64-bit integers (a longer one does not match: a 404)."""

    regex = "[1-9][0-9]{0,17}"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(value)


register_url_convertor("commentid", CommentId())


def router() -> APIRouter:
    routes = APIRouter()
    routes.add_api_route("/comments", form_post, methods=["POST"], include_in_schema=False)
    routes.add_api_route(
        "/comments/mine", mine_page, methods=["GET", "HEAD"], include_in_schema=False
    )
    routes.add_api_route(
        "/comments/{comment_id:commentid}/reply",
        reply_page,
        methods=["GET", "HEAD"],
        include_in_schema=False,
    )
    api: list[str | Enum] = ["comments"]
    routes.add_api_route("/api/comments", api_thread, methods=["GET"], tags=api)
    routes.add_api_route("/api/comments", api_post, methods=["POST"], tags=api, status_code=201)
    routes.add_api_route("/api/comments/mine", api_mine, methods=["GET"], tags=api)
    routes.add_api_route(
        "/api/comments/{comment_id:commentid}", api_edit, methods=["PATCH"], tags=api
    )
    routes.add_api_route(
        "/api/comments/{comment_id:commentid}", api_delete, methods=["DELETE"], tags=api
    )
    return routes


# --- errors ---------------------------------------------------------------------------------


def json_error(
    status: int, message: str, field: str | None = None, retry_after: int | None = None
) -> JSONResponse:
    """The API's one error shape, `{"error": {"status", "message", "field"}}`, uncached."""
    headers = {"Cache-Control": NO_STORE}
    if retry_after:
        headers["Retry-After"] = str(int(retry_after))
    body = {"error": {"status": status, "message": message, "field": field}}
    return JSONResponse(body, status, headers=headers)


# --- reading requests -----------------------------------------------------------------------


TOO_LARGE = (
    f"The request is larger than 1 MiB ({MAX_REQUEST} bytes), so it was not read and nothing "
    "was stored. Shorten the comment (at most 65,525 characters) and send it again."
)


async def _body(request: Request) -> bytes:
    """The request body, at most `MAX_REQUEST` bytes; a 413 `CommentError` past it (refused
    unread: nothing of it can be sent back)."""
    try:
        return await forms.read_body(request, MAX_REQUEST)
    except forms.FormTooLarge:
        raise CommentError(413, TOO_LARGE, code="too_large") from None
    except forms.BodyCutShort as exc:
        raise CommentError(400, exc.message) from None


async def _form(request: Request, body: bytes) -> dict[str, Any]:
    """The text fields of a form whose `body` was read already (a file in place of one
    counts as absent), decoded as UTF-8 (web/http/forms.py); a 400 `FormNotUTF8` when it is not
    UTF-8, a 400 `CommentError` for a malformed body."""
    try:
        form = await forms.parse(request.headers, body)
    except forms.FormNotUTF8:
        raise  # the caller keeps its text
    except BadRequest as exc:
        raise CommentError(400, exc.message) from None
    return {k: v for k, v in form.items() if isinstance(v, str)}


def _not_utf8(exc: forms.FormNotUTF8) -> CommentError:
    return CommentError(400, exc.message, field=exc.field)


def _text(data: dict[str, Any], name: str) -> str:
    """A string field of a JSON or form submission ("" when absent or null)."""
    value = data.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise CommentError(400, f"{name} must be a string", field=name)
    return value


def _flag(data: dict[str, Any], name: str) -> bool:
    value = data.get(name)
    if isinstance(value, bool):
        return value
    return isinstance(value, str) and value.strip().lower() in ("1", "on", "true", "yes")


def _parent(data: dict[str, Any]) -> int | None:
    value = data.get("parent")
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise CommentError(400, "parent must be a comment id", field="parent")
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        number = int(value.strip())
    else:
        raise CommentError(400, "parent must be a comment id", field="parent")
    if not 1 <= number < 2**62:
        raise CommentError(400, "parent must be a comment id", field="parent")
    return number


def _elapsed(data: dict[str, Any]) -> float | None:
    """Seconds the page's script had the form open (`elapsed`), or None (no script)."""
    value = data.get("elapsed")
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float) and 0 <= value < 10**9:
        return float(value)
    raise CommentError(400, "elapsed must be a number of seconds", field="elapsed")


def submission(data: dict[str, Any]) -> Submission:
    """A `Submission` from the fields of a form or a JSON object; a 400 `CommentError` naming
    the field for a value of the wrong type."""
    return Submission(
        post=_text(data, "post"),
        parent=_parent(data),
        name=_text(data, "name"),
        email=_text(data, "email"),
        url=_text(data, "url"),
        body=_text(data, "body"),
        lang=_text(data, "lang"),
        honeypot=_text(data, discussion.HONEYPOT),
        notify=_flag(data, "notify"),
        remember=_flag(data, "remember"),
    )


# --- cookies --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Commenter:
    """The browser's commenter id (from its signed cookie, or new), and whether it is new."""

    id: str
    new: bool


def commenter(request: Request, secret: bytes) -> Commenter:
    """The commenter id of the signed `masthead_commenter` cookie, or a new random one."""
    found = identity.read_cookie(secret, request.cookies.get(identity.COOKIE, ""))
    if found:
        return Commenter(found, False)
    return Commenter(identity.new_commenter_id(), True)


def _secure(request: Request, state: SiteState) -> bool:
    return request.url.scheme == "https" or state.base_url.startswith("https://")


def set_cookies(
    response: Response,
    request: Request,
    state: SiteState,
    secret: bytes,
    who: Commenter,
    form: Submission,
) -> None:
    """After a stored comment: the signed commenter cookie (HttpOnly), the flag that lets the
    script ask for own pending comments, and the name/email/website only when `remember`
    was ticked (else that cookie is removed, as WordPress does)."""
    secure = _secure(request, state)
    year = identity.COOKIE_MAX_AGE
    if who.new:
        response.set_cookie(
            identity.COOKIE,
            identity.sign_cookie(secret, who.id),
            max_age=year,
            httponly=True,
            samesite="lax",
            secure=secure,
        )
    response.set_cookie(COMMENTED_COOKIE, "1", max_age=year, samesite="lax", secure=secure)
    if form.remember:
        value = json.dumps(
            {"name": form.name, "email": form.email, "url": form.url}, ensure_ascii=False
        )
        response.set_cookie(
            REMEMBER_COOKIE,
            quote(value, safe=""),
            max_age=REMEMBER_DAYS * 86400,
            samesite="lax",
            secure=secure,
        )
    elif REMEMBER_COOKIE in request.cookies:
        response.delete_cookie(REMEMBER_COOKIE, samesite="lax", secure=secure)


def remembered(request: Request) -> dict[str, str]:
    """Name, email and website from the "remember me" cookie (empty when absent or bad)."""
    raw = request.cookies.get(REMEMBER_COOKIE, "")
    try:
        data = json.loads(unquote(raw)) if raw else {}
    except (ValueError, RecursionError):  # a cookie of `[[[[…`, say
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if k in ("name", "email", "url") and isinstance(v, str)}


# --- checks ---------------------------------------------------------------------------------


def _origin_check(request: Request) -> None:
    state = site_state(request)
    own = csrf.own_origins(request, state.base_url)
    problem = csrf.origin_problem(request.headers, own, state.site.settings.allowed_origins)
    if problem:
        raise CommentError(403, problem)


def _api_checks(request: Request) -> bool:
    """Origin check, then: JSON needs nothing more (True); a form-encoded script request needs
    the double-submit cookie (False); any other content type is a 415."""
    _origin_check(request)
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if request.headers.get(csrf.CSRF_HEADER) is not None or kind != "application/json":
        if kind not in ("application/json", "application/x-www-form-urlencoded"):
            raise CommentError(415, "send application/json (or a form with X-CSRF-Token)")
        problem = csrf.double_submit_problem(request.cookies, request.headers)
        if problem:
            raise CommentError(403, problem)
    return kind == "application/json"


# --- posts and threads ----------------------------------------------------------------------


def _post_row(state: SiteState, url: str) -> PostRow:
    """The published post at `url` (its path as pages write it, e.g. `/posts/slug/`, or
    decoded), or a 404 `CommentError` naming the `post` field."""
    if not url.startswith("/") or len(url) > 2000:
        raise CommentError(404, "no post at this address", field="post")
    conn, now = state.db.read(), state.now()
    row = posts_store.post_by_url(conn, url, now)
    if row is None and "%" not in url:  # stored URLs are percent-encoded (content.post)
        row = posts_store.post_by_url(conn, quote(url, safe=URL_SAFE), now)
    if row is None or row.kind != "post":
        raise CommentError(404, "no post at this address", field="post")
    return row


def _lang(state: SiteState, code: str) -> Language:
    return state.site.languages.get(code) or state.site.default_language


def own_json(c: store.Comment, state: SiteState, lang: Language) -> dict[str, Any]:
    """A comment as its own author may see it (the answer to their POST, their pending ones,
    an edit): the public shape of an approved comment plus its Markdown `body`, whatever its
    status (`status`: 'approved' or 'pending'; spam is told as pending, never as caught),
    its date as the page shows it (`when`: the site zone's ISO 8601 and text in `lang`), its
    language's label and its avatar. Never the email."""
    hreflang, lang_name = discussion.language_of(c.lang, state.site)
    return {
        "id": c.id,
        "parent": c.parent_id,
        "removed": False,
        "status": "approved" if c.status == "approved" else "pending",
        "date": c.date,
        "name": c.author_name,
        "url": c.author_url or None,
        "lang": c.lang,
        "kind": c.kind,
        "staff": c.staff,
        "html": c.body_html,
        "body": c.body,
        "hreflang": hreflang,
        "lang_name": lang_name,
        "when": discussion.when(c.created, state.site, lang),
        "initials": discussion.initials(c.author_name),
        "tone": discussion.tone(c.author_name),
    }


# --- the form -------------------------------------------------------------------------------


async def form_post(request: Request) -> Response:
    """The no-JavaScript form: a 303 to the post (C50), or a 4xx page keeping the text."""
    state = site_state(request)
    data: dict[str, Any] | None = None  # None: nothing of the body was read or parsed
    try:
        try:
            data = await _form(request, await _body(request))
        except forms.FormNotUTF8 as exc:
            data = {k: v for k, v in exc.kept.items() if isinstance(v, str)}
            raise _not_utf8(exc) from None
        _origin_check(request)
        form = submission(data)
        # no script measured the fill time: that rule is skipped
        secret, who, outcome = await _submit(request, form, elapsed=None)
    except CommentError as exc:
        return _form_error(request, exc, data)
    fragment = f"#c-{outcome.id}" if outcome.status == "approved" else "#c-form"
    target = location(outcome.post_url, f"c={outcome.status}-{outcome.id}") + fragment
    response = Response(status_code=303, headers={"Location": target, "Cache-Control": NO_STORE})
    set_cookies(response, request, state, secret, who, form)
    return response


async def _submit(
    request: Request, form: Submission, elapsed: float | None
) -> tuple[bytes, Commenter, Outcome]:
    """`submit` in the thread pool (it reads and writes SQLite), as this browser's commenter,
    from the one client-IP resolver; raises CommentError."""
    state = site_state(request)
    secret = site_secrets.site_secret(state.db)
    who = commenter(request, secret)
    outcome = await run_in_threadpool(
        submit,
        state,
        form,
        client_ip=_client_ip(request),
        cookie_id=who.id,
        scripted_elapsed=elapsed,
        staff_user=_staff(request),
    )
    if state.site.replicated and not outcome.duplicate:
        # acknowledged once on the replica too (replica/durable.py): a machine that dies
        # after the answer does not take the comment with it
        await run_in_threadpool(durable.wait_replicated, state.site)
    return secret, who, outcome


def _staff(request: Request) -> str:
    """The /guanli user's name when the request carries a live session (staff are exempt from
    holds, and their comments carry the staff badge), else ""."""
    cookie = request.cookies.get(SESSION_COOKIE, "")
    signed = accounts.session_for(site_state(request).db, cookie) if cookie else None
    return signed.user.name if signed is not None else ""


def _client_ip(request: Request) -> str:
    return identity.client_ip_of(request.scope, site_state(request).site.settings.trusted_proxies)


def _named_post(request: Request) -> str:
    """The post a form request names without its body being read: the URL's `post` (the
    form's action carries it), else a Referer on this site's own origin (the post page, or a
    reply page's `post`); '' when neither does. Only a path: `_post_row` checks it is a post."""
    named = request.query_params.get("post", "")
    if named:
        return named
    referer = request.headers.get("referer", "")
    try:
        parts = urlsplit(referer)
        same = bool(parts.netloc) and origin_of(referer) in csrf.own_origins(
            request, site_state(request).base_url
        )
    except ValueError:
        return ""
    if not same:
        return ""
    if parts.path.startswith("/comments/"):  # a reply or "mine" page: the post it is about
        return (parse_qs(parts.query).get("post") or [""])[0]
    return parts.path


def _known_post(state: SiteState, url: str) -> PostRow | None:
    try:
        return _post_row(state, url) if url else None
    except CommentError:
        return None


def _form_error(request: Request, exc: CommentError, data: dict[str, Any] | None) -> Response:
    """The comment page with the message and every field sent back (nothing typed is lost);
    with `data` None (the body was not read, or could not be parsed) the page says that nothing
    could be kept and that the browser's Back button has the text, linking to the post the
    request names (`_named_post`), in its language."""
    state = site_state(request)
    kept = data is not None
    data = data or {}
    values = {k: data.get(k, "") if isinstance(data.get(k, ""), str) else "" for k in FIELDS}
    values["remember"] = _flag(data, "remember")
    values["notify"] = _flag(data, "notify")
    post_url, lang = values["post"], state.site.default_language
    row = _known_post(state, post_url)
    if row is None and not post_url:
        row = _known_post(state, _named_post(request))
    if row is not None:
        lang = _lang(state, row.lang)
    html, _ = renderer(request).page(
        "comment_page.html",
        lang,
        path="/comments",
        title=renderer(request).site.settings.title,
        noindex=True,
        status=exc.status,
        # the post field as sent when no post has it: the reader can still copy their text
        comments=discussion.form_context(state.site, row.url if row else post_url, lang),
        form=values,
        error={
            "message": exc.message,
            "field": exc.field,
            "kept": kept,
            "too_large": exc.status == 413,
        },
        post_title=row.title if row else "",
        post_url=row.url if row else "",
        parent=None,
        mode="error" if kept else "lost",
    )
    headers = {"Cache-Control": NO_STORE}
    if exc.retry_after:
        headers["Retry-After"] = str(int(exc.retry_after))
    return Response(html, exc.status, headers=headers, media_type="text/html; charset=utf-8")


def _html(request: Request, html: str, status: int = 200) -> Response:
    return Response(
        html, status, headers={"Cache-Control": NO_STORE}, media_type="text/html; charset=utf-8"
    )


def reply_page(request: Request, comment_id: int, post: str = "") -> Response:
    """The form replying to comment `comment_id`, in the language of the post it is sent from
    (`post`, default the comment's own); 404 unless that comment is approved."""
    state = site_state(request)
    conn = state.db.read()
    parent = store.get(conn, comment_id)
    if parent is None or parent.status != "approved":
        return _not_found(request, "no such comment")
    try:
        row = _post_row(state, post or parent.post_url)
    except CommentError as exc:
        return _not_found(request, exc.message)
    if row.translation_key != parent.thread:
        return _not_found(request, "this comment belongs to another post")
    lang = _lang(state, row.lang)
    ctx = discussion.form_context(state.site, row.url, lang)
    if not discussion.is_open(row, state.site, state.now()):
        return _not_found(request, "comments on this post are closed")
    node = thread_tree.Node(parent.id, parent.parent_id, 1, parent, False)
    html, status = renderer(request).page(
        "comment_page.html",
        lang,
        path=f"/comments/{comment_id}/reply",
        title=renderer(request).site.settings.title,
        noindex=True,
        comments=ctx,
        form={
            **remembered(request),
            "parent": str(comment_id),
            "remember": bool(remembered(request)),
        },
        error=None,
        post_title=row.title,
        post_url=row.url,
        parent=discussion.node_context(node, state.site, lang),
        mode="reply",
    )
    return _html(request, html, status)


def _not_found(request: Request, message: str) -> Response:
    html, _ = renderer(request).error(
        site_state(request).site.default_language, 404, message, "/comments"
    )
    return _html(request, html, 404)


def _own_pending(request: Request, row: PostRow) -> list[store.Comment]:
    state = site_state(request)
    secret = site_secrets.site_secret(state.db)
    found = identity.read_cookie(secret, request.cookies.get(identity.COOKIE, ""))
    if not found:
        return []
    hashed = identity.client_hash(secret, found)
    return store.pending_for_client(state.db.read(), row.translation_key, hashed)


def mine_page(request: Request, post: str = "") -> Response:
    """This browser's comments awaiting moderation on `post`'s thread (no script needed)."""
    state = site_state(request)
    try:
        row = _post_row(state, post)
    except CommentError as exc:
        return _not_found(request, exc.message)
    lang = _lang(state, row.lang)
    own = _own_pending(request, row)
    nodes = [
        discussion.node_context(thread_tree.Node(c.id, c.parent_id, 1, c, False), state.site, lang)
        for c in own
    ]
    html, status = renderer(request).page(
        "comment_page.html",
        lang,
        path="/comments/mine",
        title=renderer(request).site.settings.title,
        noindex=True,
        comments=discussion.form_context(state.site, row.url, lang),
        post_title=row.title,
        post_url=row.url,
        pending=nodes,
        mode="mine",
    )
    return _html(request, html, status)


# --- the JSON API ---------------------------------------------------------------------------


def api_thread(request: Request, post: str = "", page: int = 1) -> Response:
    """The approved thread of the post at `post` (its path, e.g. `/posts/slug/`): `{post,
    total, page, pages, comments}`, each comment `{id, parent, removed, date, name, url,
    lang, kind, html, level, reply_to?, replies}` (a removed one has only `id`, `parent`,
    `removed`, `date`, `level` and `replies`). Dates are ISO 8601 in UTC with the offset."""
    state = site_state(request)
    try:
        row = _post_row(state, post)
        if not row.comments:
            raise CommentError(404, "this post has no comments", field="post")
        view = discussion.thread_view(state.db.read(), row.translation_key, state.site, page)
    except CommentError as exc:
        return json_error(exc.status, exc.message, exc.field)
    except thread_tree.PageOutOfRange as exc:
        return json_error(404, str(exc), "page")
    body = {
        "post": row.url,
        "total": view.total,
        "page": view.page,
        "pages": view.pages,
        "open": discussion.is_open(row, state.site, state.now()),
        "comments": [discussion.api_node(n) for n in view.nodes],
    }
    return JSONResponse(body, headers={"Cache-Control": "no-cache"})


async def api_post(request: Request) -> Response:
    """Post a comment: `201 {id, status, token, edit_minutes, post_url, comment}` (`status`
    is `approved` or `pending`; a duplicate answers `200` with the first comment)."""
    state = site_state(request)
    try:
        is_json = _api_checks(request)
        raw = await _body(request)
        try:
            data = _json_object(raw) if is_json else await _form(request, raw)
        except forms.FormNotUTF8 as exc:
            raise _not_utf8(exc) from None
        form = submission(data)
        elapsed = _elapsed(data) if is_json else None
        secret, who, outcome = await _submit(request, form, elapsed)
    except CommentError as exc:
        return json_error(exc.status, exc.message, exc.field, exc.retry_after)
    stored = store.get(state.db.read(), outcome.id)
    lang = _lang(state, form.lang or (stored.lang if stored else ""))
    body: dict[str, Any] = {
        "id": outcome.id,
        "status": outcome.status,
        "duplicate": outcome.duplicate,
        "token": outcome.token,
        "edit_minutes": state.site.settings.comments_edit_minutes,
        "post_url": outcome.post_url,
    }
    if stored is not None and stored.status in ("approved", "pending", "spam"):
        body["comment"] = own_json(stored, state, lang)
    response = JSONResponse(
        body, 200 if outcome.duplicate else 201, headers={"Cache-Control": NO_STORE}
    )
    set_cookies(response, request, state, secret, who, form)
    return response


def _json_object(raw: bytes) -> dict[str, Any]:
    try:
        data = forms.parse_json(raw)
    except BadRequest as exc:
        raise CommentError(400, f"the request body is not JSON we can read: {exc}") from None
    if not isinstance(data, dict):
        raise CommentError(400, "the request body must be a JSON object")
    return data


def api_mine(request: Request, post: str = "") -> Response:
    """This browser's pending comments on `post`'s thread (by its signed commenter cookie):
    `{comments: [...]}`, each with `status: "pending"` and its Markdown `body`."""
    state = site_state(request)
    try:
        row = _post_row(state, post)
    except CommentError as exc:
        return json_error(exc.status, exc.message, exc.field)
    lang = _lang(state, row.lang)
    out = []
    for c in _own_pending(request, row):
        out.append(own_json(c, state, lang))
    return JSONResponse({"comments": out}, headers={"Cache-Control": NO_STORE})


def _token(request: Request, data: dict[str, Any] | None = None) -> str:
    auth = request.headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip()
    value = (data or {}).get("token")
    return value if isinstance(value, str) else ""


def _own_comment(request: Request, comment_id: int, token: str) -> store.Comment:
    """The comment `comment_id` when `token` is its edit token (made for this very row, not
    only this id) and still valid; a 403 `CommentError` otherwise (no row has the id: no token
    is valid for it), a 404 when the comment is in the trash or a placeholder."""
    state = site_state(request)
    minutes = state.site.settings.comments_edit_minutes
    if minutes <= 0:
        raise CommentError(403, "comments cannot be edited or deleted on this site")
    secret = site_secrets.site_secret(state.db)
    found = store.get(state.db.read(), comment_id) if token else None
    key = found.token_key if found is not None else ""  # the token is bound to this row
    if not identity.check_edit_token(secret, token, comment_id, key, minutes * 60):
        raise CommentError(
            403, f"the edit token is not valid for this comment (or {minutes} minutes passed)"
        )
    if found is None or found.status not in ("pending", "approved", "spam"):
        raise CommentError(404, "no such comment")
    return found


async def api_edit(request: Request, comment_id: int) -> Response:
    """Change the text of one's own comment (JSON `{body}`) within `comments_edit_minutes`."""
    state = site_state(request)
    try:
        _origin_check(request)
        data = _json_object(await _body(request))
        found = _own_comment(request, comment_id, _token(request, data))
        body = text.normalize(_text(data, "body"))
        limit = rules.FIELD_LIMITS["body"]
        if not body.strip():
            raise CommentError(400, "the comment is empty", field="body")
        if text.length(body) > limit:
            raise CommentError(400, f"the comment is longer than {limit} characters", field="body")
        html, links = await run_in_threadpool(sanitize.render_counted, body)
        key = identity.fingerprint(
            found.thread, found.parent_id, found.author_name, found.author_email, body
        )
        changed = store.edit(
            state.db, comment_id, "author", body=body, body_html=html, fingerprint=key
        )
        again = rules.recheck_edit(body, links, state.site.settings)
        if (
            again is not None
            and changed.status in ("approved", "pending")
            and (again.status != changed.status)
        ):
            store.set_status(
                state.db,
                [comment_id],
                again.status,
                "author",
                expect={changed.status},
                reason=again.reason,
            )
            changed = store.get(state.db.read(), comment_id) or changed
    except CommentError as exc:
        return json_error(exc.status, exc.message, exc.field)
    lang = _lang(state, found.lang)
    shape = own_json(changed, state, lang)
    return JSONResponse({"comment": shape}, headers={"Cache-Control": NO_STORE})


async def api_delete(request: Request, comment_id: int) -> Response:
    """Delete one's own comment within `comments_edit_minutes`: it goes to the trash (replies
    keep their place under a "comment removed" placeholder, C39)."""
    state = site_state(request)
    try:
        _origin_check(request)
        found = _own_comment(request, comment_id, _token(request))
    except CommentError as exc:
        return json_error(exc.status, exc.message, exc.field)
    store.set_status(
        state.db,
        [found.id],
        "trash",
        "author",
        expect={"pending", "approved", "spam"},
        reason="deleted by its author",
    )
    return JSONResponse({"id": found.id, "deleted": True}, headers={"Cache-Control": NO_STORE})
