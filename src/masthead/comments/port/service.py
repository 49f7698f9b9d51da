"""Comments in and out: import WordPress WXR, Disqus XML and masthead's own JSON export; export
every comment as JSON; answer a commenter's data request (export-person, erase).

Import (`import_file`): the parsers (`comments.wxr`, `comments.disqus`) stream the file into
records; each thread is mapped to a post (WXR: its slug `wp:post_name`, then its link's path as a
permalink, then as an old URL in `aliases` or `url_history`; Disqus: its identifier `<id>` as a
path or a slug, then its link likewise; JSON: the comment's `post_url`, then its thread key);
each comment keeps the language the export states for it (`language`: the site's code for one
of its languages, else the tag itself), never its post's; else the site language its thread's
link carries (`link_language`: `/zh/…`, `?lang=zh`, `zh.example.com`), else the language the
export states for the whole site (WXR's channel); none of these gives '' (no claim: the page
draws it in the language of the page it is on);
the replies of each thread are rebuilt into a tree whatever their order in the file (C55: a
reply whose parent is missing from the file comes in at top level, a cycle is broken at its
oldest comment, both reported); the HTML is sanitized as a new comment's is; everything is
written in one transaction (`store.comments.commit`), so a file with a malformed comment writes
nothing. Re-importing is idempotent: a comment whose `(source, source_id)` is stored already is
counted as present (a masthead JSON export's own comments, `source` '', by thread, creation time
and fingerprint). Imported IP addresses are dropped: a hash of one would expire at once
(`comments_ip_days`) and nothing needs them.

The JSON export (`export_json`) has the shape `FORMAT` / `VERSION` name (docs/comments.md: "Import,
export and personal data"): every column of every comment, its id and its parent's id, its
time as seconds since the epoch (`created`, exact) and as ISO 8601 in UTC (`date`, for people).
"""

from __future__ import annotations

import gzip
import heapq
import io
import json
import math
import os
import sqlite3
import time
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from babel import Locale, UnknownLocaleError

from masthead.comments import sanitize
from masthead.comments.identity import fingerprint
from masthead.comments.port import disqus, wxr
from masthead.comments.port.records import KINDS, ExportFormatError, Imported, Problem, Thread
from masthead.config import Site
from masthead.content.urls import canonical_path
from masthead.store import comment_removal as removal
from masthead.store import comment_targets as targets
from masthead.store import comments as store
from masthead.store import privacy_requests
from masthead.store.db import Database
from masthead.store.rows import ImportTarget

MAX_UNPACKED = 1024**3  # bytes a gzipped export may unpack to
MAX_RATIO = 100  # ... and times its own size, once past RATIO_FROM (XML packs 5-20 times)
RATIO_FROM = 64 * 1024**2
_CHUNK = 1024**2
FORMAT = "masthead-comments"
VERSION = 1
ACTOR = "import"
_PATH_SAFE = "/:@!$&'()*+,;=-._~"
_KIND_NAMES = {"wxr": "WordPress WXR", "disqus": "Disqus XML", "json": "masthead JSON"}


# --- the report ---------------------------------------------------------------------------


@dataclass
class Report:
    """What an import read, wrote and could not do. `problems` (malformed comments, a bad
    file): nothing was written. `unmapped`: threads no post was found for (their comments were
    not imported; add the post, or an alias, and import again). `notes`: comments imported
    with a change (top level for a missing parent or a cycle, a date read another way)."""

    file: str
    kind: str = ""
    dry_run: bool = False
    read: int = 0
    new: int = 0
    present: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)  # pingbacks/trackbacks read
    skipped: Counter[str] = field(default_factory=Counter)  # kinds not imported, by kind
    mapped: list[str] = field(default_factory=list)
    unmapped: list[str] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)  # (where, what)
    purged: int = 0  # imported before, then deleted for good here: not imported again
    hidden: int = 0  # comments of threads mapped to a page (kind page): stored, never shown
    problems: list[str] = field(default_factory=list)

    def grouped_notes(self) -> list[str]:
        """`notes` as lines, one per kind of note: `what: where; where...`, or `where: what`."""
        wheres: dict[str, list[str]] = {}
        for where, what in self.notes:
            wheres.setdefault(what, []).append(where)
        return [
            f"{places[0]}: {what}" if len(places) == 1 else f"{what}: {'; '.join(places)}"
            for what, places in wheres.items()
        ]

    @property
    def exit_code(self) -> int:
        """0: all imported; 1: some threads not mapped; 2: nothing written (problems)."""
        return 2 if self.problems else 1 if self.unmapped else 0

    def lines(self) -> list[str]:
        kind = _KIND_NAMES.get(self.kind, "unknown format")
        head = f"{self.file}: {kind}, {self.read} comments read"
        if self.problems:
            return [
                head,
                *(f"  problem: {p}" for p in self.problems),
                "nothing imported (the file must be fixed first)",
            ]
        verb = "would be new" if self.dry_run else "new"
        out = [head, f"{self.new} {verb}, {self.present} already present"]
        if self.purged:
            out.append(f"  {self.purged} deleted for good here since an earlier import: skipped")
        if self.statuses:
            out.append(
                "  statuses: " + ", ".join(f"{n} {s}" for s, n in sorted(self.statuses.items()))
            )
        for kind, n in sorted(self.kinds.items()):
            out.append(f"  {n} {kind}(s) read, {self.skipped.get(kind, 0)} skipped")
        for kind, n in sorted(self.skipped.items()):
            if kind not in self.kinds:
                out.append(f"  {n} comment(s) of type {kind!r} skipped")
        out += [f"  {m}" for m in self.mapped]
        out += [f"  note: {n}" for n in self.grouped_notes()]
        out += [f"  not mapped: {u}" for u in self.unmapped]
        if self.hidden:
            out.append(
                f"  warning: {self.hidden} comment(s) belong to pages, which show no comments: "
                "they will not be visible (move them to a post, or make the page a post)"
            )
        if self.dry_run:
            out.append("dry run: nothing written")
        return out


# --- import -------------------------------------------------------------------------------


@dataclass
class _Entry:
    """One comment to import: `key` unique in its file, `parent` a key (or None); `values` the
    `NewComment` fields but thread, post_url, parent_id, lang, created and body_html, the HTML
    made from `html` only when the comment is inserted; `lang` as stored ('': no claim)."""

    key: str
    parent: str | None
    thread: Thread
    created: float | None
    where: str
    source: str
    source_id: str
    values: dict[str, Any]
    lang: str = ""
    date_note: str = ""
    placeholder: bool = False
    notes: tuple[str, ...] = ()
    html: str | None = None  # sanitized only when inserted; None: render `body` (Markdown)
    paragraphs: bool = False  # `wxr.autop` first


class _CappedGzip(gzip.GzipFile):
    """A gzip stream that stops, with an `ExportFormatError`, once it has unpacked more than
    `MAX_UNPACKED` bytes, or more than `MAX_RATIO` times the file's `packed` size past
    `RATIO_FROM` (a 2 MB file holding 2 GiB used to import for 90 s at 4.3 GB of memory). It
    unpacks 1 MiB at a time, also when asked for everything."""

    def __init__(self, raw: IO[bytes], packed: int) -> None:
        super().__init__(fileobj=raw)
        self.limit = min(MAX_UNPACKED, max(RATIO_FROM, MAX_RATIO * packed))

    def _checked(self, data: bytes) -> bytes:
        if self.tell() > self.limit:
            raise ExportFormatError(
                f"the gzip file unpacks to more than {self.limit // 1024**2} MiB "
                f"(at most {MAX_UNPACKED // 1024**3} GiB, and at most {MAX_RATIO} times its "
                "own size): refused as a likely zip bomb; if the export is genuine, unpack it "
                "(gunzip) and import the XML file"
            )
        return data

    def read(self, size: int | None = -1) -> bytes:
        if size is not None and 0 <= size <= _CHUNK:
            return self._checked(super().read(size))
        parts, wanted = [], -1 if size is None or size < 0 else size
        while wanted != 0:
            part = self._checked(super().read(_CHUNK if wanted < 0 else min(wanted, _CHUNK)))
            if not part:
                break
            parts.append(part)
            wanted = wanted - len(part) if wanted > 0 else wanted
        return b"".join(parts)

    def read1(self, size: int = -1) -> bytes:
        return self._checked(super().read1(_CHUNK if size < 0 else min(size, _CHUNK)))


def detect(head: bytes) -> str:
    """'wxr', 'disqus' or 'json' from a file's first bytes; '' when it is none of them."""
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"{"):
        return "json"
    if b"<rss" in head:
        return "wxr"
    if b"<disqus" in head:
        return "disqus"
    return ""


def import_file(
    db: Database,
    path: Path,
    *,
    site: Site,
    dry_run: bool = False,
    skip_pings: bool = False,
) -> Report:
    """Import the comments of the export at `path` (WXR, Disqus XML or masthead JSON) into
    `db`, the database of `site` (its languages and default language map threads and stated
    languages), whose post index must be current; return the report. Writes nothing when the
    report has problems, or under `dry_run`. The file may be gzipped (`.xml.gz`, as Disqus
    sends it), within `MAX_UNPACKED` bytes and `MAX_RATIO` times its size unpacked (a problem
    in the report past either). Raises OSError when the file cannot be read."""
    default_lang = site.settings.default_language
    report = Report(file=str(path), dry_run=dry_run)
    with open(path, "rb") as raw:
        zipped = raw.read(2) == b"\x1f\x8b"  # Disqus mails its export gzipped
        raw.seek(0)
        packed = os.fstat(raw.fileno()).st_size
        stream = cast(IO[bytes], _CappedGzip(raw, packed) if zipped else raw)
        try:
            report.kind = detect(stream.read(4096))
            stream.seek(0)
            entries = _read(stream, report, skip_pings, site)
        except ExportFormatError as exc:
            report.problems.append(str(exc))
            return report
        except (gzip.BadGzipFile, EOFError) as exc:
            report.problems.append(f"a damaged gzip file ({exc or 'cut short'})")
            return report
    if report.problems:
        return report

    def apply(conn: sqlite3.Connection) -> None:
        _plan_and_insert(conn, entries, report, default_lang, write=not dry_run)

    if dry_run:
        with db.snapshot() as conn:  # one snapshot for the whole plan
            apply(conn)
    else:
        store.commit(db, apply)
    return report


def _read(stream: IO[bytes], report: Report, skip_pings: bool, site: Site) -> list[_Entry]:
    if report.kind == "json":
        return _json_entries(stream, report)
    if report.kind not in ("wxr", "disqus"):
        raise ExportFormatError("not a WordPress WXR, Disqus XML or masthead JSON export")
    parse = wxr.parse if report.kind == "wxr" else disqus.parse
    entries = []
    for record in parse(stream):
        if isinstance(record, Problem):
            report.problems.append(f"{record.where}: {record.reason}")
            continue
        report.read += 1
        if record.kind in ("pingback", "trackback"):
            report.kinds[record.kind] += 1
        if record.kind not in KINDS or (skip_pings and record.kind != "comment"):
            report.skipped[record.kind] += 1
            entries.append(_skipped(record))
            continue
        lang = (
            language(record.lang, site)
            or link_language(record.thread.link, site)
            or language(record.site_lang, site)
        )
        entries.append(_xml_entry(record, lang))
    return entries


def link_language(link: str, site: Site) -> str:
    """The code of the site language a thread's link carries, '' for none: Polylang's and
    WPML's three URL forms, a `/zh/…` path prefix (the site's prefix, or a code the site
    speaks), a `?lang=zh` parameter, a `zh.example.com` subdomain."""
    parts = urlsplit(link.strip())
    first = unquote(parts.path).strip("/").split("/")[0]
    for lang in site.languages.values():
        if first and lang.prefix and first == lang.prefix:
            return lang.code
    query = [v for k, v in parse_qsl(parts.query) if k == "lang"]
    label = (parts.hostname or "").split(".")[0] if (parts.hostname or "").count(".") >= 2 else ""
    for candidate in (first, *query, label):
        if candidate and _is_language_code(candidate):
            found = site.resolve_language(candidate)
            if found is not None:
                return found.code
    return ""


def _is_language_code(text: str) -> bool:
    """A BCP 47-looking tag (`zh`, `zh-CN`, `pt_BR`), not a word like `posts` or `www`."""
    head, _, rest = text.replace("_", "-").partition("-")
    return 2 <= len(head) <= 3 and head.isalpha() and (not rest or rest.replace("-", "").isalnum())


def language(tag: str, site: Site) -> str:
    """The code a comment is stored with for the language tag `tag` its export states: the
    site's code when it is one of the site's languages (`Site.resolve_language`: `zh-CN` →
    `zh`), else the tag in BCP 47 form when Babel (CLDR) knows the language (`fr_fr` →
    `fr-FR`), else '' (no tag, or one that names no language: no claim is made)."""
    tag = tag.strip()
    if not tag:
        return ""
    found = site.resolve_language(tag)
    if found is not None:
        return found.code
    try:
        known = Locale.parse(tag.replace("_", "-"), sep="-")
    except (ValueError, TypeError, UnknownLocaleError):
        return ""
    return "-".join(p for p in (known.language, known.script, known.territory) if p)


def _skipped(record: Imported) -> _Entry:
    """A comment not imported (a ping under --skip-pings): kept in the tree so its replies
    attach to its parent instead."""
    entry = _xml_entry(record, "")
    entry.values = {}
    return entry


def _xml_entry(record: Imported, lang: str) -> _Entry:
    return _Entry(
        key=record.source_id,
        parent=record.parent,
        thread=record.thread,
        created=record.created,
        where=record.where,
        source=record.source,
        source_id=record.source_id,
        lang=lang,
        date_note=record.date_note,
        notes=record.notes,
        html=record.body,
        paragraphs=record.source == "wxr",  # WordPress shows plain line breaks as <p>, <br>
        values={
            "status": record.status,
            "kind": record.kind,
            "author_name": sanitize.name(record.author_name),
            "author_email": sanitize.email(record.author_email),
            "author_url": sanitize.website(record.author_url),
            "body": record.body,
            "reason": f"imported from {record.source} with status {record.status}",
        },
    )


def _json_entries(stream: IO[bytes], report: Report) -> list[_Entry]:
    try:
        data = json.load(io.TextIOWrapper(stream, encoding="utf-8-sig"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ExportFormatError(f"not valid JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ExportFormatError(f'not a masthead comments export ("format": "{FORMAT}")')
    if not isinstance(data.get("version"), int) or data["version"] > VERSION:
        raise ExportFormatError(
            f"export format version {data.get('version')!r}: this masthead reads up to {VERSION}"
        )
    entries = []
    seen: set[str] = set()
    seen_origins: set[tuple[str, str] | None] = set()
    for n, item in enumerate(data.get("comments") or [], start=1):
        report.read += 1
        try:
            entry = _json_entry(item)
        except (KeyError, TypeError, ValueError) as exc:
            report.problems.append(f"comment #{n}: {type(exc).__name__} {exc}")
            continue
        origin = (entry.source, entry.source_id) if entry.source else None
        if entry.key in seen or origin in seen_origins:
            what = f"id {entry.key}" if entry.key in seen else f"{entry.source} {entry.source_id}"
            report.problems.append(f"comment #{n}: {what} appears twice in the file")
            continue
        seen.add(entry.key)
        if origin is not None:
            seen_origins.add(origin)
        entries.append(entry)
    return entries


def _json_entry(item: dict[str, Any]) -> _Entry:
    author = item["author"]
    status = str(item["status"])
    if status not in (*store.STATUSES, store.PLACEHOLDER):
        raise ValueError(f"unknown status {status!r}")
    kind = str(item.get("kind") or "comment")
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}")
    created = _finite(item["created"])
    source = str(item.get("source") or "")
    body = str(item["body"])
    html = item.get("html") or ("" if source == "" else body)
    return _Entry(
        key=str(int(item["id"])),
        parent=None if item.get("parent") is None else str(int(item["parent"])),
        thread=Thread(key=str(item["thread"]), link=str(item["post_url"])),
        created=created,
        where=f"comment {int(item['id'])}",
        source=source,
        source_id=str(item.get("source_id") or ""),
        lang=str(item["lang"]),
        placeholder=status == store.PLACEHOLDER,
        # the HTML as exported, cleaned again (lossless, whatever version rendered it); a
        # hand-made file may give only the Markdown of a comment written on masthead
        html=str(html) if html else None,
        values={
            "status": "trash" if status == store.PLACEHOLDER else status,
            "kind": kind,
            "author_name": sanitize.name(str(author["name"])),
            "author_email": sanitize.email(str(author["email"])),
            "author_url": sanitize.website(str(author.get("url") or "")),
            "author_user": None if author.get("user") is None else str(author["user"]),
            "body": body,
            "ip_hash": str(item.get("ip_hash") or ""),
            "client_hash": str(item.get("client_hash") or ""),
            "fingerprint": str(item.get("fingerprint") or ""),
            "reason": str(item.get("reason") or ""),
            "notify": bool(item.get("notify")),
            "email_confirmed": bool(item.get("email_confirmed")),
            "updated": None if item.get("updated") is None else _finite(item["updated"]),
        },
    )


def _finite(value: Any) -> float:
    """A time in seconds from JSON (which Python reads `NaN` and `Infinity` into)."""
    seconds = float(value)
    if not math.isfinite(seconds):
        raise ValueError(f"{value!r} is not a time")
    return seconds


def _plan_and_insert(
    conn: sqlite3.Connection,
    entries: list[_Entry],
    report: Report,
    default_lang: str,
    *,
    write: bool,
) -> None:
    """Map each thread of the file to a post, then import each post's comments as one group:
    two threads of the file that map to one post (its link and an old link, two languages of
    one Disqus forum) are one thread here, so a reply whose parent sits in the other is
    nested alike in a dry run and in the real one (the real run used to find the parent it
    had just inserted; the dry run, writing nothing, could not)."""
    by_thread: dict[str, list[_Entry]] = {}
    every = {e.key for e in entries}  # a parent on another thread is reported as such
    for entry in entries:
        by_thread.setdefault(entry.thread.key, []).append(entry)
    # by comment thread (a post's translations share one): its posts' URLs and how each was
    # found, its entries, and the post each entry was mapped to
    by_post: dict[str, tuple[list[str], list[str], list[_Entry]]] = {}
    post_of: dict[str, ImportTarget] = {}
    for group in by_thread.values():
        thread = group[0].thread
        importing = [e for e in group if e.values]
        if not importing:
            continue
        found = _target(conn, thread, report.kind, default_lang)
        if found is None:
            report.unmapped.append(f"{_describe(thread)}: {len(importing)} comment(s)")
            continue
        post, how = found
        urls, hows, members = by_post.setdefault(post.translation_key, ([], [], []))
        urls.append(post.url)
        hows.append(how)
        members.extend(group)
        post_of.update((e.key, post) for e in group)
    for urls, hows, group in by_post.values():
        importing = [e for e in group if e.values]
        before = report.new
        _insert_thread(conn, group, post_of, report, every, write=write)
        pages = post_of[importing[0].key].kind != "post"
        hidden = "; a page: these comments are stored but not shown" if pages else ""
        where = ", ".join(
            f"{url} ({how})" for url, how in dict.fromkeys(zip(urls, hows, strict=True))
        )
        report.mapped.append(f"{where}: {report.new - before} new of {len(importing)}{hidden}")
        if hidden:  # pages draw no comments (web/render/post.py), nor do the comment feeds
            report.hidden += len(importing)


def _describe(thread: Thread) -> str:
    bits = [f'"{thread.title}"' if thread.title else "", thread.link]
    bits += [f"slug {thread.slug}" if thread.slug else ""]
    bits += [f"identifier {thread.identifier}" if thread.identifier else ""]
    return " ".join(b for b in bits if b) or f"thread {thread.key}"


def _target(
    conn: sqlite3.Connection, thread: Thread, kind: str, default_lang: str
) -> tuple[ImportTarget, str] | None:
    """The post a thread belongs to, and how it was found."""
    tries: list[tuple[str, str]] = []  # (how, value): 'slug' or 'url'
    if kind == "wxr":
        tries.append(("slug", thread.slug))
    if kind == "disqus" and thread.identifier:
        ident = thread.identifier.split(" ", 1)[-1]  # WordPress plugin ids: "7 https://..."
        tries.append(("url", ident) if "/" in ident else ("slug", ident))
    tries.append(("url", thread.link))
    for how, value in tries:
        if not value:
            continue
        if how == "slug":
            slug = unicodedata.normalize("NFC", unquote(value))  # WP: caf%c3%a9-notes
            row = targets.post_with_slug(conn, slug, default_lang)
            if row is not None:
                return row, f"by slug {slug}"
            continue
        for path in _paths(value):
            row = targets.post_at(conn, path)
            if row is not None:
                return row, f"by URL {path}"
            row = targets.post_that_had(conn, path)
            if row is not None:
                return row, f"by old URL {path}"
    if kind == "json":
        row = targets.post_in_thread(conn, thread.key, default_lang)
        if row is not None:
            return row, f"by thread {thread.key}"
    return None


def _paths(link: str) -> list[str]:
    """The URL paths a link may be stored as (percent-encoded, with and without its slash),
    in the canonical form the site redirects to (`web.redirects.canonical_path`: no dot
    segments, `.../index.html` as `.../`), and a static page's `.../name.html` as `.../name/`."""
    path = urlsplit(link.strip()).path
    if not path or path == "/":
        return []
    decoded = canonical_path("/" + unquote(path).lstrip("/"))  # an identifier `posts/slug/`
    if decoded == "/":
        return []
    forms = [decoded]
    stem, dot, suffix = decoded.rpartition(".")
    if dot and suffix.lower() in ("html", "htm") and "/" not in suffix and stem.rstrip("/"):
        forms.append(stem + "/")  # /posts/x.html: the old static site's file of /posts/x/
    out = []
    for form in forms:
        encoded = quote(form, safe=_PATH_SAFE)
        out += [encoded, encoded if encoded.endswith("/") else encoded + "/"]
    return list(dict.fromkeys(out))


def _insert_thread(
    conn: sqlite3.Connection,
    group: list[_Entry],
    post_of: dict[str, ImportTarget],
    report: Report,
    every: set[str],
    *,
    write: bool,
) -> None:
    """Insert one comment thread's comments, parents first, whatever the order of `group`
    (`post_of`: the post each entry was mapped to, all of one thread; `every`: the keys of all
    the file's comments, for the report)."""
    thread_key = post_of[group[0].key].translation_key
    known: dict[str, int] = {}  # entry key → local id (stored before, or inserted now)
    todo: list[_Entry] = []
    for entry in group:
        if not entry.values:
            continue
        if (
            entry.source
            and entry.source_id
            and targets.purged_import(conn, entry.source, entry.source_id)
        ):  # deleted for good here: not brought back; its replies skip it as a ping's do
            report.purged += 1
            entry.values = {}
            continue
        stored = _existing(conn, entry, thread_key)
        if stored is None:
            todo.append(entry)
            continue
        report.present += 1
        if stored.thread == thread_key:  # a parent for new replies
            known[entry.key] = stored.id
    parents = _parents(conn, group, thread_key, known, report, every, {e.key for e in todo})
    order = {e.key: i for i, e in enumerate(group)}
    created = {e.key: _created(e, post_of[e.key], report) for e in todo}
    waiting: dict[str | None, list[_Entry]] = {}
    ready: list[tuple[float, int, str]] = []
    entries = {e.key: e for e in todo}
    for entry in todo:
        parent = parents[entry.key]
        if parent is None or parent in known:
            heapq.heappush(ready, (created[entry.key], order[entry.key], entry.key))
        else:
            waiting.setdefault(parent, []).append(entry)
    placeholder_ids = []
    while ready:
        _, _, key = heapq.heappop(ready)
        entry = entries[key]
        parent = parents[key]
        parent_id = known.get(parent) if parent is not None else None
        new = store.NewComment(
            thread=thread_key,
            post_url=post_of[key].url,
            parent_id=parent_id,
            lang=entry.lang,  # as the file states it, never the post's
            created=created[key],
            body_html=_body_html(entry),
            **{k: v for k, v in entry.values.items() if k != "updated"},
            source=entry.source or ("" if report.kind == "json" else report.kind),
            source_id=entry.source_id,
        )
        if not new.fingerprint:
            new.fingerprint = fingerprint(
                thread_key, parent_id, new.author_name, new.author_email, new.body
            )
        report.new += 1
        report.notes += [(entry.where, note) for note in entry.notes]
        report.statuses[store.PLACEHOLDER if entry.placeholder else new.status] += 1
        # a dry run numbers the comments it would insert past any id stored
        known[key] = store.insert(conn, new, ACTOR) if write else -len(known) - 1
        if write and entry.values.get("updated") is not None:
            targets.set_updated(conn, known[key], entry.values["updated"])
        if entry.placeholder:
            placeholder_ids.append(known[key])
        for child in waiting.pop(key, []):
            heapq.heappush(ready, (created[child.key], order[child.key], child.key))
    if write:
        for comment_id in placeholder_ids:
            targets.make_placeholder(conn, comment_id, ACTOR)


def _body_html(entry: _Entry) -> str:
    """The comment's HTML through the comment allowlist (CORE's `comments.sanitize`)."""
    if entry.html is None:
        return sanitize.render(entry.values["body"])
    return sanitize.clean(wxr.autop(entry.html) if entry.paragraphs else entry.html)


def _existing(conn: sqlite3.Connection, entry: _Entry, thread: str) -> store.Comment | None:
    """The stored comment `entry` was imported as before, if any."""
    if entry.source and entry.source_id:
        return store.by_source(conn, entry.source, entry.source_id)
    fingerprint = entry.values.get("fingerprint") or ""
    if entry.created is None or not fingerprint:
        return None
    found = targets.native_comment(conn, thread, entry.created, fingerprint)
    return None if found is None else store.get(conn, found)


def _parents(
    conn: sqlite3.Connection,
    group: list[_Entry],
    thread: str,
    known: dict[str, int],
    report: Report,
    every: set[str],
    todo: set[str],
) -> dict[str, str | None]:
    """Each entry's parent key as it will be stored: None for top level. A parent missing
    from the file (and not stored before) puts the reply at top level; a reply to a skipped
    ping answers the ping's parent; a cycle is broken at its oldest comment. What happens to
    the comments to insert (`todo`) is reported."""
    by_key = {e.key: e for e in group}
    parent: dict[str, str | None] = {}
    for entry in group:
        up, hops = entry.parent, 0
        while up is not None and up in by_key and not by_key[up].values and hops < len(group):
            up, hops = by_key[up].parent, hops + 1  # through skipped pings
        if up is not None and up not in by_key and up not in known:
            stored = _stored_parent(conn, group[0], up, thread)
            if stored is not None:
                known[up] = stored
            else:
                if entry.key in todo:
                    where = "on another post" if up in every else "missing from the export"
                    report.notes.append(
                        (entry.where, f"parent {up} {where}: imported at top level")
                    )
                up = None
        parent[entry.key] = up
    _break_cycles(group, parent, report, todo)
    return parent


def _stored_parent(conn: sqlite3.Connection, sample: _Entry, key: str, thread: str) -> int | None:
    """A parent imported by an earlier run from the same source (and in this thread)."""
    if not sample.source or sample.source == "json":
        return None
    found = store.by_source(conn, sample.source, key)
    return found.id if found is not None and found.thread == thread else None


def _break_cycles(
    group: list[_Entry], parent: dict[str, str | None], report: Report, todo: set[str]
) -> None:
    """Make the oldest comment of each cycle among the replies to insert (`todo`) top-level
    (a parent resolved through skipped pings always names an imported comment)."""
    by_key = {e.key: e for e in group if e.key in todo}
    order = {e.key: i for i, e in enumerate(group)}

    def rank(key: str) -> tuple[float, int]:
        when = by_key[key].created
        return (when if when is not None else float("inf"), order[key])

    state: dict[str, int] = {}  # 1: on the current path, 2: reaches the top level
    for start in by_key:
        path: list[str] = []
        node: str | None = start
        while node is not None and node in by_key and state.get(node) is None:
            state[node] = 1
            path.append(node)
            node = parent.get(node)
        if node is not None and state.get(node) == 1:  # back on this path: a cycle
            cycle = path[path.index(node) :]
            root = min(cycle, key=rank)
            parent[root] = None
            shown = " → ".join([*cycle, cycle[0]])
            report.notes.append(
                (by_key[root].where, f"replies form a cycle ({shown}): {root} at top level")
            )
        for key in path:
            state[key] = 2


def _created(entry: _Entry, post: ImportTarget, report: Report) -> float:
    if entry.created is not None:
        if entry.date_note:
            report.notes.append((entry.where, entry.date_note))
        return entry.created
    fallback, what = (
        (entry.thread.date, "its post's date in the export")
        if entry.thread.date is not None
        else (float(post.date_ts), "the date of the post it was mapped to")
    )
    why = entry.date_note or "no date"
    report.notes.append((entry.where, f"{why}: dated {store.iso(fallback)} ({what})"))
    return fallback


# --- export -------------------------------------------------------------------------------


def comment_json(c: store.Comment) -> dict[str, Any]:
    """One comment in the export shape (every column; `author` grouped; both times)."""
    return {
        "id": c.id,
        "parent": c.parent_id,
        "thread": c.thread,
        "post_url": c.post_url,
        "lang": c.lang,
        "status": c.status,
        "kind": c.kind,
        "author": {
            "name": c.author_name,
            "email": c.author_email,
            "url": c.author_url,
            "user": c.author_user,
        },
        "body": c.body,
        "html": c.body_html,
        "created": c.created,
        "date": store.iso(c.created),
        "updated": c.updated,
        "ip_hash": c.ip_hash,
        "client_hash": c.client_hash,
        "fingerprint": c.fingerprint,
        "reason": c.reason,
        "notify": c.notify,
        "email_confirmed": c.email_confirmed,
        "source": c.source,
        "source_id": c.source_id,
    }


def export_json(comments: Iterable[store.Comment], *, site: str, out: IO[str]) -> int:
    """Write `comments` as one JSON document to `out`, streamed (one comment per line); return
    how many. `site` names where they come from (the base URL, or the site folder)."""
    head = {"format": FORMAT, "version": VERSION, "site": site, "exported": store.iso(time.time())}
    out.write(json.dumps(head, ensure_ascii=False)[:-1] + ', "comments": [')
    count = 0
    for c in comments:
        out.write(("\n" if count == 0 else ",\n") + json.dumps(comment_json(c), ensure_ascii=False))
        count += 1
    out.write("\n]}\n")
    return count


def person_json(comments: list[store.Comment], email: str) -> dict[str, Any]:
    """What a data request returns: every comment written with `email` (the address appears
    here, once, as the subject of the request)."""
    return {
        "format": FORMAT + "-person",
        "version": VERSION,
        "email": email.strip(),
        "exported": store.iso(time.time()),
        "comments": [_personal(c) for c in comments],
    }


def export_person(
    db: Database, email: str, actor: str = "system", request_id: int | None = None
) -> dict[str, Any]:
    """A data request's answer (`person_json`), with its `export-person` audit row written and
    privacy request `request_id` closed (in one transaction, before the copy is handed out)."""
    found = store.by_email(db.read(), email)
    with db.write() as conn:
        privacy_requests.record_export(
            conn, actor, request_id=request_id, comments=len(found), now=time.time()
        )
    return person_json(found, email)


def _personal(c: store.Comment) -> dict[str, Any]:
    shape = comment_json(c)
    del shape["author"]["email"]  # said once, at the top
    for internal in ("ip_hash", "client_hash", "fingerprint"):
        del shape[internal]  # keyed hashes: meaningless outside this site
    return shape


def erase(
    db: Database, email: str, actor: str = "system", request_id: int | None = None
) -> tuple[int, int]:
    """Erase every comment written with `email` (`store.comment_removal.erase_person`, which
    writes the audit row and closes privacy request `request_id`); return how many were erased
    and how many of them stay as anonymous placeholders for their replies."""
    ids = [c.id for c in store.by_email(db.read(), email)]
    erased = removal.erase_person(db, email, actor, request_id)
    conn = db.read()
    kept = [c for c in (store.get(conn, i) for i in ids) if c is not None]
    return erased, sum(1 for c in kept if c.status == store.PLACEHOLDER)


def iter_all(db: Database) -> Iterator[store.Comment]:
    """Every comment, by id, from one read snapshot."""
    return store.all_comments(db.read())
