"""`masthead import ghost`: a Ghost JSON export (Ghost 4, 5 and 6: `db[0].data`, or a top-level
`data`) written as a masthead site.

- Posts and pages from their `html` (else their `lexical`, else `mobiledoc`: `lexical.py`),
  Ghost's cards through `tomarkdown`; status `published`, `draft` (a draft), `scheduled` (at
  its date); slug, dates, `featured`, custom excerpt (else the meta description), meta title
  and description (`meta_title`, `meta_description`), canonical URL.
- Tags: internal ones (`#name`) skipped; the primary (first) tag becomes the category, the
  others tags. Authors: their names on the post, and an author page each
  (`content/authors/{key}.md`: name, bio, avatar, links).
- Images: the feature image (the cover) and the images in the body, copied from `content`
  (a copy of Ghost's `content/` folder) into the post's bundle.
- Old URLs: Ghost's `/{slug}/`, or with `routes` (Ghost's routes.yaml) the permalink of the
  first collection whose filter takes the post, kept as `aliases`.
- Code injection is dropped and listed; posts for members or paid tiers, members, newsletters,
  tiers and offers are counted, not imported.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import yaml

from masthead.config import Site
from masthead.content.meta import term_key
from masthead.importing import lexical
from masthead.importing.files import MANIFEST, Writer
from masthead.importing.media import Media, copy_all
from masthead.importing.postfile import Folders, render
from masthead.importing.report import Report
from masthead.importing.tomarkdown import Blocks, kept_as_html, not_converted, to_markdown

CONTENT = "/content/"
_COUNTED = {
    "members": "members",
    "newsletters": "newsletters",
    "products": "tiers",
    "offers": "offers",
}


class GhostExportError(ValueError):
    """The file is not a Ghost export."""


def load(path: Path) -> dict[str, Any]:
    """The `data` object of the export at `path`."""
    try:
        doc = json.loads(path.read_bytes())
    except ValueError as exc:
        raise GhostExportError(f"not JSON ({exc})") from None
    if isinstance(doc, dict) and isinstance(doc.get("db"), list) and doc["db"]:
        doc = doc["db"][0]
    data = doc.get("data") if isinstance(doc, dict) else None
    if not isinstance(data, dict) or not isinstance(data.get("posts"), list):
        raise GhostExportError("no db[0].data.posts or data.posts: not a Ghost export")
    return data


def import_ghost(
    site: Site,
    export: Path,
    *,
    content: Path | None = None,
    routes: Path | None = None,
    dry_run: bool = False,
) -> Report:
    """Import the Ghost export `export` into `site`; return the report. Raises
    `GhostExportError` for a file that is not a Ghost export, OSError when it cannot be read."""
    data = load(export)
    report = Report("Ghost", dry_run=dry_run)
    writer = Writer(site.content_dir, site.root / MANIFEST, dry_run=dry_run)
    media = Media(content, CONTENT, report)
    collections = _collections(routes, report) if routes else []
    ghost = _Index(data)
    for key, label in _COUNTED.items():
        if data.get(key):
            report.not_imported[label] = len(data[key])
    folders = Folders()
    for post in data["posts"]:
        if isinstance(post, dict):
            _post(post, ghost, collections, writer, media, folders, report)
        copy_all(media.copies, writer, report)
        media.copies.clear()
    for user in ghost.used_authors():
        _author(user, writer, media, report)
    copy_all(media.copies, writer, report)
    writer.save()
    return report


class _Index:
    """The export's tables, joined by post id."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.tags = {t["id"]: t for t in data.get("tags", []) if isinstance(t, dict)}
        self.users = {u["id"]: u for u in data.get("users", []) if isinstance(u, dict)}
        self.post_tags = _joined(data.get("posts_tags", []), "tag_id")
        self.post_authors = _joined(data.get("posts_authors", []), "author_id")
        self.meta = {m.get("post_id"): m for m in data.get("posts_meta", []) if isinstance(m, dict)}
        self.used: dict[str, dict[str, Any]] = {}

    def tags_of(self, post_id: str) -> list[dict[str, Any]]:
        return [self.tags[i] for i in self.post_tags.get(post_id, []) if i in self.tags]

    def authors_of(self, post: dict[str, Any]) -> list[dict[str, Any]]:
        ids = self.post_authors.get(post["id"]) or [str(post.get("author_id"))]
        users = [self.users[i] for i in ids if i in self.users]
        for user in users:
            self.used[user["id"]] = user
        return users

    def used_authors(self) -> list[dict[str, Any]]:
        return list(self.used.values())


def _joined(rows: list[Any], column: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for row in sorted(
        (r for r in rows if isinstance(r, dict)), key=lambda r: r.get("sort_order") or 0
    ):
        out.setdefault(str(row.get("post_id")), []).append(str(row.get(column)))
    return out


def _post(
    post: dict[str, Any],
    ghost: _Index,
    collections: list[tuple[str, str]],
    writer: Writer,
    media: Media,
    folders: Folders,
    report: Report,
) -> None:
    page = post.get("type") == "page" or post.get("page") in (1, True)
    ref = f"{'page' if page else 'post'} {post.get('id')} ({post.get('slug', '')})"
    if (post.get("visibility") or "public") != "public":
        report.not_imported["posts for members or paid tiers"] += 1
        return
    status = post.get("status", "")
    if status not in ("published", "draft", "scheduled"):
        report.skipped[f"status {status}"] += 1
        return
    slug = str(post.get("slug") or post.get("id"))
    folder = folders.allocate("pages" if page else "posts", slug, "", str(post.get("id")))

    def image(url: str) -> str | None:
        return media.bring(url, folder, ref)

    body, failed = _body(post, image, report, ref)
    for where in ("codeinjection_head", "codeinjection_foot"):
        if post.get(where):
            report.warn(ref, f"{where} dropped (no scripts from imported posts)")
    cover = ""
    if post.get("feature_image"):
        cover = image(post["feature_image"]) or _absolute(post["feature_image"])
    meta = ghost.meta.get(post["id"], {}) or {}
    tags = [t for t in ghost.tags_of(post["id"]) if not _internal(t)]
    authors = [str(u.get("name") or u.get("slug")) for u in ghost.authors_of(post)]
    draft = status == "draft"
    date = post.get("published_at") if not draft else None
    aliases = _aliases(slug, page, post, tags, authors, collections)
    front = {
        "title": post.get("title") or slug,
        "date": _date(date or post.get("updated_at") or post.get("created_at")),
        "updated": _date(post["updated_at"]) if post.get("updated_at") and not draft else "",
        "slug": slug,
        "author": authors[0] if len(authors) == 1 else authors,
        "categories": [tags[0]["name"]] if tags else [],
        "tags": [t["name"] for t in tags[1:]],
        "excerpt": post.get("custom_excerpt")
        or meta.get("meta_description")
        or post.get("meta_description")
        or "",
        "cover": cover,
        "draft": draft or failed,
        "featured": bool(post.get("featured")),
        "canonical": post.get("canonical_url") or "",
        "meta_title": meta.get("meta_title") or post.get("meta_title") or "",
        "meta_description": meta.get("meta_description") or post.get("meta_description") or "",
        "aliases": aliases,
        "ghost_id": str(post.get("id")),
    }
    rel = f"{folder}/index.md"
    report.wrote(rel, writer.write(rel, render(front, body)))
    kind = "pages" if page else "drafts" if draft or failed else "posts"
    if status == "scheduled" and not failed:
        kind = "scheduled posts"
    report.counts[kind] += 1
    report.counts["URLs kept"] += len(aliases)


def _body(post: dict[str, Any], image: Any, report: Report, ref: str) -> tuple[str, bool]:
    """The post's Markdown, and whether it failed to convert (then its HTML, kept as it was:
    the post becomes a draft, with a warning)."""
    unknown: list[str] = []
    if post.get("html"):
        source = post["html"]
    elif post.get("lexical"):
        source = lexical.lexical_html(post["lexical"], unknown)
    elif post.get("mobiledoc"):
        source = lexical.mobiledoc_html(post["mobiledoc"], unknown)
    else:
        source = ""
    for name in unknown:
        report.warn(ref, f"editor node {name!r}: its text kept, its form lost")
    source = source.replace("__GHOST_URL__", "")
    try:
        return to_markdown(source, image, Blocks()), False
    except Exception as exc:  # one body beyond the converter (nested too deep, a bug)
        report.warn(ref, not_converted(exc))
        return kept_as_html(source), True


def _internal(tag: dict[str, Any]) -> bool:
    return tag.get("visibility") == "internal" or str(tag.get("name", "")).startswith("#")


def _absolute(url: str) -> str:
    return url.replace("__GHOST_URL__", "")


def _date(value: Any) -> str:
    """Ghost's `2023-05-01T09:30:00.000Z` (or its older `2023-05-01 09:30:00`) without its
    milliseconds."""
    text = str(value or "").strip()
    if not text:
        return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    text = re.sub(r"\.\d+", "", text.replace(" ", "T"))
    return text if text.endswith("Z") or "+" in text[10:] else text + "Z"


def _collections(routes: Path, report: Report) -> list[tuple[str, str]]:
    """(permalink pattern, filter) of each collection of routes.yaml, in order."""
    try:
        doc = yaml.safe_load(routes.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        report.warn(str(routes), f"not YAML ({exc}): Ghost's default /{{slug}}/ used")
        return []
    out = []
    for path, spec in (doc.get("collections") or {}).items():
        spec = spec or {}
        permalink = str(spec.get("permalink") or f"{path.rstrip('/')}/{{slug}}/")
        out.append((permalink, str(spec.get("filter") or "")))
    return out


def _aliases(
    slug: str,
    page: bool,
    post: dict[str, Any],
    tags: list[dict[str, Any]],
    authors: list[str],
    collections: list[tuple[str, str]],
) -> list[str]:
    if page or not collections:
        return [f"/{slug}/"]
    for permalink, condition in collections:
        if _matches(condition, tags):
            return [_fill(permalink, slug, post, tags, authors)]
    return [f"/{slug}/"]


def _matches(condition: str, tags: list[dict[str, Any]]) -> bool:
    """A collection's filter: `tag:x`, `primary_tag:x` (with `+`/`,` of those); anything else
    takes every post."""
    if not condition:
        return True
    slugs = [t.get("slug") for t in tags]
    for part in condition.split(","):
        terms = [t.strip() for t in part.split("+")]
        ok = True
        for term in terms:
            key, _, value = term.partition(":")
            values = value.strip("[]").split(",") if value.startswith("[") else [value]
            if key == "tag":
                ok = ok and any(v in slugs for v in values)
            elif key == "primary_tag":
                ok = ok and bool(slugs) and slugs[0] in values
        if ok:
            return True
    return False


def _fill(
    permalink: str, slug: str, post: dict[str, Any], tags: list[dict[str, Any]], authors: list[str]
) -> str:
    when = str(post.get("published_at") or post.get("created_at") or "")[:10].split("-")
    year, month, day = [*when, "", "", ""][:3]
    values = {
        "slug": slug,
        "id": str(post.get("id", "")),
        "year": year,
        "month": month,
        "day": day,
        "primary_tag": str(tags[0].get("slug")) if tags else "",
        "primary_author": term_key(authors[0]) if authors else "",
    }
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), permalink)


def _author(user: dict[str, Any], writer: Writer, media: Media, report: Report) -> None:
    name = user.get("name") or user.get("slug") or "author"
    key = term_key(name)
    links = [user[k] for k in ("website",) if user.get(k)]
    for k, base in (("twitter", "https://x.com/"), ("facebook", "https://www.facebook.com/")):
        if user.get(k):
            links.append(base + str(user[k]).lstrip("@"))
    avatar = ""
    if user.get("profile_image"):
        avatar = media.bring(user["profile_image"], "authors", f"author {key}") or _absolute(
            user["profile_image"]
        )
    front = {"name": name, "avatar": avatar, "links": links}
    rel = f"authors/{key}.md"
    report.wrote(rel, writer.write(rel, render(front, user.get("bio") or "")))
    report.counts["authors"] += 1
