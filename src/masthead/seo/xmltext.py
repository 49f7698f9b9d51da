"""XML serialisation shared by feeds and sitemaps: one declaration, UTF-8, no invalid characters.

Text is escaped by ElementTree (`&`, `<`, `>`, and quotes in attributes) exactly once. XML 1.0
forbids most C0 control characters, lone surrogates and U+FFFE/U+FFFF even when escaped, so they
are removed from every text and attribute value before serialising: one stray control character
in a title must not make a whole feed unreadable (case C27's kind of failure).
"""

from __future__ import annotations

import re

# ElementTree only writes XML here, it never parses untrusted input
import xml.etree.ElementTree as ET  # nosec B405
from collections.abc import Mapping

# XML 1.0 §2.2 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]
_INVALID = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def clean(text: str) -> str:
    """`text` without the characters XML 1.0 cannot carry (see module docstring)."""
    return _INVALID.sub("", text)


def element(
    parent: ET.Element | None,
    tag: str,
    text: str | None = None,
    attrs: Mapping[str, str] | None = None,
) -> ET.Element:
    """A new element (a child of `parent` when given) with cleaned text and attributes.

    Prefixed names (`atom:link`, `xhtml:link`, `xml:lang`) are written as given: the root element
    declares the prefixes, so no global `ET.register_namespace` state is touched.
    """
    values = {k: clean(v) for k, v in (attrs or {}).items()}
    node = ET.Element(tag, values) if parent is None else ET.SubElement(parent, tag, values)
    if text is not None:
        node.text = clean(text)
    return node


def document(root: ET.Element) -> str:
    """`root` as an indented UTF-8 XML document with its declaration, ending in a newline."""
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
