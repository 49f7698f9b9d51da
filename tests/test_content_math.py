"""TeX math to MathML when a post is indexed (issue 32, item 1): `$…$`, `$$…$$`, `\\(…\\)`,
`\\[…\\]` and ```` ```math ```` fences; Pandoc's rules for dollars; failures as code and a
warning with file and line; plain text (search) with the TeX, never MathML markup."""

from __future__ import annotations

from bs4 import BeautifulSoup

from masthead.content.post import parse_post
from masthead.indexing.check import check_site

from support.sites import post


def parse(site, body, **meta):  # type: ignore[no-untyped-def]
    return parse_post(site, "posts/m.md", post("Math", body=body, **meta).encode())


def soup(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "html.parser")


def test_every_delimiter_becomes_mathml_with_its_tex_as_alttext(make_site):
    site = make_site({})
    body = (
        "Inline $a_1 + b_1$ and \\(x^2\\) here.\n\n"
        "$$\\frac{a}{b}$$\n\n"
        "\\[\\sqrt{2}\\]\n\n"
        "```math\nE = mc^2\n```\n"
    )
    page = soup(parse(site, body).html)
    maths = page.find_all("math")
    assert [m["alttext"] for m in maths] == [
        "a_1 + b_1",
        "x^2",
        "\\frac{a}{b}",
        "\\sqrt{2}",
        "E = mc^2",
    ]
    assert [m["display"] for m in maths] == ["inline", "inline", "block", "block", "block"]
    assert maths[0].find("msub") is not None, "a_1 is a subscript, not emphasis"
    assert page.find("em") is None and "$" not in page.get_text()
    assert maths[2].find("mfrac") is not None and maths[3].find("msqrt") is not None


def test_dollar_amounts_and_escaped_dollars_stay_text(make_site):
    site = make_site({})
    body = "It costs $5 and $10.\n\nOr \\$x\\$ as written.\n\nA $ y$ b.\n\nC $z $ d.\n"
    page = soup(parse(site, body).html)
    assert page.find("math") is None
    assert "$5 and $10" in page.get_text() and "$x$" in page.get_text()
    assert soup(parse(site, "Pay $20,000 and $30,000.\n").html).find("math") is None


def test_a_closing_dollar_before_a_digit_does_not_close(make_site):
    site = make_site({})
    page = soup(parse(site, "From $x$ to $y$2 and $z$.\n").html)
    assert [m["alttext"] for m in page.find_all("math")] == ["x", "y$2 and $z"]


def test_code_is_never_math(make_site):
    site = make_site({})
    body = "Use `$HOME` and `$PATH`, then $x$.\n\n```sh\necho $a $b$\n```\n\n    $c$ indented\n"
    page = soup(parse(site, body).html)
    assert [m["alttext"] for m in page.find_all("math")] == ["x"]
    codes = [c.get_text() for c in page.find_all("code")]
    assert "$HOME" in codes and "$PATH" in codes
    assert any("echo $a $b$" in c for c in codes) and any("$c$ indented" in c for c in codes)


def test_tex_that_does_not_convert_is_code_and_a_warning_with_its_line(make_site):
    site = make_site({})
    body = "Fine $x$.\n\nBroken $x^$ here.\n\nUnknown \\(\\notacommand y\\).\n"
    parsed = parse(site, body)
    page = soup(parsed.html)
    errors = [c.get_text() for c in page.find_all("code", class_="math-error")]
    assert errors == ["$x^$", "\\(\\notacommand y\\)"]
    warnings = [(w.line, w.reason) for w in parsed.warnings if "math" in w.reason]
    # front matter: 4 lines, a blank line: the body starts on line 6
    assert [line for line, _ in warnings] == [8, 10]
    assert "x^" in warnings[0][1] and "notacommand" in warnings[1][1]


def test_check_reports_a_formula_that_does_not_convert_with_file_and_line(make_site):
    site = make_site({"posts/m.md": post("Math", body="Broken $\\frac{a}{b}^$ here.\n")})
    lines = [issue.format() for issue in check_site(site)]
    assert any(
        line.startswith("content/posts/m.md:6: warning: math") and "does not convert" in line
        for line in lines
    ), lines


def test_plain_text_has_the_words_around_a_formula_and_no_mathml(make_site):
    site = make_site({})
    parsed = parse(site, "Before the formula $\\alpha_1 + \\beta$ after it.\n")
    assert "Before the formula" in parsed.text and "after it" in parsed.text
    for markup in ("<math", "mrow", "msub", "alttext", "\ue002"):
        assert markup not in parsed.text and markup not in parsed.excerpt


def test_search_finds_the_words_around_a_formula_not_mathml(make_site, serve):
    site = make_site({"posts/m.md": post("Fish", body="Zebrafish grow $\\sqrt{x_1}$ quickly.\n")})
    client = serve(site)
    found = soup(client.get("/search", params={"q": "zebrafish quickly"}).text)
    assert "Zebrafish" in found.get_text(), "the words on both sides of the formula are found"
    for word in ("mrow", "msqrt", "alttext", "xmlns", "mathml"):
        page = soup(client.get("/search", params={"q": word}).text)
        assert "Zebrafish" not in page.get_text(), word


def test_math_in_headings_gives_tex_in_the_toc_and_mathml_in_the_page(make_site):
    site = make_site({})
    parsed = parse(site, "## The $\\alpha$ rule\n\nText.\n\n## Two\n\nMore.\n", toc="true")
    heading = soup(parsed.html).find("h2")
    assert heading.find("math") is not None
    assert "\ue002" not in parsed.toc_html and "\\alpha" in parsed.toc_html


def test_math_reaches_the_feed(make_site, serve):
    site = make_site({"posts/m.md": post("Math", body="Energy $E=mc^2$ here.\n")})
    client = serve(site)
    feed = BeautifulSoup(client.get("/feed.xml").text, "xml")
    body = soup(feed.find("item").find("content:encoded").get_text())
    assert body.find("math")["alttext"] == "E=mc^2" and body.find("msup") is not None


def test_an_authors_own_mathml_is_removed_and_tex_text_that_is_markup_is_code(make_site):
    site = make_site({})
    body = (
        "Raw <math><mtext><table><tr><td>x</td></tr></table></mtext></math> here.\n\n"
        "A formula $x+1$ and a bad one $\\text{<b>bold</b>}$.\n"
    )
    parsed = parse(site, body)
    page = soup(parsed.html)
    assert [m.get("alttext") for m in page.find_all("math")] == ["x+1"], "only the formula's"
    assert page.find("b") is None and page.find("table") is None
    assert [c.get_text() for c in page.find_all("code", class_="math-error")] == [
        "$\\text{<b>bold</b>}$"
    ]
    assert any("<b> in the formula" in w.reason for w in parsed.warnings)
