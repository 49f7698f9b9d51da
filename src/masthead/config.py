"""Site settings: `masthead.toml` (TOML, https://toml.io/en/v1.0.0) plus `MASTHEAD_*` variables.

Each setting is declared once below, with its type, default and help text (the README's settings
table is checked against these declarations by the tests). Unknown keys and bad types raise
`ConfigError` at start-up, naming the key. Booleans and numbers are strict (`StrictBool`,
`StrictInt`): in the file only TOML's `true` and `false`, and TOML integers (a string "yes" or
"5", a number 1 for a boolean, a float 5.0 are refused, not guessed); a `MASTHEAD_*` variable is
text, so there one of `ENV_TRUE` or `ENV_FALSE` (any case) stands for a boolean, and decimal
digits (`ENV_INT`) for a number.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import tomllib
from dataclasses import dataclass
from email.errors import HeaderDefect
from email.headerregistry import Address
from email.utils import getaddresses, parseaddr
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
    field_validator,
)

from masthead.errors import ConfigError

CONFIG_FILE = "masthead.toml"
ENV_PREFIX = "MASTHEAD_"
ENV_TRUE = ("true", "1", "yes", "on")  # MASTHEAD_* spellings of a boolean, compared lower-cased
ENV_FALSE = ("false", "0", "no", "off")
ENV_INT = re.compile(r"[+-]?[0-9]+")  # a MASTHEAD_* number, spaces around it stripped


# Permalink patterns (`[permalinks]`): their grammar; content.permalinks expands them.
DEFAULT_POSTS = "/posts/:slugorcontentbasename/"
DEFAULT_PAGES = "/:slugorcontentbasename/"

PERMALINK_TOKEN = re.compile(r":([A-Za-z]+)")
PERMALINK_DATE_TOKENS = {"year", "month", "day", "monthname", "weekday", "weekdayname", "yearday"}
PERMALINK_NAME_TOKENS = {"slug", "title", "slugorcontentbasename", "slugorfilename"}
PERMALINK_BASE_TOKENS = {"contentbasename", "filename"}
TOKENS = frozenset(
    PERMALINK_DATE_TOKENS | PERMALINK_NAME_TOKENS | PERMALINK_BASE_TOKENS | {"section"}
)
PERMALINK_UNSAFE = re.compile(r"[?#\\\s%]|/{2}|(?:^|/)\.{1,2}(?:/|$)")


def validate_permalink(pattern: str) -> str:
    """Return `pattern` if it is a usable permalink pattern, else raise ValueError saying why.

    A pattern starts and ends with `/`, uses only known tokens, has a token that tells posts apart
    (`:slug`, `:title`, `:slugorcontentbasename`, or `:contentbasename` and friends), and has no
    `?`, `#`, `%`, `\\`, spaces, `//`, `.` or `..` segments (which would not round-trip as a path).
    """
    if not pattern.startswith("/") or not pattern.endswith("/"):
        raise ValueError(f"{pattern!r}: a permalink starts and ends with '/'")
    unknown = sorted({t for t in PERMALINK_TOKEN.findall(pattern) if t not in TOKENS})
    if unknown:
        known = " ".join(f":{t}" for t in sorted(TOKENS))
        raise ValueError(f"{pattern!r}: unknown token :{unknown[0]} (known: {known})")
    used = set(PERMALINK_TOKEN.findall(pattern))
    if not used & (PERMALINK_NAME_TOKENS | PERMALINK_BASE_TOKENS):
        raise ValueError(
            f"{pattern!r}: needs :slug or :title (or :slugorcontentbasename), "
            "or every post would get one URL"
        )
    if PERMALINK_UNSAFE.search(PERMALINK_TOKEN.sub("x", pattern)):
        raise ValueError(
            f"{pattern!r}: no '?', '#', '%', '\\', spaces, '//' or '.'/'..' segments in a permalink"
        )
    return pattern


class LanguageSettings(BaseModel):
    """One `[languages.CODE]` table."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="Name shown in the language switcher, e.g. 中文.")
    prefix: str | None = Field(
        None, description="URL prefix; the default language has none, others default to the code."
    )
    hreflang: str | None = Field(
        None,
        description="What <html lang> and hreflang links say, a BCP 47 code such as zh-Hans "
        "(default: the code).",
    )
    folder: str | None = Field(
        None, description="content/FOLDER/... belongs to this language (Hugo's layout); optional."
    )
    locale: str | None = Field(
        None, description="Babel locale for dates, e.g. zh_Hans_CN (default: from hreflang)."
    )
    aliases: list[str] = Field(
        default_factory=list, description="Other codes front matter may use, e.g. zh-cn."
    )
    description: str | None = Field(
        None,
        description="One-line description of this language's list pages for meta tags (default: "
        "the site's).",
    )


class PermalinkSettings(BaseModel):
    """The `[permalinks]` table: URL patterns with Hugo's tokens (`masthead.content.permalinks`)."""

    model_config = ConfigDict(extra="forbid")

    posts: str = Field(DEFAULT_POSTS, description="URL pattern of posts, e.g. /blog/:year/:slug/.")
    pages: str = Field(DEFAULT_PAGES, description="URL pattern of pages.")

    @field_validator("posts", "pages")
    @classmethod
    def _pattern(cls, value: str) -> str:
        return validate_permalink(value)


class MenuItem(BaseModel):
    """One `[[menu.CODE]]` entry: a link in the header and footer navigation of a language."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    title: str = Field(
        min_length=1, alias="name", description="Link text (Hugo's `name` is accepted too)."
    )
    url: str = Field(description="A site path (/about/) or an absolute http(s) URL.")
    weight: StrictInt = Field(0, description="Order: lower first, then as written (Hugo's weight).")

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        value = value.strip()
        if value.startswith("/") and not value.startswith("//"):
            return value
        if urlsplit(value).scheme in ("http", "https") and urlsplit(value).hostname:
            return value
        raise ValueError(f"{value!r}: a site path such as /about/ or an http(s) URL")


CSP_DIRECTIVES = frozenset(
    {
        "base-uri", "child-src", "connect-src", "default-src", "font-src", "form-action",
        "frame-ancestors", "frame-src", "img-src", "manifest-src", "media-src", "object-src",
        "report-to", "report-uri", "script-src", "script-src-elem", "script-src-attr",
        "style-src", "style-src-elem", "style-src-attr", "worker-src",
    }
)  # fmt: skip
# A CSP source expression (CSP3 §2.3.1): a quoted keyword or hash, or a scheme, host or URL with
# no whitespace, quote, comma or semicolon, so a setting cannot end a directive or the header.
_CSP_SOURCE = re.compile(
    r"'(?:self|none|unsafe-inline|unsafe-eval|unsafe-hashes|strict-dynamic|wasm-unsafe-eval"
    r"|report-sample|(?:sha256|sha384|sha512)-[A-Za-z0-9+/_-]+={0,2})'"
    r"|[A-Za-z0-9*][\x21\x23-\x26\x28-\x2b\x2d-\x3a\x3c-\x7e]*"
)


class SecuritySettings(BaseModel):
    """The `[security]` table: what the security headers add to the defaults."""

    model_config = ConfigDict(extra="forbid")

    csp: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Sources added to Content-Security-Policy directives, per directive, e.g. { "
        'frame-src = ["https://www.youtube-nocookie.com"] }: a directive the policy '
        "has gains them ('none' is dropped from it); a fetch directive it lacks "
        "(frame-src, worker-src, ...) starts from 'self'. Each source is a host "
        "(https://www.youtube-nocookie.com, *.example.com), a scheme (https:), a "
        "URL, or a quoted keyword or hash ('self', 'sha256-...'); anything with "
        "spaces, quotes, ; or , or an unknown directive stops start-up with the key "
        "named.",
    )
    hsts_max_age: StrictInt = Field(
        63_072_000,
        ge=0,
        description="Strict-Transport-Security max-age in seconds (two years), sent when "
        "base_url is https (0: no header).",
    )
    hsts_include_subdomains: StrictBool = Field(
        False,
        description="Add includeSubDomains to Strict-Transport-Security (only if every "
        "subdomain of the host serves HTTPS).",
    )

    @field_validator("csp")
    @classmethod
    def _csp(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for directive, sources in value.items():
            if directive not in CSP_DIRECTIVES:
                known = ", ".join(sorted(CSP_DIRECTIVES))
                raise ValueError(f"unknown directive {directive!r}; one of {known}")
            for source in sources:
                if not _CSP_SOURCE.fullmatch(source):
                    raise ValueError(
                        f"{directive}: {source!r} is not a CSP source (a host such as "
                        "https://www.youtube-nocookie.com, a scheme such as https:, or 'self')"
                    )
        return value


class Settings(BaseModel):
    """The whole of `masthead.toml`."""

    model_config = ConfigDict(extra="forbid")

    title: str = Field("masthead", description="Site title, shown in the header and feeds.")
    description: str = Field(
        "",
        description="One-line site description for meta tags (home, list, taxonomy and archive "
        "pages); a language's own description wins.",
    )
    base_url: str | None = Field(
        None,
        description="The site's public absolute URL (https://blog.example.com); in production "
        "canonical URLs, hreflang links, og:url, JSON-LD, feeds, sitemaps and "
        "robots.txt use it. Unset, or under --dev: the address serve listens on "
        "(--port 8123: http://127.0.0.1:8123), as hugo server does; serve prints "
        "which one it uses.",
    )
    default_language: str = Field(
        "en",
        description="Code of the language served at the root; it must have a [languages] table.",
    )
    timezone: str = Field(
        "UTC",
        description="IANA zone that dates without an offset are read in (never the server's zone).",
    )
    content_dir: str = Field("content", description="Folder of posts and pages, site-relative.")
    static_dir: str = Field("static", description="Folder of the site's own static files.")
    templates_dir: str = Field("templates", description="Folder of template overrides.")
    database: str = Field(
        ".masthead/site.db",
        description="The SQLite file, site-relative; its own folder is created if missing, a "
        "missing parent folder is an error.",
    )
    posts_per_page: StrictInt = Field(10, ge=1, le=100, description="Posts per list page.")
    toc_levels: list[StrictInt] = Field(
        default_factory=lambda: [2, 3],
        description="Lowest heading level in a table of contents and how deep it goes: [2, 3] "
        "is h2 entries with one level nested under them (an h4 right under an h2 "
        "counts as that nested level).",
    )
    raw_html: StrictBool = Field(
        False,
        description="Trust authors' raw HTML; by default post HTML passes an allowlist sanitizer.",
    )
    search_log_days: StrictInt = Field(
        90,
        ge=0,
        description="Days the search log keeps each query; older entries are pruned "
        "automatically (0: keep forever).",
    )
    feed_items: StrictInt = Field(
        20, ge=1, le=500, description="Newest posts in each RSS and Atom feed."
    )
    feed_full_text: StrictBool = Field(
        True, description="Feeds carry each post's full text; false: only its excerpt."
    )
    sitemap_max_urls: StrictInt = Field(
        50_000,
        ge=1,
        le=50_000,
        description="URLs per sitemap file; a site with more gets a sitemap index of "
        "/sitemap-1.xml, /sitemap-2.xml, ...",
    )
    robots_disallow: list[str] = Field(
        default_factory=lambda: ["/guanli/", "/api/"],
        description="Paths robots.txt disallows for every crawler (each starts with /).",
    )
    robots_extra: str = Field(
        "",
        description='Lines appended to robots.txt as written, e.g. "User-agent: '
        'GPTBot\\nDisallow: /".',
    )
    api_url: str | None = Field(
        None,
        description="Absolute URL of a running masthead (e.g. https://api.example.com) that "
        "pages send searches to: the search form's action, the site script's fetch, "
        "and the CSP's form-action and connect-src; for an exported site (see "
        "Static export and CDNs).",
    )
    allowed_origins: list[str] = Field(
        default_factory=list,
        description="Origins (scheme://host[:port], no path) whose pages may call /api/ from a "
        "browser: CORS answers them, and only them (see Static export and CDNs).",
    )
    comments_close_after_days: StrictInt = Field(
        0,
        ge=0,
        description="Close a post's comments this many days after its date, as WordPress does "
        "(0: never); front matter comments: false closes one post's.",
    )
    comments_depth: StrictInt = Field(
        5,
        ge=1,
        le=10,
        description="Levels of nested replies drawn; deeper replies are drawn at the last level "
        'with "in reply to NAME".',
    )
    comments_order: str = Field(
        "oldest",
        pattern="^(oldest|newest)$",
        description="Order of top-level comments: oldest or newest first.",
    )
    comments_per_page: StrictInt = Field(
        50, ge=1, le=500, description="Top-level comments per page of a thread."
    )
    comments_edit_minutes: StrictInt = Field(
        15,
        ge=0,
        description="Minutes a commenter may edit or delete their own comment with the token "
        "the POST answered (0: never).",
    )
    comments_flood_seconds: StrictInt = Field(
        15,
        ge=0,
        description="Seconds one client must wait between two comments on one post (0: off).",
    )
    comments_per_minute: StrictInt = Field(
        3, ge=0, description="Comments one client may post per minute (0: off)."
    )
    comments_min_seconds: StrictInt = Field(
        3,
        ge=0,
        description="Seconds the page's script must have shown the form before it posts (0: "
        "off; a form posted without script and the JSON API skip this rule).",
    )
    comments_moderation: StrictBool = Field(False, description="Hold every comment for moderation.")
    comments_previously_approved: StrictBool = Field(
        True,
        description="Hold a comment unless its author has an approved comment and proves to be "
        "the same person (the signed cookie of the browser that wrote it).",
    )
    comments_max_links: StrictInt = Field(
        2, ge=0, description="Hold a comment with this many links or more (0: off)."
    )
    moderation_keys: list[str] = Field(
        default_factory=list,
        description="Words that hold a comment, matched case-insensitively in name, email, "
        "website, IP and text.",
    )
    disallowed_keys: list[str] = Field(
        default_factory=list,
        description="Words that send a comment to spam, matched case-insensitively in name, "
        "email, website, IP and text.",
    )
    comments_ip_days: StrictInt = Field(
        30, ge=0, description="Days a comment keeps the keyed hash of its client's IP (0: forever)."
    )
    comments_trash_days: StrictInt = Field(
        30,
        ge=0,
        description="Days a comment stays in spam or trash, counted from when it went there "
        "(for a comment imported as spam or trash: from the import; never from the "
        "comment's own date), before the server deletes it for good (0: forever).",
    )
    trusted_proxies: list[str] = Field(
        default_factory=list,
        description="Addresses or networks (10.0.0.5, 10.0.0.0/8) of reverse proxies whose "
        "X-Forwarded-For is believed; by default forwarding headers are ignored.",
    )
    purge_command: list[str] = Field(
        default_factory=list,
        description="A command (argument list) run with the changed URLs as arguments after a "
        "comment changes what pages show, e.g. to purge a CDN.",
    )
    purge_webhook: str | None = Field(
        None, description='A URL POSTed {"urls": [...]} after a comment changes what pages show.'
    )
    smtp_host: str | None = Field(
        None,
        description="SMTP server for notifications; unset (or mail_from unset): no mail is "
        "queued or sent.",
    )
    smtp_port: StrictInt = Field(587, ge=1, le=65535, description="SMTP port.")
    smtp_tls: str = Field(
        "starttls",
        pattern="^(starttls|tls|none)$",
        description="starttls, tls (implicit TLS, port 465) or none.",
    )
    smtp_user: str | None = Field(None, description="SMTP user name; unset: no login.")
    smtp_password_env: str = Field(
        "MASTHEAD_SMTP_PASSWORD",
        description="The environment variable that holds the SMTP password (never the settings "
        "file).",
    )
    mail_from: str | None = Field(
        None,
        description="The From address of notifications: blog@example.com, or with a display "
        'name, "Blog <blog@example.com>" (RFC 5322; without one the site title is '
        "the name). The name may be in any script; the part before @ must be ASCII "
        "(SMTP without SMTPUTF8 cannot carry blög@), while a non-ASCII domain is "
        "sent in its xn-- form. Anything else stops start-up and check.",
    )
    editor_emails: list[str] = Field(
        default_factory=list,
        description="Addresses told about held comments (plain local@domain, the local part "
        "ASCII as for mail_from; anything else stops start-up and check); a comment "
        "that claims one of them is held.",
    )
    permalinks: PermalinkSettings = Field(
        default_factory=PermalinkSettings,
        description="URL patterns of posts and pages with Hugo's tokens (the [permalinks] table).",
    )
    security: SecuritySettings = Field(
        default_factory=SecuritySettings,
        description="The [security] table: sources added to the Content-Security-Policy, and HSTS.",
    )
    menu: dict[str, list[MenuItem]] = Field(
        default_factory=dict,
        description="Links drawn in the header and the footer, per language code: [[menu.CODE]] "
        "tables with title (Hugo's name works too), url (a site path such as "
        "/about/ or an http(s) URL) and an optional weight (lower first).",
    )
    languages: dict[str, LanguageSettings] = Field(
        default_factory=lambda: {"en": LanguageSettings(name="English")},
        description="One [languages.CODE] table per language.",
    )

    @field_validator("base_url")
    @classmethod
    def _absolute(cls, value: str | None) -> str | None:
        if not value:  # unset, or an empty MASTHEAD_BASE_URL=
            return None
        if not value.startswith(("http://", "https://")):
            raise ValueError("must be an absolute http(s) URL, e.g. https://example.com")
        return value.rstrip("/")

    @field_validator("api_url")
    @classmethod
    def _api_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if (
            parts.scheme not in ("http", "https")
            or not parts.hostname
            or parts.query
            or parts.fragment
        ):
            raise ValueError(
                "must be an absolute http(s) URL without query or fragment, "
                "e.g. https://api.example.com"
            )
        return value.rstrip("/")

    @field_validator("allowed_origins")
    @classmethod
    def _origins(cls, value: list[str]) -> list[str]:
        return [origin_of(v, exact=True) for v in value]

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, value: list[str]) -> list[str]:
        for item in value:
            try:
                ipaddress.ip_network(item, strict=False)
            except ValueError as exc:
                raise ValueError(f"{item!r} is not an IP address or network") from exc
        return value

    @field_validator("mail_from")
    @classmethod
    def _mail_from(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        found = getaddresses([value])  # RFC 5322 addr-spec or name-addr, e.g. Blog <b@x.org>
        if "\r" in value or "\n" in value or len(found) != 1 or "@" not in found[0][1]:
            raise ValueError(
                f'must be one address, blog@example.com or "Blog <blog@example.com>", not {value!r}'
            )
        _sendable(found[0][1], '; the name may be in any script: "博客 <blog@example.com>"')
        return value.strip()

    @field_validator("editor_emails")
    @classmethod
    def _editor_emails(cls, value: list[str]) -> list[str]:
        for item in value:
            _sendable(item)
        return value

    @field_validator("purge_webhook")
    @classmethod
    def _webhook(cls, value: str | None) -> str | None:
        if value and urlsplit(value).scheme not in ("http", "https"):
            raise ValueError("must be an absolute http(s) URL")
        return value or None

    @field_validator("timezone")
    @classmethod
    def _zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown IANA time zone {value!r}") from exc
        return value

    @field_validator("robots_disallow")
    @classmethod
    def _paths(cls, value: list[str]) -> list[str]:
        for path in value:
            if not path.startswith("/") or any(c.isspace() for c in path):
                raise ValueError(f"{path!r}: each path starts with / and has no spaces")
        return value

    @field_validator("toc_levels")
    @classmethod
    def _levels(cls, value: list[int]) -> list[int]:
        if len(value) != 2 or not 1 <= value[0] <= value[1] <= 6:
            raise ValueError("must be [lowest, highest] with 1 <= lowest <= highest <= 6")
        return value

    @property
    def mail_from_address(self) -> str:
        """The addr-spec of `mail_from` (`blog@example.com`, the SMTP envelope's sender), ""
        when unset."""
        return parseaddr(self.mail_from or "")[1]

    @property
    def mail_from_name(self) -> str:
        """The display name of `mail_from` (`Blog` of `Blog <blog@example.com>`), "" if none."""
        return parseaddr(self.mail_from or "")[0]


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


def _sendable(addr_spec: str, hint: str = "") -> None:
    """Refuse (ValueError, for the setting's message) an address that the mails cannot carry:
    the check the sender makes on every mail (`notify.messages.address`), made at start-up and
    by `masthead check` instead of at the first mail. A non-ASCII local part (`blög@`) is one:
    plain SMTP cannot send it, and SMTPUTF8 (RFC 6531) needs every server on the way to offer
    it, with no fallback if one does not; a non-ASCII domain is fine (sent in its xn-- form)."""
    local = addr_spec.strip().rpartition("@")[0]
    if not local.isascii():
        raise ValueError(
            f"{addr_spec.strip()!r}: the part before @ must be ASCII (mail servers without "
            f"SMTPUTF8 cannot carry it){hint}"
        )
    try:
        address(addr_spec)
    except InvalidAddress as exc:
        raise ValueError(str(exc)) from None


def origin_of(url: str, *, exact: bool = False) -> str:
    """The origin (RFC 6454 §6.2 serialization: `scheme://host[:port]`, lower-cased, default
    port left out) of an http(s) URL. With `exact`, `url` must be an origin itself (no path
    but `/`, no query, fragment or user). Raises ValueError naming `url` otherwise."""
    parts = urlsplit(url.strip())
    try:
        port = parts.port
    except ValueError:
        port = -1
    bad = parts.scheme.lower() not in ("http", "https") or not parts.hostname or port == -1
    if exact:
        bad = bad or parts.path not in ("", "/") or bool(parts.query or parts.fragment)
        bad = bad or "@" in parts.netloc or "*" in url
    if bad:
        raise ValueError(f"{url!r} is not an origin such as https://www.example.com")
    scheme = parts.scheme.lower()
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    default = {"http": 80, "https": 443}[scheme]
    return f"{scheme}://{host}" + (f":{port}" if port and port != default else "")


@dataclass(frozen=True)
class Language:
    """A configured language, resolved: `prefix` is "" for the default language."""

    code: str
    name: str
    prefix: str
    hreflang: str
    folder: str | None
    locale: str
    aliases: frozenset[str]
    description: str = ""  # the language's own, else the site's (meta description of list pages)

    @property
    def root(self) -> str:
        """URL path of the language's home page: "/" or "/zh/"."""
        return f"/{self.prefix}/" if self.prefix else "/"


def _babel_locale(hreflang: str) -> str:
    tag = hreflang.replace("-", "_")
    if tag.lower() in ("zh", "zh_hans", "zh_cn"):
        return "zh_Hans_CN"
    if tag.lower() in ("zh_hant", "zh_tw"):
        return "zh_Hant_TW"
    return tag


@dataclass(frozen=True)
class Site:
    """A site folder and its validated settings."""

    root: Path
    settings: Settings

    @cached_property
    def languages(self) -> dict[str, Language]:
        out: dict[str, Language] = {}
        for code, ls in self.settings.languages.items():
            default = code == self.settings.default_language
            prefix = (ls.prefix if ls.prefix is not None else ("" if default else code)).strip("/")
            hreflang = ls.hreflang or code
            names = {code, hreflang, *(ls.aliases)}
            if ls.folder:
                names.add(ls.folder)
            out[code] = Language(
                code=code,
                name=ls.name,
                prefix=prefix,
                hreflang=hreflang,
                folder=ls.folder,
                locale=ls.locale or _babel_locale(hreflang),
                aliases=frozenset(n.lower().replace("_", "-") for n in names),
                description=ls.description or self.settings.description,
            )
        return out

    @property
    def default_language(self) -> Language:
        return self.languages[self.settings.default_language]

    @cached_property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.settings.timezone)

    @property
    def content_dir(self) -> Path:
        return self.root / self.settings.content_dir

    @property
    def database_path(self) -> Path:
        path = Path(self.settings.database)
        return path if path.is_absolute() else self.root / path

    def resolve_language(self, value: str) -> Language | None:
        """Map a code or alias (`zh`, `zh-cn`, `zh_CN`, `zh-Hans`) to a configured language.

        Exact codes and aliases win; then the primary subtag (`zh-TW` → `zh` when only `zh` exists).
        Returns None for a language the site does not have.
        """
        key = value.strip().lower().replace("_", "-")
        for lang in self.languages.values():
            if key == lang.code.lower() or key in lang.aliases:
                return lang
        primary = key.split("-")[0]
        matches = [
            lang for lang in self.languages.values() if lang.code.lower().split("-")[0] == primary
        ]
        return matches[0] if len(matches) == 1 else None


SCALARS = (str, int, bool, str | None)  # fields a MASTHEAD_* variable gives as plain text
# list settings whose items never hold a comma, so `a,b` is unambiguous beside a JSON array
ENV_COMMA_LISTS = frozenset({"allowed_origins", "editor_emails", "trusted_proxies", "toc_levels"})


def _env_overrides() -> dict[str, Any]:
    """The settings given as `MASTHEAD_*` variables, as raw values for `Settings`.

    A string, number or boolean is text (see `_env_bool`, `ENV_INT`); a list or a table is a
    JSON array or object (RFC 8259), and a list in `ENV_COMMA_LISTS` may be comma-separated.
    Raises `ConfigError` naming the variable for a value that cannot be read, never skips it.
    """
    out: dict[str, Any] = {}
    for name, field in Settings.model_fields.items():
        raw = os.environ.get(ENV_PREFIX + name.upper())
        if raw is None:
            continue
        if field.annotation not in SCALARS:
            out[name] = _env_structured(name, raw)
        elif field.annotation is bool:
            out[name] = _env_bool(raw)
        elif field.annotation is int and ENV_INT.fullmatch(raw.strip()):
            out[name] = int(raw.strip())
        else:
            out[name] = raw  # a number that is no digits: the strict field refuses it, named
    return out


def _env_structured(name: str, raw: str) -> Any:
    """A list or table setting from its `MASTHEAD_*` text: JSON, or for `ENV_COMMA_LISTS`
    comma-separated items (spaces around each stripped); an empty text is an empty list or
    table."""
    var = f"{ENV_PREFIX}{name.upper()} (environment)"
    text = raw.strip()
    if not text:  # `MASTHEAD_X=` (as compose passes an unset `${X:-}`): empty, as a string's ""
        return [] if _is_list(name) else {}
    if text.startswith(("[", "{")):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{var}: not valid JSON ({exc})") from None
    if name in ENV_COMMA_LISTS:
        items = [item.strip() for item in text.split(",") if item.strip()]
        return [int(i) if name == "toc_levels" and ENV_INT.fullmatch(i) else i for i in items]
    kind = "a JSON array" if _is_list(name) else "a JSON object"
    sample = '["one", "two"]' if _is_list(name) else '{"key": "value"}'
    raise ConfigError(f"{var}: must be {kind}, e.g. {sample}, not {raw!r}")


def _is_list(name: str) -> bool:
    return getattr(Settings.model_fields[name].annotation, "__origin__", None) is list


def _env_bool(raw: str) -> bool | str:
    """A `MASTHEAD_*` boolean: True or False for a spelling of `ENV_TRUE` or `ENV_FALSE`, else
    the text itself (which the strict field then refuses, naming the variable)."""
    word = raw.strip().lower()
    if word in ENV_TRUE:
        return True
    if word in ENV_FALSE:
        return False
    return raw


def _where(loc: tuple[Any, ...], from_env: dict[str, Any], overrides: dict[str, Any]) -> str:
    """The key a validation error is about, as `key: `, or `MASTHEAD_KEY (environment): `
    when the value came from the environment (not the file the message names)."""
    key = ".".join(str(p) for p in loc)
    if _from_env(loc, from_env, overrides):
        item = "".join(f"[{p}]" for p in loc[1:])  # e.g. the second item of a list: [1]
        return f"{ENV_PREFIX}{str(loc[0]).upper()}{item} (environment): "
    return f"{key}: "


def _table_hint(err: Any) -> str:
    """A hint for an unknown key inside a `[languages.X]` or `[[menu.X]]` table: TOML puts
    every key after a table's header into it, so a plain setting appended at the end of the
    file lands in the last table (https://toml.io/en/v1.0.0#table)."""
    loc = err["loc"]
    if err["type"] != "extra_forbidden" or len(loc) < 3 or loc[0] not in ("languages", "menu"):
        return ""
    table = f"[[menu.{loc[1]}]]" if loc[0] == "menu" else f"[languages.{loc[1]}]"
    key = loc[-1]
    what = "is a plain setting" if key in Settings.model_fields else "is meant as a plain setting"
    return (
        f" (TOML puts every key after a {table} line into that table: if {key} {what}, "
        "move it above the first table)"
    )


def _from_env(loc: tuple[Any, ...], from_env: dict[str, Any], overrides: dict[str, Any]) -> bool:
    return bool(loc) and loc[0] in from_env and loc[0] not in overrides


def _message(err: Any, from_env: dict[str, Any], overrides: dict[str, Any]) -> str:
    """Pydantic's message, or for a boolean or a number what is accepted where the value came
    from."""
    if err["type"] == "int_type":
        if _from_env(err["loc"], from_env, overrides):
            return f"must be a whole number (decimal digits), not {err['input']!r}"
        return f"must be a whole number (a TOML integer, unquoted), not {err['input']!r}"
    if err["type"] != "bool_type":
        return str(err["msg"])
    if _from_env(err["loc"], from_env, overrides):
        spellings = f"{', '.join(ENV_TRUE)} or {', '.join(ENV_FALSE)}"
        return f"must be one of {spellings}, not {err['input']!r}"
    return f"must be true or false (a TOML boolean, unquoted), not {err['input']!r}"


def load_site(root: str | Path, overrides: dict[str, Any] | None = None) -> Site:
    """Read `ROOT/masthead.toml` (optional) and `MASTHEAD_*` variables into a `Site`.

    Raises `ConfigError` naming the file and key for unreadable TOML, unknown keys, bad types,
    or a default language missing from `[languages]`.
    """
    root = Path(root).resolve()
    data: dict[str, Any] = {}
    path = root / CONFIG_FILE
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: {exc}") from exc
    try:
        from_env = _env_overrides()
    except ConfigError as exc:  # named like the file's errors: the site's settings, then the key
        raise ConfigError(f"{path}: {exc}") from None
    data.update(from_env)
    data.update(overrides or {})
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        lines = [
            _where(err["loc"], from_env, overrides or {})
            + _message(err, from_env, overrides or {})
            + _table_hint(err)
            for err in exc.errors()
        ]
        raise ConfigError(f"{path}: " + "; ".join(lines)) from None
    if settings.default_language not in settings.languages:
        raise ConfigError(
            f"{path}: default_language {settings.default_language!r} has no [languages] table"
        )
    unknown = sorted(set(settings.menu) - set(settings.languages))
    if unknown:
        raise ConfigError(f"{path}: menu.{unknown[0]}: no such language in [languages]")
    prefixes = [lang.prefix for lang in Site(root, settings).languages.values()]
    if len(set(prefixes)) != len(prefixes):
        raise ConfigError(f"{path}: two languages share one URL prefix")
    return Site(root, settings)


def setting_source(root: Path, name: str) -> str:
    """Where setting `name` of the site at `root` comes from: `MASTHEAD_NAME` (the
    environment), `masthead.toml`, or `default` (what the dashboard shows beside each value)."""
    env = ENV_PREFIX + name.upper()
    if os.environ.get(env) is not None:
        return env
    path = Path(root) / CONFIG_FILE
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError):
        data = {}
    return CONFIG_FILE if name in data else "default"
