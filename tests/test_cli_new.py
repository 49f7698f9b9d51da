"""`masthead new` as a fresh user met it (session 6): `--translation-of` writes one
`translationKey` into both files, so the pair survives a rename of the original; a title with no
words never collides with an earlier one. The real CLI (CliRunner), the real index and app."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from masthead.cli import app
from masthead.indexing.indexer import index_site
from masthead.store import comments as comments_store
from masthead.store.db import Database

from support.sites import BILINGUAL_TOML, new_comment, post

runner = CliRunner()


def cli(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args))


def _thread(site, url: str) -> str:  # type: ignore[no-untyped-def]
    db = Database(site.database_path)
    try:
        index_site(site, db)
        row = db.read().execute("SELECT translation_key FROM posts WHERE url = ?", (url,))
        return str(row.fetchone()[0])
    finally:
        db.close()


def test_new_translation_of_writes_one_translation_key_into_both_files(make_site, serve):
    """The original (CRLF line endings, a UTF-8 byte-order mark, commented already) gets one
    line, `translationKey`, and nothing else of it changes; the translation gets the same key;
    the original renamed later keeps its translation (hreflang) and its comments."""
    original = "\ufeff" + post("Harbour", "2024-03-01", body="Harbour words.\n", tags="[a, b]")
    site = make_site({"posts/harbour.md": original.replace("\n", "\r\n").encode("utf-8")})
    path = site.content_dir / "posts/harbour.md"
    before = path.read_bytes()
    key = _thread(site, "/posts/harbour/")
    db = Database(site.database_path)
    try:
        comment = new_comment(key, "A comment from before", post_url="/posts/harbour/")
        comments_store.add(db, comment, "reader")
    finally:
        db.close()

    result = cli("new", str(site.root), "港口", "--lang", "zh", "--translation-of", str(path))
    assert result.exit_code == 0, result.output
    made = Path(result.output.strip())
    assert made == site.content_dir / "posts/harbour.zh.md"
    line = b'translationKey: "posts/harbour"'
    assert line + b"\n" in made.read_bytes()
    after = path.read_bytes()
    assert after.count(line) == 1
    assert after.replace(line + b"\r\n", b"", 1) == before  # one line added, CRLF kept

    made.write_text(made.read_text(encoding="utf-8").replace("draft: true\n", ""), "utf-8")
    assert _thread(site, "/posts/harbour/") == _thread(site, "/zh/posts/harbour/")
    path.rename(site.content_dir / "posts/renamed.md")  # later: the pair holds by its key
    _thread(site, "/posts/renamed/")
    client = serve(site)
    zh = client.get("/zh/posts/harbour/")
    assert zh.status_code == 200
    assert 'hreflang="en" href="https://example.com/posts/renamed/"' in zh.text
    en = client.get("/posts/renamed/")
    assert "A comment from before" in en.text
    assert 'href="https://example.com/zh/posts/harbour/"' in en.text


def test_new_translation_of_an_original_with_a_key_leaves_it_alone(make_site):
    site = make_site({"posts/a.md": post("A", translationKey="kept")})
    before = (site.content_dir / "posts/a.md").read_bytes()
    result = cli(
        "new", str(site.root), "甲", "--lang", "zh", "--translation-of", "content/posts/a.md"
    )
    assert result.exit_code == 0, result.output
    assert 'translationKey: "kept"' in Path(result.output.strip()).read_text(encoding="utf-8")
    assert (site.content_dir / "posts/a.md").read_bytes() == before


def test_new_translation_of_an_original_that_does_not_parse_is_refused(make_site):
    bad = "---\ntitle: Broken: yes\ndate: 2024-03-01\n---\nBody.\n"
    site = make_site({"posts/bad.md": bad})
    result = cli(
        "new", str(site.root), "坏", "--lang", "zh", "--translation-of", "content/posts/bad.md"
    )
    assert result.exit_code == 2, result.output
    assert "content/posts/bad.md" in result.output
    assert (site.content_dir / "posts/bad.md").read_text() == bad
    assert not (site.content_dir / "posts/bad.zh.md").exists()


def test_titles_with_no_words_get_free_names_and_never_overwrite(make_site):
    site = make_site({"posts/a.md": post("A")})
    made = []
    for title in ("!!!", "???", "…", "!!!"):
        result = cli("new", str(site.root), title)
        assert result.exit_code == 0, result.output
        made.append(Path(result.output.strip()))
    names = [p.relative_to(site.content_dir).as_posix() for p in made]
    assert names == [
        "posts/untitled.md",
        "posts/untitled-2.md",
        "posts/untitled-3.md",
        "posts/untitled-4.md",
    ]
    assert [p.read_text(encoding="utf-8").split("\n")[1] for p in made] == [
        'title: "!!!"',
        'title: "???"',
        'title: "…"',
        'title: "!!!"',
    ]
    zh = cli("new", str(site.root), "！！", "--lang", "zh")
    assert zh.exit_code == 0 and zh.output.strip().endswith("posts/untitled.zh.md"), zh.output
    again = cli("new", str(site.root), "A")  # a title with words: its file, or a clear refusal
    assert again.exit_code == 2 and "exists already; not overwritten" in again.output


TRILINGUAL_TOML = BILINGUAL_TOML + '\n[languages.fr]\nname = "Français"\nprefix = "fr"\n'


def test_a_third_language_keeps_the_pair_the_original_had_by_its_file_name(make_site, serve):
    """x.md and x.zh.md are translations by base name (no key): a French translation made of
    x.md writes the key into both, so the English–Chinese pair and its comments stay whole."""
    site = make_site(
        {
            "posts/x.md": post("Ex", "2024-03-01", body="English words.\n"),
            "posts/x.zh.md": post("叉", "2024-03-01", body="中文。\n"),
        },
        TRILINGUAL_TOML,
    )
    key = _thread(site, "/posts/x/")
    db = Database(site.database_path)
    try:
        comments_store.add(db, new_comment(key, "On the pair", post_url="/posts/x/"), "reader")
    finally:
        db.close()
    result = cli(
        "new", str(site.root), "Ixe", "--lang", "fr", "--translation-of", "content/posts/x.md"
    )
    assert result.exit_code == 0, result.output
    for name in ("x.md", "x.zh.md", "x.fr.md"):
        text = (site.content_dir / "posts" / name).read_text(encoding="utf-8")
        assert text.count('translationKey: "posts/x"') == 1, name
    made = site.content_dir / "posts/x.fr.md"
    made.write_text(made.read_text(encoding="utf-8").replace("draft: true\n", ""), "utf-8")
    assert _thread(site, "/posts/x/") == _thread(site, "/zh/posts/x/") == "k:posts/x"
    client = serve(site)
    for url in ("/posts/x/", "/zh/posts/x/", "/fr/posts/x/"):
        page = client.get(url).text
        assert "On the pair" in page, url
        for other in {"/posts/x/", "/zh/posts/x/", "/fr/posts/x/"} - {url}:
            assert f'href="https://example.com{other}"' in page, (url, other)
