"""The rules that decide what happens to a comment (issue 11 item 5, WordPress's Discussion
settings; cases C37, C38, C48, C52): pure, no SQL, no HTTP.

`evaluate(submission, facts, settings)` runs them in this order and returns one `Decision`:

1. duplicate: the same thread, parent, author and text as a stored comment is that comment
   (`duplicate`, answered as the first; nothing stored, C37);
2. fields and length limits, in characters (code points, `LIMITS`: name 245, email 100,
   website 200, body 65,525; name, email and text required, the email shaped like one;
   `rejected`, HTTP 400 naming the `field`): before the flood limits, since a request with a
   bad field stores nothing, so answering it first weakens no limit and the reader is told at
   once what to fix rather than to wait and then be told it;
3. flood: `comments_flood_seconds` between two comments of one client in one thread, and
   `comments_per_minute` comments of one client over the whole site (`rejected`, HTTP 429 with
   `retry_after` seconds; C38, C52: a client is its IP, `identity.client_ip`);
4. the honeypot field filled (`spam`);
5. a scripted form sent sooner than `comments_min_seconds` after it was shown is held
   (`pending`, the reason stored): speed alone proves no spam (a paste, an autofill), so the
   comment waits for an editor rather than vanishing; a form posted without script and the JSON
   API have no such time and skip this rule;
6. `comments_moderation`: every comment held (`pending`);
7. a stranger using a staff name (a name that folds to a /guanli user's, `names.fold`: case,
   NFKC, invisible characters and common confusables such as Cyrillic е aside) is held as "uses
   a staff name"; a stranger claiming a staff address (a /guanli user's or one of
   `editor_emails`, compared trimmed, case-folded and without a `+tag`) is held as "claims a
   staff address"; otherwise, with
   `comments_previously_approved`, a commenter not known (an earlier approved comment with this
   email from this browser: `Facts.known`) is held as "first comment from this browser"
   (C48: a typed address proves nothing);
8. `comments_max_links` links or more (`sanitize.count_links`): held;
9. `moderation_keys` (held) and `disallowed_keys` (`spam`), matched case-insensitively as
   substrings of the name, email, website, client IP and text.

Steps 1-3 end the evaluation; 4-9 each add a reason, and the comment's status is the worst any
gave (spam, then pending, then approved); `reason` joins their reasons in this order. For every
per-client limit 0 turns it off.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from masthead.comments.names import staff_name
from masthead.comments.sanitize import count_links
from masthead.comments.text import is_text, length
from masthead.config import Settings

Status = Literal["approved", "pending", "spam", "duplicate", "rejected"]
MINUTE = 60.0


@dataclass(frozen=True)
class Limits:
    """Field limits in characters (code points), WordPress's column sizes; the form's
    `maxlength` uses the same numbers (a browser counts UTF-16 units there, never fewer than
    code points, so the form is never looser than the server)."""

    name: int = 245
    email: int = 100
    website: int = 200
    body: int = 65_525


LIMITS = Limits()
# the same, by the form's and the JSON API's field names (the form's `maxlength`)
FIELD_LIMITS = {"name": LIMITS.name, "email": LIMITS.email, "url": LIMITS.website}
FIELD_LIMITS["body"] = LIMITS.body


@dataclass(frozen=True)
class Submission:
    """What a reader sent (the form's or the JSON API's fields, as received): `post` is the
    permalink path written on, `parent` the id replied to (None, "" or digits), `url` the
    website as typed, `lang` the language written in ("" for the post's), `honeypot` the
    hidden field's value, `notify` "mail me replies", `remember` "remember me" (cookie only)."""

    post: str
    parent: int | str | None
    name: str
    email: str
    url: str
    body: str
    lang: str = ""
    honeypot: str = ""
    notify: bool = False
    remember: bool = False


@dataclass(frozen=True)
class Facts:
    """What the server knows besides the submission: `now` (seconds since the epoch), the
    client `ip` (`identity.client_ip`), the seconds the scripted form was open
    (`scripted_elapsed`, None without script), the id of an identical stored comment
    (`duplicate_of`), the creation times of this client's comments in the last minute site-wide
    (`recent`) and its latest in this thread (`last_in_thread`), whether the commenter is
    `known` (`store.comment_facts.known_commenter`), whether a signed-in staff session sent it
    (`staff_session`: exempt from the per-client limits and the staff holds), the /guanli
    users' addresses (`staff_emails`, `store.users.staff_emails`; the `editor_emails` setting
    counts too) and names (`staff_names`, `store.users.staff_names`); `links`, the text's
    `sanitize.count_links` when the caller has it already (None: counted here)."""

    now: float
    ip: str = ""
    scripted_elapsed: float | None = None
    duplicate_of: int | None = None
    recent: Sequence[float] = ()
    last_in_thread: float | None = None
    known: bool = False
    staff_session: bool = False
    staff_emails: Sequence[str] = ()
    staff_names: Sequence[str] = ()
    links: int | None = None


@dataclass(frozen=True)
class Decision:
    """The rules' answer. `status`: 'approved', 'pending' or 'spam' (store it), 'duplicate'
    (answer with comment `duplicate_of`) or 'rejected' (answer `http_status` with `reason` as
    the message, naming `field` when one field is at fault; `retry_after` seconds for 429).
    `reason` is for people (stored with the comment, shown in the dashboard), `code` for
    programs and translations ('ok', 'duplicate', 'flood', 'rate', 'encoding', 'required',
    'too_long', 'email', 'held', 'spam')."""

    status: Status
    reason: str
    http_status: int | None = None
    retry_after: int | None = None
    field: str | None = None
    code: str = "ok"
    duplicate_of: int | None = None
    reasons: tuple[str, ...] = ()


# RFC 5322 atext (and Unicode letters, RFC 6531) around one @, a domain with a dot: enough to
# catch typos and to keep commas, quotes and brackets (more recipients, header tricks) out
_EMAIL = re.compile(r"[\w.!#$%&'*+/=?^`{|}~-]+@[\w-]+(?:\.[\w-]+)+")


def _reject(status: int, code: str, message: str, field: str | None = None) -> Decision:
    return Decision("rejected", message, http_status=status, field=field, code=code)


def _throttle(code: str, wait: float, message: str) -> Decision:
    seconds = max(1, math.ceil(wait))
    text = f"{message} Please wait {seconds} s and send it again."
    return Decision("rejected", text, http_status=429, retry_after=seconds, code=code)


def flood(facts: Facts, settings: Settings) -> Decision | None:
    """Rule 3: a 429 `Decision` when this client is over a per-client limit, else None."""
    if facts.staff_session:
        return None
    gap = settings.comments_flood_seconds
    if gap and facts.last_in_thread is not None and facts.now - facts.last_in_thread < gap:
        wait = facts.last_in_thread + gap - facts.now
        return _throttle("flood", wait, f"Comments on one post need {gap} s between them.")
    per_minute = settings.comments_per_minute
    if per_minute:
        window = sorted((t for t in facts.recent if facts.now - t < MINUTE), reverse=True)
        if len(window) >= per_minute:
            wait = window[per_minute - 1] + MINUTE - facts.now
            return _throttle("rate", wait, f"At most {per_minute} comments a minute are taken.")
    return None


def fields(submission: Submission) -> Decision | None:
    """Rule 2: a 400 `Decision` for a missing, too long or malformed field, else None. Lengths
    are of the text as received (the website before it is checked: `sanitize.website`)."""
    values = {
        "name": submission.name.strip(),
        "email": submission.email.strip(),
        "url": submission.url.strip(),
        "body": submission.body,
    }
    labels = {"name": "Name", "email": "Email", "url": "Website", "body": "Comment"}
    for key, value in values.items():
        if not is_text(value):
            text = f"{labels[key]} holds a character that is not text (a lone surrogate)."
            return _reject(400, "encoding", text, key)
    for key in ("name", "email", "body"):
        if not values[key].strip():
            return _reject(400, "required", f"{labels[key]} is required.", key)
    for key, most in FIELD_LIMITS.items():
        n = length(values[key])
        if n > most:
            text = f"{labels[key]} is {n} characters long; at most {most} are taken."
            return _reject(400, "too_long", text, key)
    if not _EMAIL.fullmatch(values["email"]):
        text = "Email does not look like an address (name@example.org)."
        return _reject(400, "email", text, "email")
    return None


def staff_address(email: str, staff: Sequence[str]) -> bool:
    """True when `email` is one of the `staff` addresses, compared trimmed, case-folded and
    with a `+tag` after the local part dropped (`Editor+x@Example.com` is `editor@example.com`)."""

    def norm(address: str) -> str:
        local, _, domain = address.strip().casefold().rpartition("@")
        return f"{local.split('+', 1)[0]}@{domain}" if local else domain

    wanted = norm(email)
    return bool(wanted) and any(norm(s) == wanted for s in staff if s.strip())


def _matches(keys: Sequence[str], haystacks: Sequence[str]) -> str | None:
    folded = [h.casefold() for h in haystacks]
    for key in keys:
        needle = key.strip().casefold()
        if needle and any(needle in h for h in folded):
            return key.strip()
    return None


def refusal(submission: Submission, facts: Facts, settings: Settings) -> Decision | None:
    """Rules 1-3 alone (duplicate, fields, flood): the `Decision` that ends the evaluation, or
    None when the comment is to be stored. Cheap: the text is not parsed."""
    if facts.duplicate_of is not None:
        return Decision(
            "duplicate",
            f"the same comment as #{facts.duplicate_of}",
            code="duplicate",
            duplicate_of=facts.duplicate_of,
        )
    return fields(submission) or flood(facts, settings)


def evaluate(submission: Submission, facts: Facts, settings: Settings) -> Decision:
    """Run the rules (module docstring) on `submission` with `facts` under `settings`."""
    refused = refusal(submission, facts, settings)
    if refused is not None:
        return refused

    spam: list[str] = []
    held: list[str] = []
    if submission.honeypot.strip():
        spam.append("the hidden field was filled in")
    elapsed = facts.scripted_elapsed
    least = settings.comments_min_seconds
    if elapsed is not None and least and not (math.isfinite(elapsed) and elapsed >= least):
        held.append(f"sent {elapsed:.1f} s after the form was shown (at least {least} s)")
    if settings.comments_moderation:
        held.append("every comment is held (comments_moderation)")
    if not facts.staff_session and staff_name(submission.name, facts.staff_names):
        held.append("uses a staff name")
    staff = [*settings.editor_emails, *facts.staff_emails]
    if not facts.staff_session and staff_address(submission.email, staff):
        held.append("claims a staff address")
    elif settings.comments_previously_approved and not (facts.known or facts.staff_session):
        held.append("first comment from this browser")
    most = settings.comments_max_links
    links = count_links(submission.body) if facts.links is None else facts.links
    if most and links >= most:
        held.append(f"{links} links (held at {most} or more)")
    fields_seen = [submission.name, submission.email, submission.url, facts.ip, submission.body]
    word = _matches(settings.moderation_keys, fields_seen)
    if word is not None:
        held.append(f"contains the moderation word {word!r}")
    word = _matches(settings.disallowed_keys, fields_seen)
    if word is not None:
        spam.append(f"contains the disallowed word {word!r}")

    reasons = tuple(spam + held)
    if spam:
        return Decision("spam", "; ".join(reasons), code="spam", reasons=reasons)
    if held:
        return Decision("pending", "; ".join(reasons), code="held", reasons=reasons)
    why = "signed-in staff" if facts.staff_session else "passed every rule"
    why = "known commenter" if facts.known and not facts.staff_session else why
    return Decision("approved", why, reasons=(why,))


def recheck_edit(body: str, links: int, settings: Settings) -> Decision | None:
    """The rules an author's edit can break (links, moderation and disallowed words in the
    new text): a `Decision` moving the comment to `pending` or `spam`, or None to keep it."""
    most = settings.comments_max_links
    word = _matches(settings.disallowed_keys, [body])
    if word is not None:
        why = f"edited: contains the disallowed word {word!r}"
        return Decision("spam", why, code="spam", reasons=(why,))
    held = []
    if most and links >= most:
        held.append(f"edited: {links} links (held at {most} or more)")
    word = _matches(settings.moderation_keys, [body])
    if word is not None:
        held.append(f"edited: contains the moderation word {word!r}")
    if held:
        return Decision("pending", "; ".join(held), code="held", reasons=tuple(held))
    return None
