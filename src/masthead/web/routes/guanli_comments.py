"""`/guanli/comments`: WordPress's Comments screen, on the store's moderation actions.

- `GET /guanli/comments`: views All / Pending / Approved / Spam / Trash with counts; search
  (`q`: text, name, email, website, or an IP's hash); filters `post` (a permalink: its whole
  thread), `lang`, `day` (YYYY-MM-DD in the site's zone); `order` newest|oldest; `per_page`
  (20, 50, 100, 200); `page`. Every listing carries a snapshot, the newest id when it was made.
- `POST /guanli/comments/act`: an action on the ticked `ids`, or (`scope=all`) on every comment
  matching the listing's filter up to its snapshot, where the count must still be the one the
  editor saw (`expect`) and a confirmation page comes first; `delete` always asks to confirm.
  The result is a notice with Undo (for `UNDO_SECONDS`), e.g. "17 marked as spam, 3 skipped:
  changed since you loaded the page" (C53).
- `POST /guanli/comments/undo`: reverses the notice's action, row by row, where nothing moved.
- `POST /guanli/comments/empty`: Empty spam / Empty trash, only what the listing showed.
- `POST /guanli/comments/reply`: a reply as the signed-in editor, published at once.
- `POST /guanli/comments/edit`: quick edit of the text, name, email and website, validated as a
  reader's comment is (C33); the audit log keeps the previous values.

Every POST passes `guanli.checked_form` (same site, the session's CSRF token).
"""

from __future__ import annotations

import ipaddress
import json
import re
import time
from datetime import date, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from masthead.comments import identity, rules, sanitize, text
from masthead.comments.port import records, wxr
from masthead.store import audit_log, site_secrets
from masthead.store import comment_moderation as moderation
from masthead.store import comment_removal as removal
from masthead.store import comments as cs
from masthead.store import posts as posts_store
from masthead.web.http import forms
from masthead.web.routes import site_state
from masthead.web.routes.guanli import (
    PRIVATE,
    checked_form,
    refused,
    render,
    signed_in,
    to_login,
    when,
)

PER_PAGE = (20, 50, 100, 200)
UNDO_SECONDS = 15 * 60
DONE = {  # notice text keys per action
    "reply": "g_done_reply",
    "edit": "g_done_edit",
    "approve": "g_done_approve",
    "unapprove": "g_done_unapprove",
    "spam": "g_done_spam",
    "notspam": "g_done_notspam",
    "trash": "g_done_trash",
    "restore": "g_done_restore",
    "delete": "g_done_delete",
}


class BadListing(ValueError):
    """A listing parameter out of range: a 400 page saying which."""


def router() -> APIRouter:
    routes = APIRouter(include_in_schema=False)
    routes.add_api_route("/guanli/comments", screen, methods=["GET", "HEAD"])
    routes.add_api_route("/guanli/comments/act", act, methods=["POST"])
    routes.add_api_route("/guanli/comments/undo", undo, methods=["POST"])
    routes.add_api_route("/guanli/comments/empty", empty, methods=["POST"])
    routes.add_api_route("/guanli/comments/reply", reply, methods=["POST"])
    routes.add_api_route("/guanli/comments/edit", quick_edit, methods=["POST"])
    return routes


# --- the listing --------------------------------------------------------------------------

LISTING_KEYS = ("status", "q", "post", "lang", "day", "order", "per_page")


def listing_params(raw: dict[str, str]) -> dict[str, str]:
    """The listing's own parameters from a query or form, empty ones left out."""
    return {k: raw[k].strip() for k in LISTING_KEYS if raw.get(k, "").strip()}


def make_filter(
    request: Request, params: dict[str, str], snapshot: int | None
) -> moderation.Filter:
    """The store filter of a listing; raises BadListing naming the parameter at fault."""
    state = site_state(request)
    status = params.get("status")
    if status and status not in cs.STATUSES:
        raise BadListing(f"status: one of {', '.join(cs.STATUSES)}")
    thread = None
    if params.get("post"):
        row = posts_store.post_by_url(state.db.read(), params["post"], state.now(), drafts=True)
        if row is None:
            raise BadListing(f"post: no post at {params['post']!r}")
        thread = row.translation_key
    since = until = None
    if params.get("day"):
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", params["day"]):
            raise BadListing("day: a date such as 2024-05-02")
        try:
            start = datetime.combine(date.fromisoformat(params["day"]), datetime.min.time())
        except ValueError:
            raise BadListing("day: a date such as 2024-05-02") from None
        zoned = start.replace(tzinfo=state.site.tz)  # the site-zone day (C54)
        since = zoned.timestamp()
        until = (zoned + timedelta(days=1)).timestamp()
    lang = params.get("lang")
    if lang and lang not in state.site.languages:
        raise BadListing(f"lang: one of {', '.join(state.site.languages)}")
    q = params.get("q", "")[:200]
    return moderation.Filter(
        status=status,
        q=q,
        ip_hash=_ip_hash(state, q),
        thread=thread,
        lang=lang,
        since=since,
        until=until,
        max_id=snapshot,
    )


def _ip_hash(state: Any, q: str) -> str:
    """The stored hash of `q` when it is an IP address (the screen searches by IP), else ''."""
    try:
        ip = str(ipaddress.ip_address(q.strip()))
    except ValueError:
        return ""
    return identity.ip_hash(site_secrets.site_secret(state.db), ip)


def _number(
    raw: str | None, name: str, default: int, allowed: tuple[int, ...] | None = None
) -> int:
    if not raw:
        return default
    if not raw.isdigit() or not 1 <= int(raw) <= 1_000_000:
        raise BadListing(f"{name}: a whole number")
    if allowed and int(raw) not in allowed:
        raise BadListing(f"{name}: one of {', '.join(map(str, allowed))}")
    return int(raw)


def screen(request: Request) -> Response:
    signed = signed_in(request)
    if signed is None:
        return to_login(request)
    query = {k: str(v) for k, v in request.query_params.items()}
    params = listing_params(query)
    conn = site_state(request).db.read()
    try:
        snapshot = moderation.newest_id(conn)
        where = make_filter(request, params, snapshot)
        per_page = _number(params.get("per_page"), "per_page", 20, PER_PAGE)
        page = _number(query.get("page"), "page", 1)
    except BadListing as exc:
        return render(request, "guanli/message.html", 400, title="400", message=str(exc))
    newest = params.get("order") != "oldest"
    rows, total = moderation.listing(conn, where, page=page, per_page=per_page, newest=newest)
    titles = posts_store.titles_by_url(conn, [c.post_url for c in rows])
    parents = moderation.names_of(conn, [c.parent_id for c in rows if c.parent_id])
    approved = moderation.approved_by_email(conn, [c.author_email for c in rows])
    views = {"": None, **{s: s for s in cs.STATUSES}}
    counts = moderation.status_counts(conn)
    counts_all = sum(counts.values())
    pages = max(1, -(-total // per_page))

    def link(**change: Any) -> str:
        merged = {**params, **{k: str(v) for k, v in change.items() if v is not None}}
        merged = {k: v for k, v in merged.items() if v and not (k == "page" and v == "1")}
        return "/guanli/comments" + ("?" + urlencode(merged) if merged else "")

    return render(
        request,
        "guanli/comments.html",
        title="comments",
        user=signed.user,
        csrf=signed.session.csrf,
        params=params,
        snapshot=snapshot,
        total=total,
        page=page,
        pages=pages,
        per_page=per_page,
        per_page_choices=PER_PAGE,
        views=[
            {
                "status": key,
                "count": counts_all if value is None else counts[value],
                "url": link(status="", page=1) if value is None else link(status=value, page=1),
                "current": params.get("status", "") == key,
            }
            for key, value in views.items()
        ],
        prev_url=link(page=page - 1) if page > 1 else None,
        next_url=link(page=page + 1) if page < pages else None,
        back=link(page=page),
        languages=list(site_state(request).site.languages.values()),
        notice=_notice(request, signed.user.name, query.get("notice")),
        rows=[
            {
                "c": c,
                "post_title": titles.get(c.post_url, c.post_url),
                "reply_to": parents.get(c.parent_id) if c.parent_id else None,
                "approved": approved.get(c.author_email.strip().casefold(), 0),
                "date": when(request, c.created),
            }
            for c in rows
        ],
    )


# --- actions ------------------------------------------------------------------------------


def _back(raw: str | None) -> str:
    """Where to return after an action: a /guanli/comments listing only."""
    if raw and raw.startswith("/guanli/comments") and "//" not in raw and "\\" not in raw:
        return raw
    return "/guanli/comments"


def _with_notice(back: str, notice: int) -> str:
    back = re.sub(r"([?&])notice=\d+&?", r"\1", back).rstrip("?&")
    return back + ("&" if "?" in back else "?") + f"notice={notice}"


async def act(request: Request) -> Response:
    signed, form, why = await checked_form(request)
    if why or signed is None:
        return refused(request, why, f"editor:{signed.user.name}" if signed else "anonymous")
    multi = await forms.read(request)  # the form checked_form read
    action = form.get("action", "")
    back = _back(form.get("back"))
    if action not in moderation.ACTIONS:
        return render(request, "guanli/message.html", 400, title="400", message="choose an action")
    db = site_state(request).db
    scope_all = form.get("scope") == "all"
    try:
        if scope_all:
            snapshot = _number(form.get("snapshot"), "snapshot", 0)
            expect = _number(form.get("expect"), "expect", 0)
            where = make_filter(request, listing_params(form), snapshot)
            ids = moderation.matching_ids(db.read(), where)
        else:
            ids = [int(str(i)) for i in multi.getlist("ids") if str(i).isdigit()]
            expect = len(ids)
    except BadListing as exc:
        return render(request, "guanli/message.html", 400, title="400", message=str(exc))
    if not ids and not scope_all:
        return render(
            request, "guanli/message.html", 400, title="400", message="tick at least one comment"
        )
    if scope_all and len(ids) != expect:
        message = (
            f"the filter matches {len(ids)} comments now, not the {expect} you saw: "
            "nothing was changed; reload the list"
        )
        return render(request, "guanli/message.html", 409, title="409", message=message)
    if form.get("confirm") != "1" and (scope_all or action == "delete"):
        return render(
            request,
            "guanli/confirm.html",
            title="confirm",
            user=signed.user,
            csrf=signed.session.csrf,
            action=action,
            count=len(ids),
            scope_all=scope_all,
            fields=[(k, v) for k, v in multi.multi_items() if k not in ("csrf", "confirm")],
            back=back,
            switch_page=back,
        )
    actor = f"editor:{signed.user.name}"
    done = _moderate_as_seen(db, action, ids, actor, _seen(multi.getlist("seen")))
    notice = _record(db, actor, action, done)
    return RedirectResponse(_with_notice(back, notice), 303, headers=PRIVATE)


def _seen(values: list[Any]) -> dict[int, str]:
    """The statuses the rows had when the page was made (`seen=ID:STATUS` fields)."""
    seen: dict[int, str] = {}
    for value in values:
        head, _, status = str(value).partition(":")
        if head.isdigit() and status in cs.STATUSES:
            seen[int(head)] = status
    return seen


def _moderate_as_seen(
    db: Any, action: str, ids: list[int], actor: str, seen: dict[int, str]
) -> cs.Changed:
    """`moderation.moderate`, each row only from the status the editor saw it in (C53)."""
    groups: dict[str | None, list[int]] = {}
    for comment_id in ids:
        groups.setdefault(seen.get(comment_id), []).append(comment_id)
    changed: list[int] = []
    skipped: list[int] = []
    moves: dict[int, tuple[str, str]] = {}
    for status, group in groups.items():
        done = moderation.moderate(
            db, action, group, actor, only=None if status is None else {status}
        )
        changed += done.changed
        skipped += done.skipped
        moves.update(done.moves)
    return cs.Changed(sorted(changed), sorted(skipped), moves)


def _record(db: Any, actor: str, action: str, done: cs.Changed) -> int:
    """Log a screen action with what an undo needs; returns its audit id (the notice)."""
    reasons = (
        moderation.skip_reasons(db.read(), action, done.skipped)
        if done.skipped and action in moderation.ACTIONS
        else {}
    )
    detail = {
        "ids": done.changed,
        "skipped": done.skipped,
        "reasons": {str(k): v for k, v in reasons.items()},
        "moves": {str(k): list(v) for k, v in done.moves.items()},
    }
    with db.write() as conn:
        return audit_log.log_event(conn, actor, f"bulk-{action}", detail=detail)


def _notice(request: Request, user: str, raw: str | None) -> dict[str, Any] | None:
    """The notice of one of this editor's recent actions, from the audit log."""
    if not raw or not raw.isdigit():
        return None
    row = audit_log.entry(site_state(request).db.read(), int(raw))
    if row is None or row["actor"] != f"editor:{user}" or not row["action"].startswith("bulk-"):
        return None
    detail = json.loads(row["detail"])
    action = row["action"][5:]
    undoable = (
        action in DONE
        and action != "delete"
        and not action.startswith("undo")
        and time.time() - row["at"] < UNDO_SECONDS
        and bool(detail.get("moves"))
    )
    return {
        "id": row["id"],
        "key": DONE.get(action, "g_done_undo"),
        "changed": len(detail.get("ids", [])),
        "skipped": len(detail.get("skipped", [])),
        "skips": _skips(detail),
        "undoable": undoable,
    }


def _skips(detail: dict[str, Any]) -> list[dict[str, Any]]:
    """The skipped rows of an action grouped by why (`moderation.skip_reasons`), each group a
    catalog key, a count and the status it names: "1 is in Spam: use Not spam", not "changed
    since you loaded the page" when the action was simply not one for that status. A row
    logged before reasons were kept counts as changed."""
    reasons = detail.get("reasons") or {}
    counts: dict[str, int] = {}
    for comment_id in detail.get("skipped", []):
        why = str(reasons.get(str(comment_id), "changed"))
        counts[why] = counts.get(why, 0) + 1
    out = []
    for why, n in counts.items():
        kind, _, status = why.partition("-")
        if kind == "in" and status in ("spam", "trash"):
            key = f"g_skip_in_{status}"
        elif kind in ("in", "already"):
            key = f"g_skip_{kind}"
        else:
            key = "g_skip_gone" if why == "gone" else "g_skipped"
        out.append({"key": key, "n": n, "status": status})
    return out


async def undo(request: Request) -> Response:
    signed, form, why = await checked_form(request)
    if why or signed is None:
        return refused(request, why, f"editor:{signed.user.name}" if signed else "anonymous")
    db = site_state(request).db
    notice = form.get("notice", "")
    row = audit_log.entry(db.read(), int(notice) if notice.isdigit() else 0)
    actor = f"editor:{signed.user.name}"
    if row is None or row["actor"] != actor or not row["action"].startswith("bulk-"):
        return render(request, "guanli/message.html", 404, title="404", message="nothing to undo")
    if time.time() - row["at"] >= UNDO_SECONDS:
        return render(request, "guanli/message.html", 410, title="410", message="too late to undo")
    moves = {int(k): (v[0], v[1]) for k, v in json.loads(row["detail"]).get("moves", {}).items()}
    done = moderation.undo(db, moves, actor)
    with db.write() as conn:
        last = audit_log.log_event(
            conn,
            actor,
            "bulk-undo",
            detail={"ids": done.changed, "skipped": done.skipped, "of": row["id"]},
        )
    return RedirectResponse(_with_notice(_back(form.get("back")), last), 303, headers=PRIVATE)


async def empty(request: Request) -> Response:
    signed, form, why = await checked_form(request)
    if why or signed is None:
        return refused(request, why, f"editor:{signed.user.name}" if signed else "anonymous")
    status = form.get("status")
    back = _back(form.get("back"))
    if status not in ("spam", "trash"):
        return render(
            request, "guanli/message.html", 400, title="400", message="status: spam or trash"
        )
    try:
        snapshot = _number(form.get("snapshot"), "snapshot", 0)
    except BadListing as exc:
        return render(request, "guanli/message.html", 400, title="400", message=str(exc))
    db = site_state(request).db
    count = len(
        moderation.matching_ids(db.read(), moderation.Filter(status=status, max_id=snapshot))
    )
    if form.get("confirm") != "1":
        return render(
            request,
            "guanli/confirm.html",
            title="confirm",
            user=signed.user,
            csrf=signed.session.csrf,
            action="empty_" + status,
            count=count,
            scope_all=True,
            fields=[("status", status), ("snapshot", str(snapshot)), ("back", back)],
            back=back,
            switch_page=back,
            target="/guanli/comments/empty",
        )
    actor = f"editor:{signed.user.name}"
    done = removal.empty(db, status, actor, max_id=snapshot)
    notice = _record(db, actor, "delete", done)
    return RedirectResponse(_with_notice(back, notice), 303, headers=PRIVATE)


# --- reply and quick edit -----------------------------------------------------------------


def _text_field(form: dict[str, str], field: str, required: bool = True) -> str:
    value = text.normalize(form.get(field, ""))
    limit = rules.FIELD_LIMITS[field]
    if required and not value.strip():
        raise BadListing(f"{field}: required")
    if text.length(value) > limit:
        raise BadListing(f"{field}: at most {limit} characters")
    return value


async def _row_form(request: Request) -> tuple[Any, dict[str, str], cs.Comment] | Response:
    """The checked form of a one-comment POST and its comment (`id`), or the page refusing it."""
    signed, form, why = await checked_form(request)
    if why or signed is None:
        return refused(request, why, f"editor:{signed.user.name}" if signed else "anonymous")
    raw_id = form.get("id", "")
    found = cs.get(site_state(request).db.read(), int(raw_id)) if raw_id.isdigit() else None
    if found is None or found.status == "deleted":
        return render(request, "guanli/message.html", 404, title="404", message="no such comment")
    return signed, form, found


async def reply(request: Request) -> Response:
    """Reply to comment `id` as the signed-in editor: approved at once, in the parent's
    language, under the editor's name and address."""
    checked = await _row_form(request)
    if isinstance(checked, Response):
        return checked
    signed, form, parent = checked
    db = site_state(request).db
    try:
        body = _text_field(form, "body")
    except BadListing as exc:
        return render(request, "guanli/message.html", 400, title="400", message=str(exc))
    user = signed.user
    html = await run_in_threadpool(sanitize.render, body)
    actor = f"editor:{user.name}"
    new_id = cs.add(
        db,
        cs.NewComment(
            thread=parent.thread,
            post_url=parent.post_url,
            parent_id=parent.id,
            lang=parent.lang,
            status="approved",
            author_name=user.name,
            author_email=user.email,
            author_url="",
            author_user=user.name,
            body=body,
            body_html=html,
            created=time.time(),
            fingerprint=identity.fingerprint(parent.thread, parent.id, user.name, user.email, body),
            reason="a reply by a signed-in editor",
        ),
        actor,
    )
    notice = _record(db, actor, "reply", cs.Changed([new_id], []))
    return RedirectResponse(_with_notice(_back(form.get("back")), notice), 303, headers=PRIVATE)


def _body_html(source: str, body: str) -> str:
    """A comment's edited `body` as HTML, in the body's own format: an imported comment's is
    HTML, cleaned as its import cleaned it (WordPress's paragraphs, the allowlist); any
    other is Markdown, rendered (`records.HTML_SOURCES`)."""
    if source in records.HTML_SOURCES:
        return sanitize.clean(wxr.autop(body) if source == "wxr" else body)
    return sanitize.render(body)


async def quick_edit(request: Request) -> Response:
    """Change a comment's text, name, email and website; the original author stays, the audit
    row keeps the previous values. A website that is not an http(s) URL is dropped (C33). An
    imported comment's text is edited as the HTML it was imported as (`_body_html`)."""
    checked = await _row_form(request)
    if isinstance(checked, Response):
        return checked
    signed, form, found = checked
    db = site_state(request).db
    try:
        body = _text_field(form, "body")
        name = sanitize.name(_text_field(form, "name", required=False))
        email = sanitize.email(_text_field(form, "email", required=False))
        url = sanitize.website(_text_field(form, "url", required=False))
    except BadListing as exc:
        return render(request, "guanli/message.html", 400, title="400", message=str(exc))
    html = await run_in_threadpool(_body_html, found.source, body)
    actor = f"editor:{signed.user.name}"
    cs.edit(
        db,
        found.id,
        actor,
        body=body,
        body_html=html,
        author_name=name,
        author_email=email,
        author_url=url,
    )
    notice = _record(db, actor, "edit", cs.Changed([found.id], []))
    return RedirectResponse(_with_notice(_back(form.get("back")), notice), 303, headers=PRIVATE)
