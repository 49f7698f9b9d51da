"""The dashboard's overview, search log, content errors, settings and audit log (issue 12,
items 4 and 6) over real HTTP; and the pure chart numbers (site-zone days, C54)."""

from __future__ import annotations

import re
import time
from datetime import date
from zoneinfo import ZoneInfo

from starlette.testclient import TestClient

from masthead.accounts import service as accounts
from masthead.store import comments as cs
from masthead.store.db import Database
from masthead.web.app import create_app
from masthead.web.render.charts import bars, per_day

from support.sites import new_comment, post

PASSWORD = "a long password"  # pragma: allowlist secret


def signed(site):
    client = TestClient(create_app(site), base_url="https://testserver", follow_redirects=False)
    client.__enter__()
    form = client.get("/guanli/login")
    token = re.search(r'name="csrf" value="([^"]+)"', form.text).group(1)
    client.post("/guanli/login", data={"username": "mei", "password": PASSWORD, "csrf": token})
    return client


def test_days_are_site_zone_days_c54():
    shanghai = ZoneInfo("Asia/Shanghai")
    at = 1714606200.0  # 2024-05-01T23:30:00Z = 2024-05-02 07:30 +08:00
    series = per_day([at], shanghai, 3, at + 3600)
    assert series == [(date(2024, 4, 30), 0), (date(2024, 5, 1), 0), (date(2024, 5, 2), 1)]
    drawn = bars(series, width=300, height=100)
    assert drawn[-1].height == 100 and drawn[0].height == 0


def test_every_screen_needs_a_session(make_site):
    site = make_site({"posts/a.md": post("A")})
    with TestClient(create_app(site), base_url="https://testserver", follow_redirects=False) as c:
        for path in ("/guanli/search-log", "/guanli/content", "/guanli/settings", "/guanli/audit"):
            assert c.get(path).status_code == 303, path


def test_screens_show_what_the_store_holds(make_site, monkeypatch):
    monkeypatch.setenv("MASTHEAD_COMMENTS_DEPTH", "4")
    site = make_site(
        {
            "posts/a.md": post("Harbour lights"),
            "posts/broken.md": "---\ntitle: [unclosed\n---\n",
        }
    )
    db = Database(site.database_path)
    accounts.add_user(db, "mei", PASSWORD, "admin")
    key = db.read().execute("SELECT translation_key FROM posts").fetchone()
    db.close()
    client = signed(site)
    db = Database(site.database_path)
    thread = key[0] if key else "t"
    for i in range(3):
        cs.add(
            db,
            new_comment(thread, f"b{i}", status="pending", created=time.time() - i * 86400),
            "reader",
        )
    with db.write() as conn:
        conn.execute(
            "INSERT INTO search_log (at, query, terms, filters, lang, results, latency_ms, client) "
            "VALUES (:at, 'kubelet <b>', 'kubelet', '{}', 'en', 0, 1.0, 'c')",
            {"at": time.time()},
        )
    db.close()
    overview = client.get("/guanli/")
    assert "Comments per day, last 30 days (3)" in overview.text
    assert "Harbour lights" in overview.text and "<svg" in overview.text
    log = client.get("/guanli/search-log")
    assert "kubelet &lt;b&gt;" in log.text and 'href="/search?q=kubelet+%3Cb%3E"' in log.text
    assert "Queries that found nothing" in log.text
    content = client.get("/guanli/content")
    assert "content/posts/broken.md" in content.text and "The last index run" in content.text
    settings = client.get("/guanli/settings")
    row = re.search(r"<code>comments_depth</code>.*?</tr>", settings.text, re.S).group(0)
    assert "<code>4</code>" in row and "MASTHEAD_COMMENTS_DEPTH" in row
    assert "comments_moderation" in settings.text and "default" in settings.text
    audit = client.get("/guanli/audit?action=login")
    assert "editor:mei" in audit.text and "1 event<" in audit.text
    assert client.get("/guanli/audit?comment=x").status_code == 400
    people = client.get("/guanli/users")
    assert people.status_code == 200 and "<td>mei</td><td>admin</td>" in people.text
    listing = client.get("/guanli/comments")
    assert 'href="/guanli/audit?comment=' in listing.text  # each row links its history
    zh = client.get("/guanli/audit", headers={"Accept-Language": "zh-CN"})
    assert "操作日志" in zh.text
    client.__exit__(None, None, None)


def test_settings_and_users_are_for_admins(make_site):
    site = make_site({"posts/a.md": post("A")})
    db = Database(site.database_path)
    accounts.add_user(db, "mei", PASSWORD)  # an editor
    db.close()
    client = signed(site)
    for path in ("/guanli/settings", "/guanli/users"):
        refused = client.get(path)
        assert refused.status_code == 403 and "only an admin" in refused.text
    assert 'href="/guanli/settings"' not in client.get("/guanli/").text
    client.__exit__(None, None, None)
