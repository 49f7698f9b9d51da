"""Hugo's `ref` and `relref` shortcodes: a link's target inside a link, a permalink as text
elsewhere (https://gohugo.io/methods/shortcode/ref/).

Where a shortcode stands is only known once the Markdown is rendered, so `Refs` puts a token in
its place: private-use characters (U+E000 … U+E001 with base-256 digits from U+E100 between), which
Markdown keeps whole in text and percent-encodes in a link destination, and heading ids drop.
After the first sanitizer pass:

- a token in a URL attribute (`[text]({{< ref "b.md" >}})`, `<a href="…">`) is the target's
  `/_ref/PATH` link (`urls.resolve_relative`), as it always was (`Refs.url`, the rewrite);
- a token in text (`See {{< ref "b.md" >}}.`) becomes `<a class="mh-ref" href="/_ref/PATH">b.md</a>`
  (`mh-relref` for `relref`): a link whose text is the target as written (`Refs.place`). A target
  that names no content file (`https://…`, `pic.png`), or a token inside another link or in an
  element whose text is not markup (`script`, `textarea`…), is the target as written, as text;
- a token anywhere else (a `title` or `alt` value) is the target as written.

Then the body passes the sanitizer again, the last step. Plain text, headings and excerpts get
the target as written (`Refs.text`): they are stored as text, before the target may exist.

When a page is served, `show` gives each `mh-ref`/`mh-relref` link the permalink of the post it
names as its text (absolute for `ref`, site-relative for `relref`, as Hugo prints them), or, when
none is published, unwraps it to the target as written, so no page shows `/_ref/…` or links to a
404. The link's `href` is resolved by the sanitizer's rewrite as every `/_ref/` link is.
Elements are found by an HTML parser (`html.parser`) over the sanitized markup, never by patterns.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from html.parser import HTMLParser
from urllib.parse import quote

from masthead.content import sanitize, urls

_OPEN, _CLOSE, _DIGIT0 = "\ue000", "\ue001", 0xE100
KINDS = {"ref": "mh-ref", "relref": "mh-relref"}  # shortcode → class of its text link
_NOT_MARKUP = frozenset(
    {"script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript"}
)


@dataclass(frozen=True)
class Ref:
    """One `ref`/`relref` call: its shortcode `name`, the `target` as written and its `url`
    (`/_ref/PATH`, or what a link to a non-content target is: `urls.resolve_relative`)."""

    name: str
    target: str
    url: str


def _token(number: int) -> str:
    digits = ""
    while True:
        number, digit = divmod(number, 256)
        digits = chr(_DIGIT0 + digit) + digits
        if not number:
            return _OPEN + digits + _CLOSE


def link_for(target: str, folder: str) -> str:
    """The URL a ref to `target` written in content folder `folder` links to: `/_ref/PATH` for
    content files (a leading `/` is the content folder, as in Hugo), `#` for an empty target."""
    if not target:
        return "#"
    if target.startswith("/") and not target.startswith("//"):
        return urls.resolve_relative(target.lstrip("/"), "")
    return urls.resolve_relative(target, folder)


class Refs:
    """The `ref`/`relref` calls of one body, in order (`found`), and their tokens."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.found: list[tuple[str, Ref]] = []  # (token, call)

    def token(self, name: str, target: str) -> str:
        """The token standing for the call `{{< name "target" >}}` (`shortcodes.expand`)."""
        token = _token(len(self.found))
        self.found.append((token, Ref(name, target, link_for(target, self.folder))))
        return token

    def url(self, url: str) -> str:
        """`url` (a URL attribute, as parsed) with the tokens in it, as written or as Markdown
        percent-encoded them, replaced by their links."""
        if not self.found or (_OPEN not in url and quote(_OPEN) not in url):
            return url
        for token, ref in self.found:
            url = url.replace(token, ref.url).replace(quote(token), ref.url)
        return url

    def text(self, value: str) -> str:
        """`value` (plain text) with each token replaced by its target as written."""
        if not self.found or _OPEN not in value:
            return value
        for token, ref in self.found:
            value = value.replace(token, ref.target)
        return value

    def place(self, clean_html: str, *, trusted: bool) -> str:
        """Sanitized `clean_html` with the tokens left in it placed (see the module docstring)
        and sanitized again; unchanged when it has none."""
        if not self.found or _OPEN not in clean_html:
            return clean_html
        finder = _TextFinder()
        finder.run(clean_html)
        out = clean_html
        for start, data, linkable in reversed(finder.chunks):
            if _OPEN in data:
                new = self._placed(data, linkable)
                out = out[:start] + new + out[start + len(data) :]
        out = self._escaped(out)  # attribute values: the target as written
        return sanitize.clean(out, trusted=trusted)

    def _escaped(self, markup: str) -> str:
        for token, ref in self.found:
            markup = markup.replace(token, html.escape(ref.target))
        return markup

    def _placed(self, data: str, linkable: bool) -> str:
        """Raw text `data` (escaped, as serialized) with its tokens as links or as text."""
        for token, ref in self.found:
            if token not in data:
                continue
            text = html.escape(ref.target)
            if linkable and ref.url.startswith(urls.REF_PREFIX):
                href = html.escape(ref.url)
                text = f'<a class="{KINDS[ref.name]}" href="{href}">{text}</a>'
            data = data.replace(token, text)
        return data


def _line_starts(text: str) -> list[int]:
    starts = [0]
    at = text.find("\n")
    while at != -1:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    return starts


class _Scanner(HTMLParser):
    """An HTML parser that knows the offset (in characters) of the event it reports."""

    def run(self, markup: str) -> None:
        self._starts = _line_starts(markup)
        self.feed(markup)
        self.close()

    def at(self) -> int:
        line, column = self.getpos()
        return self._starts[line - 1] + column


class _TextFinder(_Scanner):
    """`chunks`: `(offset, raw text, may hold a link)` of every text run in sanitized HTML;
    not inside another link, nor in an element whose text is not markup."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.chunks: list[tuple[int, str, bool]] = []
        self._open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a" or tag in _NOT_MARKUP:
            self._open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self._open:
            del self._open[len(self._open) - 1 - self._open[::-1].index(tag) :]

    def handle_data(self, data: str) -> None:
        self.chunks.append((self.at(), data, not self._open))


@dataclass
class _Link:
    kind: str  # a key of KINDS
    href: str  # /_ref/PATH#fragment
    start: int  # `<a`
    inner: int  # after the start tag
    inner_end: int = -1  # `</a>`
    end: int = -1  # after it


class _LinkFinder(_Scanner):
    """`links`: every `mh-ref`/`mh-relref` link to a `/_ref/` URL in sanitized HTML."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[_Link] = []
        self._current: _Link | None = None
        self._depth = 0
        self._markup = ""

    def run(self, markup: str) -> None:
        self._markup = markup
        super().run(markup)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag != "a":
            return
        if self._current is not None:
            self._depth += 1
            return
        values = dict(attrs)
        href = values.get("href") or ""
        classes = (values.get("class") or "").split()
        kind = next((k for k, cls in KINDS.items() if cls in classes), None)
        if kind is not None and href.startswith(urls.REF_PREFIX):
            start = self.at()
            tag_text = self.get_starttag_text() or ""
            self._current = _Link(kind, href, start, start + len(tag_text))

    def handle_endtag(self, tag: str) -> None:
        if tag != "a" or self._current is None:
            return
        if self._depth:
            self._depth -= 1
            return
        link, self._current = self._current, None
        link.inner_end = self.at()
        link.end = self._markup.index(">", link.inner_end) + 1
        self.links.append(link)


def show(body: str, permalink: Callable[[str], str | None], absolute: Callable[[str], str]) -> str:
    """A stored (sanitized) body with each `mh-ref`/`mh-relref` link's text made the permalink
    of the post it names: `permalink(target)` is that post's site path for a `/_ref/` target
    (the part after `/_ref/`, without the fragment), None when none is published; `absolute`
    makes a site path an absolute URL (for `ref`). A link whose target names no post is replaced
    by its text (the target as written). Returns markup to sanitize: the caller's last step."""
    if "mh-ref" not in body and "mh-relref" not in body:
        return body
    finder = _LinkFinder()
    finder.run(body)
    for link in reversed(finder.links):
        if link.inner_end < 0:
            continue
        target, hashmark, fragment = link.href[len(urls.REF_PREFIX) :].partition("#")
        found = permalink(target)
        if found is None:
            middle = body[link.inner : link.inner_end]
            body = body[: link.start] + middle + body[link.end :]
            continue
        shown = (absolute(found) if link.kind == "ref" else found) + hashmark + fragment
        body = body[: link.inner] + html.escape(shown) + body[link.inner_end :]
    return body
