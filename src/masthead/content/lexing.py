"""Pygments' `RegexLexer` loop with a state's rules tried in one regular expression.

Pygments lexes by trying the rules of the current state one after another at each position
(`RegexLexer.get_tokens_unprocessed`): one Python call to `Pattern.match` per rule tried, dozens
per token in the Python lexer, which made lexing 80% of the highlighting of a post. Here runs of
a state's rules are joined into one alternation, `(r1)|(r2)|…`, tried in one call. Python's `re`
tries the branches of an alternation in order and takes the first that matches at the position,
as Pygments does, so the rule found is the same; `m.lastindex` (the last group closed: the
branch's outer group) names it. The token text is the whole match; a rule whose action is a
callback (`bygroups`, `using`) is matched again alone, so that the callback gets the match
object with its own groups. The tokens are Pygments', one for one (tests/test_lexing.py: every
RegexLexer of Pygments over sample texts, every code block of the test corpus).

A rule stays alone, between the joined runs before and after it, when joining could change what
it matches: a backreference or a conditional group (group numbers shift in a join), flags of its
own that are not leading `(?imsx)` (those become a scoped group, `(?i:…)`), or a run whose join
does not compile (a group name used twice). A lexer class with a loop of its own (it overrides
`get_tokens_unprocessed`, as `ExtendedRegexLexer` and YAML do) is left as it is. A state is
joined when first entered, once per process: compiling a join costs about as much as Pygments'
own compile of those rules (Python's lexer: 0.1 s for the states a long file visits).

Measured (bench/bench_parse.py, the old BENCHMARKS.md): a Python block 1.6 → 1.1 ms, Go 0.64 → 0.33,
shell 0.43 → 0.22. The loop below follows Pygments 2.x `RegexLexer.get_tokens_unprocessed`
(pygments/lexer.py, BSD-2-Clause, © the Pygments team), with the inner rule loop replaced.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from types import MethodType
from typing import Any

from pygments.lexer import Lexer, RegexLexer
from pygments.token import Error, Whitespace, _TokenType

Rule = tuple[Callable[..., Any], Any, Any]  # (Pattern.match, action, new state) as Pygments'
Match = Callable[[str, int], "re.Match[str] | None"]
# a run of a state's rules: one match for all (the rules by the group of their branch), or
# one rule alone (None) when it cannot be joined
Segment = tuple[Match, dict[int, Rule] | None, Rule | None]

# id of a lexer's `_tokens` → its states (which keep those `_tokens`, so the id stays theirs)
_SEGMENTS: dict[int, _States] = {}
_REFERENCE = re.compile(r"\\[1-9]|\(\?P=|\(\?\(")
_LEADING_FLAGS = re.compile(r"\(\?([imsx]+)\)")
_FLAG_LETTERS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE}


def _refers_to_groups(pattern: str) -> bool:
    """Whether `pattern` may have a numbered backreference (`\\1`), a named one (`(?P=n)`) or a
    conditional group (`(?(1)…)`): read off the text, so an escaped backslash before a digit
    counts too (such a rule is only kept alone; parsing every rule would cost more than the
    join saves)."""
    return _REFERENCE.search(pattern) is not None


def _branch(pattern: re.Pattern[str], base: int) -> str | None:
    """`pattern` as a branch to compile with the flags `base`: as it is when compiled with
    them; its leading global flags (`(?i)…`) made scoped (`(?i:…)`) when they are all that
    differs; None when it cannot be joined (numbered references, other flags)."""
    if _refers_to_groups(pattern.pattern):
        return None
    if not pattern.pattern or pattern.flags == base:
        return pattern.pattern
    found = _LEADING_FLAGS.match(pattern.pattern)
    if found is None:
        return None
    letters = found.group(1)
    added = 0
    for letter in letters:
        added |= _FLAG_LETTERS[letter]
    if pattern.flags != base | added:
        return None
    body = pattern.pattern[found.end() :]
    return f"(?{letters}:{body}\n)" if "x" in letters else f"(?{letters}:{body})"


def _joined(run: list[tuple[str, Rule, int]], base: int) -> Segment | None:
    """One alternation of `run` ((branch, rule, groups) each), or None if it does not
    compile (a group name used twice)."""
    by_group, group = {}, 1
    for _branch_text, rule, groups in run:
        by_group[group] = rule
        group += 1 + groups
    try:
        # under VERBOSE a branch may end in a `# comment`: a newline ends it before the `)`
        end = "\n)" if base & re.VERBOSE else ")"
        joined = re.compile("|".join(f"({b}{end}" for b, _r, _g in run), base)
    except (re.error, OverflowError, RecursionError):
        return None
    return joined.match, by_group, None


def _segments(rules: list[Rule]) -> list[Segment]:
    """The rules of a state as segments tried in order: runs of joinable rules joined, any
    other rule alone (see the module's docstring)."""
    patterns = [getattr(r[0], "__self__", None) for r in rules]
    if not all(isinstance(p, re.Pattern) and isinstance(p.pattern, str) for p in patterns):
        return [(r[0], None, r) for r in rules]
    flags = [p.flags for p in patterns if p.pattern]  # type: ignore[union-attr]
    base = max(set(flags), key=flags.count, default=re.UNICODE)  # the lexer's flags
    segments: list[Segment] = []
    run: list[tuple[str, Rule, int]] = []

    def close() -> None:
        if len(run) > 1 and (joined := _joined(run, base)) is not None:
            segments.append(joined)
        else:
            segments.extend((rule[0], None, rule) for _b, rule, _g in run)
        run.clear()

    for pattern, rule in zip(patterns, rules, strict=True):
        branch = _branch(pattern, base)  # type: ignore[arg-type]
        if branch is None:
            close()
            segments.append((rule[0], None, rule))
        else:
            run.append((branch, rule, pattern.groups))  # type: ignore[union-attr]
    close()
    return segments


class _States(dict[str, list[Segment]]):
    """State → its segments, each state's joined when first entered (a lexer's rarer states,
    never: the join compiles its rules again, 5-60 ms a state for Python's)."""

    def __init__(self, tokendefs: dict[str, list[Rule]]) -> None:
        super().__init__()
        self.tokendefs = tokendefs

    def __missing__(self, state: str) -> list[Segment]:
        segments = self[state] = _segments(self.tokendefs[state])
        return segments


def _state_segments(tokendefs: dict[str, list[Rule]]) -> _States:
    """The segments of each state of `tokendefs` (a lexer's `_tokens`: its class's, or one
    an instance chose, as `CSharpLexer` does by `unicodelevel`), once per process."""
    key = id(tokendefs)
    found = _SEGMENTS.get(key)
    if found is None or found.tokendefs is not tokendefs:
        found = _SEGMENTS[key] = _States(tokendefs)
    return found


def get_tokens_unprocessed(
    self: RegexLexer, text: str, stack: tuple[str, ...] = ("root",)
) -> Iterator[tuple[int, Any, str]]:
    """`RegexLexer.get_tokens_unprocessed` over joined rules: `(index, token type, text)`."""
    pos = 0
    tokendefs = self._tokens
    states = _state_segments(tokendefs)
    statestack = list(stack)
    segments = states[statestack[-1]]
    while 1:
        for segment in segments:
            m = segment[0](text, pos)
            if m:
                break
        else:
            m = None
        if m:
            by_group = segment[1]
            rule = segment[2] if by_group is None else by_group[m.lastindex]  # type: ignore[index]
            rexmatch, action, new_state = rule  # type: ignore[misc]
            if action is not None:
                if type(action) is _TokenType:
                    yield pos, action, m.group()
                else:  # a callback reads the rule's own groups
                    yield from action(self, m if by_group is None else rexmatch(text, pos))
            pos = m.end()
            if new_state is not None:
                if isinstance(new_state, tuple):
                    for state in new_state:
                        if state == "#pop":
                            if len(statestack) > 1:
                                statestack.pop()
                        elif state == "#push":
                            statestack.append(statestack[-1])
                        else:
                            statestack.append(state)
                elif isinstance(new_state, int):
                    # pop, but keep at least one state on the stack (as Pygments)
                    if abs(new_state) >= len(statestack):
                        del statestack[1:]
                    else:
                        del statestack[new_state:]
                elif new_state == "#push":
                    statestack.append(statestack[-1])
                else:
                    raise AssertionError(f"wrong state def: {new_state!r}")
                segments = states[statestack[-1]]
            continue
        try:  # no rule matched
            if text[pos] == "\n":  # at the end of a line, back to "root"
                statestack = ["root"]
                segments = states["root"]
                yield pos, Whitespace, "\n"
                pos += 1
                continue
            yield pos, Error, text[pos]
            pos += 1
        except IndexError:
            break


def speed_up(lexer: Lexer) -> Lexer:
    """`lexer`, lexing with joined states when it is a plain `RegexLexer` (its class does not
    override `get_tokens_unprocessed`); any other lexer as it is. Changes this instance only."""
    if (
        isinstance(lexer, RegexLexer)
        and type(lexer).get_tokens_unprocessed is RegexLexer.get_tokens_unprocessed
    ):
        lexer.get_tokens_unprocessed = MethodType(get_tokens_unprocessed, lexer)  # type: ignore[method-assign]
    return lexer
