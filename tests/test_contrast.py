"""Code colours meet WCAG 2.2's 4.5:1 on the code background in both themes (issue 13, item 1:
Pygments' comment token `.c1` was 2.6:1 and `.go` 3.1:1)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from masthead.web.render.contrast import luminance, ratio, readable
from masthead.web.routes.ops import CODE_BG_DARK, CODE_BG_LIGHT

from support.sites import post

ROOT = Path(__file__).parent.parent
TOKEN = re.compile(r"(?<![-\w])color: (#[0-9a-fA-F]{3,6})")


def test_the_wcag_formula():
    assert ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)  # WCAG's famous grey
    assert luminance("#fff") == pytest.approx(1.0)
    fixed = readable("#60A0B0", CODE_BG_LIGHT)
    assert ratio(fixed, CODE_BG_LIGHT) >= 4.5 and fixed != "#60A0B0"
    assert readable("#000000", CODE_BG_LIGHT) == "#000000"  # already readable: unchanged


def test_every_token_colour_served_is_readable_in_both_themes(make_site, serve):
    client = serve(make_site({"posts/a.md": post("A", body="```python\n# hi\n```\n")}))
    css = client.get("/static/css/highlight.css").text
    # the light colours; the dark ones by the system setting, and by the reader's choice
    light, by_system, by_choice = re.split(r"^@media screen.*\{$", css, flags=re.M)
    assert 'html:not([data-theme="light"]) .highlight .c1' in by_system
    assert 'html[data-theme="dark"] .highlight .c1' in by_choice
    checked = 0
    blocks = ((light, CODE_BG_LIGHT), (by_system, CODE_BG_DARK), (by_choice, CODE_BG_DARK))
    for block, background in blocks:
        for line in block.splitlines():
            if ".highlight ." not in line:
                continue
            own = re.search(r"background-color: (#[0-9a-fA-F]{3,6})", line)
            for colour in TOKEN.findall(line):
                under = own.group(1) if own else background
                assert ratio(colour, under) >= 4.5, (line, round(ratio(colour, under), 2))
                checked += 1
    assert checked > 150
    assert ".highlight .c1" in light and ".highlight .go" in by_choice


def test_the_code_background_is_the_stylesheets():
    css = (
        __import__("pathlib").Path(__file__).parent.parent / "src/masthead/web/static/css/site.css"
    ).read_text(encoding="utf-8")
    found = re.findall(r"--code-bg: (#[0-9a-fA-F]{6})", css)
    # light; dark by the system setting; dark by the reader's choice (print is white)
    assert found == [CODE_BG_LIGHT, CODE_BG_DARK, CODE_BG_DARK]
