"""Pygments' rules joined into one expression a state (`content/lexing.py`) give Pygments' own
tokens: for every fenced block of the test corpus, for every `RegexLexer` Pygments ships over
short texts meant to reach their states, and for a lexer with the rules that cannot be joined."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pygments import highlight as pygments_highlight
from pygments.lexer import RegexLexer, bygroups, default
from pygments.lexers import find_lexer_class_by_name, get_all_lexers, get_lexer_by_name
from pygments.token import Comment, Keyword, Name, Number, Operator, String, Text, Whitespace
from pygments.util import ClassNotFound

from masthead.content import lexing
from masthead.content.highlight import _FORMATTER, _highlighted

DATA = Path(__file__).parent / "data"
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})([^\s`]+)[^\n]*\n(.*?)^ {0,3}\1", re.M | re.S)

# short texts in the shapes most languages share (strings, comments, numbers, nesting, markup,
# here-documents, template tags), with the odd character: each lexer meets several of its states
SAMPLES = [
    "",
    "\n",
    "x",
    'def f(a, *b, **c):\n    """doc"""\n    return f"{a!r:>10}" + \'s\' # c\n',
    'for (int i = 0; i < 10; i++) { printf("%d\\n", i); } /* block */ // line\n',
    '#!/bin/sh\nx=$((1 + 2)); echo "${x:-none}" `date` <<EOF\nbody $x\nEOF\n'
    "cat <<-'END'\n\tq\n\tEND\n",
    '<html><body class="a"><!-- c --><script>var a = 1;</script><?php echo $b; ?></body>\n',
    "SELECT a, COUNT(*) FROM t WHERE b = 'x''y' AND c > 0x1F -- note\nGROUP BY a;\n",
    "{{ value | filter }} {% if x %}<% ruby %>[[link]] ${expr} @{at} #{interp}\n",
    'key: [1, 2.5e-3, \'q\', "dq\\""] # yaml\n- item\n  nested: {a: b}\n',
    "(define (f x) (if (> x 0) 'pos #t)) ; lisp\n\\begin{x} $m^2$ \\end{x} % tex\n",
    "\t\t\x00\x01 é 中文 \u200b 🙂 \r\n'unterminated\n\"open\n/* open\n",
]


def corpus_blocks() -> list[tuple[str, str]]:
    """(language, code) of every fenced block with a language in the test corpus's posts."""
    found = []
    for path in sorted(DATA.rglob("*.md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [(m.group(2).lower(), m.group(3)) for m in FENCE.finditer(text)]
    return found


def _lexers(name: str) -> tuple[RegexLexer, RegexLexer] | None:
    try:
        plain = get_lexer_by_name(name)
    except ClassNotFound:
        return None
    return plain, lexing.speed_up(get_lexer_by_name(name))


def test_every_block_of_the_corpus_gets_pygments_tokens_and_html():
    blocks = corpus_blocks()
    checked = set()
    for lang, code in blocks:
        pair = _lexers(lang)
        if pair is None:
            continue
        plain, fast = pair
        assert list(fast.get_tokens(code)) == list(plain.get_tokens(code)), (lang, code[:80])
        html = _highlighted(code, lang)
        assert html == pygments_highlight(code, plain, _FORMATTER)
        assert 'class="w"' not in html  # no span around whitespace (highlight._Formatter)
        checked.add(type(plain).__name__)
    # the languages of the k8s posts: shell, YAML, Go, JSON…
    assert {"BashLexer", "YamlLexer", "GoLexer"} <= checked, checked
    assert len(blocks) > 50


PARTS = 4  # the comparison below in tests of their own, so the suite's workers share it


def regex_lexer_names() -> list[str]:
    """The first alias of every lexer Pygments ships that is a `RegexLexer` (its class is
    looked at, not made: making one compiles its rules)."""
    names = []
    for _name, aliases, _files, _mime in get_all_lexers():
        try:
            lexer = find_lexer_class_by_name(aliases[0]) if aliases else None
        except ClassNotFound:
            continue
        if lexer is not None and issubclass(lexer, RegexLexer):
            names.append(aliases[0])
    return names


@pytest.mark.slow
@pytest.mark.parametrize("part", range(PARTS))
def test_every_regex_lexer_of_pygments_gives_its_own_tokens(part):
    """Every PARTS-th of the RegexLexers, from the `part`-th: the parts together compare
    them all."""
    names = regex_lexer_names()
    assert len(names) > 300  # Pygments 2.x ships about 490 RegexLexers
    for name in names[part::PARTS]:
        plain, fast = _lexers(name)  # type: ignore[misc]
        assert isinstance(plain, RegexLexer), name
        for text in SAMPLES:
            assert list(fast.get_tokens(text)) == list(plain.get_tokens(text)), (name, text)


def test_the_lexers_of_common_languages_are_joined():
    """Most states of Python, Go and shell become one expression (else the index's highlighting
    silently pays Pygments' rule loop again)."""
    for name in ("python", "go", "bash", "yaml", "javascript"):
        plain, fast = _lexers(name)  # type: ignore[misc]
        if type(plain).get_tokens_unprocessed is not RegexLexer.get_tokens_unprocessed:
            continue  # YAML's lexer has its own loop: left as Pygments wrote it
        assert fast.get_tokens_unprocessed is not plain.get_tokens_unprocessed
        segments = lexing._state_segments(plain._tokens)
        rules = sum(len(r) for r in plain._tokens.values())
        assert sum(len(segments[state]) for state in plain._tokens) * 3 < rules, name


class Tricky(RegexLexer):
    """Rules that cannot all be joined: a numbered backreference, a rule with other flags,
    leading inline flags (joined as a scoped group), a callback, `default`, a state stack."""

    name = "tricky"
    flags = re.MULTILINE
    tokens: ClassVar[dict[str, list[Any]]] = {
        "root": [
            (r"(?i)select\b", Keyword),  # joined as (?i:…)
            (r"\d+", Number),
            (r"<<(\w+)\n.*?\n\1\n", String),  # \1: alone
            (r"/\*", Comment, "comment"),
            (r"(\w+)(\s*)(=)", bygroups(Name, Whitespace, Operator)),  # a callback
            (r"\w+", Name),
            (r"\s+", Whitespace),
            (r"\(", Operator, "#push"),
            (r"\)", Operator, "#pop"),
        ],
        "comment": [
            (r"\*/", Comment, "#pop"),
            (r"(?s).", Comment),  # joined as (?s:…)
            default("#pop"),
        ],
    }


class Ascii(RegexLexer):
    """A rule with a flag that has no scoped form to join it with (`(?a)`): kept alone."""

    name = "ascii"
    tokens: ClassVar[dict[str, list[Any]]] = {
        "root": [(r"(?a)\w+", Name), (r"\w+", Text), (r"\s+", Whitespace)]
    }


def test_rules_that_cannot_be_joined_keep_their_meaning():
    text = "SeLeCt 12 x = y <<END\nbody\nEND\n/* a\n* */ (f(g)) ) ? z\n"
    plain, fast = Tricky(), lexing.speed_up(Tricky())
    tokens = list(fast.get_tokens(text))
    assert tokens == list(plain.get_tokens(text))
    assert (Keyword, "SeLeCt") in tokens and (String, "<<END\nbody\nEND\n") in tokens
    root = lexing._state_segments(plain._tokens)["root"]
    alone = [rule[0].__self__.pattern for _m, group, rule in root if group is None]
    assert alone == [r"<<(\w+)\n.*?\n\1\n"]
    assert len(root) == 3  # the rules before it joined, the reference alone, the rules after
    text = "ab é 中文 x1\n"
    tokens = list(lexing.speed_up(Ascii()).get_tokens(text))
    assert tokens == list(Ascii().get_tokens(text)) and (Text, "é") in tokens
    first, *rest = lexing._state_segments(Ascii()._tokens)["root"]
    assert first[1] is None and len(rest) == 1 and rest[0][1] is not None


class Verbose(RegexLexer):
    """A lexer compiled with VERBOSE whose rules end in comments: joined, each branch closed
    after its comment."""

    name = "verbose"
    flags = re.VERBOSE
    tokens: ClassVar[dict[str, list[Any]]] = {
        "root": [
            (r"a+  # a run of a", Name),
            (r"\#.*", Comment),
            (r"\s+", Text),
            (r"b # a b", Text),
        ]
    }


def test_verbose_rules_with_comments_are_joined_and_keep_their_meaning():
    text = "aa b # x\nab"
    assert list(lexing.speed_up(Verbose()).get_tokens(text)) == list(Verbose().get_tokens(text))
    assert len(lexing._state_segments(Verbose()._tokens)["root"]) == 1
