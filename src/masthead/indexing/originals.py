"""Keep the bodies of originals that have translations (`store.translations` says why), at the
end of each index pass: the current body of each such original, from the post just parsed or
else from its file, and forget the bodies no translation needs any more."""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Collection, Iterable

from masthead.config import Site
from masthead.content import frontmatter, source
from masthead.content.model import Post
from masthead.content.translations import body_hash, normalised
from masthead.errors import ContentError
from masthead.store import translations as store

log = logging.getLogger(__name__)


def keep_bodies(
    conn: sqlite3.Connection,
    parsed: Iterable[Post],
    site: Site | None,
    groups: Collection[str] | None = None,
    sources: Collection[str] = (),
) -> None:
    """Keep each original's current body that is not kept yet (from `parsed`, this pass's
    posts, else read from its file under `site`), then `store.prune`. `groups`: only in the
    translation groups of those keys, and `sources` the content files changed or gone (a
    watcher's batch: what it touched; None looks at every post)."""
    posts = {p.source: p for p in parsed}
    now = time.time()
    for path, digest in store.originals_to_keep(conn, groups):
        post = posts.get(path)
        text = post.body if post is not None and post.body_hash == digest else None
        if text is None and site is not None:
            text = body_on_disk(site, path, digest)
        if text is not None:
            store.keep(conn, digest, path, normalised(text), now)
    store.prune(conn, groups, sources)


def body_on_disk(site: Site, path: str, digest: str | None = None) -> str | None:
    """The Markdown body of the content file at site-relative `path` (when its hash is
    `digest`, if given); None when it cannot be read or parsed, or has changed."""
    try:
        raw = (site.root / path).read_bytes()
        body = frontmatter.split(path, source.decode(path, raw)).body
    except (OSError, ContentError) as exc:
        log.info("%s: its body is not kept (%s)", path, exc)
        return None
    return body if digest is None or body_hash(body) == digest else None
