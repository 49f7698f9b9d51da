"""Mail addresses as the sender (`notify.messages`) writes them in headers, and the check made
on the mail settings when they load."""

from __future__ import annotations

import re
from email.errors import HeaderDefect
from email.headerregistry import Address

# Mail addresses: the syntax the sender (notify.messages) accepts, checked here on the settings.
# C0 and C1 controls (CR, LF, TAB...), DEL, line and paragraph separators, and the bidirectional
# embeddings, overrides and isolates that could make a subject read differently from its bytes
UNSAFE_IN_HEADER = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]+")


class InvalidAddress(ValueError):
    """An address that is not one plain addr-spec (`local@domain`, ASCII local part)."""


def one_line(text: str) -> str:
    """`text` fit for a header: control characters and line breaks as single spaces, runs of
    spaces collapsed, trimmed."""
    return " ".join(UNSAFE_IN_HEADER.sub(" ", text).split())


def address(addr_spec: str, display_name: str = "") -> Address:
    """An `Address` for `addr_spec` (trimmed) with `display_name` (through `one_line`). Raises
    `InvalidAddress` when `addr_spec` holds CR/LF, more than one address, a non-ASCII local
    part, or is not valid. A non-ASCII domain is given in its IDNA (xn--) form."""
    spec = addr_spec.strip()
    try:
        parsed = Address(addr_spec=spec)
    except (ValueError, HeaderDefect, IndexError) as exc:
        raise InvalidAddress(f"not a mail address: {spec!r} ({exc})") from None
    if not parsed.username or not parsed.domain or parsed.addr_spec != spec:
        raise InvalidAddress(f"not a single mail address: {spec!r}")
    try:  # an internationalised domain in its ASCII form (RFC 5890): SMTP commands are ASCII
        domain = parsed.domain.encode("idna").decode("ascii")
    except UnicodeError:
        raise InvalidAddress(f"not a mail domain: {spec!r}") from None
    return Address(one_line(display_name), parsed.username, domain)
