"""Comment feeds over HTTP: the latest approved comments as RSS 2.0 and Atom 1.0.

URLs (DESIGN.md): `/comments/feed.xml` and `/comments/atom.xml` (every thread of the site, every
language), `{permalink}comments.xml` and `{permalink}comments-atom.xml` (one thread: a post and
its translations share it, so `/posts/a/comments.xml` and `/zh/posts/a/comments.xml` list the
same comments, each entry in the language it was written in). A post whose comments are off
(`comments: false`) has no comment feed (404).

Documents are written by `masthead.seo.feeds` (the same code, escaping and RFC 822 / RFC 3339
dates as the post feeds, in the site's time zone with its offset, C54), from
`store.comments.latest_approved`: approved comments only, never a removed one's text (C39), and
never an email address (an entry's author is the name the commenter gave). An imported
pingback or trackback is titled as one ("Pingback from SITE on “Title”"), its author the
linking site's title as the import stored it. They are cached like
pages, and rendered again when the comments they show change (`SiteState.reads_thread`,
`reads_comments`), not when another thread's do.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import datetime
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import Response

from masthead.content import urls
from masthead.content.text import html_to_text
from masthead.errors import NotFound
from masthead.i18n import gettext
from masthead.seo import feeds
from masthead.store import comments as comment_store
from masthead.store import posts as store
from masthead.store import seo as seo_store
from masthead.store.comments import Comment
from masthead.store.rows import PostRow
from masthead.web.cache.state import SiteState
from masthead.web.render import discussion
from masthead.web.render.renderer import Renderer
from masthead.web.routes import add, bound, renderer, respond, site_state
from masthead.web.routes.seo import MEDIA, Built


class CommentFeeds:
    """Builds the comment feeds of one site from its database (each method returns `Built`)."""

    def __init__(self, state: SiteState, renderer: Renderer) -> None:
        self.state = state
        self.renderer = renderer
        self.site = state.site

    def site_feed(self, fmt: str) -> Built:
        """The `fmt` ("rss" or "atom") feed of the latest approved comments of every thread."""
        self.state.reads_comments()
        conn = self.state.db.read()
        settings = self.site.settings
        locale = self.site.default_language.locale
        info = feeds.FeedInfo(
            title=gettext(locale, "comments_site", site=settings.title),
            description=settings.description,
            page_url=self.renderer.absolute("/"),
            rss_url=self.renderer.absolute(urls.comment_feed_url(None, "rss")),
            atom_url=self.renderer.absolute(urls.comment_feed_url(None, "atom")),
            author=settings.title,
        )
        found = comment_store.latest_approved(conn, None, settings.feed_items)
        return self._write(fmt, info, self._items(conn, found))

    def thread_feed(self, fmt: str, permalink: str) -> Built:
        """The `fmt` feed of the comments of the post at `permalink` (its whole thread).
        Raises NotFound for no published post there, or one whose comments are off."""
        conn = self.state.db.read()
        row = store.post_by_url(conn, permalink, self.state.now())
        if row is None or row.kind != "post":
            raise NotFound("no such post")
        if not row.comments:
            raise NotFound("comments are off for this post")
        self.state.reads_thread(row.translation_key)
        lang = self.site.languages.get(row.lang, self.site.default_language)
        info = feeds.FeedInfo(
            title=gettext(lang.locale, "comments_on", title=row.title),
            description="",  # the title: an edit of the post body leaves the feed alone
            page_url=self.renderer.absolute(row.url) + "#mh-comments",
            rss_url=self.renderer.absolute(urls.comment_feed_url(row.url, "rss")),
            atom_url=self.renderer.absolute(urls.comment_feed_url(row.url, "atom")),
            author=self.site.settings.title,
        )
        found = comment_store.latest_approved(
            conn, row.translation_key, self.site.settings.feed_items
        )
        return self._write(fmt, info, self._items(conn, found))

    def _write(self, fmt: str, info: feeds.FeedInfo, items: list[feeds.FeedItem]) -> Built:
        write = feeds.rss if fmt == "rss" else feeds.atom
        return write(info, items, full_text=True), feeds.last_modified(items)

    def _items(self, conn: sqlite3.Connection, found: list[Comment]) -> list[feeds.FeedItem]:
        """One entry per comment whose post is published (its page, else a translation's)."""
        now = self.state.now()
        posts: dict[str, PostRow | None] = {}
        out = []
        for c in found:
            if c.post_url not in posts:
                posts[c.post_url] = self._post_of(conn, c, now)
            post = posts[c.post_url]
            if post is None:
                continue  # its post is gone or unpublished: its page shows nothing either
            # the entry's words in the comment's language, else (not known) in its post's
            written = c.lang if c.lang in self.site.languages else str(post.lang)
            lang = self.site.languages.get(written, self.site.default_language)
            zone = self.site.tz
            if discussion.is_ping(c.kind):  # another site's link: say so, named by that site
                name = c.author_name.strip() or c.author_url or gettext(lang.locale, c.kind)
                kind = gettext(lang.locale, c.kind)
                who = gettext(lang.locale, "ping_from", kind=kind, site=name)
            else:
                name = c.author_name or gettext(lang.locale, "anonymous")
                if c.staff:  # the staff badge, as the page draws it
                    name = gettext(lang.locale, "staff_name", name=name)
                who = name
            out.append(
                feeds.FeedItem(
                    title=gettext(lang.locale, "comment_by", name=who, title=post.title),
                    url=self.renderer.absolute(post.url) + f"#c-{c.id}",
                    published=datetime.fromtimestamp(c.created, zone),
                    updated=datetime.fromtimestamp(c.updated, zone) if c.updated else None,
                    authors=(name,),
                    categories=(),
                    summary=" ".join(html_to_text(c.body_html).split()),
                    html=c.body_html,  # sanitized when stored; the feed's allowlist pass again
                    lang=discussion.language_of(c.lang, self.site)[0],  # '': the feed's
                )
            )
        return out

    def _post_of(self, conn: sqlite3.Connection, c: Comment, now: float) -> PostRow | None:
        """The published post a comment is shown on: the one it was written on, else (that
        URL gone) the version of its thread in its language, else any published version."""
        row = store.post_by_url(conn, c.post_url, now)
        if row is not None:  # a page (an import may put comments there) draws none: no entry
            return row if row.kind == "post" else None
        versions = seo_store.hreflang_versions(conn, c.thread, "post", now)
        url = versions.get(c.lang) or next(iter(versions.values()), None)
        return store.post_by_url(conn, url, now) if url else None


def router() -> APIRouter:
    """The site-wide comment feeds and the per-thread ones (any post URL + `comments.xml`)."""
    routes = APIRouter()
    for fmt in ("rss", "atom"):
        add(routes, urls.comment_feed_url(None, fmt), site_feed, fmt)
        add(routes, "/{path:path}" + urls.THREAD_FEED_FILES[fmt], thread_feed, fmt)
    return routes


def _reply(
    request: Request, key: tuple, fmt: str, build: Callable[[CommentFeeds], Built]
) -> Response:
    """The cached feed for `key` (built by `build` on a miss) as a conditional response."""
    built: list[datetime | None] = []

    def render() -> tuple[str, int]:
        text, modified = build(CommentFeeds(site_state(request), renderer(request)))
        built.append(modified)
        return text, 200

    return respond(request, ("comment-feed", *key), render, MEDIA[fmt], lambda: built[0])


def site_feed(request: Request) -> Response:
    (fmt,) = bound(request)
    return _reply(request, (fmt, None), fmt, lambda out: out.site_feed(fmt))


def thread_feed(request: Request, path: str) -> Response:
    (fmt,) = bound(request)
    if not path.endswith("/"):  # a permalink ends with a slash
        raise NotFound("no such post")
    permalink = quote("/" + path)
    return _reply(request, (fmt, permalink), fmt, lambda out: out.thread_feed(fmt, permalink))
