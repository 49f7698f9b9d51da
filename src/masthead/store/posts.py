"""SQL for the post index: posts, taxonomies, aliases, translations, sources and content issues.

Write functions take the connection of an open `Database.write()` transaction; read functions
take any connection. Timestamps (`now`) are seconds since the epoch.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Iterable
from typing import Any

from masthead.content import authors
from masthead.content.model import Post, Term
from masthead.content.urls import Source
from masthead.errors import ContentIssue
from masthead.store import comment_threads, search
from masthead.store.db import Database
from masthead.store.rows import (
    ArchivePost,
    MenuPost,
    PostLink,
    PostRow,
    PostSummary,
    RelatedPost,
    TaggedPost,
    TermCount,
    Translation,
    maybe_row,
    rows_of,
)

log = logging.getLogger(__name__)
# who keeps a URL two posts claim (`resolve_duplicates`, and `masthead check` by the same rule)
DUPLICATE_RULE = "the post that held the URL keeps it; the older one if neither did"

_POST_COLUMNS = (
    "source, kind, lang, slug, url, title, date, date_ts, updated, authors, excerpt, cover, draft, "
    "noindex, comments, show_toc, canonical, translation_key, html, toc_html, body_text, "
    "word_count, reading_minutes, extra, code_text, series_weight, translation_of, body_hash"
)
_LIST_COLUMNS = (
    "id, source, kind, lang, slug, url, title, date, date_ts, updated, authors, excerpt, cover, "
    "draft, reading_minutes, translation_key"
)


# --- writes -------------------------------------------------------------------------------


def write_post(conn: sqlite3.Connection, post: Post) -> int:
    """Insert or replace the post from `post.source` with its terms and aliases, not its search
    rows (`search.index_post` writes them, after every post of the transaction); return its id.

    Why apart: a statement that opens a statement savepoint (this upsert does) makes SQLite
    call every FTS5 table written in the transaction to save a point, and FTS5 then flushes
    its pending terms to a new segment (`fts5SavepointMethod`; seen in SQLite 3.40 with
    py-spy --native). Written after each post's search rows, that was one segment per post
    (30% of a full index's writer time at 5,000 posts); the search rows of a batch written
    after all its posts are flushed once, at COMMIT."""
    params: dict[str, Any] = {
        "source": post.source,
        "kind": post.kind,
        "lang": post.lang,
        "slug": post.slug,
        "url": post.url,
        "title": post.title,
        "date": post.date.isoformat(),
        "date_ts": post.date.timestamp(),
        "updated": post.updated.isoformat() if post.updated else None,
        "authors": json.dumps(list(post.authors), ensure_ascii=False),
        "excerpt": post.excerpt,
        "cover": post.cover,
        "draft": int(post.draft),
        "noindex": int(post.noindex),
        "comments": int(post.comments),
        "show_toc": int(post.show_toc),
        "canonical": post.canonical,
        "translation_key": post.translation_key,
        "html": post.html,
        "toc_html": post.toc_html,
        "body_text": post.text,
        "word_count": post.word_count,
        "reading_minutes": post.reading_minutes,
        "extra": json.dumps(post.extra, ensure_ascii=False, default=str),
        "code_text": post.code,
        "series_weight": post.series_weight,
        "translation_of": post.translation_of,
        "body_hash": post.body_hash,
    }
    names = _POST_COLUMNS.split(", ")
    assignments = ", ".join(f"{n} = excluded.{n}" for n in names if n != "source")
    row = conn.execute(
        f"INSERT INTO posts ({_POST_COLUMNS}) VALUES ({', '.join(':' + n for n in names)}) "
        f"ON CONFLICT (source) DO UPDATE SET {assignments} RETURNING id",
        params,
    ).fetchone()
    post_id = int(row[0])
    conn.execute("DELETE FROM post_terms WHERE post_id = :id", {"id": post_id})
    conn.executemany(
        "INSERT OR IGNORE INTO post_terms (post_id, taxonomy, key, name, position) "
        "VALUES (:id, :tax, :key, :name, :pos)",
        [
            {"id": post_id, "tax": tax, "key": term.key, "name": term.name, "pos": i}
            for tax, terms in _taxonomies(post)
            for i, term in enumerate(terms)
        ],
    )
    conn.execute("DELETE FROM post_series WHERE post_id = :id", {"id": post_id})
    conn.executemany(
        "INSERT OR IGNORE INTO post_series (post_id, key, name, position) "
        "VALUES (:id, :key, :name, :pos)",
        [
            {"id": post_id, "key": term.key, "name": term.name, "pos": i}
            for i, term in enumerate(post.series)
        ],
    )
    conn.execute("DELETE FROM aliases WHERE post_id = :id", {"id": post_id})
    conn.executemany(
        "INSERT OR IGNORE INTO aliases (path, post_id) VALUES (:path, :id)",
        [{"path": a, "id": post_id} for a in post.aliases],
    )
    return post_id


def _taxonomies(post: Post) -> tuple[tuple[str, tuple[Term, ...]], ...]:
    """The terms a post is listed under: its tags, categories and authors (by name key)."""
    people = tuple(Term(a.name, a.key) for a in authors.authors(post.authors))
    return (("tags", post.tags), ("categories", post.categories), (authors.TAXONOMY, people))


def delete_source(conn: sqlite3.Connection, path: str) -> None:
    """Forget a content file that no longer exists: its post, search rows, source and issues."""
    row = conn.execute("SELECT id FROM posts WHERE source = :p", {"p": path}).fetchone()
    if row is not None:
        search.delete_post(conn, row[0])
    conn.execute("DELETE FROM posts WHERE source = :p", {"p": path})
    conn.execute("DELETE FROM sources WHERE path = :p", {"p": path})
    conn.execute("DELETE FROM content_issues WHERE path = :p", {"p": path})


def record_source(
    conn: sqlite3.Connection, path: str, size: int, mtime_ns: int, sha256: str, status: str
) -> None:
    conn.execute(
        "INSERT INTO sources (path, size, mtime_ns, sha256, status) "
        "VALUES (:p, :s, :m, :h, :st) ON CONFLICT (path) DO UPDATE SET size = excluded.size, "
        "mtime_ns = excluded.mtime_ns, sha256 = excluded.sha256, status = excluded.status",
        {"p": path, "s": size, "m": mtime_ns, "h": sha256, "st": status},
    )


def set_issues(
    conn: sqlite3.Connection, path: str, issues: Iterable[ContentIssue], codes: tuple[str, ...]
) -> None:
    """Replace the issues of `path` whose code is in `codes` by `issues` (with their codes)."""
    names = {f"c{i}": code for i, code in enumerate(codes)}
    conn.execute(
        "DELETE FROM content_issues WHERE path = :p AND code IN "
        f"({', '.join(':' + n for n in names)})",
        {"p": path, **names},
    )
    conn.executemany(
        "INSERT INTO content_issues (path, line, severity, code, reason) "
        "VALUES (:path, :line, :severity, :code, :reason)",
        [
            {
                "path": i.path,
                "line": i.line,
                "severity": i.severity,
                "code": _code(i),
                "reason": i.reason,
            }
            for i in issues
        ],
    )


def _code(issue: ContentIssue) -> str:
    if issue.severity == "error":
        return "duplicate-slug" if "duplicate slug" in issue.reason else "parse"
    return "link" if "link" in issue.reason else "shortcode"


def urls_of(conn: sqlite3.Connection, sources: list[str]) -> set[str]:
    """The URLs the posts of these source files have now."""
    if not sources:
        return set()
    names = {f"s{i}": src for i, src in enumerate(sources)}
    rows = conn.execute(
        f"SELECT url FROM posts WHERE source IN ({', '.join(':' + n for n in names)})", names
    )
    return {r[0] for r in rows}


def resolve_duplicates(conn: sqlite3.Connection, urls: set[str] | None = None) -> None:
    """Mark every post whose URL another post holds as shadowed, and record a `duplicate-slug`
    error for it. The holder is the incumbent: the post `url_history` says holds the URL, else
    one that was not shadowed before; only between posts neither of which held it (a first
    index) does the older post by date (then path) keep it. So a file added later with a taken
    slug never takes the URL, its comments and its search rows from the post that has them,
    whatever its date. Drafts take part only among drafts. A post newly shadowed is logged as
    a WARNING naming both files. Then remember which file holds each of these URLs
    (`url_history`; drafts never held a public URL), so that the URL still leads to that post
    once it has moved (a new pattern, a new slug): see `alias_target`.

    With `urls`, only the posts at those URLs are looked at (an incremental change cannot create
    or end a clash anywhere else); without, every post.
    """
    scope, params = "", {}
    if urls is not None:
        if not urls:
            return
        params = {f"u{i}": u for i, u in enumerate(urls)}
        scope = f"WHERE p.url IN ({', '.join(':' + n for n in params)})"
    # ranked before the reset below: the shadowed flag still says who was not shadowed before
    rows = conn.execute(
        "SELECT id, source, url, holder, was FROM ("
        "  SELECT p.id, p.source, p.url, p.shadowed AS was, ROW_NUMBER() OVER w AS rn,"
        "  FIRST_VALUE(p.source) OVER w AS holder"
        f"  FROM posts p LEFT JOIN url_history h ON h.url = p.url {scope}"
        "  WINDOW w AS (PARTITION BY p.url, p.draft"
        "  ORDER BY p.source IS h.source DESC, p.shadowed, p.date_ts, p.source)"
        ") WHERE rn > 1",
        params,
    ).fetchall()
    sources = f"SELECT p.source FROM posts p {scope}"
    conn.execute(
        f"DELETE FROM content_issues WHERE code = 'duplicate-slug' AND path IN ({sources})",
        params,
    )
    conn.execute(f"UPDATE posts SET shadowed = 0 WHERE shadowed = 1 AND source IN ({sources})",
                 params)  # fmt: skip
    for row in rows:
        conn.execute("UPDATE posts SET shadowed = 1 WHERE id = :id", {"id": row["id"]})
        issue = ContentIssue(
            row["source"],
            1,
            f"duplicate slug: {row['url']} already belongs to {row['holder']} "
            f"({DUPLICATE_RULE}; set another slug)",
        )
        conn.execute(
            "INSERT INTO content_issues (path, line, severity, code, reason) "
            "VALUES (:p, 1, 'error', 'duplicate-slug', :r)",
            {"p": issue.path, "r": issue.reason},
        )
        if not row["was"]:
            log.warning("%s", issue.format())
    holders = f"{scope} AND" if scope else "WHERE"
    conn.execute(
        "INSERT INTO url_history (url, source, translation_key, lang, kind) "
        f"SELECT url, source, translation_key, lang, kind FROM posts p {holders} shadowed = 0 "
        "AND draft = 0 "
        "ON CONFLICT (url) DO UPDATE SET source = excluded.source, "
        "translation_key = excluded.translation_key, lang = excluded.lang, kind = excluded.kind",
        params,
    )


def follow_renames(
    conn: sqlite3.Connection, gone: dict[str, str], keys: dict[str, str] | None = None
) -> None:
    """`gone`: content files just forgotten → their SHA-256. One whose content another indexed
    file now has (parsed fine) was renamed or moved: the URLs it held (`url_history`) now lead
    to that file, so `alias_target` answers the old URL with the new one even when the post has
    no `translationKey` (its key came from the old file name). One query over `sources`.

    `keys`: the gone files' translation keys (read before their posts were deleted). A renamed
    post's comments follow it to its new key when no post keeps the old one (a translation
    left behind keeps the thread): comments are never derived, and must not be left on a key
    no page shows."""
    if not gone:
        return
    hashes = json.dumps(sorted(set(gone.values())))
    rows = conn.execute(
        "SELECT sha256, MIN(path) FROM sources WHERE status = 'ok' "
        "AND sha256 IN (SELECT value FROM json_each(:hashes)) GROUP BY sha256",
        {"hashes": hashes},
    )
    now_at = {r[0]: r[1] for r in rows}
    for old, digest in gone.items():
        new = now_at.get(digest)
        if new is not None and new != old:
            conn.execute(
                "UPDATE url_history SET source = :new WHERE source = :old", {"new": new, "old": old}
            )
            _move_thread(conn, (keys or {}).get(old), new)


def follow_key_changes(conn: sqlite3.Connection, keys: dict[str, str]) -> None:
    """`keys`: re-parsed content files → their translation key before this change. A post
    whose key changed in place (a `translationKey` added or edited, as `masthead new
    --translation-of` adds one to the original) takes its comments to the new key when no
    post keeps the old one (see `_move_thread`)."""
    for source, old_key in keys.items():
        _move_thread(conn, old_key, source)


def _move_thread(conn: sqlite3.Connection, old_key: str | None, new_source: str) -> None:
    """Move the comments of translation key `old_key` to the key of the post at `new_source`
    when the two differ and no post has `old_key` any more (see `follow_renames`)."""
    row = conn.execute(
        "SELECT translation_key FROM posts WHERE source = :s", {"s": new_source}
    ).fetchone()
    if old_key is None or row is None or row[0] == old_key:
        return
    kept = conn.execute(
        "SELECT 1 FROM posts WHERE translation_key = :k LIMIT 1", {"k": old_key}
    ).fetchone()
    if kept is not None:
        return
    moved = conn.execute(
        "UPDATE comments SET thread = :new WHERE thread = :old", {"new": row[0], "old": old_key}
    ).rowcount
    if moved:
        comment_threads.touch(conn, row[0])
        comment_threads.touch(conn, old_key)


def commit_generation(db: Database, apply: Callable[[sqlite3.Connection], None]) -> int:
    """Run `apply(conn)` in one write transaction that also bumps the index generation, then,
    after the COMMIT, the change signal every reader stats (store/signal.py); return the new
    generation. The one way a change readers see is committed: every cache follows it."""
    with db.write() as conn:
        apply(conn)
        generation = bump_generation(conn)
    db.signal.bump()
    return generation


def bump_generation(conn: sqlite3.Connection) -> int:
    """Increase and return the index generation (keys ETags and caches); inside a transaction
    of `commit_generation`, which tells other processes."""
    row = conn.execute(
        "INSERT INTO site_state (key, value) VALUES ('generation', '1') ON CONFLICT (key) "
        "DO UPDATE SET value = CAST(value AS INTEGER) + 1 RETURNING value"
    ).fetchone()
    return int(row[0])


def set_state(conn: sqlite3.Connection, key: str, value: str) -> None:
    """Store one `site_state` value (see `state`)."""
    conn.execute(
        "INSERT INTO site_state (key, value) VALUES (:k, :v) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        {"k": key, "v": value},
    )


# --- reads --------------------------------------------------------------------------------


def state(conn: sqlite3.Connection, key: str) -> str | None:
    """One `site_state` value, or None when it was never set."""
    row = conn.execute("SELECT value FROM site_state WHERE key = :k", {"k": key}).fetchone()
    return row[0] if row else None


def generation(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM site_state WHERE key = 'generation'").fetchone()
    return int(row[0]) if row else 0


def count_posts(conn: sqlite3.Connection) -> int:
    """How many rows `posts` holds besides author pages: drafts, scheduled and shadowed ones
    included (the health check's count)."""
    return int(conn.execute("SELECT COUNT(*) FROM posts WHERE kind != 'author'").fetchone()[0])


def sources(conn: sqlite3.Connection) -> dict[str, sqlite3.Row]:
    """Every known content file: path → (size, mtime_ns, sha256, status)."""
    return {r["path"]: r for r in conn.execute("SELECT * FROM sources")}


def translation_keys_at(conn: sqlite3.Connection, urls: Iterable[str]) -> set[str]:
    """The translation keys of the posts at `urls` (shadowed ones too)."""
    rows = conn.execute(
        "SELECT DISTINCT translation_key FROM posts WHERE url IN (SELECT value FROM json_each(:u))",
        {"u": json.dumps(sorted(set(urls)))},
    )
    return {r[0] for r in rows}


def translation_keys_of(conn: sqlite3.Connection, paths: list[str]) -> dict[str, str]:
    """The translation key of the post of each content file of `paths` that has one."""
    if not paths:
        return {}
    names = {f"p{i}": p for i, p in enumerate(paths)}
    rows = conn.execute(
        f"SELECT source, translation_key FROM posts WHERE source IN "
        f"({', '.join(':' + n for n in names)})",
        names,
    )
    return {r[0]: r[1] for r in rows}


def sources_of(conn: sqlite3.Connection, paths: list[str]) -> dict[str, sqlite3.Row]:
    """Like `sources`, for these paths only (the watcher's batches: cost independent of the
    size of the site)."""
    if not paths:
        return {}
    names = {f"p{i}": p for i, p in enumerate(paths)}
    rows = conn.execute(
        f"SELECT * FROM sources WHERE path IN ({', '.join(':' + n for n in names)})", names
    )
    return {r["path"]: r for r in rows}


def issues(conn: sqlite3.Connection) -> list[ContentIssue]:
    rows = conn.execute("SELECT * FROM content_issues ORDER BY path, line, severity").fetchall()
    return [ContentIssue(r["path"], r["line"], r["reason"], r["severity"]) for r in rows]


def _visible(drafts: bool) -> str:
    return "shadowed = 0 AND date_ts <= :now" + ("" if drafts else " AND draft = 0")


def list_posts(
    conn: sqlite3.Connection,
    *,
    lang: str,
    now: float,
    limit: int,
    offset: int = 0,
    taxonomy: str | None = None,
    key: str | None = None,
    drafts: bool = False,
) -> tuple[list[PostSummary], int]:
    """Published posts of `lang`, newest first (optionally of one term); and the total count."""
    where, params = _listed(lang, now, taxonomy, key, drafts)
    params.update(limit=limit, offset=offset)
    total = conn.execute(f"SELECT COUNT(*) FROM posts WHERE {where}", params).fetchone()[0]
    # the page's ids first, from an index (a term's posts by id: `posts_facts`, covering; a
    # language's in date order: `posts_list`), then their rows: the rows skipped by OFFSET are
    # never read whole (their columns past the body: 17 ms for page 150, against 3 ms)
    index = "posts_facts" if taxonomy else "posts_list"
    rows = conn.execute(
        f"SELECT {_LIST_COLUMNS} FROM posts WHERE id IN (SELECT id FROM posts INDEXED BY {index} "
        f"WHERE {where} ORDER BY date_ts DESC, source LIMIT :limit OFFSET :offset) "
        "ORDER BY date_ts DESC, source",
        params,
    ).fetchall()
    return rows_of(PostSummary, rows), int(total)


def _listed(
    lang: str, now: float, taxonomy: str | None, key: str | None, drafts: bool
) -> tuple[str, dict[str, Any]]:
    """The WHERE clause and parameters of the posts `list_posts` lists."""
    where = f"kind = 'post' AND lang = :lang AND {_visible(drafts)}"
    params: dict[str, Any] = {"lang": lang, "now": now}
    if taxonomy:
        where += " AND id IN (SELECT post_id FROM post_terms WHERE taxonomy = :tax AND key = :key)"
        params.update(tax=taxonomy, key=key)
    return where, params


def listed_ids(
    conn: sqlite3.Connection,
    *,
    lang: str,
    now: float,
    taxonomy: str | None = None,
    key: str | None = None,
    drafts: bool = False,
) -> list[int]:
    """The ids of every post `list_posts` lists with these arguments, in its order (newest
    first; `source`, which is unique, breaks ties): each of its pages is a slice of them, and
    its total their count. What a build reads once per list (render/lists.py)."""
    where, params = _listed(lang, now, taxonomy, key, drafts)
    index = "posts_facts" if taxonomy else "posts_list"
    rows = conn.execute(
        f"SELECT id FROM posts INDEXED BY {index} WHERE {where} ORDER BY date_ts DESC, source",
        params,
    )
    return [r[0] for r in rows]


def summaries(conn: sqlite3.Connection, ids: list[int]) -> list[PostSummary]:
    """The posts of `ids` as `list_posts` gives them, in its order (newest first)."""
    if not ids:
        return []
    rows = conn.execute(
        f"SELECT {_LIST_COLUMNS} FROM posts WHERE id IN ({','.join(str(int(i)) for i in ids)}) "
        "ORDER BY date_ts DESC, source"
    ).fetchall()
    return rows_of(PostSummary, rows)


def post_by_url(
    conn: sqlite3.Connection, url: str, now: float, drafts: bool = False
) -> PostRow | None:
    row = conn.execute(
        # without sqlite_stat1 SQLite prefers `posts_due` (draft, date_ts: two terms) to the
        # URL's own index, and reads every post (9 ms a call at 5,000 posts, against 0.02 ms)
        f"SELECT * FROM posts INDEXED BY posts_url WHERE url = :url AND {_visible(drafts)}",
        {"url": url, "now": now},
    ).fetchone()
    return maybe_row(PostRow, row)


def preview_by_url(conn: sqlite3.Connection, url: str) -> PostRow | None:
    """The post at `url` whatever its state (a draft, or dated in the future): the preview a
    signed-in editor sees."""
    row = conn.execute(
        "SELECT * FROM posts INDEXED BY posts_url WHERE url = :url AND shadowed = 0 "
        "ORDER BY draft LIMIT 1",
        {"url": url},
    ).fetchone()
    return maybe_row(PostRow, row)


def translations(
    conn: sqlite3.Connection, post: PostRow, now: float, drafts: bool = False
) -> list[Translation]:
    """Published versions of `post` in other languages (same translation key and kind)."""
    rows = conn.execute(
        # the translation key narrows to a handful of rows; without sqlite_stat1 SQLite would
        # walk `posts_list` (every post of the kind) instead
        "SELECT id, lang, url, title FROM posts INDEXED BY posts_translation "
        "WHERE translation_key = :k AND kind = :kind "
        f"AND lang != :lang AND {_visible(drafts)} ORDER BY lang",
        {"k": post.translation_key, "kind": post.kind, "lang": post.lang, "now": now},
    ).fetchall()
    return rows_of(Translation, rows)


def terms_of(conn: sqlite3.Connection, post_ids: list[int]) -> dict[int, dict[str, list]]:
    """post id → {"tags": [(key, name)…], "categories": […], "authors": […]} in written order."""
    out: dict[int, dict[str, list]] = {
        i: {"tags": [], "categories": [], authors.TAXONOMY: []} for i in post_ids
    }
    if not post_ids:
        return out
    rows = conn.execute(
        "SELECT post_id, taxonomy, key, name FROM post_terms "
        f"WHERE post_id IN ({','.join(str(int(i)) for i in post_ids)}) "
        "ORDER BY post_id, taxonomy, position"
    )
    for r in rows:
        out[r["post_id"]][r["taxonomy"]].append((r["key"], r["name"]))
    return out


def term_counts(conn: sqlite3.Connection, taxonomy: str, lang: str, now: float) -> list[TermCount]:
    """Every term of `taxonomy` used by published posts of `lang`: key, name, count."""
    rows = conn.execute(
        "SELECT t.key, MIN(t.name) AS name, COUNT(*) AS n FROM post_terms t "
        "JOIN posts p ON p.id = t.post_id "
        f"WHERE t.taxonomy = :tax AND p.kind = 'post' AND p.lang = :lang AND {_visible(False)} "
        "GROUP BY t.key ORDER BY n DESC, t.key",
        {"tax": taxonomy, "lang": lang, "now": now},
    ).fetchall()
    return rows_of(TermCount, rows)


def term_name(conn: sqlite3.Connection, taxonomy: str, key: str, lang: str) -> str | None:
    row = conn.execute(
        "SELECT t.name FROM post_terms t JOIN posts p ON p.id = t.post_id "
        "WHERE t.taxonomy = :tax AND t.key = :key AND p.lang = :lang LIMIT 1",
        {"tax": taxonomy, "key": key, "lang": lang},
    ).fetchone()
    return row[0] if row else None


def archive(
    conn: sqlite3.Connection, lang: str, now: float, drafts: bool = False
) -> list[ArchivePost]:
    """Every visible post of `lang`, newest first (with `drafts`: drafts too, as `--dev`)."""
    rows = conn.execute(
        f"SELECT id, title, url, date, date_ts, draft FROM posts WHERE kind = 'post' "
        f"AND lang = :lang AND {_visible(drafts)} ORDER BY date_ts DESC",
        {"lang": lang, "now": now},
    ).fetchall()
    return rows_of(ArchivePost, rows)


def alias_target(conn: sqlite3.Connection, path: str, now: float) -> str | None:
    """Where the URL path `path` (percent-encoded, as `posts.url`) has moved, or None: the post
    that lists it in `aliases`, else the post that had it (`url_history`) by its file, else by
    its translation (same `translationKey`, language and kind: a renamed file)."""
    visible = _visible(False).replace("shadowed", "p.shadowed").replace("date_ts", "p.date_ts")
    params = {"path": path, "now": now}
    row = conn.execute(
        "SELECT p.url FROM aliases a JOIN posts p ON p.id = a.post_id "
        f"WHERE a.path = :path AND {visible} ORDER BY p.date_ts LIMIT 1",
        params,
    ).fetchone()
    if row is None:
        row = conn.execute(
            "SELECT p.url FROM url_history h JOIN posts p ON p.source = h.source "
            "OR (p.translation_key = h.translation_key AND p.lang = h.lang AND p.kind = h.kind) "
            f"WHERE h.url = :path AND p.url != :path AND {visible} "
            "ORDER BY p.source = h.source DESC, p.date_ts LIMIT 1",
            params,
        ).fetchone()
    return row[0] if row else None


_SOURCE_COLUMNS = "source, url, lang, kind, translation_key, draft = 0 AND date_ts <= :now"


def _source(r: sqlite3.Row | tuple) -> tuple[str, Source]:
    return r[0], Source(r[1], r[2], f"{r[3]}\0{r[4]}" if r[4] else "", bool(r[5]))


def source_urls(conn: sqlite3.Connection, now: float) -> dict[str, Source]:
    """source path → `Source` (url, lang, translation group, published at `now`) of every
    non-shadowed post, for resolving links to files (`content.urls.resolve_ref`). It reads
    every row: a server asks for the few it needs (`source_post` and the functions after it)."""
    rows = conn.execute(f"SELECT {_SOURCE_COLUMNS} FROM posts WHERE shadowed = 0", {"now": now})
    return dict(_source(r) for r in rows)


def source_post(conn: sqlite3.Connection, source: str, now: float) -> Source | None:
    """The `Source` of the content file `source` (site-relative), None when it has no post
    shown (none, or shadowed). One look-up in the index of `source`."""
    row = conn.execute(
        f"SELECT {_SOURCE_COLUMNS} FROM posts WHERE source = :s AND shadowed = 0",
        {"s": source, "now": now},
    ).fetchone()
    return _source(row)[1] if row else None


def sources_from(conn: sqlite3.Connection, low: str, high: str, now: float) -> dict[str, Source]:
    """The `Source` of each content file whose path is in [`low`, `high`) (a prefix's range:
    the index of `source` is ordered by its bytes), by path."""
    rows = conn.execute(
        f"SELECT {_SOURCE_COLUMNS} FROM posts WHERE source >= :lo AND source < :hi "
        "AND shadowed = 0 ORDER BY source",
        {"lo": low, "hi": high, "now": now},
    )
    return dict(_source(r) for r in rows)


def source_paths(conn: sqlite3.Connection) -> list[str]:
    """Every indexed content file's path (shadowed ones too), read from the index of `source`
    alone, not the posts' rows."""
    return [r[0] for r in conn.execute("SELECT source FROM posts ORDER BY source")]


def sources_in_group(
    conn: sqlite3.Connection, kind: str, translation_key: str, now: float
) -> list[Source]:
    """The `Source` of each post of a translation group (kind and translation key), in the
    order of their ids."""
    rows = conn.execute(
        f"SELECT {_SOURCE_COLUMNS} FROM posts WHERE translation_key = :k AND kind = :kind "
        "AND shadowed = 0 ORDER BY id",
        {"k": translation_key, "kind": kind, "now": now},
    )
    return [_source(r)[1] for r in rows]


def next_scheduled(conn: sqlite3.Connection, now: float) -> float | None:
    """The date of the next post that becomes visible after `now`, if any."""
    row = conn.execute(
        "SELECT MIN(date_ts) FROM posts WHERE date_ts > :now AND draft = 0", {"now": now}
    ).fetchone()
    return row[0]


def decode_json(value: str) -> Any:
    return json.loads(value) if value else None


def titles_by_url(conn: sqlite3.Connection, urls: Iterable[str]) -> dict[str, str]:
    """Titles of the posts at `urls` (drafts included), for the moderation screens."""
    keys = json.dumps(sorted(set(urls)))
    rows = conn.execute(
        "SELECT url, title FROM posts WHERE url IN (SELECT value FROM json_each(:keys))",
        {"keys": keys},
    )
    return {r[0]: r[1] for r in rows}


def page_url_by_slug(conn: sqlite3.Connection, slug: str, lang: str, now: float) -> str | None:
    """The URL of the published page (`content/pages/`) of `lang` with this slug, or None."""
    row = conn.execute(
        f"SELECT url FROM posts WHERE kind = 'page' AND slug = :slug AND lang = :lang "
        f"AND {_visible(False)} ORDER BY date_ts LIMIT 1",
        {"slug": slug, "lang": lang, "now": now},
    ).fetchone()
    return row[0] if row else None


MENU_FILTER = "instr(extra, '\"menu') > 0"  # the WHERE of the partial index posts_menu


def menu_posts(conn: sqlite3.Connection, lang: str, now: float) -> list[MenuPost]:
    """Published posts and pages of `lang` whose front matter may name a menu (`url`, `title`,
    `extra`, oldest first); `meta.menu_entry` reads the entry from `extra`. Uses posts_menu."""
    rows = conn.execute(
        # INDEXED BY: the planner prefers posts_list (kind, lang, draft, shadowed, date), which
        # evaluates instr() on every post's extra: 48 ms at 5,000 posts against 0.2 ms
        f"SELECT url, title, extra FROM posts INDEXED BY posts_menu WHERE {MENU_FILTER} "
        "AND lang = :lang "
        f"AND kind IN ('post', 'page') AND {_visible(False)} ORDER BY date_ts, source",
        {"lang": lang, "now": now},
    ).fetchall()
    return rows_of(MenuPost, rows)


def author_bio(conn: sqlite3.Connection, key: str, lang: str, default_lang: str) -> PostRow | None:
    """The bio (`kind = 'author'`) of author `key`: in `lang`, else `default_lang`, else any."""
    row = conn.execute(
        "SELECT * FROM posts WHERE kind = 'author' AND slug = :key AND shadowed = 0 "
        "ORDER BY lang = :lang DESC, lang = :default DESC, lang LIMIT 1",
        {"key": key, "lang": lang, "default": default_lang},
    ).fetchone()
    return maybe_row(PostRow, row)


def neighbours(
    conn: sqlite3.Connection, post: PostRow, now: float, drafts: bool = False
) -> tuple[PostLink | None, PostLink | None]:
    """The posts of `post`'s language just older and just newer than it, in the order list
    pages use (date, then source path): `(older, newer)`, None at either end."""
    where = f"kind = 'post' AND lang = :lang AND id != :id AND {_visible(drafts)}"
    params = {"lang": post.lang, "id": post.id, "ts": post.date_ts,
              "src": post.source, "now": now}  # fmt: skip
    older = conn.execute(
        f"SELECT id, title, url, date FROM posts WHERE {where} "
        "AND (date_ts < :ts OR (date_ts = :ts AND source > :src)) "
        "ORDER BY date_ts DESC, source LIMIT 1",
        params,
    ).fetchone()
    newer = conn.execute(
        f"SELECT id, title, url, date FROM posts WHERE {where} "
        "AND (date_ts > :ts OR (date_ts = :ts AND source < :src)) "
        "ORDER BY date_ts, source DESC LIMIT 1",
        params,
    ).fetchone()
    return maybe_row(PostLink, older), maybe_row(PostLink, newer)


def related(
    conn: sqlite3.Connection, post: PostRow, now: float, limit: int, drafts: bool = False
) -> list[RelatedPost]:
    """Up to `limit` posts of `post`'s language sharing tags with it: the most shared tags
    first, then the newest."""
    visible = _visible(drafts).replace("shadowed", "p.shadowed").replace("date_ts", "p.date_ts")
    visible = visible.replace("draft =", "p.draft =")
    rows = conn.execute(
        # CROSS JOIN keeps post_terms the outer loop: the posts of the post's tags by the
        # covering `post_terms_posts`, each post's facts then by its id from the covering
        # `posts_facts` (its row holds the bodies); without sqlite_stat1 SQLite would walk
        # every post of the language and probe its tags instead. Only the `limit` posts kept
        # are read from the table.
        "WITH best AS (SELECT p.id, COUNT(*) AS shared, p.date_ts, p.source FROM post_terms t "
        "CROSS JOIN posts p INDEXED BY posts_facts ON p.id = t.post_id "
        "WHERE t.taxonomy = 'tags' AND t.key IN "
        "(SELECT key FROM post_terms WHERE post_id = :id AND taxonomy = 'tags') "
        f"AND p.id != :id AND p.kind = 'post' AND p.lang = :lang AND {visible} "
        "GROUP BY p.id ORDER BY shared DESC, p.date_ts DESC, p.source LIMIT :limit) "
        "SELECT p.id, p.title, p.url, p.date, b.shared FROM best b CROSS JOIN posts p "
        "ON p.id = b.id ORDER BY b.shared DESC, b.date_ts DESC, b.source",
        {"id": post.id, "lang": post.lang, "now": now, "limit": limit},
    ).fetchall()
    return rows_of(RelatedPost, rows)


def tagged_posts(conn: sqlite3.Connection, now: float) -> list[TaggedPost]:
    """Every published post (not pages, drafts or shadowed posts) with its tag keys, in the
    order `related` breaks ties (newest first, then source path): what `related` reads, for
    every post at once (a build renders them all; web/render/related.py)."""
    rows = conn.execute(
        "SELECT p.id, p.lang, p.title, p.url, p.date, p.date_ts, p.source, "
        "(SELECT json_group_array(t.key) FROM post_terms t "
        "WHERE t.post_id = p.id AND t.taxonomy = 'tags') AS tags "
        f"FROM posts p WHERE p.kind = 'post' AND {_visible(False)} "
        "ORDER BY p.date_ts DESC, p.source",
        {"now": now},
    ).fetchall()
    return rows_of(TaggedPost, rows)
