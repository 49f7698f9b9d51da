"""The settings of a site: every setting declared once, with its type, default and description (the
settings reference in the docs is generated from these declarations). Unknown keys and bad types
raise `ConfigError` at start-up, naming the key. Booleans and numbers are strict (`StrictBool`,
`StrictInt`): in the file only TOML's `true` and `false`, and TOML integers (a string "yes" or
"5", a number 1 for a boolean, a float 5.0 are refused, not guessed)."""

from __future__ import annotations

import ipaddress
import re
from email.utils import getaddresses, parseaddr
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    field_validator,
)

from masthead.config.mail import InvalidAddress, address
from masthead.config.origins import origin_of
from masthead.config.permalinks import DEFAULT_PAGES, DEFAULT_POSTS, validate_permalink


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


_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")


class ShareCardSettings(BaseModel):
    """The `[share_cards]` table: the images made for posts without a cover (og:image)."""

    model_config = ConfigDict(extra="forbid")

    enabled: StrictBool = Field(
        True,
        description="Make a 1200×630 share card (og:image) for each post without a cover: its "
        "title, the site's name, the date, the authors and the reading time.",
    )
    fonts: dict[str, str] = Field(
        default_factory=dict,
        description="A font file (TrueType, OpenType or .ttc) per language code, relative to "
        'the site folder, e.g. { zh = "fonts/NotoSansSC-Regular.otf" }; a language not '
        "listed uses the system's sans-serif font for it (fontconfig), if it has its "
        "characters. With none, masthead check says so and that language's posts get no card.",
    )
    background: str = Field("#fbfaf7", description="Card background, #rrggbb (the page's).")
    text: str = Field("#1d1c1a", description="Title colour, #rrggbb.")
    muted: str = Field("#6b675f", description="Colour of the date, authors and site name.")
    accent: str = Field("#9b2c1f", description="Colour of the rule above the title, #rrggbb.")

    @field_validator("background", "text", "muted", "accent")
    @classmethod
    def _colour(cls, value: str) -> str:
        if not _COLOUR.fullmatch(value):
            raise ValueError(f"{value!r} is not a colour written #rrggbb")
        return value.lower()


class WordPressSettings(BaseModel):
    """Old WordPress archive and feed URLs answered with a 301 (the [wordpress] table, written by
    `masthead import wordpress`)."""

    model_config = ConfigDict(extra="forbid")

    archives: StrictBool = Field(
        False,
        description="Answer WordPress's category, tag, author and date archives, their /page/N/ "
        "forms and its feeds (/feed/, /category/x/feed/, /comments/feed/) with a 301 to "
        "masthead's term page, archive or feed, where no page of the site has that URL.",
    )
    root: str = Field(
        "",
        description="The path the old blog lived under (/blog for example.com/blog/), stripped "
        "from old URLs first.",
    )
    category_base: str = Field("category", description="WordPress's category base.")
    tag_base: str = Field("tag", description="WordPress's tag base.")
    slugs: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="Per taxonomy (categories, tags, authors): WordPress slug to the name the "
        "term has here, for slugs that are not the term's key (written by the import).",
    )


REPLICA_SCHEMES = ("s3", "gs", "abs", "file", "sftp", "webdav", "webdavs", "nats", "oss")


class ReplicaSettings(BaseModel):
    """The `[replica]` table: continuous replication of the database with Litestream
    (`masthead.replica`); `MASTHEAD_REPLICA_URL`, `MASTHEAD_REPLICA_SYNC_INTERVAL` and
    `MASTHEAD_REPLICA_RETENTION` override its keys."""

    model_config = ConfigDict(extra="forbid")

    url: str | None = Field(
        None,
        description="Where Litestream replicates the database, one of its replica URLs: "
        "s3://BUCKET/PATH (S3 and S3-compatible stores; ?endpoint=URL&region=R for one that is "
        "not AWS), file:///ABSOLUTE/PATH, gs://, abs://, sftp://, webdav(s)://, nats://, oss://. "
        "Unset: no replication. Credentials never go here: Litestream reads them from the "
        "environment (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or LITESTREAM_ACCESS_KEY_ID "
        "and LITESTREAM_SECRET_ACCESS_KEY; GOOGLE_APPLICATION_CREDENTIALS; "
        "LITESTREAM_AZURE_ACCOUNT_KEY), and a URL with a password stops start-up.",
    )
    sync_interval: StrictFloat = Field(
        1.0,
        gt=0,
        le=3600,
        description="Seconds within which a committed change reaches the replica: at most this "
        "much of the last writes is lost with the machine. Litestream uploads the write-ahead "
        "log four times per interval (only when something changed), so the upload itself fits.",
    )
    retention: StrictInt = Field(
        24,
        ge=1,
        description="Hours of history the replica keeps: a restore may go back this far "
        "(--timestamp); a full snapshot is taken as often.",
    )

    @field_validator("url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        parts = urlsplit(value.strip())
        if parts.scheme not in REPLICA_SCHEMES:
            raise ValueError(
                f"{_redacted(value)!r} is not a Litestream replica URL: it starts with one of "
                + ", ".join(f"{s}://" for s in REPLICA_SCHEMES)
            )
        if parts.password is not None:
            raise ValueError(
                f"{_redacted(value)!r} holds a password: give credentials in the environment "
                "(AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, ...), never in the settings"
            )
        if parts.scheme == "file":
            if parts.netloc or not parts.path.startswith("/") or parts.path == "/":
                raise ValueError(
                    f"{value!r}: a file replica is file:///ABSOLUTE/FOLDER (three slashes)"
                )
        elif not parts.netloc:
            raise ValueError(f"{_redacted(value)!r} names no bucket or host")
        return value.strip()


def _redacted(url: str) -> str:
    """`url` with any user information (`user:password@`) replaced by `***@`: what messages
    may show of a replica URL."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc="***@" + parts.netloc.rsplit("@", 1)[1]).geturl()


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
    share_cards: ShareCardSettings = Field(
        default_factory=ShareCardSettings,
        description="The [share_cards] table: the og:image of posts without a cover.",
    )
    wordpress: WordPressSettings = Field(
        default_factory=WordPressSettings,
        description="The [wordpress] table: old WordPress archive and feed URLs kept "
        "(archives, root, category_base, tag_base, slugs).",
    )
    replica: ReplicaSettings = Field(
        default_factory=ReplicaSettings,
        description="The [replica] table: continuous replication of the database with "
        "Litestream (url, sync_interval, retention).",
    )
    languages: dict[str, LanguageSettings] = Field(
        default_factory=lambda: {"en": LanguageSettings(name="English")},
        description="One [languages.CODE] table per language.",
    )
    params: dict[str, Any] = Field(
        default_factory=dict,
        description="Hugo's site params (the [params] table): values the param shortcode "
        "gives when a post's front matter has no such key; templates may read them too.",
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
    def mail_on(self) -> bool:
        """Whether mail can be sent (`smtp_host` and `mail_from` both set): what the comment
        form may promise ("Email me when someone replies") depends on it."""
        return bool(self.smtp_host and self.mail_from)

    @property
    def mail_from_address(self) -> str:
        """The addr-spec of `mail_from` (`blog@example.com`, the SMTP envelope's sender), ""
        when unset."""
        return parseaddr(self.mail_from or "")[1]

    @property
    def mail_from_name(self) -> str:
        """The display name of `mail_from` (`Blog` of `Blog <blog@example.com>`), "" if none."""
        return parseaddr(self.mail_from or "")[0]


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
