"""The XSS corpus (tests/data/xss/vectors.json) and the rules a served document must keep, for
the content XSS tests (test_xss.py) and the comment ones (test_comments_xss.py): the vectors, the
harness that drops the site's CSP, the static rules on the bytes served, and the Chromium checker
that fires every handler and reports what ran."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import lxml.html
from lxml import etree
from playwright.sync_api import BrowserContext, Error, Page

from masthead.content import math

from support.sites import DATA as TEST_DATA

DATA = TEST_DATA / "xss"


LANG_PREFIXES = ("", "/zh")


IFRAMES_PER_BATCH = 40


COMMENT_ACTION = re.compile(r"/comments(?:\?post=/[A-Za-z0-9/%._~-]*)?")


SNIPPET_BYTES = 100_000  # feed or API bodies per srcdoc frame


DOCTYPE = "<!doctype html>"


@dataclass(frozen=True)
class Vector:
    id: int
    source: str
    name: str
    text: str


def load_vectors() -> list[Vector]:
    """The corpus, with `alert(1)`, `confirm(1)`, `prompt(1)` calls numbered by vector id."""
    out = []
    for item in json.loads((DATA / "vectors.json").read_text(encoding="utf-8"))["vectors"]:
        n = item["id"]
        text = item["vector"]
        for fn in ("alert", "confirm", "prompt"):
            text = text.replace(f"{fn}(1)", f"{fn}({n})")
        out.append(Vector(n, item["source"], item["name"], text))
    return out


VECTORS = load_vectors()


BY_ID = {v.id: v for v in VECTORS}


DROPPED_HEADERS = {
    b"content-security-policy",
    b"content-security-policy-report-only",
    b"x-frame-options",
}


ATTACKER = {  # extension → (body, media type) of the attacker's same-origin files
    "html": (b"<!doctype html><title>x</title><script>alert('__xss.html')</script>", b"text/html"),
    "xml": (
        b'<x xmlns:h="http://www.w3.org/1999/xhtml"><h:script>alert("__xss.xml")</h:script></x>',
        b"application/xml",
    ),
    "js": (b"alert('__xss.js')", b"text/javascript"),
}


class WithoutCSP:
    """ASGI test harness around the real app.

    It drops Content-Security-Policy headers: the CSP of item 6 blocks inline script, and this
    test must show that the sanitizer and the templates' escaping stop every vector on their
    own (a CSP is a second wall, and feed readers or a proxy that drops headers have none).
    X-Frame-Options goes too (like CSP `frame-ancestors`, it would refuse the same-origin
    iframes the test loads pages in); it guards against framing, not against script.
    It also answers `/__xss*` as a same-origin attacker would (a page and a script that call
    `alert`), so vectors that load a file (`<script src>`, `<iframe src>`, `<object data>`)
    are detected when they load it. Every other request reaches the app unchanged.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/__xss"):
            ext = scope["path"].rsplit(".", 1)[-1]
            body, kind = ATTACKER.get(ext, ATTACKER["js"])
            await send(
                {"type": "http.response.start", "status": 200, "headers": [(b"content-type", kind)]}
            )
            await send({"type": "http.response.body", "body": body})
            return

        async def send_without_csp(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = {
                    **message,
                    "headers": [
                        (k, v)
                        for k, v in message.get("headers", [])
                        if bytes(k).lower() not in DROPPED_HEADERS
                    ],
                }
            await send(message)

        await self.app(scope, receive, send_without_csp)


# fmt: off
URL_ATTRS = frozenset([
    "href", "src", "action", "formaction", "cite", "poster", "data", "background", "lowsrc",
    "dynsrc", "codebase", "longdesc", "ping", "xlink:href", "manifest", "icon", "profile",
    "classid", "archive", "usemap",
])


# fmt: on
BAD_SCHEME = re.compile(r"^(?:javascript|vbscript|livescript|data):", re.I)


DATA_IMAGE = re.compile(r"^data:image/", re.I)


# elements content never brings; the theme writes some of them, in the shapes _theme_allows knows
# fmt: off
FORBIDDEN = frozenset([
    "script", "iframe", "frame", "frameset", "object", "embed", "applet", "base", "form", "style",
    "link", "meta", "svg", "math", "xml", "isindex", "bgsound", "param", "portal", "template",
    "input", "textarea", "select", "keygen", "noscript", "xmp", "noembed", "title",
])


# fmt: on
STYLE_URL = re.compile(r"javascript|expression|url\s*\(|@import|binding", re.I)


SEARCH_ACTIONS = {f"{p}/search" for p in LANG_PREFIXES}


THEME_LINK_RELS = {"canonical", "alternate", "icon", "stylesheet"}


ICON_PARTS = {"circle", "path"}


def url_scheme_bad(value: str, tag: str, attr: str) -> bool:
    """True when `value` (entities already decoded) is a script or data URL as a browser reads
    it: ASCII tab and newline removed anywhere, C0 controls and spaces trimmed (WHATWG URL)."""
    url = re.sub(r"[\t\n\r]", "", value).strip(
        "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c"
        "\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18"
        "\x19\x1a\x1b\x1c\x1d\x1e\x1f "
    )
    if not BAD_SCHEME.match(url):
        return False
    return not (tag == "img" and attr == "src" and DATA_IMAGE.match(url))


def _srcset_urls(value: str) -> list[str]:
    return [c.strip().split()[0] for c in value.split(",") if c.strip()]


# a formula as content/math.py writes it: MathML presentation elements only, with its TeX
MATHML = frozenset(math.TAGS)


def _formula(el: Any) -> bool:
    """A `<math>` that is a formula of the body (content/math.py): `alttext`, `display` inline
    or block, and nothing but MathML elements inside, none with an event or URL attribute."""
    if el.get("alttext") is None or el.get("display") not in ("inline", "block"):
        return False
    for child in el.iterdescendants():
        if not isinstance(child.tag, str):
            continue
        if child.tag.lower().rsplit("}", 1)[-1] not in MATHML:
            return False
        if any(a.lower().startswith("on") or a.lower() in URL_ATTRS for a in child.attrib):
            return False
    return True


def _theme_allows(el: Any, tag: str) -> bool:
    """The elements of FORBIDDEN that the theme itself writes, in the shapes it writes them."""
    get = el.get
    if tag == "math":
        return _formula(el)
    if tag == "script":
        src = get("src") or ""
        if get("type") == "application/ld+json" and not src:
            return True
        return src.startswith("/static/") and not (el.text or "").strip()
    if tag == "link":
        rels = set((get("rel") or "").lower().split())
        href = get("href") or ""
        if not rels or not rels <= THEME_LINK_RELS:
            return False
        return "stylesheet" not in rels or href.startswith("/static/")
    if tag == "meta":
        return get("http-equiv") is None
    if tag == "title":
        return el.getparent() is not None and el.getparent().tag == "head"
    if tag == "form":
        if "comment-form" in (get("class") or ""):  # the comment form (issue 11), posting here
            # posting here; `?post=` names the page's own post (a 413 page links back to it)
            action = get("action") or ""
            return bool(COMMENT_ACTION.fullmatch(action)) and get("method") == "post"
        return "search-form" in (get("class") or "") and get("action") in SEARCH_ACTIONS
    if tag in ("input", "textarea"):
        in_form = any(
            a.tag == "form"
            and {"search-form", "comment-form"} & set((a.get("class") or "").split())
            for a in el.iterancestors()
        )
        task = get("type") == "checkbox" and get("disabled") is not None
        # the comments' "only my language" switch (issue 11), a bare checkbox the CSS reads
        only_mine = (
            get("id") == "mh-lang-only" and get("type") == "checkbox" and len(el.attrib) == 3
        )
        return in_form or (task and tag == "input") or (only_mine and tag == "input")
    if tag == "template":  # what comments.js clones for a reader's own new comment
        return get("id") == "mh-comment-template" and not el.xpath(".//script|.//*[@src]")
    if tag == "svg":
        parts = {c.tag for c in el.iterdescendants() if isinstance(c.tag, str)}
        return get("aria-hidden") == "true" and parts <= ICON_PARTS
    return False


def _jsonld_problems(text: str) -> list[str]:
    try:
        data = json.loads(text)
    except ValueError as exc:
        return [f"JSON-LD block is not JSON ({exc}): {text[:200]!r}"]
    out: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("url", "image", "@id", "sameAs", "logo", "item", "contentUrl") and (
                    isinstance(value, str) and url_scheme_bad(value, "", key)
                ):
                    out.append(f"JSON-LD {key} is a script/data URL: {value!r}")
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(data)
    return out


def html_problems(text: str, fragment: bool = False) -> list[str]:
    """Every breach of the static rules in an HTML document (or a body `fragment`)."""
    if not text.strip():
        return []
    if fragment:
        return tree_problems(lxml.html.fragment_fromstring(text, create_parent="div"), True)
    return tree_problems(lxml.html.document_fromstring(text), False)


def _task_box(el: Any) -> bool:
    return el.get("type") == "checkbox" and el.get("disabled") is not None


def tree_problems(root: Any, fragment: bool) -> list[str]:
    """The static rules on a parsed page (`fragment`: a body, where the theme writes nothing,
    so only a task-list checkbox of FORBIDDEN may appear)."""
    out: list[str] = []
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue  # comments and processing instructions

        def snippet(el: Any = el) -> str:
            return repr(lxml.html.tostring(el, encoding="unicode", with_tail=False)[:160])

        tag = el.tag.lower().rsplit("}", 1)[-1]
        if tag in FORBIDDEN:
            allowed = _task_box(el) if fragment and tag == "input" else _theme_allows(el, tag)
            if fragment and tag not in ("input", "math"):
                allowed = False
            if not allowed:
                out.append(f"<{tag}> element: {snippet()}")
            if tag == "script" and el.get("type") == "application/ld+json":
                out += _jsonld_problems(el.text or "")
        for name, value in el.attrib.items():
            attr = name.lower()
            if attr.startswith("on"):
                out.append(f"event attribute {attr}: {snippet()}")
            elif attr in ("srcdoc", "formaction") or attr.endswith(":href"):
                out.append(f"attribute {attr}: {snippet()}")
            if attr in URL_ATTRS and url_scheme_bad(value, tag, attr):
                out.append(f"{attr} is a script/data URL: {snippet()}")
            if attr in ("srcset", "imagesrcset") and any(
                url_scheme_bad(u, tag, "srcset") for u in _srcset_urls(value)
            ):
                out.append(f"srcset has a script/data URL: {snippet()}")
            if attr == "style" and STYLE_URL.search(value):
                out.append(f"style with a URL or expression: {snippet()}")
        if (
            tag == "meta"
            and (el.get("property") or el.get("name") or "").endswith(
                (":image", ":url", ":image:url")
            )
            and url_scheme_bad(el.get("content") or "", "meta", "content")
        ):
            out.append(f"social meta with a script/data URL: {snippet()}")
    return out


def report(problems: dict[str, list[str]], limit: int = 80) -> str:
    """What ran first, then the rule breaches; the ids of the vectors involved at the top."""
    order = sorted(problems, key=lambda where: where != "ran")
    lines = [f"{where}: {p}" for where in order for p in dict.fromkeys(problems[where])]
    calls = {m for line in lines for m in re.findall(r"(?:alert|confirm|prompt)\(\d+\)", line)}
    ids = sorted(  # a vector whose own numbered call shows up
        {v.id for v in VECTORS for call in calls if call.endswith(f"({v.id})") and call in v.text}
    )
    ran = sorted(
        {int(n) for p in problems.get("ran", []) for n in re.findall(r"\[vector (\d+)", p)}
    )
    head = [f"{len(lines)} distinct problems; vectors that ran: {ran}; vectors involved: {ids}"]
    more = [f"… and {len(lines) - limit} more"] if len(lines) > limit else []
    return "\n".join(head + lines[:limit] + more)


HOOKS = (DATA / "hooks.js").read_text(encoding="utf-8")


INSPECT = (
    f"const URLS = new Set({json.dumps(sorted(URL_ATTRS))});\n"
    f"const SEARCH = {json.dumps(sorted(SEARCH_ACTIONS))};\n"
    f"const MATHML_TAGS = {json.dumps(sorted(MATHML))};\n"
    + (DATA / "inspect.js").read_text(encoding="utf-8")
)


INSPECT_TOP = f"async () => {{ {INSPECT}\n return await inspectTop(); }}"


INSPECT_FRAMES = f"async (rules) => {{ {INSPECT}\n return await inspectFrames(rules); }}"


OPEN_AS_XML = """async (paths) => {
  const roots = {};
  await Promise.all(paths.map(async (path, n) => {
    const text = await (await fetch(path)).text();
    const url = URL.createObjectURL(new Blob([text], { type: "application/xml" }));
    const frame = document.createElement("iframe");
    frame.name = "x" + n;
    await new Promise(done => {
      frame.onload = done;
      frame.src = url;
      document.body.append(frame);
    });
    roots[frame.name] = [url, frame.contentDocument.documentElement.localName];
  }));
  return roots;
}"""


@dataclass
class Watch:
    """What ran: hooked calls and dialogs, page errors, navigations away, cross-origin dialogs."""

    fired: list[str] = field(default_factory=list)

    def attach(self, page: Page) -> None:
        def on_dialog(dialog: Any) -> None:
            self.fired.append(f"dialog {dialog.type}({dialog.message}) @ {page.url}")
            dialog.dismiss()

        def on_console(msg: Any) -> None:
            text = msg.text
            if text.startswith("__XSS__") or "JavaScript dialog" in text:
                self.fired.append(text)

        page.on("dialog", on_dialog)
        page.on("console", on_console)
        page.on("pageerror", lambda exc: self.fired.append(f"page error {exc} @ {page.url}"))


def vector_names(lines: list[str]) -> list[str]:
    """Each report line with the vector its `alert(<id>)` names."""
    out = []
    for line in lines:
        m = re.search(r"(?:alert|confirm|prompt|print)\((\d+)\)", line)
        vec = BY_ID.get(int(m.group(1))) if m else None
        if vec is not None and m is not None and m.group(0) not in vec.text:
            vec = None  # an encoded payload's own `alert(1)`, not vector 1
        out.append(f"{line}  [vector {vec.id} {vec.source}: {vec.name}]" if vec else line)
    return out


class Checker:
    """Loads documents in one tab and collects what ran and what the DOM rules find."""

    def __init__(self, ctx: BrowserContext, base: str) -> None:
        self.page = ctx.new_page()
        self.base = base
        self.watch = Watch()
        self.watch.attach(self.page)
        self.dom: dict[str, list[str]] = {}
        self.seen: set[str] = set()  # every document inspected

    def note(self, where: str, problems: list[str]) -> None:
        if problems:
            self.dom.setdefault(where, []).extend(problems)

    def top(self, path: str, interact: bool = True) -> None:
        """Load `path` as the top-level page; move the mouse over it and tab through it."""
        url = self.base + path
        try:
            self.page.goto(url, wait_until="load")
        except Error as exc:
            self.note(path, [f"could not be opened: {exc}"])
            return
        if interact:
            for x, y in ((100, 100), (500, 300), (300, 500), (700, 700)):
                self.page.mouse.move(x, y)
            for _ in range(2):
                self.page.keyboard.press("Tab")
        try:
            self.note(path, self.page.evaluate(INSPECT_TOP))
            self.seen.add(path)
        except Error as exc:  # the page navigated away while being inspected
            self.note(path, [f"could not be inspected: {exc}"])
        if self.page.url.split("#")[0] != url:
            self.note(path, [f"navigated to {self.page.url}"])

    def frames(self, paths: list[str], rules: bool = True) -> None:
        """Load `paths` in same-origin iframes of one harness page, in batches; `rules` false:
        fire their handlers and links but skip the DOM rules (pages whose own forms and
        inputs are not content, the dashboard's)."""
        for i in range(0, len(paths), IFRAMES_PER_BATCH):
            batch = paths[i : i + IFRAMES_PER_BATCH]
            frames = "".join(
                f'<iframe name="f{n}" src="{html.escape(p, quote=True)}" width="900" '
                'height="400"></iframe>'
                for n, p in enumerate(batch)
            )
            names = {f"f{n}": (p, self.base + p) for n, p in enumerate(batch)}
            self.inspect_harness(frames, names, rules=rules)

    def snippets(self, where: str, bodies: list[str]) -> None:
        """HTML bodies in `srcdoc` iframes on the site's origin, as a feed reader or a search
        client puts them in a page: several to a frame (up to SNIPPET_BYTES), each in its own
        `<article>` (a frame each would cost a document each; a body that could silence the
        next one, an unclosed `<textarea>` say, already breaks the static rules on its own)."""
        frames: list[list[str]] = []
        for body in bodies:
            if frames and sum(map(len, frames[-1])) + len(body) <= SNIPPET_BYTES:
                frames[-1].append(body)
            else:
                frames.append([body])
        batch: list[list[str]] = []
        for n, group in enumerate(frames):
            batch.append(group)
            size = sum(len(b) for g in batch for b in g)
            if len(batch) == IFRAMES_PER_BATCH or size > 4 * SNIPPET_BYTES or n == len(frames) - 1:
                docs = ["".join(f"<article>{b}</article>" for b in g) for g in batch]
                markup = "".join(
                    f'<iframe name="s{i}" srcdoc="{html.escape(DOCTYPE + doc, quote=True)}"'
                    ' width="900" height="200"></iframe>'
                    for i, doc in enumerate(docs)
                )
                names = {
                    f"s{i}": (f"{where} {g[0][:80]!r}… ({len(g)} bodies)", "about:srcdoc")
                    for i, g in enumerate(batch)
                }
                self.inspect_harness(markup, names)
                batch = []

    def as_xml(self, paths: list[str]) -> list[str]:
        """Open each of `paths` as an XML document on the site's origin (a same-origin blob URL
        typed application/xml), all in one harness page, and inspect them; returns their root
        elements' names. Chromium shows RSS and Atom media types as plain text, but a feed
        reader or another browser parses them as XML, where XHTML-namespaced script or a
        stylesheet instruction would run."""
        self.inspect_harness("", {}, inspect=False)
        opened = self.page.evaluate(OPEN_AS_XML, paths)
        names = {f"x{n}": (f"{p} as XML", opened[f"x{n}"][0]) for n, p in enumerate(paths)}
        self.inspect_harness(None, names)
        return [opened[f"x{n}"][1] for n in range(len(paths))]

    def inspect_harness(
        self,
        frames: str | None,
        names: dict[str, tuple[str, str]],
        inspect: bool = True,
        rules: bool = True,
    ) -> None:
        if not self.page.url.startswith(self.base + "/__xss-harness"):
            self.page.goto(self.base + "/__xss-harness.js")  # any same-origin document
        if frames is not None:  # None: inspect the frames already in the harness
            self.page.set_content(
                f"<!doctype html><title>harness</title>{frames}", wait_until="load"
            )
        if not inspect:
            return
        found = self.page.evaluate(INSPECT_FRAMES, rules)
        for name, (where, url) in names.items():
            if name not in found:
                self.note(where, ["iframe renamed or removed"])
                continue
            problems, now = found[name]
            self.seen.add(where)
            if now is not None and now.split("#")[0] != url:
                problems = [*problems, f"navigated to {now}"]
            self.note(where, problems)

    def result(self) -> dict[str, list[str]]:
        out = dict(self.dom)
        if self.watch.fired:
            out["ran"] = vector_names(self.watch.fired)
        return out


ATOM = "{http://www.w3.org/2005/Atom}"


CONTENT = "{http://purl.org/rss/1.0/modules/content/}encoded"


XHTML = "{http://www.w3.org/1999/xhtml}"


SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def xml_problems(data: bytes) -> tuple[list[str], list[str]]:
    """Static rules for a feed or sitemap: a strict XML parse, no XHTML or stylesheet
    processing instructions, every URL attribute and link safe. Returns `(problems, bodies)`:
    the HTML of each entry (RSS `description`/`content:encoded`, Atom `content`/`summary`)."""
    problems: list[str] = []
    root = etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True))
    bodies: list[str] = []
    for node in root.iter():
        if isinstance(node, etree._ProcessingInstruction):
            problems.append(f"processing instruction {node}")
            continue
        if not isinstance(node.tag, str):
            continue
        sitemap_alternate = (
            node.tag == f"{XHTML}link"
            and set(node.attrib) <= {"rel", "hreflang", "href"}
            and node.get("rel") == "alternate"
        )
        if sitemap_alternate:  # <xhtml:link rel="alternate" hreflang> of sitemaps (Google)
            if not (node.get("href") or "").startswith(("https://", "http://")):
                problems.append(f"sitemap alternate not http(s): {etree.tostring(node)[:160]!r}")
        elif node.tag.startswith(XHTML) or node.tag.startswith("{http://www.w3.org/2000/svg}"):
            problems.append(f"XHTML/SVG element in XML: {etree.tostring(node)[:160]!r}")
        for name, value in node.attrib.items():
            local = name.rsplit("}", 1)[-1].lower()
            if local.startswith("on"):
                problems.append(f"event attribute {name} in XML")
            if local in ("href", "url", "src", "uri") and url_scheme_bad(value, "", local):
                problems.append(f"{name}={value!r} in XML")
        if node.tag in ("loc", "link", f"{ATOM}id", f"{SITEMAP}loc") and url_scheme_bad(
            node.text or "", "", "href"
        ):
            problems.append(f"<{node.tag}> is a script/data URL: {node.text!r}")
        if node.tag in ("description", CONTENT, f"{ATOM}content", f"{ATOM}summary"):
            if node.get("type") == "xhtml":
                problems.append(f"xhtml content in feed: {etree.tostring(node)[:160]!r}")
            bodies.append(node.text or "")
    return problems, bodies
