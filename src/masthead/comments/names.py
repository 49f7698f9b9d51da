"""Who a name looks like (issue 29 item 2): a reader's name that a reader of the page would take
for a staff member's is held. Pure, no SQL.

`fold(name)` is the form two names are compared in: NFKC (full-width and compatibility forms
to their plain letters), invisible characters removed (Unicode format characters, category Cf:
the zero-width space, joiners, the BOM, bidi marks; and the combining grapheme joiner), case
folded, the common confusables of Latin letters mapped to them (Cyrillic and Greek letters drawn
the same as a Latin one, from Unicode's confusables list, TR39), spaces, dots, hyphens and
underscores dropped, and accents kept (a different name, not a disguise). Two names are
the same to a reader when their folds are equal: `mei`, `MEI`, `mеi` (Cyrillic е) and
`m\\u200bei` all fold to `mei`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

# Cyrillic and Greek letters that draw as a Latin letter in common fonts (TR39 confusables,
# the single-letter entries whose target is a Latin letter), after case folding
_CONFUSABLES = str.maketrans(
    {
        # Cyrillic
        "а": "a",
        "в": "b",
        "с": "c",
        "ԁ": "d",
        "е": "e",
        "ё": "e",
        "һ": "h",
        "і": "i",
        "ї": "i",
        "ј": "j",
        "к": "k",
        "ӏ": "l",
        "м": "m",
        "н": "h",
        "о": "o",
        "р": "p",
        "ԛ": "q",
        "г": "r",
        "ѕ": "s",
        "т": "t",
        "ц": "u",
        "ѵ": "v",
        "ԝ": "w",
        "х": "x",
        "у": "y",
        "з": "3",
        # Greek
        "α": "a",
        "β": "b",
        "ε": "e",
        "η": "n",
        "ι": "i",
        "κ": "k",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "γ": "y",
        "ω": "w",
        # Latin look-alikes of other Latin letters
        "ı": "i",
        "ɩ": "i",
        "ɡ": "g",
        "ʏ": "y",
    }
)
_GAPS = str.maketrans("", "", " .-_'\u00b7\u30fb")
_INVISIBLE_EXTRA = {"\u034f", "\u115f", "\u1160", "\u3164", "\uffa0"}  # CGJ, Hangul fillers


def _visible(text: str) -> str:
    return "".join(
        ch
        for ch in text
        if unicodedata.category(ch) != "Cf" and ch not in _INVISIBLE_EXTRA and ch.isprintable()
    )


def fold(name: str) -> str:
    """`name` as it is compared with staff names (module docstring); "" for a name of nothing
    visible."""
    text = unicodedata.normalize("NFKC", _visible(name))
    text = _visible(text).casefold().translate(_CONFUSABLES)
    text = unicodedata.normalize("NFKC", text)
    return "".join(text.split()).translate(_GAPS)


def staff_name(name: str, staff: Iterable[str]) -> bool:
    """True when `name` folds to the fold of one of the `staff` display names."""
    wanted = fold(name)
    return bool(wanted) and any(fold(s) == wanted for s in staff)
