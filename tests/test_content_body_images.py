"""Responsive images in post bodies (issue 32, item 3): WebP renditions in `srcset` with the
column's `sizes`, named by content hash and made once, width and height kept, `loading="lazy"`
after the first image, `decoding="async"`, the original as `src` and as a link's target; Hugo's
`figure` shortcode the same; the export carries the renditions."""

from __future__ import annotations

import io

from bs4 import BeautifulSoup
from PIL import Image

from masthead.content.post import parse_post
from masthead.content.responsive import SIZES, WIDTHS
from masthead.export.build import build
from masthead.indexing.indexer import index_site
from masthead.store.db import Database

from support.sites import post


def photo(width: int, height: int, fmt: str = "JPEG") -> bytes:
    out = io.BytesIO()
    image = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    image.save(out, fmt)
    return out.getvalue()


SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20">'
    '<rect width="40" height="20"/></svg>'
)
BODY = """
![First photo](big.jpg)

Some words.

[![Linked photo](big.jpg)](big.jpg)

![Small](small.png) ![Vector](d.svg) ![Animated](a.gif) ![Remote](https://example.org/x.jpg)

{{< figure src="fig.jpg" alt="A figure" caption="The caption" >}}
"""


def files() -> dict[str, str | bytes]:
    return {
        "posts/p/index.md": post("Photos", body=BODY),
        "posts/p/big.jpg": photo(2400, 1600),
        "posts/p/small.png": photo(300, 200, "PNG"),
        "posts/p/fig.jpg": photo(1000, 500),
        "posts/p/d.svg": SVG,
        "posts/p/a.gif": photo(50, 50, "GIF"),
    }


def images(html: str) -> dict[str, dict[str, str]]:
    page = BeautifulSoup(html, "html.parser")
    return {img["alt"]: dict(img.attrs) for img in page.find_all("img")}


def widths(srcset: str) -> list[int]:
    return [int(c.split()[1][:-1]) for c in srcset.split(", ")]


def test_local_raster_images_get_webp_renditions_sizes_lazy_and_async(make_site):
    site = make_site(files())
    parsed = parse_post(
        site, "posts/p/index.md", (site.content_dir / "posts/p/index.md").read_bytes()
    )
    found = images(parsed.html)
    first = found["First photo"]
    assert first["src"] == "/media/posts/p/big.jpg", "the original stays the src"
    assert (first["width"], first["height"]) == ("2400", "1600")
    assert widths(first["srcset"]) == list(WIDTHS)
    assert first["sizes"] == SIZES and first["decoding"] == "async"
    assert "loading" not in first, "the first image may be in the first screen"
    assert first["fetchpriority"] == "high", "and, with no cover, be the largest paint"
    linked = found["Linked photo"]
    assert linked["loading"] == "lazy" and linked["srcset"] == first["srcset"]
    assert "fetchpriority" not in linked
    link = BeautifulSoup(parsed.html, "html.parser").find("img", alt="Linked photo").parent
    assert link.name == "a" and link["href"] == "/media/posts/p/big.jpg", "links keep the original"
    assert widths(found["Small"]["srcset"]) == [300], "never enlarged"
    for name in ("Vector", "Animated", "Remote"):
        assert "srcset" not in found[name], name
    assert found["Vector"]["loading"] == "lazy" and found["Vector"]["decoding"] == "async"
    figure = found["A figure"]
    assert widths(figure["srcset"]) == [480, 720, 1000] and figure["loading"] == "lazy"
    assert (figure["width"], figure["height"]) == ("1000", "500")

    folder = site.database_path.parent / "thumbs"
    for url, w in (c.split() for c in first["srcset"].split(", ")):
        assert url.startswith("/thumbs/") and url.endswith(f"-{w[:-1]}.webp")
        with Image.open(folder / url.removeprefix("/thumbs/")) as made:
            assert made.format == "WEBP" and made.width == int(w[:-1])
            assert made.height == round(made.width * 2 / 3)


def test_with_a_cover_the_first_body_image_is_eager_but_not_first_in_line(make_site):
    site = make_site({**files(), "posts/p/index.md": post("Photos", body=BODY, cover="fig.jpg")})
    parsed = parse_post(
        site, "posts/p/index.md", (site.content_dir / "posts/p/index.md").read_bytes()
    )
    first = images(parsed.html)["First photo"]
    assert "loading" not in first and "fetchpriority" not in first


def test_renditions_are_made_once_named_by_content_and_served_immutable(make_site, serve):
    site = make_site(files())
    client = serve(site)
    page = client.get("/posts/p/")
    assert page.status_code == 200
    srcset = images(page.text)["First photo"]["srcset"]
    for url in (c.split()[0] for c in srcset.split(", ")):
        r = client.get(url)
        assert r.status_code == 200 and r.headers["content-type"] == "image/webp"
        assert "immutable" in r.headers["cache-control"]
    folder = site.database_path.parent / "thumbs"
    made = {p.name: p.stat().st_mtime_ns for p in folder.glob("*.webp")}
    index = site.content_dir / "posts/p/index.md"
    index.write_text(index.read_text() + "\nMore words.\n")
    db = Database(site.database_path)
    index_site(site, db)
    db.close()
    assert {p.name: p.stat().st_mtime_ns for p in folder.glob("*.webp")} == made, "made once"
    (site.content_dir / "posts/p/big.jpg").write_bytes(photo(2000, 1000))
    index.write_text(index.read_text() + "\nAgain.\n")
    db = Database(site.database_path)
    index_site(site, db)
    db.close()
    again = images(client.get("/posts/p/").text)["First photo"]
    assert again["srcset"] != srcset, "a changed file is a new name"


def test_the_export_carries_the_body_renditions(make_site, tmp_path):
    site = make_site(files())
    out = tmp_path / "public"
    build(site, out)
    html = (out / "posts/p/index.html").read_text()
    for img in images(html).values():
        for url in (c.split()[0] for c in img.get("srcset", "").split(", ") if c):
            assert (out / url.lstrip("/")).is_file(), url
