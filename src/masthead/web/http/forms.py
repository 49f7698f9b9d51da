"""Form bodies read as UTF-8 text, or refused: never silently garbled.

Starlette's form parser decodes `application/x-www-form-urlencoded` bytes as Latin-1 before
percent-decoding, so UTF-8 sent unencoded (`curl -d 'body=很好'`) arrived as mojibake, and it
reads a `multipart/form-data` part that is not valid in its charset as Latin-1. Here:

- `parse_urlencoded(body)` is the WHATWG URL Standard's application/x-www-form-urlencoded
  parser (§5.1): split on `&`, the first `=` parts name from value, `+` is a space, percent-
  decode the bytes, then decode them as UTF-8, strictly: bytes that are not UTF-8 raise
  `FormNotUTF8` (where the standard would put U+FFFD) so nothing a reader typed is changed
  behind their back.
- `parse(headers, body)` reads either form type; multipart through Starlette's parser with a
  strict decoding of its text parts (the part's charset, UTF-8 unless the request names one).
- `read(request)` reads a request's body (at most `MAX_BODY` bytes, else `FormTooLarge`, 413)
  and parses it. Any other content type gives an empty form, as Starlette's does.

`FormNotUTF8` is a 400 `BadRequest` naming the `field` and carrying `kept`: the whole form
decoded with U+FFFD in place of the bad bytes, so a page can send the reader's text back.

- `read_body` turns a body the server could not deliver whole (a malformed chunked body: the
  server ends the stream, Starlette raises `ClientDisconnect`) into `BodyCutShort`, a 400.
- `parse_json(raw)` is a JSON body as a value, or a 400 `BadRequest` for bytes that are not
  UTF-8 JSON or that nest deeper than `MAX_JSON_DEPTH` (1,000 levels used to exhaust Python's
  recursion limit inside `json.loads`: a 500).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncGenerator
from typing import Any
from urllib.parse import unquote_to_bytes

from starlette.datastructures import FormData, Headers, UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import ClientDisconnect, Request

from masthead.errors import BadRequest, HTTPError

__all__ = [
    "BodyCutShort",
    "FormNotUTF8",
    "FormTooLarge",
    "parse",
    "parse_json",
    "parse_urlencoded",
    "read",
    "read_body",
]

MAX_BODY = 1024 * 1024  # bytes of one form request
MAX_FIELDS = 1000  # as Starlette's default
URLENCODED = "application/x-www-form-urlencoded"
MULTIPART = "multipart/form-data"
SCOPE_KEY = "masthead.form"  # where `read` keeps the parsed form for the request
MAX_JSON_DEPTH = 64  # arrays and objects inside each other in a JSON body
CUT_SHORT = (
    "the request body could not be read: it is malformed (a broken chunked encoding?) or was "
    "cut short; nothing was stored"
)


class FormNotUTF8(BadRequest):
    """A 400: field `field` of a form is not valid UTF-8 (or the charset it names). `kept` is
    the form decoded with U+FFFD for the bad bytes (to send back, never to store)."""

    def __init__(self, field: str, kept: FormData) -> None:
        super().__init__(
            f"{field}: the form's text is not valid UTF-8; send it again from the page "
            "(or percent-encode it as UTF-8)"
        )
        self.field = field
        self.kept = kept


class BodyCutShort(BadRequest):
    """A 400: the server ended the request's body before its end (a malformed chunked body)."""

    def __init__(self) -> None:
        super().__init__(CUT_SHORT)


class FormTooLarge(HTTPError):
    """A 413: the form request is larger than `MAX_BODY` bytes."""

    status = 413


def _pairs(body: bytes) -> list[tuple[bytes, bytes]]:
    """The percent-decoded name and value bytes of each non-empty `&`-separated sequence."""
    out = []
    for sequence in body.split(b"&"):
        if not sequence:
            continue
        name, _, value = sequence.partition(b"=")
        out.append(
            (
                unquote_to_bytes(name.replace(b"+", b" ")),
                unquote_to_bytes(value.replace(b"+", b" ")),
            )
        )
    if len(out) > MAX_FIELDS:
        raise BadRequest(f"the form has more than {MAX_FIELDS} fields")
    return out


def parse_urlencoded(body: bytes) -> list[tuple[str, str]]:
    """`(name, value)` pairs of an application/x-www-form-urlencoded `body` (WHATWG URL
    Standard §5.1), in order, blanks kept; `FormNotUTF8` when a name or value is not UTF-8,
    `BadRequest` past `MAX_FIELDS` fields."""
    pairs = _pairs(body)
    out: list[tuple[str, str]] = []
    for name, value in pairs:
        try:
            out.append((name.decode("utf-8"), value.decode("utf-8")))
        except UnicodeDecodeError:
            kept = FormData(
                [(n.decode("utf-8", "replace"), v.decode("utf-8", "replace")) for n, v in pairs]
            )
            raise FormNotUTF8(name.decode("utf-8", "replace"), kept) from None
    return out


class _StrictMultiPart(MultiPartParser):
    """Starlette's multipart parser, but a text part that is not valid in the form's charset
    is remembered (and kept with U+FFFD) instead of being read as Latin-1."""

    bad_field: str | None = None

    def on_part_end(self) -> None:
        part = self._current_part
        if part.file is not None:
            super().on_part_end()
            return
        data = bytes(part.data)
        try:
            value = data.decode(self._charset)
        except UnicodeDecodeError:
            value = data.decode(self._charset, "replace")
            self.bad_field = self.bad_field or part.field_name
        self.items.append((part.field_name, value))


async def _once(body: bytes) -> AsyncGenerator[bytes, None]:
    yield body


async def parse(headers: Headers, body: bytes) -> FormData:
    """The form in `body` by its `Content-Type` in `headers`: URL-encoded (`parse_urlencoded`)
    or multipart (Starlette's parser, strict decoding); an empty form for any other type.
    Raises `FormNotUTF8` (400) or `BadRequest` (400, a malformed multipart body)."""
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    if kind == URLENCODED:
        fields: list[tuple[str, str | UploadFile]] = [*parse_urlencoded(body)]
        return FormData(fields)
    if kind != MULTIPART:
        return FormData()
    parser = _StrictMultiPart(headers, _once(body), max_fields=MAX_FIELDS)
    try:
        form = await parser.parse()
    except MultiPartException as exc:
        raise BadRequest(f"the form cannot be read: {exc.message}") from None
    if parser.bad_field is not None:
        await form.close()
        text = FormData([(k, v) for k, v in form.multi_items() if not isinstance(v, UploadFile)])
        raise FormNotUTF8(parser.bad_field, text)
    return form


async def read(request: Request, max_body: int = MAX_BODY) -> FormData:
    """The form of `request` (see `parse`), its body at most `max_body` bytes (`FormTooLarge`,
    413, past it). Read once: a second call answers the same form (kept in the ASGI scope)."""
    cached = request.scope.get(SCOPE_KEY)
    if isinstance(cached, FormData):
        return cached
    form = await parse(request.headers, await read_body(request, max_body))
    request.scope[SCOPE_KEY] = form
    return form


async def read_body(request: Request, max_body: int = MAX_BODY) -> bytes:
    """The body of `request`, at most `max_body` bytes: `FormTooLarge` (413) as soon as the
    declared length or the bytes received pass it, so a larger body is never held whole."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_body:
        raise FormTooLarge(f"the request is larger than {max_body} bytes")
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > max_body:
                raise FormTooLarge(f"the request is larger than {max_body} bytes")
            chunks.append(chunk)
    except ClientDisconnect:
        raise BodyCutShort() from None
    return b"".join(chunks)


_JSON_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]')  # strings (skipped) and brackets


def json_depth(raw: bytes, stop: int = MAX_JSON_DEPTH + 1) -> int:
    """How deep arrays and objects nest in the JSON text `raw` (brackets in strings ignored),
    counted up to `stop` at most."""
    depth = deepest = 0
    for match in _JSON_TOKENS.finditer(raw):
        token = match.group()
        if token in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
            if deepest >= stop:
                break
        elif token in (b"]", b"}"):
            depth -= 1
    return deepest


def parse_json(raw: bytes) -> Any:
    """The JSON value in `raw` (UTF-8); a 400 `BadRequest` when it is not JSON or nests deeper
    than `MAX_JSON_DEPTH` levels (checked before parsing: nothing recurses on it)."""
    if json_depth(raw) > MAX_JSON_DEPTH:
        raise BadRequest(f"the JSON body nests deeper than {MAX_JSON_DEPTH} levels")
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise BadRequest(f"the body is not JSON: {exc}") from None
