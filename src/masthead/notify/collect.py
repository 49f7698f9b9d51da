"""Finding what to tell, and queueing it: `collect` turns comment events into outbox rows.

No caller has to remember to send a mail: `collect` reads the comments themselves and queues a
mail for each event that has none yet (`store.outbox.held_events`, `reply_events`):
- a comment waiting for moderation (`pending`): one `held` mail per address in
  `editor_emails`, with signed approve and spam links (notify/tokens.py);
- an approved reply whose parent's author ticked "tell me of replies" (`notify`): one `reply`
  mail to that author (never to the reply's own author), with a one-click unsubscribe.
Only comments written on this site in the last `WINDOW` seconds count (not imported ones, and not
a backlog from before mail was set up: a one-click link is dead after 7 days anyway). Finding and
queueing run in one write transaction, so two collectors never queue one event twice. An event
that cannot be mailed (no valid address) is recorded as a failed row with its reason, once.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass
from email.errors import MessageError

from masthead.config import Settings, Site
from masthead.notify import messages, tokens
from masthead.notify.sender import off_reason
from masthead.store import comments as store
from masthead.store import outbox, site_secrets
from masthead.store import posts as store_posts
from masthead.store.db import Database

log = logging.getLogger(__name__)

WINDOW = tokens.ACTION_MAX_AGE  # seconds: events older than a one-click link's life are left


@dataclass(frozen=True)
class Links:
    """Where the links in mails point: the site's public base URL (`https://example.com`)."""

    base_url: str

    def moderate(self, token: str) -> str:
        return f"{self.base_url}/guanli/mail/{token}"

    def unsubscribe(self, token: str) -> str:
        return f"{self.base_url}/comments/unsubscribe/{token}"

    def privacy(self, token: str) -> str:
        return f"{self.base_url}/comments/privacy/{token}"

    def dashboard(self) -> str:
        return f"{self.base_url}/guanli/comments?status=pending"

    def page(self, path: str) -> str:
        return self.base_url + path


def comment_anchor(comment_id: int) -> str:
    """The fragment of a comment on its post's page (`#c-17`: the `id` of its element in
    _comments.html, as the comments feed links it)."""
    return f"#c-{comment_id}"


def collect(db: Database, site: Site, base_url: str, now: float) -> int:
    """Queue a mail for every event not yet in the outbox; returns how many mails were queued.
    Does nothing when mail is off (`smtp_host` or `mail_from` unset). A recipient address that
    is not a valid one (a commenter's typo) is skipped, with a log line, never raised."""
    settings = site.settings
    if off_reason(settings) is not None:
        return 0
    since = now - WINDOW
    reader = db.read()
    if not outbox.held_events(reader, since) and not outbox.reply_events(reader, since):
        return 0  # the usual case: no write transaction at all
    secret = site_secrets.site_secret(db)
    links = Links(base_url.rstrip("/"))
    with db.write() as conn:
        queued = 0
        if settings.editor_emails:
            for cid in outbox.held_events(conn, since):
                queued += _held(conn, site, secret, links, cid, now)
        for rid, pid in outbox.reply_events(conn, since):
            queued += _reply(conn, site, secret, links, rid, pid, now)
    return queued


def _sender(settings: Settings) -> messages.Sender:
    """From `mail_from`'s name if it has one (`Blog <blog@example.com>`), else the title."""
    return messages.Sender(settings.mail_from_name or settings.title, settings.mail_from_address)


def _text(comment: store.Comment) -> messages.CommentText:
    return messages.CommentText(
        comment.author_name, comment.author_url, comment.lang, comment.reason, comment.body
    )


def _post_title(conn: sqlite3.Connection, comment: store.Comment, now: float) -> str:
    post = store_posts.post_by_url(conn, comment.post_url, now)
    return str(post.title) if post is not None else comment.post_url


def _held(
    conn: sqlite3.Connection, site: Site, secret: bytes, links: Links, cid: int, now: float
) -> int:
    comment = store.get(conn, cid)
    if comment is None:
        return 0
    version = outbox.comment_version(conn, cid)
    key = comment.token_key
    approve = links.moderate(tokens.action_token(secret, cid, "approve", version, key))
    spam = links.moderate(tokens.action_token(secret, cid, "spam", version, key))
    queued, causes = 0, []
    for editor in site.settings.editor_emails:
        try:
            msg = messages.held(
                _sender(site.settings),
                editor,
                locale=site.default_language.locale,
                post_title=_post_title(conn, comment, now),
                post_link=links.page(comment.post_url),
                comment=_text(comment),
                approve_link=approve,
                spam_link=spam,
                dashboard_link=links.dashboard(),
                now=now,
            )
            raw = msg.as_bytes()
        except (ValueError, MessageError) as exc:  # InvalidAddress, text that cannot be mailed
            log.warning("no moderation mail for comment %d to %r: %s", cid, editor, exc)
            causes.append(str(exc))
            continue
        outbox.enqueue(conn, outbox.HELD, str(msg["To"]), raw, comment_id=cid, now=now)
        queued += 1
    if not queued:  # mark the event as seen, so a bad address is not retried for ever
        why = "; ".join(dict.fromkeys(causes)) or "no valid editor address"  # each cause once
        outbox.skipped(conn, outbox.HELD, cid, f"cannot be mailed: {why}", now)
    return queued


def _reply(
    conn: sqlite3.Connection,
    site: Site,
    secret: bytes,
    links: Links,
    rid: int,
    pid: int,
    now: float,
) -> int:
    reply, parent = store.get(conn, rid), store.get(conn, pid)
    if reply is None or parent is None:
        return 0
    lang = site.languages.get(parent.lang, site.default_language)
    to = parent.author_email.strip()
    try:
        msg = messages.reply(
            _sender(site.settings),
            to,
            locale=lang.locale,
            # the thread as the parent's author read it: the post in their language
            post_title=_post_title(conn, parent, now),
            reply_link=links.page(parent.post_url + comment_anchor(rid)),
            comment=_text(reply),
            unsubscribe_link=links.unsubscribe(
                tokens.unsubscribe_token(secret, pid, parent.token_key)
            ),
            now=now,
        )
        raw = msg.as_bytes()
    except (ValueError, MessageError) as exc:  # InvalidAddress, text that cannot be mailed
        log.warning("no reply mail for comment %d: %s", rid, exc)
        outbox.skipped(conn, outbox.REPLY, rid, f"cannot be mailed: {exc}", now)
        return 0
    outbox.enqueue(conn, outbox.REPLY, str(msg["To"]), raw, comment_id=rid, now=now)
    return 1
