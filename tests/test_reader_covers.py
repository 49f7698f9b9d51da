"""Issue 13 item 3 (READER): cover thumbnails on list cards, resized once with Pillow, cached on
disk by content hash and served for a year; broken images skipped (a `check` warning), never a
500. Real image files made with Pillow, the real app over HTTP."""

from __future__ import annotations

import io
import zlib

from bs4 import BeautifulSoup
from PIL import Image

from masthead.export.build import build
from masthead.indexing.check import check_site
from masthead.indexing.indexer import index_site
from masthead.store.db import Database

from support.sites import BILINGUAL_TOML, post


def png(width: int, height: int, colour: str = "#336699") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, "PNG")
    return out.getvalue()


def jpeg_rotated(width: int, height: int) -> bytes:
    """A JPEG stored `width`×`height` whose EXIF says: rotate 90° (a phone's portrait photo)."""
    out = io.BytesIO()
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: rotate 90° clockwise to display
    Image.new("RGB", (width, height), "#aa5500").save(out, "JPEG", exif=exif)
    return out.getvalue()


def bomb() -> bytes:
    """A valid PNG header (CRC and all) claiming 30000×30000 pixels: refused unread."""
    small = png(1, 1)
    ihdr = b"IHDR" + (30000).to_bytes(4, "big") * 2 + small[24:29]
    return small[:12] + ihdr + zlib.crc32(ihdr).to_bytes(4, "big") + small[33:]


SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="630" viewBox="0 0 1200 630">'
    '<rect width="1200" height="630" fill="#123"/></svg>'
)


def card_images(client, path: str = "/") -> dict[str, dict]:  # type: ignore[no-untyped-def]
    """Card title → its thumbnail's attributes (absent: no thumbnail)."""
    r = client.get(path)
    assert r.status_code == 200, r.text[:300]
    page = BeautifulSoup(r.text, "html.parser")
    out = {}
    for card in page.select("article.card"):
        img = card.find("img")
        if img is not None:
            out[card.select_one(".card__title a").get_text(strip=True)] = dict(img.attrs)
    return out


def test_a_raster_cover_becomes_lazy_sized_thumbnails_made_once(make_site, serve):
    site = make_site(
        {
            "posts/wide/index.md": post("Wide", "2024-03-01", cover="wide.png"),
            "posts/wide/wide.png": png(1000, 500),
            "posts/small.md": post("Small", "2024-03-02", cover="img/small.png"),
            "posts/img/small.png": png(200, 100),
            "posts/photo.md": post("Photo", "2024-03-03", cover="img/photo.jpg"),
            "posts/img/photo.jpg": jpeg_rotated(800, 400),
        },
        BILINGUAL_TOML.replace("posts_per_page = 3", "posts_per_page = 10"),
    )
    client = serve(site)
    images = card_images(client)
    wide = images["Wide"]
    assert (wide["width"], wide["height"]) == ("320", "160")
    assert wide["loading"] == "lazy" and wide["decoding"] == "async"
    assert wide["alt"] == ""  # the card's title names the post beside it
    assert wide["sizes"]
    candidates = [c.split() for c in wide["srcset"].split(", ")]
    assert [w for _u, w in candidates] == ["320w", "640w"]
    for url, w in candidates:
        r = client.get(url)
        assert r.status_code == 200 and r.headers["content-type"] == "image/webp"
        assert (
            "immutable" in r.headers["cache-control"]
            and "max-age=31536000" in (r.headers["cache-control"])
        )
        with Image.open(io.BytesIO(r.content)) as thumb:
            assert thumb.format == "WEBP" and thumb.width == int(w[:-1])
            assert thumb.height == thumb.width // 2
    assert images["Small"]["srcset"].endswith(" 200w")  # never enlarged
    assert (images["Small"]["width"], images["Small"]["height"]) == ("200", "100")
    assert (images["Photo"]["width"], images["Photo"]["height"]) == ("320", "640")  # EXIF turned
    # the first card's image may be the largest paint: fetched at once, never lazily
    assert images["Photo"]["fetchpriority"] == "high" and "loading" not in images["Photo"]
    assert images["Small"]["loading"] == "lazy"

    folder = site.database_path.parent / "thumbs"  # beside the database (README: Covers)
    made = {p.name: p.stat().st_mtime_ns for p in folder.glob("*.webp")}
    assert len(made) == 5  # 320 + 640 (wide), 200 (small), 320 + 640 (photo)
    # a new index generation renders the list again: the thumbnails are not made again
    (site.content_dir / "posts" / "new.md").write_text(post("New", "2024-04-01"))
    db = Database(site.database_path)
    index_site(site, db)
    db.close()
    assert "Wide" in card_images(client)
    assert {p.name: p.stat().st_mtime_ns for p in folder.glob("*.webp")} == made
    # a changed image is a new name (the old one stays valid for caches that hold it)
    (site.content_dir / "posts" / "wide" / "wide.png").write_bytes(png(1000, 250, "#993311"))
    (site.content_dir / "posts" / "new.md").write_text(post("Newer", "2024-04-02"))
    db = Database(site.database_path)
    index_site(site, db)
    db.close()
    again = card_images(client)["Wide"]
    assert again["src"] != wide["src"] and (again["width"], again["height"]) == ("320", "80")


def test_svg_covers_are_drawn_as_they_are_and_remote_covers_not_at_all(make_site, serve):
    site = make_site(
        {
            "posts/vector.md": post("Vector", "2024-03-01", cover="cover.svg"),
            "posts/cover.svg": SVG,
            "posts/remote.md": post("Remote", "2024-03-02", cover="https://cdn.example/x.png"),
        }
    )
    images = card_images(serve(site))
    vector = images["Vector"]
    assert vector["src"] == "/media/posts/cover.svg"
    assert (vector["width"], vector["height"]) == ("1200", "630")
    assert "srcset" not in vector and vector["fetchpriority"] == "high"  # the first image
    assert "Remote" not in images  # pages make no requests to other hosts


def test_broken_covers_get_no_thumbnail_and_a_check_warning_never_a_500(make_site, serve):
    truncated = png(640, 480)[:200]
    site = make_site(
        {
            "posts/fake.md": post("Fake", "2024-03-01", cover="fake.jpg"),
            "posts/fake.jpg": b"<html>not an image</html>",
            "posts/cut.md": post("Cut", "2024-03-02", cover="cut.png"),
            "posts/cut.png": truncated,
            "posts/gone.md": post("Gone", "2024-03-03", cover="gone.png"),
            "posts/bomb.md": post("Bomb", "2024-03-04", cover="bomb.png"),
            "posts/bomb.png": bomb(),
            "posts/nul.md": post("Nul", "2024-03-06", cover='"x%00.png"'),
            "posts/climb.md": post("Climb", "2024-03-07", cover='"../../../../etc/passwd"'),
            "posts/good.md": post("Good", "2024-03-05", cover="good.png"),
            "posts/good.png": png(400, 300),
            "authors/ann.md": "---\nname: Ann\n---\nHi.\n",
        }
    )
    client = serve(site)
    images = card_images(client)
    assert set(images) == {"Good"}
    assert client.get("/tags/").status_code == 200
    warned = {i.path: i.reason for i in check_site(site) if "cover" in i.reason}
    assert "not a readable image" in warned["content/posts/fake.md"]
    assert "not a readable image" in warned["content/posts/cut.md"]
    assert "pixels" in warned["content/posts/bomb.md"]
    assert "content/posts/good.md" not in warned


def test_a_static_export_carries_the_thumbnails_its_pages_use(make_site, tmp_path):
    site = make_site(
        {
            "posts/wide/index.md": post("Wide", "2024-03-01", cover="wide.png"),
            "posts/wide/wide.png": png(900, 300),
        }
    )
    out = tmp_path / "public"
    build(site, out)
    page = BeautifulSoup((out / "index.html").read_text(), "html.parser")
    img = page.select_one("article.card img")
    urls = [c.split()[0] for c in img["srcset"].split(", ")]
    assert len(urls) == 2
    for url in urls:
        with Image.open(out / url.lstrip("/")) as thumb:
            assert thumb.format == "WEBP"
    headers = (out / "_headers").read_text()
    assert "/thumbs/*\n  Cache-Control: public, max-age=31536000, immutable" in headers
