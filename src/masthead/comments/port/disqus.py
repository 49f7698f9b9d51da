"""Disqus XML export (Admin > Moderation > Export): its threads and posts, streamed.

`parse(stream)` reads the file with defusedxml's `iterparse` (no DTD, no entities, no external
references) one top-level element at a time and yields an `Imported` per `<post>` (with its
`<thread>` as its `Thread`) or a `Problem` for one it cannot read.

- Ids: the `dsq:id` attribute (namespace `http://disqus.com/disqus-internals`) of a post is its
  source id; `<parent dsq:id>` its parent's; `<thread dsq:id>` its thread's. A thread carries
  the page's `<link>` and the site's own `<id>` (the `disqus_identifier` its pages set).
- Dates (C54): `<createdAt>` is UTC (`2020-01-01T00:00:00Z`; one without an offset is read as
  UTC too), read into an aware datetime: the result does not depend on the process's TZ.
- Status: `<isSpam>true` → spam, else `<isDeleted>true` → trash, else `<isApproved>false`
  (older exports) → pending, else approved.
- Language: the export states none (not for a post, a thread or the forum), so `lang` is ''.
- Threads normally precede their posts; a post met before its thread waits for it, and a post
  whose thread is not in the file comes out with a bare `Thread(key)` the importer cannot map.

The export's format has no published schema; the element names are those of Disqus's exports
(`disqus.com` namespace) as importers such as Isso and Remark42 read them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import ParseError, iterparse

from masthead.comments.port.records import ExportFormatError, Imported, Problem, Thread

if TYPE_CHECKING:  # the type of the elements defusedxml's parser builds; nothing is parsed
    from xml.etree.ElementTree import Element  # nosec B405

NAMESPACE = "http://disqus.com"
DSQ_ID = "{http://disqus.com/disqus-internals}id"
_TRUE = ("true", "1")


def parse(stream: IO[bytes]) -> Iterator[Imported | Problem]:
    """Yield every post of the Disqus export `stream` (binary) as an `Imported`, in file order
    (posts met before their thread: once it is read, or at the end).

    Raises `ExportFormatError` when the file is not well-formed XML, declares a DTD or entities,
    or its root is not `<disqus>`."""
    root: Element | None = None
    threads: dict[str, Thread] = {}
    waiting: list[Element] = []  # posts whose thread has not been read yet
    seen: set[str] = set()
    posts = depth = 0
    try:
        for event, elem in iterparse(stream, events=("start", "end"), forbid_dtd=True):
            if event == "start":
                if depth == 0:
                    if elem.tag != _tag("disqus"):
                        name = elem.tag.rsplit("}", 1)[-1]
                        raise ExportFormatError(f"<{name}>: not a Disqus export (<disqus>)")
                    root = elem
                depth += 1
                continue
            depth -= 1
            if depth != 1 or root is None:
                continue
            if elem.tag == _tag("thread"):
                thread = _thread(elem)
                if thread.key:
                    threads[thread.key] = thread
            elif elem.tag == _tag("post"):
                posts += 1
                ref = _ref(elem, "thread")
                if ref in threads:
                    yield _post(elem, posts, threads[ref], seen)
                else:
                    waiting.append(elem)
                    continue  # kept until its thread is read
            root.remove(elem)
            if waiting and elem.tag == _tag("thread"):
                ready = [p for p in waiting if _ref(p, "thread") in threads]
                waiting = [p for p in waiting if p not in ready]
                for post in ready:
                    yield _post(post, posts, threads[_ref(post, "thread")], seen)
                    root.remove(post)
    except ParseError as exc:
        line, column = exc.position
        raise ExportFormatError(f"not well-formed XML at line {line}, column {column}") from None
    except DefusedXmlException as exc:
        raise ExportFormatError(f"refused: {type(exc).__name__} (DTDs and entities)") from None
    if root is None:
        raise ExportFormatError("empty file: not a Disqus export")
    for post in waiting:  # their thread is not in the file: reported as not mapped
        ref = _ref(post, "thread")
        yield _post(post, posts, threads.get(ref, Thread(key=ref or "(none)")), seen)


def _thread(elem: Element) -> Thread:
    return Thread(
        key=elem.get(DSQ_ID, ""),
        title=_text(elem, "title"),
        link=_text(elem, "link"),
        identifier=_text(elem, "id"),
        date=_date(_text(elem, "createdAt"))[0],
    )


def _post(elem: Element, number: int, thread: Thread, seen: set[str]) -> Imported | Problem:
    pid = elem.get(DSQ_ID, "").strip()
    where = f"post {pid or '#' + str(number)} (thread {thread.link or thread.key})"
    if not pid:
        return Problem(where, "a post without a dsq:id")
    if pid in seen:
        return Problem(where, f"dsq:id {pid} appears twice in the file")
    seen.add(pid)
    if _text(elem, "isSpam").lower() in _TRUE:
        status = "spam"
    elif _text(elem, "isDeleted").lower() in _TRUE:
        status = "trash"
    elif _text(elem, "isApproved").lower() in ("false", "0"):
        status = "pending"
    else:
        status = "approved"
    author = elem.find(_tag("author"))
    name = email = ""
    if author is not None:
        name = _text(author, "name") or _text(author, "username")
        email = _text(author, "email")
    created, note = _date(_text(elem, "createdAt"))
    return Imported(
        source="disqus",
        source_id=pid,
        thread=thread,
        parent=_ref(elem, "parent") or None,
        author_name=name,
        author_email=email,
        author_url="",  # Disqus exports no website
        body=_text(elem, "message"),
        created=created,
        status=status,
        date_note=note,
        where=where,
    )


def _date(text: str) -> tuple[float | None, str]:
    """`createdAt` as UTC seconds (an aware datetime, never mktime); (None, why) if unreadable."""
    if not text:
        return None, "no createdAt in the export"
    try:
        when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None, f"createdAt {text!r} is not an ISO 8601 date"
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)  # Disqus writes UTC
    return when.timestamp(), ""


def _ref(elem: Element, name: str) -> str:
    child = elem.find(_tag(name))
    return "" if child is None else child.get(DSQ_ID, "").strip()


def _text(elem: Element, name: str) -> str:
    child = elem.find(_tag(name))
    return "" if child is None else (child.text or "").strip()


def _tag(name: str) -> str:
    return "{" + NAMESPACE + "}" + name
