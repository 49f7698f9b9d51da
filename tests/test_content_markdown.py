"""Post bodies: markdown-it.rs (markdown-it-pyrs) and its markdown-it-py fallback write the same
post, the one markdown-it-py wrote before (issue 14), and inputs markdown-it.rs panics on still
render."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from masthead.content import fallback, markdown
from masthead.content.post import parse_post
from masthead.content.tree import Html

DATA = Path(__file__).parent / "data"
GOLDEN = DATA / "markdown"
LABELS = {"footnotes_label": "Footnotes", "backref_label": "Back", "code_label": "Code"}
RUST = markdown.block_parser()
needs_rust = pytest.mark.skipif(
    RUST is None, reason="markdown-it-pyrs 0.4 has no wheel for this Python (3.13+)"
)


def _bodies() -> list[Path]:
    return sorted((DATA / "k8s-blog").rglob("*.md")) + sorted(GOLDEN.glob("*.md"))


def _render(tree: object) -> tuple[str, list[tuple[int, str, str]], object]:
    out = Html(LABELS)
    out.run(tree)
    return out.html(), out.headings, out.plain()


def test_markdown_it_rs_is_used_where_it_has_a_wheel() -> None:
    if sys.version_info < (3, 13):
        assert RUST is not None, "markdown-it-pyrs is a dependency below Python 3.13"


@needs_rust
@pytest.mark.parametrize("path", _bodies(), ids=lambda p: p.name)
def test_both_parsers_write_the_same_html_headings_and_text(path: Path) -> None:
    body = path.read_text(encoding="utf-8")
    assert _render(RUST.tree(body)) == _render(fallback.tree(body))


@pytest.mark.parametrize("name", ["torture", "torture-plain"])
@pytest.mark.parametrize("parser", ["default", "fallback"])
def test_a_post_with_every_construct_is_what_markdown_it_py_wrote(
    make_site, monkeypatch, name: str, parser: str
) -> None:  # type: ignore[no-untyped-def]
    if parser == "fallback":
        monkeypatch.setattr(markdown, "block_parser", lambda: None)
    src = (GOLDEN / f"{name}.md").read_text(encoding="utf-8")
    site = make_site({f"posts/{name}.md": src})
    post = parse_post(site, f"posts/{name}.md", src.encode())
    got = {
        "html": post.html,
        "toc_html": post.toc_html,
        "text": post.text,
        "code": post.code,
        "excerpt": post.excerpt,
    }
    assert got == json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("body", "html"),
    [
        ("Press [Ctrl]+[`] to open it", "<p>Press [Ctrl]+[`] to open it</p>\n"),
        ("a [`b", "<p>a [`b</p>\n"),
        # two lone backticks: an even count, so the cheap test passes it to markdown-it.rs,
        # which panics; the panic is caught and the body parsed again
        ("[a`\n\n[b`", "<p>[a`</p>\n<p>[b`</p>\n"),
    ],
)
def test_bodies_markdown_it_rs_panics_on_render(body: str, html: str) -> None:
    assert markdown.render(body).html == html


@needs_rust
def test_the_panic_is_real_so_the_fallback_is_needed() -> None:
    with pytest.raises(BaseException) as info:
        RUST.tree("[a`\n\n[b`")
    assert type(info.value).__name__ == "PanicException"


def test_footnotes_are_numbered_in_order_of_first_reference() -> None:
    out = markdown.render("b[^b] a[^a] b[^b]\n\n[^a]: A\n[^b]: B\n").html
    assert '<a href="#fn:1" id="fnref:1">[1]</a>' in out
    assert '<a href="#fn:1" id="fnref:1:1">[1:1]</a>' in out
    assert '<li id="fn:1" class="footnote-item"><p>B' in out
    assert '<li id="fn:2" class="footnote-item"><p>A' in out
    assert 'href="#fnref:1:1"' in out  # the second reference's back-link


def test_bare_email_addresses_become_mailto_links_but_not_inside_links() -> None:
    out = markdown.render("Write to team@example.org or [me@example.org](https://x.org).").html
    assert '<a href="mailto:team@example.org">team@example.org</a>' in out
    assert '<a href="https://x.org">me@example.org</a>' in out


DEEP = {
    "quotes": ">" * 100_000 + " x",  # markdown-it.rs: stack overflow, a segfault
    "lists": "1. " * 30_000 + "x",  # markdown-it.rs: a segfault when its tree is dropped
    "emphasis": "*a _b " * 3_000 + "x" + " c_ d*" * 3_000,  # seconds in markdown-it.rs
    "images": "[![a" * 1_000 + "](x)](" * 1_000 + "y)" * 1_000,
}


@pytest.mark.parametrize(
    "shape",
    # emphasis: over 1.5 s of CPU (contributing.md: the everyday loop)
    [pytest.param(s, marks=[pytest.mark.slow] if s == "emphasis" else []) for s in sorted(DEEP)],
)
def test_pathological_nesting_never_crashes_the_process(tmp_path, shape: str) -> None:
    """A segfault cannot be caught: the post is parsed in a child process, which must exit
    normally, with HTML (markdown-it-py caps block nesting at 20 levels) or, for thousands of
    levels of emphasis, a content error with the file and line."""
    (tmp_path / "content").mkdir()
    (tmp_path / "masthead.toml").write_text('title = "t"\nbase_url = "https://e.org"\n')
    post = "---\ntitle: Deep\ndate: 2024-01-01\n---\n" + DEEP[shape]
    code = (
        "import sys; from masthead.config import load_site; from masthead.errors import "
        "ContentError; from masthead.content.post import parse_post\n"
        "site = load_site(sys.argv[1])\n"
        "try: print('html', len(parse_post(site, 'deep.md', sys.stdin.buffer.read()).html))\n"
        "except ContentError as exc: print('error', exc)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        input=post.encode(),
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    out = done.stdout.decode()
    if shape == "emphasis":
        assert out.startswith("error content/deep.md:5") and "nested too deeply" in out, out
    else:
        assert out.startswith("html ") and int(out.split()[1]) > 0, out


@needs_rust
def test_a_tree_too_deep_for_python_is_written_from_the_fallback(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    body = "*a " * 3_000 + "b" + " c*" * 3_000  # markdown-it.rs nests 3,000 <em>
    monkeypatch.setattr(markdown, "_needs_fallback", lambda _body: False)
    assert RUST.tree(body) is not None  # markdown-it.rs itself copes, the writer cannot
    with pytest.raises(markdown.NestingError):
        markdown.render(body)
    shallow = "*a " * 200 + "b" + " c*" * 200  # 200 levels: the writer copes
    assert markdown.render(shallow).html.count("<em>") == 200
