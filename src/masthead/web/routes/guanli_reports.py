"""The dashboard's read-only screens: the search log, content errors and the last index run,
the discussion settings with where each is set, and the audit log. All need a session."""

from __future__ import annotations

import json
import os
import time
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from masthead.config import Settings, setting_source
from masthead.indexing.indexer import LAST_RUN
from masthead.store import audit_log
from masthead.store import posts as posts_store
from masthead.store import search_log as log_store
from masthead.store import users as users_store
from masthead.web.render.behind import behind_list
from masthead.web.render.charts import bars, per_day
from masthead.web.routes import site_state
from masthead.web.routes.guanli import render, signed_in, to_login, when

DAYS = 30
DISCUSSION = [
    name
    for name in Settings.model_fields
    if name.startswith(("comments_", "smtp_"))
    or name
    in (
        "moderation_keys",
        "disallowed_keys",
        "trusted_proxies",
        "purge_command",
        "purge_webhook",
        "mail_from",
        "editor_emails",
        "allowed_origins",
    )
]


def router() -> APIRouter:
    routes = APIRouter(include_in_schema=False)
    routes.add_api_route("/guanli/search-log", search_log, methods=["GET", "HEAD"])
    routes.add_api_route("/guanli/content", content, methods=["GET", "HEAD"])
    routes.add_api_route("/guanli/settings", settings, methods=["GET", "HEAD"])
    routes.add_api_route("/guanli/audit", audit, methods=["GET", "HEAD"])
    routes.add_api_route("/guanli/users", users, methods=["GET", "HEAD"])
    return routes


def search_log(request: Request) -> Response:
    """Top queries, queries that found nothing, and searches per day, for the last 30 days;
    each query links to the public search page."""
    signed = signed_in(request)
    if signed is None:
        return to_login(request)
    state = site_state(request)
    conn = state.db.read()
    now = time.time()
    since = now - DAYS * 86400
    series = per_day(log_store.searched_since(conn, since), state.site.tz, DAYS, now)
    return render(
        request,
        "guanli/search_log.html",
        title="search_log",
        user=signed.user,
        csrf=signed.session.csrf,
        top=log_store.top_queries(conn, since, 20),
        empty=log_store.top_queries(conn, since, 20, no_results=True),
        bars=bars(series),
        total=sum(c for _, c in series),
        filters=lambda raw: ", ".join(f"{k}={v}" for k, v in json.loads(raw).items()),
    )


def content(request: Request) -> Response:
    """Content files that failed and why (the store `masthead check` reads), the last run, and
    the translations that are behind their original, each with what changed in it since."""
    signed = signed_in(request)
    if signed is None:
        return to_login(request)
    state = site_state(request)
    conn = state.db.read()
    behind = behind_list(conn, state.site, time.time())
    for item in behind:
        item["when"] = when(request, item["changed"].timestamp())
    raw = posts_store.state(conn, LAST_RUN)
    last: dict[str, Any] | None = json.loads(raw) if raw else None
    if last:
        last["when"] = when(request, last["at"])
    issues = posts_store.issues(conn)
    return render(
        request,
        "guanli/content.html",
        title="content",
        user=signed.user,
        csrf=signed.session.csrf,
        errors=[i for i in issues if i.severity == "error"],
        warnings=[i for i in issues if i.severity != "error"],
        last=last,
        behind=behind,
    )


def _admin_only(request: Request, signed: Any) -> Response | None:
    if signed.user.role != "admin":
        message = "only an admin sees this page (your role: editor)"
        return render(request, "guanli/message.html", 403, title="403", message=message)
    return None


def settings(request: Request) -> Response:
    """The discussion settings, read-only, each with where it is set (admins only)."""
    signed = signed_in(request)
    if signed is None:
        return to_login(request)
    if (refusal := _admin_only(request, signed)) is not None:
        return refusal
    site = site_state(request).site
    rows = []
    for name in DISCUSSION:
        value = getattr(site.settings, name)
        if name == "smtp_password_env":
            value = f"{value} ({'set' if value and _env_set(value) else 'not set'})"
        rows.append(
            {
                "name": name,
                "value": json.dumps(value, ensure_ascii=False)
                if not isinstance(value, str)
                else value,
                "source": setting_source(site.root, name),
                "help": Settings.model_fields[name].description or "",
            }
        )
    return render(
        request,
        "guanli/settings.html",
        title="settings",
        user=signed.user,
        csrf=signed.session.csrf,
        rows=rows,
    )


def _env_set(name: str) -> bool:
    return bool(os.environ.get(name))


def audit(request: Request) -> Response:
    """The audit log: every moderation action, sign-in and user change, filterable by who
    and what (any part of them, the ones in the log offered as choices) and comment; 50 a
    page."""
    signed = signed_in(request)
    if signed is None:
        return to_login(request)
    params = request.query_params
    raw_id = params.get("comment", "")
    raw_page = params.get("page", "1")
    if (raw_id and not raw_id.isdigit()) or not raw_page.isdigit() or int(raw_page) < 1:
        return render(
            request,
            "guanli/message.html",
            400,
            title="400",
            message="comment and page: whole numbers",
        )
    page = int(raw_page)
    conn = site_state(request).db.read()
    actors, actions = audit_log.choices(conn)
    rows, total = audit_log.entries(
        conn,
        actor=params.get("actor", "")[:100],
        action=params.get("action", "")[:50],
        comment_id=int(raw_id) if raw_id else None,
        page=page,
    )
    return render(
        request,
        "guanli/audit.html",
        title="audit",
        user=signed.user,
        csrf=signed.session.csrf,
        rows=[{"r": r, "when": when(request, r["at"])} for r in rows],
        total=total,
        page=page,
        pages=max(1, -(-total // 50)),
        params={k: params.get(k, "") for k in ("actor", "action", "comment")},
        actors=actors,
        actions=actions,
    )


def users(request: Request) -> Response:
    """The dashboard's users with their role, address, sessions and tokens (admins only; they
    are added and changed with `masthead admin`)."""
    signed = signed_in(request)
    if signed is None:
        return to_login(request)
    if (refusal := _admin_only(request, signed)) is not None:
        return refusal
    conn = site_state(request).db.read()
    rows = [
        {
            "u": u,
            "sessions": len(users_store.sessions_of(conn, u.id)),
            "tokens": users_store.token_count(conn, u.id),
            "since": when(request, u.created),
        }
        for u in users_store.users(conn)
    ]
    return render(
        request,
        "guanli/users.html",
        title="users",
        user=signed.user,
        csrf=signed.session.csrf,
        rows=rows,
    )
