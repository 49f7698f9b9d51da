"""Notification mails, built with the standard library's `email` package (pure: no store).

Every message is an `EmailMessage` under `POLICY`, `email.policy.SMTP` (RFC 5322, CRLF line ends,
RFC 2047 encoded words for non-ASCII headers) with List-Unsubscribe's URL never encoded. Text
from readers and authors (a commenter's name, a post title) reaches a header only through
`one_line`, which turns line breaks and other control characters into spaces, and addresses only
as `email.headerregistry.Address` objects, which refuse CR, LF and anything that is not one
addr-spec (`InvalidAddress`): no input can add a header (the header-injection kind of bug, C51).
The Subject is never read as RFC 2047 encoded words (`_TextHeader`): a name typed as
`=?utf-8?b?…?=` arrives as those characters.
Bodies are plain UTF-8 text: the comment's Markdown as it was written, whole (never cut, so no
emoji or other cluster is ever split, C36).

- `held`: to an editor, a comment waiting for moderation, with one-click approve and spam links
  (each opens a confirmation page; only its button acts: C46).
- `reply`: to a commenter who asked for it, a reply to their comment was approved, with a
  one-click unsubscribe (`List-Unsubscribe` + `List-Unsubscribe-Post`, RFC 8058; RFC 2369).
- `privacy`: to a reader who asked for a copy or the erasure of their comments, the signed
  link that confirms it (only its page's button acts).
All carry `Auto-Submitted: auto-generated` (RFC 3834), so auto-responders do not answer them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from email import policy
from email.header import Header
from email.headerregistry import BaseHeader, HeaderRegistry, UnstructuredHeader
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

from masthead.config.mail import UNSAFE_IN_HEADER as _UNSAFE
from masthead.config.mail import InvalidAddress, address, one_line
from masthead.i18n import gettext


class _UrlHeader(UnstructuredHeader, BaseHeader):
    """A header holding `<URL>` (List-Unsubscribe, RFC 2369 §2), written on one line as is.

    The `email` package folds an unstructured header longer than 78 characters, and a token
    with no space in it (a long URL) it can only fold as RFC 2047 encoded words, which no mail
    provider reads as a URL (RFC 8058 one-click then breaks). RFC 5322 §2.1.1 allows 998."""

    def fold(self, *, policy: policy.Policy) -> str:  # type: ignore[override]
        text = str(self)
        if not text.isascii() or _UNSAFE.search(text) or len(self.name) + len(text) > 990:
            raise ValueError(f"{self.name}: not a one-line ASCII value: {text!r}")
        return f"{self.name}: {text}{policy.linesep}"


class _TextHeader(UnstructuredHeader, BaseHeader):
    """A header holding text as it is (the Subject: a reader's name, a post's title).

    The `email` package reads a str given to an unstructured header as RFC 2047: a commenter
    named `=?utf-8?b?QWRtaW4=?=` became "Admin" in the subject (issue 29, item 7). Here the
    value is never decoded, and text that holds `=?` (or is not ASCII) is written whole as
    UTF-8 encoded words, which a mail program decodes back to exactly those characters."""

    @classmethod
    def parse(cls, value: str, kwds: dict[str, object]) -> None:
        literal = "=?" not in value  # only then does the parser read it as it is
        kwds["parse_tree"] = cls.value_parser(value if literal else "")
        kwds["decoded"] = value

    def fold(self, *, policy: policy.Policy) -> str:  # type: ignore[override]
        text = str(self)
        if "=?" not in text:
            return super().fold(policy=policy)
        encoded = Header(text, "utf-8", header_name=self.name).encode(linesep=policy.linesep)
        return f"{self.name}: {encoded}{policy.linesep}"


_HEADERS = HeaderRegistry()
_HEADERS.map_to_type("list-unsubscribe", _UrlHeader)
_HEADERS.map_to_type("subject", _TextHeader)
# SMTP's, with List-Unsubscribe unfolded and the Subject never read as encoded words
POLICY = policy.SMTP.clone(header_factory=_HEADERS)


@dataclass(frozen=True)
class Sender:
    """Who mails are from: the display name (`mail_from`'s own, else the site's title) and
    the addr-spec of `mail_from`."""

    name: str
    address: str


@dataclass(frozen=True)
class CommentText:
    """What a mail says about a comment: its author's name and website, language, the rules'
    reason, and its Markdown text, all as stored."""

    author_name: str
    author_url: str
    lang: str
    reason: str
    body: str


def _text(body: str) -> str:
    """A body text with its line ends as newlines (a lone CR is one too)."""
    return body.replace("\r\n", "\n").replace("\r", "\n")


def _base(sender: Sender, to: str, subject: str, now: float) -> EmailMessage:
    msg = EmailMessage(policy=POLICY)
    try:
        msg["From"] = address(sender.address, sender.name)
    except InvalidAddress as exc:  # the setting, not a recipient: say so
        raise InvalidAddress(f"mail_from: {exc}") from None
    msg["To"] = address(to)
    msg["Subject"] = one_line(subject)
    msg["Date"] = format_datetime(datetime.fromtimestamp(now, UTC))
    msg["Message-ID"] = make_msgid(domain=address(sender.address).domain)
    msg["Auto-Submitted"] = "auto-generated"  # RFC 3834
    return msg


def held(
    sender: Sender,
    to: str,
    *,
    locale: str,
    post_title: str,
    post_link: str,
    comment: CommentText,
    approve_link: str,
    spam_link: str,
    dashboard_link: str,
    now: float,
) -> EmailMessage:
    """The mail telling editor `to` that `comment` on the post `post_title` (at `post_link`,
    absolute) waits for moderation, with its one-click links and the dashboard's list of
    pending comments (absolute URLs). `locale` is the language of the text (the site's default
    language). Raises `InvalidAddress`."""

    def t(key: str, **values: object) -> str:
        return gettext(locale, key, **values)

    name = one_line(comment.author_name) or t("mail_anonymous")
    msg = _base(sender, to, t("mail_held_subject", site=sender.name, post=post_title), now)
    lines = [
        t("mail_held_intro", post=one_line(post_title)),
        "",
        f"{t('mail_author')}: {name}",
    ]
    if comment.author_url:
        lines.append(f"{t('mail_website')}: {comment.author_url}")
    lines += [
        f"{t('mail_language')}: {comment.lang}",
        f"{t('mail_reason')}: {comment.reason}",
        f"{t('mail_post')}: {post_link}",
        "",
        _text(comment.body),
        "",
        f"{t('mail_approve')}: {approve_link}",
        f"{t('mail_spam')}: {spam_link}",
        f"{t('mail_dashboard')}: {dashboard_link}",
        "",
        t("mail_links_note"),
    ]
    msg.set_content("\n".join(lines), charset="utf-8")
    return msg


def reply(
    sender: Sender,
    to: str,
    *,
    locale: str,
    post_title: str,
    reply_link: str,
    comment: CommentText,
    unsubscribe_link: str,
    now: float,
) -> EmailMessage:
    """The mail telling commenter `to` that `comment`, a reply to theirs on `post_title`, was
    approved (`reply_link`: its absolute URL), with the one-click unsubscribe of RFC 8058
    (`unsubscribe_link`: an https URL answering POST `List-Unsubscribe=One-Click`). `locale`
    is the language their own comment was written in. Raises `InvalidAddress`."""

    def t(key: str, **values: object) -> str:
        return gettext(locale, key, **values)

    name = one_line(comment.author_name) or t("mail_anonymous")
    msg = _base(sender, to, t("mail_reply_subject", name=name, post=post_title), now)
    msg["List-Unsubscribe"] = f"<{unsubscribe_link}>"  # RFC 2369: a URL in angle brackets
    msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"  # RFC 8058
    lines = [
        t("mail_reply_intro", name=name, post=one_line(post_title)),
        "",
        _text(comment.body),
        "",
        f"{t('mail_read_it')}: {reply_link}",
        "",
        t("mail_reply_why"),
        f"{t('mail_unsubscribe')}: {unsubscribe_link}",
    ]
    msg.set_content("\n".join(lines), charset="utf-8")
    return msg


def privacy(
    sender: Sender, to: str, *, locale: str, kind: str, confirm_link: str, hours: int, now: float
) -> EmailMessage:
    """The mail answering a privacy request (`kind` 'export' or 'erase') made for address
    `to`: the link to confirm it (`confirm_link`, absolute, good for `hours`). The same words
    whether or not the address wrote any comment: only its owner learns that, on the page.
    Raises `InvalidAddress`."""

    def t(key: str, **values: object) -> str:
        return gettext(locale, key, **values)

    msg = _base(sender, to, t(f"privacy_mail_subject_{kind}", site=sender.name), now)
    lines = [
        t(f"privacy_mail_intro_{kind}", site=one_line(sender.name)),
        "",
        f"{t('privacy_mail_confirm')}: {confirm_link}",
        "",
        t("privacy_mail_note", hours=hours),
    ]
    msg.set_content("\n".join(lines), charset="utf-8")
    return msg
