"""The comment submission service: one function from what a reader sent to a stored comment
(or a refusal), used by the form route and the JSON API alike (issue 11 items 5 and 6).

`submit` looks the post up by its permalink, refuses closed threads, gathers the facts the rules
need from the store (an identical comment, this client's recent comments, whether the commenter
is known), runs `comments.rules.evaluate`, renders and sanitizes the text
(`comments.sanitize`) and inserts the comment with its status and the reason for it. The
decision is taken twice: first on a read connection (a bad field costs no write lock, the text
is rendered outside it), then, the one that counts, inside the write transaction that inserts,
so two identical submissions sent at once make one comment (C37) and neither a burst nor a
race can slip past the flood limits or be refused by them wrongly (C38).
Refusals raise `CommentError` (4xx, nothing stored); spam is answered like a held comment.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass, replace
from typing import Protocol
from urllib.parse import urlsplit

from masthead.comments import identity, rules, sanitize
from masthead.comments.rules import Decision, Facts, Submission
from masthead.comments.text import is_text, normalize
from masthead.config import Site
from masthead.config.origins import origin_of
from masthead.errors import CommentError
from masthead.store import audit_log, posts, site_secrets, users
from masthead.store import comment_facts as facts
from masthead.store import comments as store
from masthead.store.db import Database, disk_full, storage_error
from masthead.store.rows import PostRow

__all__ = ["CommentError", "Outcome", "Submission", "submit"]

log = logging.getLogger(__name__)
DAY = 86_400.0
ACTOR = "reader"


class SiteState(Protocol):
    """What a submission needs of the site that receives it: the `site`, its database `db`, the
    `base_url` its permalinks are written with, whether it serves drafts (`dev`), and its clock
    (`now()`, seconds since the epoch). The web layer's site state has all of them."""

    @property
    def site(self) -> Site: ...
    @property
    def db(self) -> Database: ...
    @property
    def dev(self) -> bool: ...
    @property
    def base_url(self) -> str: ...
    def now(self) -> float: ...


@dataclass(frozen=True)
class Outcome:
    """A stored (or recognised) comment: its `id`, `status` as the submitter may be told
    ('approved' or 'pending': spam is 'pending'), `duplicate` when it was the same as a stored
    one (that one is answered, nothing new stored, C37), an edit `token` (`identity.edit_token`;
    "" for a duplicate sent from another browser), and the `post_url` and `thread` it is on."""

    id: int
    status: str
    duplicate: bool
    token: str
    post_url: str
    thread: str


@dataclass(frozen=True)
class _Context:
    post: PostRow
    thread: str
    parent: int | None
    form: Submission
    ip: str
    ip_hash: str
    client_hash: str
    fingerprint: str
    scripted_elapsed: float | None
    staff_session: bool


def _path(raw: str, base_url: str) -> str:
    """The path of `raw`: a root-relative path, or an absolute URL on this site's origin."""
    bad = CommentError(400, "post: give the post's path, such as /posts/slug/.", "post")
    text = raw.strip()
    if not is_text(text):
        raise bad
    try:
        parts = urlsplit(text)
    except ValueError:  # an unbalanced IPv6 bracket
        raise bad from None
    if parts.scheme or parts.netloc:
        try:
            if origin_of(text) != origin_of(base_url):
                raise bad
        except ValueError:
            raise bad from None
    if not parts.path.startswith("/") or parts.path.startswith("//"):
        raise bad
    return parts.path


def _post(state: SiteState, raw: str, now: float) -> PostRow:
    path = _path(raw, state.base_url)
    conn = state.db.read()
    for url in dict.fromkeys((path, path if path.endswith("/") else path + "/")):
        row = posts.post_by_url(conn, url, now, drafts=state.dev)
        if row is not None and row.kind == "post":
            return row
    raise CommentError(404, f"There is no post at {path}.", "post")


def _open(post: PostRow, days: int, now: float) -> None:
    if not post.comments:
        raise CommentError(403, "Comments are off on this post.", code="closed")
    if days and now > post.date_ts + days * DAY:
        raise CommentError(403, f"Comments close {days} days after a post's date.", code="closed")


def _parent(raw: int | str | None) -> int | None:
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    text = str(raw).strip()
    if not text.isascii() or not text.isdigit() or len(text) > 18:
        raise CommentError(400, "parent: give the id of the comment replied to.", "parent")
    return int(text)


def _unpublished_parent(status: str) -> str:
    """Why a comment of this very thread in `status` (not 'approved') takes no reply, for the
    reader: held for moderation (their own, most likely), or removed."""
    if status == "pending":
        return (
            "The comment replied to is not published yet (it awaits moderation): "
            "it can be replied to once it is."
        )
    return "The comment replied to was removed: it cannot be replied to."


def _check_parent(conn: sqlite3.Connection, ctx: _Context) -> None:
    """A reply goes under an approved comment of the same thread; a 400 on `parent` saying
    which of those is not so."""
    if ctx.parent is None:
        return
    parent = store.get(conn, ctx.parent)
    if parent is None or parent.thread != ctx.thread:
        raise CommentError(400, "The comment replied to is not on this post.", "parent")
    if parent.status != "approved":
        raise CommentError(400, _unpublished_parent(parent.status), "parent")


def _lang(state: SiteState, form: Submission, post: PostRow) -> str:
    return form.lang if form.lang in state.site.languages else str(post.lang)  # never raw


def _facts(
    conn: sqlite3.Connection, state: SiteState, ctx: _Context, now: float, links: int | None
) -> Facts:
    _check_parent(conn, ctx)
    duplicate = facts.find_duplicate(conn, ctx.fingerprint)
    recent: list[float] = []
    last: float | None = None
    if ctx.ip_hash:
        recent = facts.recent_from_client(conn, ctx.ip_hash, now - rules.MINUTE)
        gap = state.site.settings.comments_flood_seconds
        in_thread = facts.recent_from_client(conn, ctx.ip_hash, now - gap, ctx.thread)
        last = in_thread[0] if in_thread else None
    return Facts(
        now=now,
        ip=ctx.ip,
        scripted_elapsed=ctx.scripted_elapsed,
        duplicate_of=duplicate.id if duplicate else None,
        recent=recent,
        last_in_thread=last,
        known=facts.known_commenter(conn, ctx.form.email, ctx.client_hash),
        staff_session=ctx.staff_session,
        staff_emails=sorted(users.staff_emails(conn)),
        staff_names=users.staff_names(conn),
        links=links,
    )


def _refusal(decision: Decision) -> CommentError:
    return CommentError(
        decision.http_status or 400,
        decision.reason,
        decision.field,
        decision.retry_after,
        code=decision.code,
    )


def _log_throttle(conn: sqlite3.Connection, ctx: _Context, decision: Decision) -> None:
    """Throttled attempts are logged (C38): the rule, the thread and the client's IP hash."""
    detail = {"rule": decision.code, "thread": ctx.thread, "ip_hash": ctx.ip_hash}
    log.info("comment throttled (%s) for client %s", decision.code, ctx.ip_hash)
    audit_log.log_event(conn, ACTOR, "throttle", detail=detail)


def _answer(secret: bytes, ctx: _Context, comment: store.Comment, duplicate: bool) -> Outcome:
    mine = bool(ctx.client_hash) and comment.client_hash == ctx.client_hash
    made = comment.created
    token = identity.edit_token(secret, comment.id, comment.token_key, now=made) if mine else ""
    return Outcome(
        id=comment.id,
        status="approved" if comment.status == "approved" else "pending",
        duplicate=duplicate,
        token=token,
        post_url=comment.post_url,
        thread=comment.thread,
    )


FULL_RETRY = 300  # seconds a reader is asked to wait when the disk is full
BUSY_RETRY = 5  # ... when the database stayed locked, or another storage error


def submit(
    state: SiteState,
    form: Submission,
    *,
    client_ip: str,
    cookie_id: str | None,
    scripted_elapsed: float | None,
    staff_session: bool = False,
    staff_user: str = "",
) -> Outcome:
    """Take one comment (see `_take`); a storage failure (a full disk, a database locked past
    the busy timeout, an I/O error) is a 503 `CommentError` with `retry_after`, logged with
    the file and the cause, never a 500: the reader's text is sent back by the route."""
    try:
        return _take(
            state,
            form,
            client_ip=client_ip,
            cookie_id=cookie_id,
            scripted_elapsed=scripted_elapsed,
            staff_session=staff_session,
            staff_user=staff_user,
        )
    except (sqlite3.Error, OSError) as exc:
        problem = storage_error(state.site.database_path, exc)
        log.error("a comment could not be stored: %s", problem)
        full = disk_full(exc)
        raise CommentError(
            503,
            (
                "The comment could not be saved: the server is out of disk space. "
                if full
                else "The comment could not be saved: the server could not write it just now. "
            )
            + "Nothing was stored; your text is kept below. Please send it again later.",
            retry_after=FULL_RETRY if full else BUSY_RETRY,
            code="storage",
        ) from None


def _take(
    state: SiteState,
    form: Submission,
    *,
    client_ip: str,
    cookie_id: str | None,
    scripted_elapsed: float | None,
    staff_session: bool = False,
    staff_user: str = "",
) -> Outcome:
    """Take one comment: `form` as the reader sent it; `client_ip` from `identity.client_ip`
    (the one resolver, C52); `cookie_id` the commenter id from the signed `identity.COOKIE`
    (the route makes a new one for a browser without it and sets the cookie);
    `scripted_elapsed` the seconds the page's script saw the form open (None: no script, or
    the JSON API); `staff_session` True for a signed-in /guanli user (issue 12), or
    `staff_user`, that user's name (the comment carries the staff badge). Returns the
    `Outcome`; raises `CommentError` (400 a bad field, 403 closed, 404 no such post, 429 too
    many, with `retry_after`) having stored nothing."""
    settings = state.site.settings
    staff_session = staff_session or bool(staff_user)
    now = state.now()
    post = _post(state, form.post, now)
    _open(post, settings.comments_close_after_days, now)
    secret = site_secrets.site_secret(state.db)
    thread = str(post.translation_key)
    parent = _parent(form.parent)
    clean = replace(
        form,
        parent=parent,
        name=sanitize.name(form.name),
        email=sanitize.email(form.email),
        url=form.url.strip(),
        body=normalize(form.body),
    )
    ctx = _Context(
        post=post,
        thread=thread,
        parent=parent,
        form=clean,
        ip=client_ip,
        ip_hash=identity.ip_hash(secret, client_ip),
        client_hash=identity.client_hash(secret, cookie_id),
        fingerprint=identity.fingerprint(thread, parent, clean.name, clean.email, clean.body),
        scripted_elapsed=scripted_elapsed,
        staff_session=staff_session,
    )
    # a first look on a read connection, rules 1-3 only (duplicate, fields, then flood: a bad
    # field is told before any wait, as it stores nothing): a bad field or a flood costs no
    # parsing and no write lock, a duplicate already committed is answered at once
    first = rules.refusal(clean, _facts(state.db.read(), state, ctx, now, None), settings)
    if first is not None and first.status == "rejected" and first.http_status != 429:
        raise _refusal(first)  # the fields are at fault: no later state of the store helps
    if first is not None and first.status == "duplicate" and first.duplicate_of is not None:
        found = store.get(state.db.read(), first.duplicate_of)
        if found is not None:
            return _answer(secret, ctx, found, duplicate=True)
    # parsed once (the costly part), outside the write lock
    rendered = sanitize.render_counted(clean.body) if first is None else None
    website = sanitize.website(clean.url)
    lang = _lang(state, form, post)

    def apply(conn: sqlite3.Connection) -> tuple[Decision, int | None]:
        # the decision that counts, in the transaction that inserts: the store cannot move
        # under it (two identical requests at once make one comment, a burst cannot slip past
        # the limits, C37, C38)
        facts = _facts(conn, state, ctx, now, None)
        refused = rules.refusal(clean, facts, settings)
        if refused is not None:
            if refused.http_status == 429:
                _log_throttle(conn, ctx, refused)
            return refused, refused.duplicate_of
        body_html, links = rendered or sanitize.render_counted(clean.body)  # rare: moved
        decision = rules.evaluate(clean, replace(facts, links=links), settings)
        new = store.NewComment(
            thread=thread,
            post_url=str(post.url),
            parent_id=parent,
            lang=lang,
            status=decision.status,
            author_name=clean.name,
            author_email=clean.email,
            author_url=website,
            body=clean.body,
            body_html=body_html,
            created=now,
            ip_hash=ctx.ip_hash,
            client_hash=ctx.client_hash,
            fingerprint=ctx.fingerprint,
            reason=decision.reason,
            notify=form.notify and settings.mail_on,
            author_user=staff_user or None,  # never promised without mail
        )
        return decision, store.insert(conn, new, ACTOR)

    decision, comment_id = store.commit(state.db, apply)
    if decision.status == "rejected":
        raise _refusal(decision)
    stored = store.get(state.db.read(), comment_id) if comment_id is not None else None
    if stored is None:  # the duplicate it matched was deleted meanwhile: try once more
        raise CommentError(409, "The comment changed while it was sent; send it again.")
    return _answer(secret, ctx, stored, duplicate=decision.status == "duplicate")
