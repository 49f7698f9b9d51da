"""Search in the exported files: the Pagefind index of an export with no masthead behind it.

An export without `api_url` has no server to ask, so `masthead build` writes a search index into
its files and its search box reads that (`SiteState.self_contained`, static/js/static-search.js).
The index is Pagefind's (https://pagefind.app, PyPI `pagefind[extended]`: the extended binary
segments Chinese), written into `pagefind/` from the exported post pages, which mark what is
indexed (templates/post.html, only in such an export): the post's text (`data-pagefind-body`), its
title and date (`data-pagefind-meta`), its language and tags (`data-pagefind-filter`). The parts
of a post page the live search does not index either (the byline, links to translations and
other posts, the comments) are left out by `EXCLUDED`.

Pagefind splits its index into chunks and fragments that a query fetches as it needs them; it
runs as WebAssembly, so the page's CSP allows `'wasm-unsafe-eval'` (web/http/security.py), the
one source it adds.

`page_urls` are the export's search pages (`/search/`, `/zh/search/`): the form sends its query
there; without script that page says search needs JavaScript.

Incremental: the index is rebuilt only when an exported HTML file changed (their names, sizes and
mtimes, which a build leaves alone when the bytes are the same, fingerprint it in `STAMP`);
otherwise the previous build's index files are kept as they are.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import tempfile
from asyncio.subprocess import PIPE, STDOUT
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Protocol

from masthead.config import Site
from masthead.content import urls
from masthead.errors import MastheadError
from masthead.search.segment import HAN

log = logging.getLogger(__name__)

FOLDER = "pagefind"  # the bundle's folder in OUT, and its URL path /pagefind/
STAMP = ".masthead-search.json"  # what the index was made from (a build's own file)
# what the live search does not index on a post page either (search/document.py: title, tags,
# categories, excerpt, body, code)
EXCLUDED = (
    ".post-meta",
    ".post-translations",
    ".post-links",
    "#mh-comments",
    ".toc-rail",
    ".toc-sheet",
)
INDEX_LANGUAGE = "en"  # one index: English words stemmed, Han characters words of their own
_HAN_CHAR = HAN.pattern[:-1]  # one Han character
_HAN_EDGE = re.compile(f"(?<=\\S)(?={_HAN_CHAR})|(?<={_HAN_CHAR})(?=\\S)")
# Pagefind's own search interfaces: the export draws its results itself (static-search.js)
UNUSED = ("pagefind-ui.", "pagefind-modular-ui.", "pagefind-component-ui.", "pagefind-highlight.")


class SearchIndexError(MastheadError):
    """Pagefind could not index the export (it is missing, or it failed)."""


class Writer(Protocol):
    """Where the index files go: export.build.Output (written only when their bytes change,
    listed in the build's manifest)."""

    root: Path
    previous: set[str]

    def write(self, rel: str, data: bytes) -> None: ...


def wanted(site: Site) -> bool:
    """Whether an export of `site` carries its own search: when it has no `api_url` (with one,
    its pages search on that masthead)."""
    return not site.settings.api_url


def page_urls(site: Site) -> list[str]:
    """The export's search page of each language (`/search/`, `/zh/search/`), or none."""
    if not wanted(site):
        return []
    return [urls.lang_path(lang.prefix, "/search/") for lang in site.languages.values()]


def fingerprint(root: Path, pages: Iterable[str]) -> str:
    """A hash of the HTML files `pages` (OUT-relative) as they are on disk: name, size, mtime."""
    h = hashlib.sha256()
    for rel in sorted(p for p in pages if p.endswith(".html")):
        try:
            st = (root / rel).stat()
        except OSError:
            continue
        h.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


async def write(output: Writer, pages: Collection[str]) -> int:
    """Index the exported pages (`pages`: OUT-relative file names written by this build) into
    `OUT/pagefind/` through `output`; the number of index files. Kept as it is when no HTML file
    changed since the index was made. Raises `SearchIndexError` when Pagefind fails."""
    root = output.root
    stamp = json.dumps(
        {
            "pagefind": _version(),
            "excluded": EXCLUDED,
            "han": "spaced",  # indexed_html
            "pages": fingerprint(root, pages),
        }
    )
    kept = sorted(r for r in output.previous if r.startswith(FOLDER + "/"))
    if kept and _read(root / STAMP) == stamp and all((root / r).is_file() for r in kept):
        for rel in kept:
            output.write(rel, (root / rel).read_bytes())
        output.write(STAMP, stamp.encode())
        return len(kept)
    with tempfile.TemporaryDirectory(prefix="masthead-pagefind-") as tmp:
        await _index(root, sorted(pages), Path(tmp))
        written = 0
        bundle = Path(tmp) / "bundle"
        for path in sorted(bundle.rglob("*")):
            rel = path.relative_to(bundle).as_posix()
            if path.is_file() and not rel.startswith(UNUSED):
                output.write(f"{FOLDER}/{rel}", path.read_bytes())
                written += 1
    output.write(STAMP, stamp.encode())
    return written


async def _index(root: Path, pages: list[str], into: Path) -> None:
    """Run Pagefind over the exported post pages among `pages` (those marking a
    `data-pagefind-body`), its bundle written into `into`. Pagefind reads each page as
    `indexed_html` gives it (a copy in a staging folder), as one language (`INDEX_LANGUAGE`):
    one index for the whole site."""
    stage = into / "pages"
    bundle = into / "bundle"
    found = 0
    for rel in pages:
        if not rel.endswith(".html"):
            continue
        data = (root / rel).read_bytes()
        if b"data-pagefind-body" in data:
            path = stage / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(indexed_html(data.decode("utf-8")), encoding="utf-8")
            found += 1
    if not found:
        return
    config = {
        "site": str(stage),
        "output_path": str(bundle),
        "force_language": INDEX_LANGUAGE,
        "exclude_selectors": list(EXCLUDED),
    }
    (into / "pagefind.json").write_text(json.dumps(config), encoding="utf-8")
    binary = _binary()
    proc = await asyncio.create_subprocess_exec(
        str(binary), "--silent", cwd=into, stdout=PIPE, stderr=STDOUT
    )
    said, _ = await proc.communicate()
    if proc.returncode != 0 or not (bundle / "pagefind-entry.json").is_file():
        text = said.decode("utf-8", "replace").strip().splitlines()
        raise SearchIndexError(
            f"{root}: Pagefind failed (exit status {proc.returncode}): {' '.join(text[-3:])}"
        )
    log.info("search index: %d posts", found)


def _binary() -> Path:
    """The Pagefind executable of the `pagefind[extended]` package (or PAGEFIND_BINARY_PATH)."""
    try:
        from pagefind.service import get_executable
    except ImportError as exc:  # pragma: no cover - a dependency of masthead
        raise SearchIndexError(f"Pagefind is not installed ({exc})") from None
    binary = get_executable()
    if binary is None or not binary.is_file():
        raise SearchIndexError("Pagefind's executable is missing: pip install 'pagefind[extended]'")
    return binary


def indexed_html(html: str) -> str:
    """A page as Pagefind indexes it: a space on each side of every Han character (unless there
    is one), so that each is a word of its own, apart from the punctuation and Latin letters
    next to it, and a query's Han run is found as the phrase of its characters (static-search.js)
    wherever a post holds it, as the live search finds any Han string a post contains
    (search/segment.py). Pagefind's own Chinese segmentation (jieba, while the browser cuts the
    query with its own, ICU's) found only some. The exported page is left as it is; the search
    page takes these spaces out of the titles and snippets it shows."""
    return _HAN_EDGE.sub(" ", html)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pagefind")
    except PackageNotFoundError:  # pragma: no cover
        return ""


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None
