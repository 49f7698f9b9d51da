"""The comments block of a post page and the API's nested thread: from the store's rows
(`store.comments.public_thread`) through `comments.threads.build` to template contexts and JSON.

What a page shows is the same for every reader (it is cached): the approved thread, placeholders
for removed comments (C39), and the form. Nothing personal: a commenter's own pending comments
and the notice after posting come from the page's script (`/api/comments/mine`, the `?c=`
parameter) or, without script, from `:target` styles and the uncached `/comments/mine` page.

Pingbacks and trackbacks (imported: `comments.wxr` keeps their kind) are drawn as what they
are: a label, the linking site's title linked to its URL, no avatar initials and no Reply link.

Dates are shown in the site's zone, `datetime` attributes carry that zone's offset (C54);
avatars are initials drawn by the site itself (`comments.text.initials`: whole grapheme
clusters, so "Zoë 👩🏽‍💻" never splits; no request to another host).
"""

from __future__ import annotations

import sqlite3
import zlib
from datetime import UTC, datetime
from typing import Any

from masthead.comments import rules, threads
from masthead.comments.text import initials
from masthead.config import Language, Site
from masthead.i18n import gettext, long_date, long_datetime
from masthead.notify.sender import off_reason
from masthead.store import comments as store
from masthead.store.rows import PostRow

TONES = 8  # avatar colours: .avatar--0 … .avatar--7 in site.css (no inline style: CSP)
# The form's `maxlength`s: the rules' limits, by the form's field names (C36, C40).
LIMITS = rules.FIELD_LIMITS  # the form's maxlength: the server's limits, by field name
HONEYPOT = "homepage"  # the form's trap field: people never see it, bots fill it
PINGS = ("pingback", "trackback")  # comment kinds that are another site's link (imports only)


def tone(name: str) -> int:
    """A stable colour index for `name` (0 … TONES-1): one person, one colour everywhere."""
    return zlib.crc32(name.strip().casefold().encode("utf-8")) % TONES


def when(ts: float, site: Site, lang: Language) -> dict[str, str]:
    """`{"iso", "text"}` of an instant (seconds since the epoch) in the site's zone: the ISO
    8601 value with that zone's offset for `datetime`, and the text in `lang` (C54)."""
    local = datetime.fromtimestamp(ts, UTC).astimezone(site.tz)
    return {"iso": local.isoformat(timespec="seconds"), "text": long_datetime(local, lang.locale)}


def is_open(row: PostRow, site: Site, now: float) -> bool:
    """Whether a post takes new comments: front matter `comments` not false, and not older
    than `comments_close_after_days` (0: never closed)."""
    if not row.comments:
        return False
    days = site.settings.comments_close_after_days
    return not days or now < float(row.date_ts) + days * 86400


def language_of(code: str, site: Site) -> tuple[str, str]:
    """`(hreflang, name)` of a comment's language code; the code itself for a language the site
    no longer has (an import from elsewhere); `("", "")` for '', a comment whose language is not
    known (imported from an export that states none): drawn with no `lang` of its own, it takes
    the page's."""
    if not code:
        return "", ""
    lang = site.languages.get(code) or site.resolve_language(code)
    return (lang.hreflang, lang.name) if lang else (code, code)


def node_context(node: threads.Node, site: Site, lang: Language) -> dict[str, Any]:
    """A node as `_comments.html` draws it (replies nested)."""
    out: dict[str, Any] = {
        "id": node.id,
        "level": node.level,
        "removed": node.removed,
        "replies": [node_context(n, site, lang) for n in node.replies],
    }
    c = node.comment
    if node.removed or c is None:
        return out
    hreflang, lang_name = language_of(c.lang, site)
    ping = c.kind in PINGS
    # a ping's "author" is the linking site's title (its URL when the import had none)
    name = c.author_name.strip() or (c.author_url if ping else "")
    name = name or gettext(lang.locale, c.kind if ping else "anonymous")  # imports may have none
    out.update(
        name=name,
        url=c.author_url,
        initials=initials(name),
        tone=tone(name),
        lang=c.lang,
        hreflang=hreflang,
        lang_name=lang_name,
        foreign=bool(c.lang) and c.lang != lang.code,  # '' (not known): never filtered out
        date=when(c.created, site, lang),
        html=c.body_html,  # rendered by comments.sanitize, nh3 its last step
        reply_to=node.reply_to,
        reply_to_removed=node.reply_to_removed,
        kind=c.kind,
        ping=ping,
        staff=bool(c.author_user),  # written by a signed-in /guanli user: the staff badge
        # "Pingback", "Trackback" in the page's language: drawn as a label, never as a name
        kind_label=gettext(lang.locale, c.kind) if ping else "",
    )
    return out


def is_ping(kind: str) -> bool:
    """True for a pingback or trackback (imported: `comments.wxr` keeps WordPress's
    `comment_type`): another site's link to the post, not a reader's comment."""
    return kind in PINGS


def page_of(view: threads.ThreadView, base: str) -> dict[str, Any]:
    """Links to the other pages of a thread (`?cpage=N#mh-comments`; page 1 is the post itself)."""

    def url(n: int) -> str | None:
        if n < 1 or n > view.pages:
            return None
        return f"{base}#mh-comments" if n == 1 else f"{base}?cpage={n}#mh-comments"

    return {
        "page": view.page,
        "pages": view.pages,
        "prev": url(view.page - 1),
        "next": url(view.page + 1),
    }


def thread_view(
    conn: sqlite3.Connection, thread: str, site: Site, page: int, *, nearest: bool = False
) -> threads.ThreadView:
    """The thread `thread`'s page `page` with the site's settings; raises
    `threads.PageOutOfRange` for a page it does not have, unless `nearest` (then the nearest
    page it has: the post page, where a link to a page that moderation emptied still works)."""
    s = site.settings
    return threads.build(
        store.public_thread(conn, thread),
        depth=s.comments_depth,
        order=s.comments_order,
        per_page=s.comments_per_page,
        page=page,
        nearest=nearest,
    )


def block(
    conn: sqlite3.Connection,
    row: PostRow,
    site: Site,
    lang: Language,
    now: float,
    page: int,
    *,
    frozen: bool = False,
) -> dict[str, Any] | None:
    """The context of a post's comments block, or None when the post has none (a page, or
    front matter `comments: false`). A `page` the thread does not have (below 1, past the
    end) shows its nearest page. `frozen` (an export with no masthead behind it): the whole
    thread on one page as of `now`, with no form or reply link (nothing could post them)."""
    if row.kind != "post" or not row.comments:
        return None
    if frozen:
        return _frozen(conn, row, site, lang, now)
    view = thread_view(conn, row.translation_key, site, page, nearest=True)
    nodes = [node_context(n, site, lang) for n in view.nodes]
    langs = {n.comment.lang for n in view.walk() if n.comment is not None and not n.removed}
    langs.discard("")  # comments of no known language are shown whatever the filter
    total = view.total
    count = gettext(lang.locale, "n_comments_one" if total == 1 else "n_comments", n=total)
    return {
        **form_context(site, row.url, lang),
        "nodes": nodes,
        "total": total,
        "count_text": count,
        "pagination": page_of(view, row.url) if view.pages > 1 else None,
        "open": is_open(row, site, now),
        # several languages in this thread: the reader may show only the page's own
        "filter": len(site.languages) > 1 and bool(langs - {lang.code}),
    }


def _frozen(
    conn: sqlite3.Connection, row: PostRow, site: Site, lang: Language, now: float
) -> dict[str, Any]:
    """The comments block of a static copy: every approved comment of the thread, on one page
    (a static host has no `?cpage=`), "comments as of" the build's day, and no form."""
    s = site.settings
    rows = store.public_thread(conn, row.translation_key)
    view = threads.build(
        rows, depth=s.comments_depth, order=s.comments_order, per_page=len(rows) or 1
    )
    nodes = [node_context(n, site, lang) for n in view.nodes]
    langs = {n.comment.lang for n in view.walk() if n.comment is not None and not n.removed}
    langs.discard("")
    total = view.total
    count = gettext(lang.locale, "n_comments_one" if total == 1 else "n_comments", n=total)
    day = long_date(datetime.fromtimestamp(now, UTC).astimezone(site.tz), lang.locale)
    return {
        **form_context(site, row.url, lang),
        "nodes": nodes,
        "total": total,
        "count_text": count,
        "pagination": None,
        "open": False,
        "as_of": gettext(lang.locale, "comments_as_of" if total else "no_comments_as_of", date=day),
        "filter": len(site.languages) > 1 and bool(langs - {lang.code}),
    }


def form_context(site: Site, post_url: str, lang: Language) -> dict[str, Any]:
    """What `_comment_form.html` needs to draw the form for the post at `post_url`."""
    settings = site.settings
    return {
        "post_url": post_url,
        "lang_code": lang.code,
        # an exported page posts to the masthead at `api_url` (the search form does the same)
        "action": (settings.api_url or "") + "/comments",
        "api": (settings.api_url or "") + "/api/comments",
        "min_seconds": settings.comments_min_seconds,
        "mail": settings.mail_on,  # "Email me when someone replies" only when mail can go
        "edit_minutes": settings.comments_edit_minutes,
        "limits": LIMITS,
        "honeypot": HONEYPOT,
        # readers' privacy requests are answered by mail: offered only when mail can go out
        "privacy": (
            (settings.api_url or "") + "/comments/privacy?lang=" + lang.code
            if off_reason(settings) is None
            else ""
        ),
    }


def api_node(node: threads.Node) -> dict[str, Any]:
    """A node as `GET /api/comments` answers it: the comment's public shape (never its email),
    its drawn `level`, `reply_to` and its `replies`, nested."""
    if node.comment is None:  # a parent deleted outright: an id and its replies, nothing else
        shape: dict[str, Any] = {"id": node.id, "parent": None, "removed": True}
    else:
        shape = node.comment.public()  # `date` in UTC with its offset (C54)
    if node.reply_to is not None:
        shape["reply_to"] = node.reply_to
    shape["level"] = node.level
    shape["replies"] = [api_node(n) for n in node.replies]
    return shape
