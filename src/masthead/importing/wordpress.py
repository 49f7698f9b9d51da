"""`masthead import wordpress`: a WordPress export (WXR) written as a masthead site.

Two streamed passes over the file (`wpexport.read`): the first learns the authors, the
category tree and the attachments (id → file URL, post → its attachments); the second writes
each post and page as a bundle (`content/posts/{slug}/index.md`, `content/pages/{slug}/…`)
with its images, through `files.Writer` (an edited file is never overwritten); the bodies of a
large export are converted in a pool of worker processes (`convert_all`), the files written
here, in file order. Then the site is indexed and the comments of the same file are imported
onto their posts by the comment import (`comments.port.service.import_file`), which maps each
thread by its slug and link.

- Status: `publish` published; `future` at its date; `draft` and `pending` as drafts (a
  password-protected post too, with a warning); `private`, `trash`, `auto-draft` and every
  other post type (menu items, revisions, custom types) skipped and counted.
- Front matter: title, date (`post_date_gmt` in UTC; a draft's local `post_date` in the
  site's zone), updated, slug, author (display name), categories with their parents, tags,
  excerpt, `sticky`, cover (the featured image), `lang` and `translationKey` (Polylang's
  `language` and `post_translations` terms), `wordpress_id`, and `aliases`: the item's `link`
  path (its permalink under the export's structure) and `/?p=ID` (`/?page_id=ID` for a page),
  each of which then answers 301 to the new URL.
- A body the converter fails on (HTML nested too deep for it, a bug) is that post's warning:
  the post is imported as a draft with its HTML kept in a code block, the others as usual, in
  the worker processes as here.
- Images: every attachment of the post and every image of the old site in its body is copied
  from `uploads` (a copy of `wp-content/uploads`) into the bundle, the links rewritten; what
  cannot be found is listed with the items that need it.
"""

from __future__ import annotations

import datetime as dt
import html
import multiprocessing
import multiprocessing.context
import re
import threading
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from masthead.comments.port import service as comments_io
from masthead.config import Site
from masthead.config.load import CONFIG_FILE
from masthead.content.meta import term_key
from masthead.content.new import slugify
from masthead.importing import toml_out, wpbody
from masthead.importing.files import MANIFEST, Writer
from masthead.importing.media import Media, copy_all
from masthead.importing.postfile import Folders, render
from masthead.importing.report import Report
from masthead.importing.tomarkdown import kept_as_html, not_converted
from masthead.importing.wpexport import Author, Category, Channel, Item, read
from masthead.indexing.indexer import index_site, workers_for
from masthead.store.db import Database
from masthead.workers import follow_parent

UPLOADS = "/wp-content/uploads/"
_SKIPPED_STATUS = {"private": "private", "trash": "in the trash", "auto-draft": "auto-drafts"}
_TAGS = re.compile(r"<[^>]+>")


@dataclass
class Known:
    """What the first pass learns."""

    authors: dict[str, str] = field(default_factory=dict)  # login -> display name
    categories: dict[str, Category] = field(default_factory=dict)  # nicename -> category
    files: dict[str, str] = field(default_factory=dict)  # attachment id -> file URL
    attached: dict[str, list[str]] = field(default_factory=dict)  # post id -> attachment ids
    hosts: set[str] = field(default_factory=set)  # the old site's host names
    languages: set[str] = field(default_factory=set)  # Polylang's language slugs
    tags: dict[str, str] = field(default_factory=dict)  # tag slug -> name
    items: int = 0  # items other than attachments
    comments: int = 0


def import_wordpress(
    site: Site,
    db: Database | None,
    export: Path,
    *,
    uploads: Path | None = None,
    dry_run: bool = False,
    workers: int | None = None,
) -> Report:
    """Import the WXR file `export` into `site` (then its comments into `db`, unless
    `dry_run` or `db` is None); return the report. The bodies are converted in `workers`
    processes (default: one per core for a large export). Raises `ExportFormatError` for a
    file that is not a WordPress export, OSError when it cannot be read."""
    report = Report("WordPress", dry_run=dry_run)
    channel = Channel()
    known = _first_pass(export, channel)
    writer = Writer(site.content_dir, site.root / MANIFEST, dry_run=dry_run)
    jobs = _jobs(export, site, known, report)
    count = workers if workers is not None else workers_for(known.items)
    for done in convert_all(jobs, Context(site, known, uploads), count):
        report.merge(done.report)
        copy_all(done.copies, writer, report)
        report.wrote(done.rel, writer.write(done.rel, done.data))
    writer.save()
    if not dry_run:
        _keep_archive_urls(site, channel, known, report)
    for code in sorted(known.languages):
        if site.resolve_language(code) is None:
            report.warn(f"language {code}", "not in masthead.toml: add [languages." + code + "]")
    if dry_run or db is None:
        if known.comments:
            report.counts["comments (imported by a real run)"] = known.comments
        return report
    index_site(site, db)
    found = comments_io.import_file(db, export, site=site)
    mapped = {f"  {m}" for m in found.mapped}  # one line per post: counted instead
    report.comments = [line for line in found.lines() if line not in mapped]
    if found.mapped:
        report.comments.insert(2, f"  onto {len(found.mapped)} posts")
    return report


def _keep_archive_urls(site: Site, channel: Channel, known: Known, report: Report) -> None:
    """Add the `[wordpress]` table to masthead.toml (unless it has one): the old category, tag,
    author, date and feed URLs then answer 301 (`web.wordpress_urls`)."""
    path = site.root / CONFIG_FILE
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError):
        return  # load_site read it: this cannot happen but for a race; nothing is lost
    if _WORDPRESS_TABLE.search(text):
        return
    root = urlsplit(channel.base_blog_url or channel.link).path.strip("/")
    slugs = {
        "categories": {
            unquote(c.nicename): html.unescape(c.name) for c in known.categories.values()
        },
        "tags": {unquote(slug): name for slug, name in known.tags.items()},
        "authors": dict(known.authors),
    }
    table: dict[str, object] = {"archives": True}
    if root:
        table["root"] = "/" + root
    differing = {
        taxonomy: {slug: name for slug, name in names.items() if slug and term_key(name) != slug}
        for taxonomy, names in slugs.items()
    }
    table["slugs"] = {k: v for k, v in differing.items() if v}
    lines = toml_out.table("wordpress", table)
    note = "\n# Old WordPress archive and feed URLs answer 301 (masthead import wordpress)"
    path.write_text(text.rstrip("\n") + "\n" + note + "\n".join(lines) + "\n", encoding="utf-8")
    report.notes.append(
        f"settings: [wordpress] added to {CONFIG_FILE}: old archive and feed URLs answer 301"
    )


_WORDPRESS_TABLE = re.compile(r"^\s*\[\s*wordpress\s*[.\]]", re.MULTILINE)


def _first_pass(export: Path, channel: Channel) -> Known:
    known = Known()
    for entry in read(export, channel):
        if isinstance(entry, Author):
            known.authors[entry.login] = entry.name
        elif isinstance(entry, Category):
            known.categories[entry.nicename] = entry
        elif entry.type == "attachment":
            url = entry.fields.get("attachment_url", "") or entry.guid
            known.files[entry.id] = url
            known.attached.setdefault(entry.fields.get("post_parent", "0"), []).append(entry.id)
            known.hosts.add(urlsplit(url).netloc.lower())
        else:
            known.items += 1
            known.comments += entry.comments
            for term in entry.terms_of("language"):
                known.languages.add(term.nicename)
            for term in entry.terms_of("post_tag"):
                known.tags.setdefault(term.nicename, term.name)
    for url in (channel.link, channel.base_site_url, channel.base_blog_url):
        if url:
            known.hosts.add(urlsplit(url).netloc.lower())
    known.hosts.discard("")
    return known


@dataclass(frozen=True)
class Job:
    """One post or page to convert, with the bundle folder it goes to."""

    item: Item
    folder: str
    draft: bool


@dataclass
class Done:
    """A converted post: its file, the images to copy beside it, what was found."""

    rel: str
    data: bytes
    copies: list[tuple[str, str]]
    report: Report


@dataclass(frozen=True)
class Context:
    """What every conversion needs (given to each worker once)."""

    site: Site
    known: Known
    uploads: Path | None


def _jobs(export: Path, site: Site, known: Known, report: Report) -> Iterator[Job]:
    """The items to convert, in file order, with their folders; the rest skipped (counted)."""
    folders = Folders()
    for entry in read(export, Channel()):
        if not isinstance(entry, Item) or entry.type == "attachment":
            continue
        item, ref = entry, f"{entry.type} {entry.id}"
        if item.type not in ("post", "page"):
            report.skipped[f"{item.type} items"] += 1
            continue
        status = item.status
        if status in _SKIPPED_STATUS:
            report.skipped[_SKIPPED_STATUS[status]] += 1
            continue
        draft = status in ("draft", "pending")
        if status not in ("publish", "future", "draft", "pending"):
            report.warn(ref, f"status {status!r}: imported as a draft")
            draft = True
        if item.fields.get("post_password"):
            report.warn(ref, "password-protected: imported as a draft")
            draft = True
        lang_terms = item.terms_of("language")
        lang = lang_terms[0].nicename if lang_terms else ""
        section = "pages" if item.type == "page" else "posts"
        yield Job(item, folders.allocate(section, _slug(item), lang, item.id), draft)


def _slug(item: Item) -> str:
    return (
        unquote(item.fields.get("post_name", ""))
        or slugify(item.title or "")
        or f"{item.type}-{item.id}"
    )


def convert_all(jobs: Iterator[Job], context: Context, workers: int) -> Iterator[Done]:
    """Each job converted, in order: here when `workers` is 1, else in a pool of `workers`
    processes with a bounded number of chunks in flight (memory stays flat)."""
    if workers <= 1:
        for job in jobs:
            yield convert(job, context)
        return
    with ProcessPoolExecutor(
        workers, mp_context=_pool_context(), initializer=_init_worker, initargs=(context,)
    ) as pool:
        pending: deque[Future[list[Done]]] = deque()
        chunk: list[Job] = []
        for job in jobs:
            chunk.append(job)
            if len(chunk) == CHUNK:
                pending.append(pool.submit(_convert_chunk, chunk))
                chunk = []
            if len(pending) >= workers * 4:
                yield from pending.popleft().result()
        if chunk:
            pending.append(pool.submit(_convert_chunk, chunk))
        while pending:
            yield from pending.popleft().result()


CHUNK = 32
_context: Context | None = None


def _init_worker(context: Context) -> None:
    global _context
    _context = context
    follow_parent()


def _convert_chunk(jobs: list[Job]) -> list[Done]:
    if _context is None:  # pragma: no cover - only in a pool started by convert_all
        raise RuntimeError("_convert_chunk runs in a pool started by convert_all")
    return [convert(job, _context) for job in jobs]


def _pool_context() -> multiprocessing.context.BaseContext:
    """fork unless threads run here (a forked child could inherit a held lock)."""
    methods = multiprocessing.get_all_start_methods()
    if threading.active_count() == 1 and "fork" in methods:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def convert(job: Job, context: Context) -> Done:
    """The file of one post or page: front matter and Markdown, its images found."""
    item, folder, known = job.item, job.folder, context.known
    ref = f"{item.type} {item.id}"
    report = Report("WordPress")
    media = Media(context.uploads, UPLOADS, report)
    media.hosts = known.hosts
    found = wpbody.Body()

    def image(url: str) -> str | None:
        return media.bring(url, folder, ref)

    def gallery(ids: list[str]) -> list[str]:
        return [known.files[i] for i in ids or known.attached.get(item.id, []) if i in known.files]

    draft = job.draft
    try:
        body = wpbody.convert(item.content, image, gallery, found)
    except Exception as exc:  # one body beyond the converter (nested too deep, a bug): this
        body = kept_as_html(item.content)  # post's warning, its HTML kept; never the import's end
        report.warn(ref, not_converted(exc))
        draft = True
    for name in found.unknown:
        report.unknown_shortcodes[f"[{name}]"] += 1
        report.warn(ref, f"shortcode [{name}] shown as text")
    for attachment in known.attached.get(item.id, []):
        media.bring(known.files[attachment], folder, ref)
    cover = ""
    thumbnail = item.meta.get("_thumbnail_id", "")
    if thumbnail in known.files:
        cover = media.bring(known.files[thumbnail], folder, ref) or known.files[thumbnail]
    lang_terms = item.terms_of("language")
    translations = item.terms_of("post_translations")
    aliases = _aliases(item)
    slug = _slug(item)
    meta = {
        "title": html.unescape(item.title) or slug,
        "date": _date(item, context.site, report, ref),
        "updated": _updated(item),
        "slug": slug,
        "author": known.authors.get(item.creator, item.creator),
        "categories": _categories(item, known),
        "tags": [t.name for t in item.terms_of("post_tag")],
        "excerpt": " ".join(html.unescape(_TAGS.sub("", item.excerpt)).split()),
        "cover": cover,
        "lang": lang_terms[0].nicename if lang_terms else "",
        "translationKey": translations[0].nicename if translations else "",
        "draft": draft,
        "sticky": item.fields.get("is_sticky") == "1",
        "aliases": aliases,
        "wordpress_id": int(item.id) if item.id.isdigit() else item.id,
    }
    kind = "pages" if item.type == "page" else "drafts" if draft else "posts"
    if item.status == "future" and not draft:
        kind = "scheduled posts"
    report.counts[kind] += 1
    report.counts["URLs kept"] += len(aliases)
    return Done(f"{folder}/index.md", render(meta, body), media.copies, report)


def _date(item: Item, site: Site, report: Report, ref: str) -> str:
    for key in ("post_date_gmt", "post_modified_gmt"):
        when = _parse(item.fields.get(key, ""))
        if when is not None:
            return when.replace(tzinfo=dt.UTC).isoformat().replace("+00:00", "Z")
    for key in ("post_date", "post_modified"):
        when = _parse(item.fields.get(key, ""))
        if when is not None:  # a draft's local time: read in the site's zone
            return when.isoformat()
    report.warn(ref, "no date in the export: dated today")
    return dt.datetime.now(site.tz).replace(microsecond=0).isoformat()


def _updated(item: Item) -> str:
    date = _parse(item.fields.get("post_date_gmt", ""))
    modified = _parse(item.fields.get("post_modified_gmt", ""))
    if date is None or modified is None or modified <= date:
        return ""
    return modified.replace(tzinfo=dt.UTC).isoformat().replace("+00:00", "Z")


def _parse(text: str) -> dt.datetime | None:
    text = text.strip()
    if not text or text.startswith("0000"):
        return None
    try:
        return dt.datetime.fromisoformat(text).replace(tzinfo=None)
    except ValueError:
        return None


def _categories(item: Item, known: Known) -> list[str]:
    """The item's categories, each after its parents (WordPress lists a post under them too)."""
    out: list[str] = []
    for term in item.terms_of("category"):
        chain = []
        nicename, seen = term.nicename, set()
        while nicename and nicename in known.categories and nicename not in seen:
            seen.add(nicename)
            category = known.categories[nicename]
            chain.append(html.unescape(category.name))
            nicename = category.parent
        if not chain:
            chain = [html.unescape(term.name)]
        for name in reversed(chain):
            if name not in out:
                out.append(name)
    return out


def _aliases(item: Item) -> list[str]:
    """The old URLs of the item: its link's path and its `?p=`/`?page_id=` form."""
    out = []
    parts = urlsplit(item.link)
    if parts.path and not parts.query:
        out.append(unquote(parts.path))
    if item.id.isdigit():
        out.append(f"/?{'page_id' if item.type == 'page' else 'p'}={item.id}")
    return [a for a in out if a.strip("/")]
