"""Mail in tests: a real SMTP server (aiosmtpd) in the test process with the inbox it fills, the
settings that send a site's mail to it, a small bilingual site's posts, and comments stored
straight into a site's database (tests/test_comments_mail.py, tests/test_privacy_requests.py)."""

from __future__ import annotations

import email
import json
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from email import policy
from email.message import EmailMessage

from aiosmtpd.controller import Controller

from masthead.config import Site
from masthead.indexing.indexer import index_site
from masthead.store import comments as cs
from masthead.store.db import Database

from support.sites import BILINGUAL_TOML, post
from support.wait import CEILING, until

EDITORS = ["ed@example.com", "second.editor@example.com"]


class Inbox:
    """An aiosmtpd handler keeping every message it accepts; `refuse` recipients get a 550."""

    def __init__(self) -> None:
        self.received: list[tuple[str, list[str], bytes]] = []
        self.refuse: set[str] = set()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address in self.refuse:
            return "550 5.1.1 no such user"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.received.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.content))
        return "250 Message accepted"

    def messages(self) -> list[EmailMessage]:
        return [email.message_from_bytes(raw, policy=policy.default) for _, _, raw in self.received]  # type: ignore[misc]

    def wait(self, n: int, timeout: float = CEILING) -> list[EmailMessage]:
        until(lambda: len(self.received) >= n, timeout=timeout, what=f"{n} mails")
        return self.messages()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def smtp_server() -> Iterator[tuple[Inbox, int]]:
    """A real SMTP server (aiosmtpd) on 127.0.0.1 in this process: its inbox and port."""
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        yield inbox, controller.port
    finally:
        controller.stop()


def mail_toml(port: int, editors: list[str] = EDITORS, tls: str = "none", user: str = "") -> str:
    lines = [
        'smtp_host = "127.0.0.1"',
        f"smtp_port = {port}",
        f'smtp_tls = "{tls}"',
        'mail_from = "blog@example.com"',
        f"editor_emails = {json.dumps(editors)}",
    ] + ([f'smtp_user = "{user}"'] if user else [])
    head, _, langs = BILINGUAL_TOML.partition("[languages.en]")
    return head + "\n".join(lines) + "\n\n[languages.en]" + langs


POSTS = {
    "posts/hello.md": post("Hello world"),
    "posts/hello.zh.md": post("你好，世界"),
    # a title with a line break in it: YAML's double-quoted escapes
    "posts/evil.md": '---\ntitle: "Hi\\r\\nX-Injected: yes"\ndate: 2024-03-01\n---\n\nBody.\n',
}


def indexed(site: Site) -> Database:
    """The site's database, indexed (without serving it)."""
    db = Database(site.database_path)
    index_site(site, db)
    return db


def thread_of(db: Database, url: str) -> str:
    row = db.read().execute("SELECT translation_key FROM posts WHERE url = ?", (url,)).fetchone()
    return str(row[0])


def add(
    db: Database,
    *,
    url: str = "/posts/hello/",
    status: str = "pending",
    name: str = "Mallory",
    email_: str = "mallory@example.org",
    body: str = "A comment.",
    parent: int | None = None,
    notify: bool = False,
    lang: str = "en",
    created: float | None = None,
) -> int:
    return cs.add(
        db,
        cs.NewComment(
            thread=thread_of(db, url),
            post_url=url,
            parent_id=parent,
            lang=lang,
            status=status,
            author_name=name,
            author_email=email_,
            author_url="https://mallory.example/",
            body=body,
            body_html=f"<p>{body}</p>",
            created=time.time() if created is None else created,
            reason="held: first comment" if status == "pending" else "",
            notify=notify,
        ),
        "reader",
    )
