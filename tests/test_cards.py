"""Issue 32 item 4: share cards. A post without a cover gets a 1200×630 og:image made when it
is indexed: its title wrapped by a line breaker that knows Chinese (no line starts with 。，、 or
ends with 「《), the site's name, the date, the authors and the reading time its page shows
(item 7), in the site's colours, with a font that has the language's characters (found by
fontconfig or set in masthead.toml; with none, `check` says so and no card is made). Cached by
content hash; og:image:width, height and alt; in the export too. Real site folders, real fonts
(fonts-wqy-zenhei, which scripts/test.py installs, covers Chinese and Latin), the real app."""

from __future__ import annotations

import io
import re
import shutil
import unicodedata
from datetime import UTC, datetime
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from PIL import Image

from masthead.content import cards, linebreak
from masthead.content.fonts import system_font
from masthead.export.build import build
from masthead.indexing.check import check_site
from masthead.indexing.indexer import index_site
from masthead.store.db import Database

from support.sites import BILINGUAL_TOML, post

ZH_TITLE = "深度解析：Kubernetes 调度器「调度框架」的工作原理，以及《设计》为什么这样、那样。"
EMPTY_FONTCONFIG = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig></fontconfig>
"""


def soup(response) -> BeautifulSoup:  # type: ignore[no-untyped-def]
    assert response.status_code == 200, (response.status_code, response.text[:300])
    return BeautifulSoup(response.text, "html.parser")


def meta(page: BeautifulSoup, key: str) -> str | None:
    tag = page.find("meta", attrs={"property": key}) or page.find("meta", attrs={"name": key})
    return tag["content"] if tag else None


def card_files(site) -> list[Path]:  # type: ignore[no-untyped-def]
    return sorted(cards.folder_for(site.database_path).glob("*.png"))


def index(site) -> None:  # type: ignore[no-untyped-def]
    db = Database(site.database_path)
    index_site(site, db)
    db.close()


# --- the line breaker ---------------------------------------------------------------------


def cells(text: str) -> float:
    """A monospace measure: wide (Han, full-width punctuation) characters take two cells."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


@pytest.mark.parametrize("measure", ["cells", "font"])
def test_no_line_starts_with_closing_or_ends_with_opening_punctuation(measure):
    if measure == "font":
        found = system_font("zh-Hans")
        assert found is not None, "no Chinese font: apt-get install fonts-wqy-zenhei"
        from PIL import ImageFont

        font = ImageFont.truetype(str(found.path), 40, index=found.index)
        width_of, widths = font.getlength, range(160, 1200, 20)  # from the widest word, 《设计》
    else:
        width_of, widths = cells, range(8, 60)
    for width in widths:
        lines = linebreak.wrap(ZH_TITLE, width, width_of)
        joined = "".join(lines).replace(" ", "")
        assert joined == ZH_TITLE.replace(" ", ""), (width, lines)  # nothing lost
        for line in lines[1:]:
            assert line[0] not in "。，、：）」》", (width, lines)
        for line in lines:
            assert line[-1] not in "「《（", (width, lines)
            assert width_of(line) <= width, (width, lines)


def test_breaks_fall_between_words_never_inside_them():
    lines = linebreak.wrap("调度器「调度框架」的工作原理", 12, cells)
    assert lines == ["调度器「调度", "框架」的工作", "原理"]  # not 调度器「调 / 度框架…
    assert linebreak.wrap("A long English title about harbours", 14, cells) == [
        "A long English",
        "title about",
        "harbours",
    ]
    assert linebreak.wrap("一二三四五六七八九十" * 3, 10, cells, max_lines=2)[-1].endswith("…")


# --- cards on pages -------------------------------------------------------------------------


@pytest.fixture
def card_site(make_site):  # type: ignore[no-untyped-def]
    long_zh = "汉字" * 2000  # 4,000 Han characters: 10 minutes at 400 a minute
    return make_site(
        {
            "posts/plain.md": post("A harbour at dawn", author="Ann Lee"),
            "posts/plain.zh.md": post(ZH_TITLE, "2024-03-02", body=long_zh, author="李安"),
            "posts/covered.md": post("Covered", "2024-03-03", cover="/img/c.png"),
            "posts/draft.md": post("Draft", "2024-03-04", draft="true"),
        }
    )


def test_a_post_without_a_cover_gets_a_card_made_when_it_is_indexed(card_site, serve):
    index(card_site)
    made = card_files(card_site)
    assert len(made) == 2  # the two posts without a cover; none for the draft or the covered
    for path in made:
        with Image.open(path) as image:
            assert image.format == "PNG" and image.size == (1200, 630)
            colours = image.convert("RGB").getcolors(1_000_000)
            background = max(colours)[1]  # the site's page colour, #fbfaf7 (in a 64-colour palette)
            assert all(abs(a - b) <= 3 for a, b in zip(background, (0xFB, 0xFA, 0xF7), strict=True))
            inked = sum(n for n, c in colours if c != background)
            assert inked > 5_000  # a title was drawn, not an empty card
    client = serve(card_site)
    page = soup(client.get("/zh/posts/plain/"))
    image = meta(page, "og:image")
    assert re.fullmatch(r"https://example\.com/cards/[0-9a-f]{32}\.png", image)
    assert meta(page, "og:image:width") == "1200" and meta(page, "og:image:height") == "630"
    assert meta(page, "og:image:alt") == f"{ZH_TITLE} — Test site"
    assert meta(page, "twitter:card") == "summary_large_image"
    assert meta(page, "twitter:image:alt") == f"{ZH_TITLE} — Test site"
    served = client.get(image.removeprefix("https://example.com"))
    assert served.status_code == 200 and served.headers["content-type"] == "image/png"
    assert "immutable" in served.headers["cache-control"]
    assert (cards.folder_for(card_site.database_path) / image.rsplit("/", 1)[1]).is_file()
    # a post with a cover shares its cover, with no card
    covered = soup(client.get("/posts/covered/"))
    assert meta(covered, "og:image") == "https://example.com/img/c.png"
    assert meta(covered, "og:image:width") is None


def test_a_first_index_of_many_files_leaves_each_card_to_its_page(make_site, serve):
    from masthead.indexing.indexer import PARALLEL_MIN

    site = make_site({f"posts/p{n}.md": post(f"Post {n}") for n in range(PARALLEL_MIN)})
    index(site)
    assert card_files(site) == []  # drawing is costlier than parsing: not in a bulk pass
    page = soup(serve(site).get("/posts/p7/"))
    name = meta(page, "og:image").rsplit("/", 1)[1]
    assert [p.name for p in card_files(site)] == [name]


def test_the_card_says_the_reading_time_the_page_shows(card_site, serve):
    client = serve(card_site)
    reading = soup(client.get("/zh/posts/plain/")).select_one(".post-reading").get_text()
    assert reading == "阅读约 10 分钟"
    text = cards.card_text(
        card_site, "zh", ZH_TITLE, datetime(2024, 3, 2, tzinfo=UTC), ["李安"], 10
    )
    assert text.meta == "李安 · 2024年3月2日 · 阅读约 10 分钟"
    # so a longer body (a new reading time) is a new card, though the title is the same
    before = meta(soup(client.get("/zh/posts/plain/")), "og:image")
    (card_site.content_dir / "posts/plain.zh.md").write_text(
        post(ZH_TITLE, "2024-03-02", body="汉字" * 3600, author="李安"),
        encoding="utf-8",
    )
    index(card_site)
    page = soup(client.get("/zh/posts/plain/"))
    assert page.select_one(".post-reading").get_text() == "阅读约 18 分钟"
    assert meta(page, "og:image") != before


def test_cards_are_cached_by_content_hash(card_site):
    index(card_site)
    first = {p.name: p.stat().st_mtime_ns for p in card_files(card_site)}
    db = Database(card_site.database_path)
    index_site(card_site, db, full=True)  # every post parsed again: no card drawn again
    db.close()
    assert {p.name: p.stat().st_mtime_ns for p in card_files(card_site)} == first
    path = card_site.content_dir / "posts/plain.md"
    path.write_text(post("A harbour at noon", author="Ann Lee"), encoding="utf-8")
    index(card_site)
    names = {p.name for p in card_files(card_site)}
    assert len(names) == 3 and set(first) < names  # a new title, a new name


def test_without_a_font_for_a_language_check_says_so_and_no_card_is_made(
    make_site, serve, tmp_path, monkeypatch
):
    config = tmp_path / "fonts.conf"
    config.write_text(EMPTY_FONTCONFIG, encoding="utf-8")
    monkeypatch.setenv("FONTCONFIG_FILE", str(config))  # a system with no fonts at all
    site = make_site({"posts/a.md": post("A"), "posts/a.zh.md": post("甲")})
    warnings = [i for i in check_site(site) if "share card" in i.reason]
    assert [(i.path, i.severity) for i in warnings] == [("masthead.toml", "warning")] * 2
    assert "no font on this system has the characters of 中文 (zh)" in warnings[1].reason
    assert "share_cards.fonts.zh" in warnings[1].reason
    index(site)
    assert card_files(site) == []
    page = soup(serve(site).get("/zh/posts/a/"))
    assert meta(page, "og:image") is None and meta(page, "twitter:card") == "summary"


def test_a_font_set_in_masthead_toml_is_used_and_a_missing_one_is_named(
    make_site, tmp_path, monkeypatch
):
    found = system_font("zh-Hans")
    assert found is not None, "no Chinese font: apt-get install fonts-wqy-zenhei"
    config = tmp_path / "fonts.conf"
    config.write_text(EMPTY_FONTCONFIG, encoding="utf-8")
    monkeypatch.setenv("FONTCONFIG_FILE", str(config))  # only the configured font exists
    toml = (
        BILINGUAL_TOML + '\n[share_cards]\nfonts = { zh = "fonts/zh.ttc", en = "fonts/no.ttf" }\n'
    )
    site = make_site({"posts/a.md": post("A"), "posts/a.zh.md": post(ZH_TITLE)}, toml)
    (site.root / "fonts").mkdir()
    shutil.copy(found.path, site.root / "fonts/zh.ttc")
    warnings = [i.reason for i in check_site(site) if "share card" in i.reason]
    assert warnings == [
        "share_cards.fonts.en: fonts/no.ttf is not a file; 1 post(s) in en without a cover "
        "get no share card"
    ]
    index(site)
    assert len(card_files(site)) == 1  # the Chinese post's


def test_the_export_carries_the_cards_its_pages_name(card_site, tmp_path):
    out = tmp_path / "public"
    build(card_site, out)
    page = (out / "zh/posts/plain/index.html").read_text(encoding="utf-8")
    (name,) = re.findall(r'og:image" content="https://example.com/cards/([0-9a-f]{32}\.png)"', page)
    assert (out / "cards" / name).read_bytes() == (
        cards.folder_for(card_site.database_path) / name
    ).read_bytes()
    assert sorted(p.name for p in (out / "cards").iterdir()) == sorted(
        p.name for p in card_files(card_site)
    )
    assert "/cards/*\n  Cache-Control: public, max-age=31536000, immutable" in (
        out / "_headers"
    ).read_text(encoding="utf-8")


# --- the drawing: the same pixels as the straightforward way ---------------------------------


def straightforward(text: cards.CardText, settings, regular, bold, site_top: int) -> bytes:  # type: ignore[no-untyped-def]
    """A card drawn the plain way (`cards.VERSION` 3 as first written): the title on one
    card-sized mask, the site's name and the meta line on another, each mapped onto its ramp,
    the larger entry where both have one, the accent rule over all; as PNG bytes."""
    from PIL import ImageChops, ImageDraw

    def face(font, size):  # type: ignore[no-untyped-def]
        from PIL import ImageFont

        return ImageFont.truetype(str(font.path), size, index=font.index)

    size_px, width = (cards.WIDTH, cards.HEIGHT), cards.WIDTH - 2 * cards.MARGIN
    title_mask, muted_mask = Image.new("L", size_px, 0), Image.new("L", size_px, 0)
    muted = ImageDraw.Draw(muted_mask)
    muted.text((cards.MARGIN, site_top), text.site, font=face(regular, cards.SITE_SIZE), fill=255)
    for size in cards.TITLE_SIZES:
        font = face(bold, size)
        lines = linebreak.fill(text.title, width, font.getlength)
        if len(lines) <= cards.TITLE_LINES:
            break
    else:
        lines = linebreak.fill(text.title, width, font.getlength, cards.TITLE_LINES)
    top = cards.MARGIN + 32 + cards.SITE_SIZE + 48
    for n, line in enumerate(lines):
        ImageDraw.Draw(title_mask).text(
            (cards.MARGIN, top + n * round(size * 1.3)), line, font=font, fill=255
        )
    meta_font = face(regular, cards.META_SIZE)
    meta = linebreak.fill(text.meta, width, meta_font.getlength, 1)
    if meta:
        at = (cards.MARGIN, cards.HEIGHT - cards.MARGIN - cards.META_SIZE)
        muted.text(at, meta[0], font=meta_font, fill=255)
    ramp_title = [0] + [1 + v * (cards.TEXT_LEVELS - 2) // 255 for v in range(1, 256)]
    ramp_muted = [0] + [
        cards.TEXT_LEVELS + v * (cards.MUTED_LEVELS - 1) // 255 for v in range(1, 256)
    ]
    indices = title_mask.point(ramp_title)
    indices = ImageChops.lighter(indices, muted_mask.point(ramp_muted))
    m = cards.MARGIN
    ImageDraw.Draw(indices).rectangle((m, m, m + 96, m + 8), fill=cards.ACCENT)
    image = indices.convert("P")
    image.putpalette(cards.palette(settings))
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=cards.PNG_LEVEL)
    return out.getvalue()


@pytest.mark.parametrize("overlap", [False, True])
def test_a_card_is_the_same_pixels_and_bytes_as_drawn_the_plain_way(
    card_site, overlap, monkeypatch
):
    """The card drawing saves work (the site's name drawn once per process, a title that fits
    measured once, each mask mapped within its text's box): its PNG is byte for byte the
    plain way's, for English and Chinese titles of one to four lines, one cut with "…", and
    when the site's name and the meta line would meet (then they share one mask)."""
    cards._LOADED.__dict__.pop("names", None)  # names drawn by other tests
    site_top = cards._SITE_TOP
    if overlap:  # the name where the meta line is: they meet (no layout does this today)
        site_top = cards.HEIGHT - cards.MARGIN - cards.META_SIZE - 8
        monkeypatch.setattr(cards, "_SITE_TOP", site_top)
    shares = cards.ShareCards(card_site)
    titles = [
        ("en", "A harbour at dawn"),
        ("en", "The   quiet   harbour  meets the early ferry"),
        ("en", "Ågåpé gjpqy ÅÉÎ Ÿjÿ " * 3),
        ("en", "A very long title about the harbour and its many ferries " * 4),
        ("zh", ZH_TITLE),
        ("zh", ZH_TITLE * 4),
        ("zh", "港口"),
    ]
    for lang, title in titles:
        text = cards.card_text(card_site, lang, title, datetime(2024, 3, 2), ["Ann Lee", "李安"], 7)
        regular, bold = shares.fonts(lang)
        assert regular is not None and bold is not None
        drawn = io.BytesIO()
        cards.draw(text, shares.settings, regular, bold).save(
            drawn, "PNG", compress_level=cards.PNG_LEVEL
        )
        plain = straightforward(text, shares.settings, regular, bold, site_top)
        assert drawn.getvalue() == plain, title
        name_box = cards._site_name(text.site, regular)[1]
        assert (name_box[3] > cards.HEIGHT - cards.MARGIN - cards.META_SIZE) == overlap
        with Image.open(io.BytesIO(plain)) as image:
            assert image.size == (1200, 630) and image.mode == "P"
    cards._LOADED.__dict__.pop("names", None)  # the names drawn at the moved place


def test_a_title_that_fits_on_one_line_is_that_line_as_the_fill_gives_it():
    found = system_font("zh-Hans")
    assert found is not None, "no Chinese font: apt-get install fonts-wqy-zenhei"
    from PIL import ImageFont

    font = ImageFont.truetype(str(found.path), 46, index=found.index)
    titles = [ZH_TITLE, "A harbour at dawn", "  two  spaces ", "港口「新」", "x", ""]
    for width in range(0, 1400, 40):
        for title in titles:
            assert linebreak.wrap(title, width, font.getlength) == linebreak.fill(
                " ".join(title.split()), width, font.getlength
            ), (title, width)
            assert linebreak.wrap(title, width, cells, 2) == linebreak.fill(
                " ".join(title.split()), width, cells, 2
            )
