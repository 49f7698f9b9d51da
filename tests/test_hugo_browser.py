"""Hugo's highlighted code in a real browser (issue 30): line numbers are drawn but never
selected or copied with the code, and a highlighted line is marked by its background."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser

from masthead.web.app import create_app

from support.servers import uvicorn_server
from support.sites import BILINGUAL_TOML, post, write_site

CODE = "def next_high(table):\n    return min(table)\n\nprint(next_high([3, 1]))\n"
BODY = (
    'Tides.\n\n{{< highlight python "linenos=table,hl_lines=2,linenostart=7" >}}\n'
    + CODE
    + "{{< /highlight >}}\n"
)


def test_line_numbers_are_not_copied_and_marked_lines_show(
    browser: Browser, tmp_path: Path
) -> None:
    site = write_site(tmp_path / "s", {"posts/tides.md": post("Tides", body=BODY)}, BILINGUAL_TOML)
    with uvicorn_server(create_app(site)) as base:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
        page = context.new_page()
        page.goto(base + "/posts/tides/")
        numbers = page.locator(".code-block .ln")
        assert numbers.all_text_contents() == [" 7", " 8", " 9", "10"]  # padded as Hugo's
        assert numbers.first.evaluate("n => getComputedStyle(n).userSelect") == "none"
        lines = page.locator(".code-block .line")
        background = lines.evaluate_all("ls => ls.map(l => getComputedStyle(l).backgroundColor)")
        plain = "rgba(0, 0, 0, 0)"
        assert background[0] == plain and background[1] != plain and background[2] == plain
        # each line on its own row: four rows of one line height
        tops = lines.evaluate_all("ls => ls.map(l => Math.round(l.getBoundingClientRect().top))")
        assert len(set(tops)) == 4 and tops == sorted(tops)
        page.locator("button.code-copy").click()
        page.wait_for_function(
            "() => document.querySelector('.code-copy-status').textContent.trim() !== ''"
        )
        assert page.evaluate("navigator.clipboard.readText()") == CODE
        context.close()
