"""A tag, category or slug whose URL segment is longer than a file name may be (issue
29, D6: a 258-byte tag passed `check` and was served, then `masthead build` stopped with "File
name too long"). Every permalink segment is cut to 200 bytes of UTF-8 with a short hash of the
whole after it (`content.urls.shorten`), in the one function every permalink goes through, so
`check`, the served site and the export agree on the same short URL."""

from __future__ import annotations

import re
from urllib.parse import unquote

import pytest

from masthead.content.urls import MAX_SEGMENT_BYTES, segment, shorten

from support.cli import invoke as masthead
from support.sites import post

LONG_TAG = "很长的标签" * 20  # 100 characters, 300 bytes of UTF-8
LONG_SLUG = "a-very-long-slug-" * 20  # 340 bytes


@pytest.fixture
def site(make_site):
    return make_site(
        {
            "posts/a.md": post("A", "2024-03-01", tags=f"['{LONG_TAG}', 'short']",
                               categories=f"['{LONG_TAG}x']", slug=LONG_SLUG),
        }
    )  # fmt: skip


def test_check_serve_and_build_agree_on_long_segments(site, serve, tmp_path):
    code, out = masthead("check", site.root)
    assert code == 0, out
    client = serve(site)
    page = client.get(f"/posts/{shorten(LONG_SLUG.strip('-'))}/")
    assert page.status_code == 200, page.text[:200]
    links = {unquote(h) for h in re.findall(r'href="([^"]+)"', page.text)}
    term_links = sorted(h for h in links if re.fullmatch(r"/(tags|categories)/[^/]+/", h))
    assert len(term_links) == 3, term_links
    for link in term_links:
        name = link.strip("/").split("/")[1]
        assert len(name.encode()) <= MAX_SEGMENT_BYTES, link
        assert client.get(link).status_code == 200, link
    out_dir = tmp_path / "out"
    code, out = masthead("build", site.root, out_dir)
    assert code == 0, out
    for link in [*term_links, page.url.path]:
        assert (out_dir / unquote(link).strip("/") / "index.html").is_file(), link
    assert "/tags/short/" in term_links


def test_shorten_keeps_short_text_and_cuts_long_text_between_characters():
    assert shorten("kubelet") == "kubelet"
    cut = shorten(LONG_TAG)
    assert len(cut.encode()) <= MAX_SEGMENT_BYTES and cut.startswith("很长的标签")
    assert cut != shorten(LONG_TAG + "二") and shorten(LONG_TAG) == cut  # apart, and stable
    assert re.fullmatch(r".+-[0-9a-f]{8}", cut)
    assert segment("x" * 300) == shorten("x" * 300)
    assert len(segment("é" * 200).encode()) <= MAX_SEGMENT_BYTES


def test_a_permalink_pattern_cuts_each_long_segment():
    from datetime import UTC, datetime

    from masthead.content.permalinks import Fields, expand

    fields = Fields(datetime(2024, 3, 1, tzinfo=UTC), "Title " * 60, "", "base", "")
    path = expand("/:year/:title/", "", fields)
    parts = [unquote(p) for p in path.strip("/").split("/")]
    assert parts[0] == "2024" and all(len(p.encode()) <= MAX_SEGMENT_BYTES for p in parts)
