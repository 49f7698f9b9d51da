"""Mermaid diagrams (issue 32, item 2), without a browser: ```` ```mermaid ```` fences and the
`mermaid` shortcode become the source in a code block inside `figure.diagram-mermaid`; only
pages with one load the diagram script; Mermaid ships in the package's static files (MIT, its
licence beside it) and the export carries it."""

from __future__ import annotations

from pathlib import Path

from bs4 import BeautifulSoup

from masthead.content.post import parse_post
from masthead.export.build import build
from masthead.web.app import PACKAGE_STATIC

from support.sites import post

SOURCE = "graph TD\n  A[Write] --> B{Review}\n  B -->|ok| C[Publish]"
FENCE = f"Before.\n\n```mermaid\n{SOURCE}\n```\n\nAfter.\n"
SHORTCODE = f"Before.\n\n{{{{< mermaid >}}}}\n{SOURCE}\n{{{{< /mermaid >}}}}\n\nAfter.\n"
VENDOR = PACKAGE_STATIC / "vendor" / "mermaid"


def diagram(site, body: str):  # type: ignore[no-untyped-def]
    parsed = parse_post(site, "posts/d.md", post("D", body=body).encode())
    return BeautifulSoup(parsed.html, "html.parser").select_one("figure.diagram-mermaid")


def test_a_mermaid_fence_and_the_shortcode_give_the_source_as_a_code_block(make_site):
    site = make_site({})
    for body in (FENCE, SHORTCODE):
        figure = diagram(site, body)
        assert figure is not None, body
        code = figure.select_one(".code-block pre code.language-mermaid")
        assert code is not None and code.get_text() == SOURCE + "\n"


def test_a_shortcode_diagram_with_blank_lines_and_backticks_stays_whole(make_site):
    site = make_site({})
    source = "sequenceDiagram\n  A->>B: ```hi```\n\n  B->>A: ok"
    figure = diagram(site, f"{{{{< mermaid >}}}}\n{source}\n{{{{< /mermaid >}}}}\n")
    assert figure.select_one("code").get_text() == source + "\n"


def test_only_pages_with_a_diagram_load_the_diagram_script(make_site, serve):
    site = make_site({"posts/d.md": post("D", body=FENCE), "posts/p.md": post("P")})
    client = serve(site)
    page = BeautifulSoup(client.get("/posts/d/").text, "html.parser")
    script = page.select_one('script[src^="/static/js/diagrams.js"]')
    assert script is not None and script.has_attr("defer")
    module = script["data-mermaid"]
    assert module.startswith("/static/vendor/mermaid/mermaid.esm.min.mjs")
    r = client.get(module)
    assert r.status_code == 200 and "javascript" in r.headers["content-type"]
    plain = client.get("/posts/p/").text
    assert "diagrams.js" not in plain and "mermaid" not in plain
    assert "script-src 'self'" in client.get("/posts/d/").headers["content-security-policy"]


def test_mermaid_ships_in_the_package_with_its_licence_and_no_source_maps():
    entry = VENDOR / "mermaid.esm.min.mjs"
    assert entry.read_text().startswith("/*! mermaid ")
    assert "MIT License" in (VENDOR / "LICENSE").read_text()
    chunks = list((VENDOR / "chunks" / "mermaid.esm.min").glob("*.mjs"))
    assert chunks and not list(VENDOR.rglob("*.map"))
    assert all("sourceMappingURL" not in p.read_text()[-200:] for p in [entry, *chunks])


def test_the_export_carries_mermaid(make_site, tmp_path: Path):
    site = make_site({"posts/d.md": post("D", body=FENCE)})
    out = tmp_path / "public"
    build(site, out)
    assert (out / "static/js/diagrams.js").is_file()
    shipped = out / "static/vendor/mermaid"
    assert (shipped / "mermaid.esm.min.mjs").is_file()
    for chunk in (VENDOR / "chunks" / "mermaid.esm.min").glob("*.mjs"):
        assert (shipped / "chunks" / "mermaid.esm.min" / chunk.name).is_file(), chunk.name


def test_mermaid_is_served_compressed_even_its_largest_chunk(make_site, serve):
    client = serve(make_site({}))
    largest = max(
        (VENDOR / "chunks" / "mermaid.esm.min").glob("*.mjs"), key=lambda p: p.stat().st_size
    )
    url = "/static/vendor/mermaid/chunks/mermaid.esm.min/" + largest.name
    r = client.get(url, headers={"Accept-Encoding": "br, gzip"})
    assert r.status_code == 200 and r.headers["content-encoding"] in ("br", "gzip")
    assert int(r.headers["content-length"]) < largest.stat().st_size // 2
