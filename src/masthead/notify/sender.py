"""Sending the outbox over SMTP (smtplib), with retries and backoff.

`drain` claims the rows due now (`store.outbox.claim`), sends them on one SMTP connection and
records each outcome: `sent`; a temporary failure (the server down or refusing for now, a 4xx
reply, a time-out) is retried after `backoff(attempts)` seconds, doubling from `BACKOFF_FIRST`
up to `BACKOFF_MAX`; after `MAX_ATTEMPTS`, or at once on a permanent refusal (a 5xx reply to
the sender, the recipient or the data), the row is `failed`, its last error kept for
`masthead mail status`. No transaction is open while the SMTP server is talked to.

TLS (`smtp_tls`): `starttls` (port 587, RFC 3207) or `tls` (implicit TLS, port 465, RFC 8314),
both verifying the server's certificate against the system's CAs; `none` only for a relay on the
same host. The password is read from the environment variable named by `smtp_password_env`,
never from the settings file.
"""

from __future__ import annotations

import logging
import os
import smtplib
import ssl
import time
from collections.abc import Mapping
from dataclasses import dataclass

from masthead.config import Settings
from masthead.store import outbox
from masthead.store.db import Database

log = logging.getLogger(__name__)

BACKOFF_FIRST = 60.0  # seconds before the first retry
BACKOFF_MAX = 6 * 3600.0
MAX_ATTEMPTS = 10  # about 1 + 2 + 4 + ... hours: a server down for a day is waited for
LEASE = 300.0  # seconds a claimed row is left alone by other senders
TIMEOUT = 30.0  # seconds for each SMTP operation
BATCH = 50  # rows claimed at a time
SENT_KEPT = 30 * 24 * 3600.0  # seconds sent rows stay visible (they also mark events as done)


@dataclass(frozen=True)
class SMTPConfig:
    host: str
    port: int
    tls: str  # starttls, tls or none
    user: str | None
    password: str | None
    mail_from: str


def config(settings: Settings, environ: Mapping[str, str] = os.environ) -> SMTPConfig | None:
    """The SMTP set-up, or None when mail is off (`smtp_host` or `mail_from` unset)."""
    if not settings.smtp_host or not settings.mail_from:
        return None
    return SMTPConfig(
        host=settings.smtp_host,
        port=settings.smtp_port,
        tls=settings.smtp_tls,
        user=settings.smtp_user,
        password=environ.get(settings.smtp_password_env),
        mail_from=settings.mail_from_address,
    )


def off_reason(settings: Settings) -> str | None:
    """Why mail is off, in words, or None when it is on."""
    if not settings.smtp_host:
        return "smtp_host is not set"
    if not settings.mail_from:
        return "mail_from is not set"
    return None


def connect(cfg: SMTPConfig) -> smtplib.SMTP:
    """An SMTP session, greeted, secured and logged in as `cfg` says. Raises OSError or
    smtplib.SMTPException."""
    client: smtplib.SMTP
    if cfg.tls == "tls":
        context = ssl.create_default_context()  # the system's CAs: tens of ms to load
        client = smtplib.SMTP_SSL(cfg.host, cfg.port, timeout=TIMEOUT, context=context)
    else:
        client = smtplib.SMTP(cfg.host, cfg.port, timeout=TIMEOUT)
    try:
        client.ehlo()
        if cfg.tls == "starttls":
            client.starttls(context=ssl.create_default_context())
            client.ehlo()
        if cfg.user:
            client.login(cfg.user, cfg.password or "")
    except BaseException:
        client.close()
        raise
    return client


def backoff(attempts: int) -> float:
    """Seconds to wait after the `attempts`-th failed attempt (1, 2, ...)."""
    return float(min(BACKOFF_FIRST * 2 ** max(attempts - 1, 0), BACKOFF_MAX))


class _Unsendable(Exception):
    """A message this sender can never send as it is (no retry helps)."""


def _permanent(exc: BaseException) -> bool:
    """A refusal that the same message will meet again (RFC 5321 5yz replies), or a message
    that cannot be sent at all."""
    if isinstance(exc, _Unsendable):
        return True
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return all(code >= 500 for code, _ in exc.recipients.values())
    if isinstance(exc, smtplib.SMTPSenderRefused | smtplib.SMTPDataError):
        return exc.smtp_code >= 500
    return False


def _describe(exc: BaseException) -> str:
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return "; ".join(f"{to}: {code} {msg!r}" for to, (code, msg) in exc.recipients.items())
    return f"{type(exc).__name__}: {exc}"


@dataclass
class DrainReport:
    sent: int = 0
    retried: int = 0
    failed: int = 0


def drain(
    db: Database,
    settings: Settings,
    *,
    now: float | None = None,
    environ: Mapping[str, str] = os.environ,
) -> DrainReport:
    """Send every queued mail due at `now` (default: the clock); returns what happened. Does
    nothing when mail is off. A connection problem fails the rest of the batch alike, with
    backoff, without trying each (one time-out, not fifty)."""
    report = DrainReport()
    cfg = config(settings, environ)
    if cfg is None:
        return report
    when = time.time() if now is None else now
    while True:
        due = outbox.next_due(db.read())
        if due is None or due > when:
            return report  # the usual case: no write transaction at all
        with db.write() as conn:
            batch = outbox.claim(conn, when, LEASE, BATCH)
            outbox.prune_sent(conn, when - SENT_KEPT)
        if not batch:
            return report
        _send_batch(db, cfg, batch, when, report)
        if len(batch) < BATCH:
            return report


def _send_batch(
    db: Database, cfg: SMTPConfig, batch: list[outbox.Mail], now: float, report: DrainReport
) -> None:
    client: smtplib.SMTP | None = None
    down: BaseException | None = None
    try:
        for mail in batch:
            error: BaseException | None = down
            if error is None:
                try:
                    if client is None:
                        client = connect(cfg)
                    client.sendmail(cfg.mail_from, [mail.recipient], mail.message)
                except (smtplib.SMTPRecipientsRefused, smtplib.SMTPDataError) as exc:
                    error = exc  # this message's trouble; the connection goes on
                except (OSError, smtplib.SMTPException) as exc:
                    error = down = exc
                    _drop(client)
                    client = None
                except Exception as exc:  # a message smtplib cannot send (non-ASCII address)
                    log.exception("mail %d cannot be sent", mail.id)
                    error = _Unsendable(f"{type(exc).__name__}: {exc}")
                    _drop(client)  # the session may be mid-command
                    client = None
            _record(db, mail, error, now, report)
    finally:
        _drop(client)


def _drop(client: smtplib.SMTP | None) -> None:
    if client is None:
        return
    try:
        client.quit()
    except (OSError, smtplib.SMTPException):
        client.close()


def _record(
    db: Database, mail: outbox.Mail, error: BaseException | None, now: float, report: DrainReport
) -> None:
    attempts = mail.attempts + 1  # claim() counted this attempt
    with db.write() as conn:
        if error is None:
            outbox.mark_sent(conn, mail.id, now)
            report.sent += 1
        elif _permanent(error) or attempts >= MAX_ATTEMPTS:
            outbox.mark_failed(conn, mail.id, _describe(error))
            report.failed += 1
            log.warning("mail %d to %s failed: %s", mail.id, mail.recipient, _describe(error))
        else:
            outbox.mark_retry(conn, mail.id, _describe(error), now + backoff(attempts))
            report.retried += 1
            log.info("mail %d: %s; retried in %.0f s", mail.id, _describe(error), backoff(attempts))
