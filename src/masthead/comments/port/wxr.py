"""WordPress eXtended RSS (WXR 1.0-1.2, the file Tools > Export writes): its comments, streamed.

`parse(stream)` reads the file with defusedxml's `iterparse` (no DTD, no entities, no external
references: the file is untrusted) one `<item>` at a time, and yields an `Imported` per
`<wp:comment>` (with the item as its `Thread`) or a `Problem` for one it cannot read.

- Ids: `wp:comment_id` is the source id, `wp:comment_parent` the parent's (0: top level).
- Dates (C54): `wp:comment_date_gmt` is UTC. When it is zero (`0000-00-00 00:00:00`, as for
  comments WordPress never saw published), `wp:comment_date` is read in the exporting site's
  offset: the channel's `wp:timezone_string` (an IANA zone) or `wp:gmt_offset` (hours) when an
  exporter wrote them, else the offset between a local and a GMT date of the same item (its
  `wp:post_date`/`wp:post_date_gmt`, or another comment's pair), the one nearest in time; with
  none of these the comment has no date (`created` None, `date_note` says so).
- Status: `wp:comment_approved` 1 → approved, 0 → pending, spam → spam, trash and
  post-trashed → trash; anything else is held as pending, with a note.
- Author: `wp:comment_author` holds the name as WordPress stores it, HTML entities encoded
  (`&amp;`, `&#039;`): they are decoded once, so the name is plain text like any other.
- Kind: `wp:comment_type` empty or `comment` → comment; pingback, trackback kept as such; any
  other type (WooCommerce's order notes, say) is passed on as that word, for the importer to skip.
- Language: WXR has none per comment; a comment is in the language its page was shown in on
  the WordPress site, which the export states as the item's `<category domain="language">`
  (Polylang's taxonomy: its `nicename` is the language's slug, `zh`) as `lang`; the channel's
  RSS `<language>` (the site's, `zh-CN`: what WordPress put in the pages' `<html lang>`) goes
  into `site_lang`, which the importer uses after a language the item's link carries.

Format: https://developer.wordpress.org/plugins/ (WXR has no published schema; the fields are
those of `wp-admin/includes/export.php`). Never `time.mktime`: every date is read with an
explicit zone, so the result does not depend on the process's TZ.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import ParseError, iterparse

from masthead.comments.port.records import ExportFormatError, Imported, Problem, Thread

if TYPE_CHECKING:  # the type of the elements defusedxml's parser builds; nothing is parsed
    from xml.etree.ElementTree import Element  # nosec B405

WP_NAMESPACE = "http://wordpress.org/export/"
_STATUS = {"1": "approved", "0": "pending", "spam": "spam", "trash": "trash"}
_STATUS["post-trashed"] = "trash"  # the post was trashed with its comments
_MAX_OFFSET = 14 * 3600  # UTC-12 to UTC+14: anything further is not a zone offset


def parse(stream: IO[bytes]) -> Iterator[Imported | Problem]:
    """Yield every comment of the WXR file `stream` (binary), item by item, in file order.

    Raises `ExportFormatError` when the file is not well-formed XML, declares a DTD or entities,
    or is not an RSS document; what was yielded before stays valid (the importer writes
    nothing unless the whole file was read)."""
    zone: Zone = Zone()
    site_lang = ""  # the channel's <language>, which precedes its items
    channel: Element | None = None
    items = depth = 0
    seen: set[str] = set()
    try:
        for event, elem in iterparse(stream, events=("start", "end"), forbid_dtd=True):
            name = _local(elem.tag)
            if event == "start":
                if depth == 0 and name != "rss":
                    raise ExportFormatError(f"<{name}>: not a WordPress export (WXR: <rss>)")
                if depth == 1 and name == "channel" and channel is None:
                    channel = elem
                depth += 1
                continue
            depth -= 1
            if channel is None or elem not in channel:  # nested: read with its item
                continue
            if name == "item":
                items += 1
                yield from _item(elem, items, zone, seen, site_lang)
            elif elem.tag == "language":
                site_lang = _text(elem)
            elif _is_wp(elem.tag):
                zone.learn(name, _text(elem))
            channel.remove(elem)  # streaming: an item's tree is dropped once read
    except ParseError as exc:
        line, column = exc.position
        raise ExportFormatError(f"not well-formed XML at line {line}, column {column}") from None
    except DefusedXmlException as exc:
        raise ExportFormatError(f"refused: {type(exc).__name__} (DTDs and entities)") from None
    if channel is None:
        raise ExportFormatError("no <channel>: not a WordPress export (WXR)")


class Zone:
    """The exporting site's zone, when the channel says it (non-standard but written by some
    exporters): an IANA `timezone_string` or a fixed `gmt_offset` in hours."""

    def __init__(self) -> None:
        self.zone: dt.tzinfo | None = None
        self.label = ""

    def learn(self, name: str, value: str) -> None:
        if name == "timezone_string" and value:
            try:
                self.zone, self.label = ZoneInfo(value), f"the export's zone {value}"
            except (ZoneInfoNotFoundError, ValueError):
                return
        elif name == "gmt_offset" and value and self.zone is None:
            try:
                seconds = round(float(value) * 3600)
            except ValueError:
                return
            if abs(seconds) <= _MAX_OFFSET:
                self.zone = dt.timezone(dt.timedelta(seconds=seconds))
                self.label = f"the export's offset {_offset(seconds)}"


def _item(
    item: Element, number: int, zone: Zone, seen: set[str], site_lang: str
) -> Iterator[Imported | Problem]:
    fields = _fields(item)
    lang = _item_language(item)
    thread = Thread(
        key=fields.get("post_id") or f"item {number}",
        title=_child_text(item, "title"),
        link=_child_text(item, "link"),
        slug=fields.get("post_name", ""),
        date=_utc(fields.get("post_date_gmt", "")),
    )
    comments = [_fields(c) for c in item if _is_wp(c.tag) and _local(c.tag) == "comment"]
    pairs = Offsets(fields, comments)
    for c in comments:
        where = f"item {number} ({thread.slug or thread.link or thread.key}), comment " + (
            c.get("comment_id") or "without an id"
        )
        cid, parent = c.get("comment_id", ""), c.get("comment_parent", "") or "0"
        if not cid.isdigit() or not parent.isdigit():
            yield Problem(where, "comment_id and comment_parent must be whole numbers")
            continue
        if cid in seen:
            yield Problem(where, f"comment_id {cid} appears twice in the file")
            continue
        seen.add(cid)
        raw_status = c.get("comment_approved", "")
        status = _STATUS.get(raw_status.lower(), "pending")
        notes = () if raw_status.lower() in _STATUS else (f"status {raw_status!r}: held",)
        created, date_note = _date(c, zone, pairs)
        yield Imported(
            source="wxr",
            source_id=cid,
            thread=thread,
            parent=None if int(parent) == 0 else str(int(parent)),
            # WordPress stores a name entity-encoded (`wp_filter_kses` on pre_comment_author_name):
            # `Zoë &amp; Ünal` inside the CDATA is `Zoë & Ünal`; unescaped once, never twice
            author_name=html.unescape(c.get("comment_author", "")),
            author_email=c.get("comment_author_email", ""),
            author_url=c.get("comment_author_url", ""),
            body=c.get("comment_content", ""),
            created=created,
            status=status,
            kind=_kind(c.get("comment_type", "")),
            date_note=date_note,
            where=where,
            notes=notes,
            lang=lang,
            site_lang=site_lang,
        )


def _item_language(item: Element) -> str:
    """The language a multilingual plugin gave the item (Polylang's `language` taxonomy, which
    the export writes as `<category domain="language" nicename="zh">`), '' if none."""
    for c in item:
        if c.tag == "category" and c.get("domain") == "language":
            return (c.get("nicename") or "").strip()
    return ""


class Offsets:
    """The offsets an item's own dates show (local minus GMT), read only when a comment needs
    one: (local time, offset seconds, from what) for the post and each comment with both."""

    def __init__(self, post: dict[str, str], comments: list[dict[str, str]]) -> None:
        self._post, self._comments = post, comments
        self._found: list[tuple[dt.datetime, int, str]] | None = None

    def all(self) -> list[tuple[dt.datetime, int, str]]:
        if self._found is None:
            self._found = _offsets([self._post], ("post_date", "post_date_gmt"))
            self._found += _offsets(self._comments, ("comment_date", "comment_date_gmt"))
        return self._found


def _date(c: dict[str, str], zone: Zone, offsets: Offsets) -> tuple[float | None, str]:
    """(UTC seconds, how it was read) of one comment; (None, why) when it has no date."""
    gmt = _utc(c.get("comment_date_gmt", ""))
    if gmt is not None:
        return gmt, ""
    local = _naive(c.get("comment_date", ""))
    if local is None:
        return None, "no date in the export"
    if zone.zone is not None:
        return local.replace(tzinfo=zone.zone).timestamp(), f"comment_date read in {zone.label}"
    pairs = offsets.all()
    if not pairs:
        return None, "comment_date_gmt is zero and the export gives no offset to read comment_date"
    nearest = min(pairs, key=lambda p: abs((p[0] - local).total_seconds()))
    offset = dt.timezone(dt.timedelta(seconds=nearest[1]))
    read = local.replace(tzinfo=offset).timestamp()
    return read, f"comment_date read in the export's offset {_offset(nearest[1])} ({nearest[2]})"


def _offsets(
    rows: list[dict[str, str]], names: tuple[str, str]
) -> list[tuple[dt.datetime, int, str]]:
    """(local time, offset seconds, from what) for each row with both a local and a GMT date."""
    found = []
    for row in rows:
        local, gmt = _naive(row.get(names[0], "")), _naive(row.get(names[1], ""))
        if local is None or gmt is None:
            continue
        seconds = round((local - gmt).total_seconds())
        if abs(seconds) <= _MAX_OFFSET:
            what = "the post's dates" if names[0] == "post_date" else "comment "
            found.append((local, seconds, what + row.get("comment_id", "")))
    return found


def _naive(text: str) -> dt.datetime | None:
    """`YYYY-MM-DD HH:MM:SS` as a naive datetime; None when empty, zero or unreadable."""
    text = text.strip()
    if len(text) != 19 or text.startswith("0000"):
        return None
    try:
        when = dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    return None if when.tzinfo is not None else when  # `2020-01-01 00:00+08`: not WXR's


def _utc(text: str) -> float | None:
    """A WXR `*_gmt` date as seconds since the epoch: read as UTC, whatever TZ says."""
    naive = _naive(text)
    return None if naive is None else naive.replace(tzinfo=dt.UTC).timestamp()


def _offset(seconds: int) -> str:
    sign = "+" if seconds >= 0 else "-"
    hours, minutes = divmod(abs(seconds) // 60, 60)
    return f"{sign}{hours:02d}:{minutes:02d}"


def _kind(raw: str) -> str:
    raw = raw.strip().lower()
    return "comment" if raw in ("", "comment") else raw


def _fields(elem: Element) -> dict[str, str]:
    """The `wp:` children of `elem` that hold text, by local name (`comment_id`...)."""
    return {_local(c.tag): _text(c) for c in elem if _is_wp(c.tag) and len(c) == 0}


def _child_text(elem: Element, name: str) -> str:
    for c in elem:
        if c.tag == name:
            return _text(c)
    return ""


def _text(elem: Element) -> str:
    return (elem.text or "").strip()


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _is_wp(tag: str) -> bool:
    return tag.startswith("{" + WP_NAMESPACE)


_BLOCK = re.compile(r"<(p|div|blockquote|ul|ol|pre|table|h[1-6])[\s>]", re.IGNORECASE)


def autop(text: str) -> str:
    """WordPress shows a comment's text through `wpautop`: blank lines make paragraphs, single
    newlines line breaks. The same, simplified, for a text without block-level HTML of its own
    (one that has some is returned as it is)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text or _BLOCK.search(text):
        return text
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    return "\n".join("<p>" + p.replace("\n", "<br>\n") + "</p>" for p in paragraphs)
