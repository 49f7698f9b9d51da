"""Issue 13's light/dark switch, search suggestions and print stylesheet, checked without a
browser: the markup every page carries, the palettes in site.css, the search log, the static
export. (Their behaviour in Chromium: test_theme_browser.py.)"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from bs4 import BeautifulSoup

from masthead.export.build import build

from support.sites import post, write_site

ROOT = Path(__file__).parent.parent
CSS = (ROOT / "src/masthead/web/static/css/site.css").read_text(encoding="utf-8")
FILES = {
    "posts/kubelet.md": post("Kubelet basics", body="Kubelet runs pods.\n"),
    "posts/kubelet.zh.md": post("Kubelet 入门", body="节点上的代理。\n"),
}


def _palette(block: str) -> dict[str, str]:
    return dict(re.findall(r"(--[\w-]+):\s*(#[0-9a-fA-F]{3,6})", block))


def test_the_chosen_dark_palette_is_the_systems():
    """site.css's dark palette is written twice (the media query, for the system setting and
    for pages without script; `html[data-theme=dark]`, for the reader's choice): the same."""
    by_system = re.search(
        r'@media \(prefers-color-scheme: dark\) \{\s*:root:not\(\[data-theme="light"\]\) \{(.*?)\}',
        CSS,
        re.S,
    )
    by_choice = re.search(r'html\[data-theme="dark"\] \{(.*?)\}', CSS, re.S)
    assert by_system and by_choice
    dark = _palette(by_system.group(1))
    assert len(dark) == 8 and dark == _palette(by_choice.group(1))
    light = _palette(CSS[: CSS.index("@media")])
    assert set(light) >= set(dark), "every dark colour overrides a light one"


def test_every_page_has_the_switch_and_the_head_script(make_site, serve):
    client = serve(make_site(FILES))
    for url in ("/", "/zh/", "/posts/kubelet/", "/zh/posts/kubelet/", "/archive/", "/search?q=k"):
        soup = BeautifulSoup(client.get(url).text, "html.parser")
        buttons = soup.select("header .theme-switch")
        assert len(buttons) == 1, url
        button = buttons[0]
        assert button.name == "button" and button["type"] == "button"
        assert button["aria-pressed"] == "false" and button["aria-label"]
        scripts = [s["src"].split("?")[0] for s in soup.head.find_all("script", src=True)]
        assert "/static/js/theme.js" in scripts and "/static/js/suggest.js" in scripts, url
        theme = soup.head.find("script", src=re.compile(r"^/static/js/theme\.js"))
        assert not theme.has_attr("defer") and not theme.has_attr("async")
        for form in soup.select("form.search-form"):
            assert form["data-suggest"] and "{n}" in form["data-suggest-count"], url
    zh = BeautifulSoup(client.get("/zh/").text, "html.parser")
    assert zh.select_one(".theme-switch")["aria-label"] == "深色主题"
    assert client.get("/static/js/theme.js").status_code == 200
    assert client.get("/static/js/suggest.js").status_code == 200


def _logged(client) -> list[str]:
    service = client.app.state.search
    service.log.flush(everything=True)
    with sqlite3.connect(service.log.path) as conn:
        return [r[0] for r in conn.execute("SELECT query FROM search_log ORDER BY id")]


def test_suggestion_requests_are_not_logged(make_site, serve):
    client = serve(make_site(FILES))
    for prefix in ("kub", "kube", "kubel"):  # a prefix has three letters at least (MIN_PREFIX)
        r = client.get("/api/search", params={"q": prefix + "*", "suggest": "1", "per_page": 6})
        assert r.status_code == 200 and r.json()["hits"], prefix
    assert _logged(client) == []
    assert client.get("/api/search", params={"q": "kubelet"}).json()["total"] == 2
    assert _logged(client) == ["kubelet"]
    assert client.get("/search", params={"q": "pods"}).status_code == 200
    assert _logged(client) == ["kubelet", "pods"]
    # a bad value is the API's usual 422, not a 500
    r = client.get("/api/search", params={"q": "k", "suggest": "perhaps"})
    assert r.status_code == 422 and "suggest" in r.json()["error"]["message"]


def test_the_static_export_carries_the_scripts(tmp_path):
    site = write_site(tmp_path / "site", FILES)
    out = tmp_path / "out"
    build(site, out)
    for name in ("theme.js", "suggest.js"):
        exported = out / "static" / "js" / name
        assert exported.read_bytes() == (ROOT / "src/masthead/web/static/js" / name).read_bytes()
    pages = list(out.rglob("index.html"))
    assert len(pages) >= 4
    for page in pages:
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        if soup.find("meta", attrs={"http-equiv": "refresh"}):
            continue  # a redirect page
        assert soup.head.find("script", src=re.compile(r"^/static/js/theme\.js")), page
        assert soup.select_one("header .theme-switch"), page


def _blocks(css: str, opening: str) -> list[str]:
    """The text inside each `opening` ... matching `}` of `css`."""
    found = []
    for match in re.finditer(re.escape(opening), css):
        depth, i = 1, match.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(css[i], 0)
            i += 1
        found.append(css[match.end() : i - 1])
    return found


def test_print_hides_the_controls_and_prints_link_addresses():
    """The print rules name every control the issue lists (their effect: the browser test)."""
    rules = "\n".join(_blocks(CSS, "@media print {"))
    for control in (".site-nav", ".search-form", ".lang-switch", ".theme-switch",
                    ".comment-form-section"):  # fmt: skip
        assert control in rules, control
    assert "attr(href)" in rules and ':not([href^="#"])' in rules
