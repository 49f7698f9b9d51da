"""List settings from `MASTHEAD_*` variables (config.py `_env_overrides`): a fresh-user trial
set `MASTHEAD_EDITOR_EMAILS='["a@example.com","b@example.com"]'` and `mail status` still
counted the one address of masthead.toml, because every field not typed str, int or bool was
skipped without a word. Now a JSON array (or, where the items hold no comma, comma-separated
items) is taken, and a value that cannot be read stops start-up naming the variable."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from masthead.cli import app as cli
from masthead.config import Settings, load_site, setting_source
from masthead.errors import ConfigError

MAIL_TOML = (
    'smtp_host = "127.0.0.1"\nsmtp_port = 2525\nsmtp_tls = "none"\n'
    'mail_from = "blog@example.com"\neditor_emails = ["only@example.com"]\n'
    'moderation_keys = ["viagra"]\n'
)
LISTS = [
    n for n, f in Settings.model_fields.items() if getattr(f.annotation, "__origin__", 0) is list
]


def test_the_list_settings_are_the_ones_expected():
    assert set(LISTS) >= {
        "editor_emails", "allowed_origins", "trusted_proxies", "purge_command",
        "moderation_keys", "disallowed_keys", "robots_disallow", "toc_levels",
    }  # fmt: skip


def test_mail_status_counts_the_editor_addresses_of_the_environment(tmp_path, monkeypatch):
    (tmp_path / "masthead.toml").write_text(MAIL_TOML)
    monkeypatch.setenv("MASTHEAD_EDITOR_EMAILS", '["a@example.com","b@example.com"]')
    shown = CliRunner().invoke(cli, ["mail", "status", str(tmp_path)])
    assert shown.exit_code == 0, shown.output
    assert "2 editor address(es)" in shown.output
    assert setting_source(tmp_path, "editor_emails") == "MASTHEAD_EDITOR_EMAILS"


@pytest.mark.parametrize(
    ("name", "raw", "expect"),
    [
        ("allowed_origins", '["https://a.example", "https://b.example:8443"]',
         ["https://a.example", "https://b.example:8443"]),
        ("allowed_origins", "https://a.example, https://b.example", ["https://a.example", "https://b.example"]),
        ("editor_emails", "a@example.com,b@example.com", ["a@example.com", "b@example.com"]),
        ("editor_emails", "", []),
        ("trusted_proxies", "10.0.0.0/8, 127.0.0.1", ["10.0.0.0/8", "127.0.0.1"]),
        ("toc_levels", "2,4", [2, 4]),
        ("toc_levels", "[1, 3]", [1, 3]),
        ("purge_command", '["varnishadm", "ban req.url ~ ."]', ["varnishadm", "ban req.url ~ ."]),
        ("moderation_keys", '["buy now", "a, b"]', ["buy now", "a, b"]),
        ("disallowed_keys", '["casino"]', ["casino"]),
        ("moderation_keys", " ", []),
        ("robots_disallow", '["/private/"]', ["/private/"]),
    ],
)  # fmt: skip
def test_a_list_variable_wins_over_the_file(tmp_path, monkeypatch, name, raw, expect):
    (tmp_path / "masthead.toml").write_text(MAIL_TOML)
    monkeypatch.setenv("MASTHEAD_" + name.upper(), raw)
    assert getattr(load_site(tmp_path).settings, name) == expect


@pytest.mark.parametrize(
    ("name", "raw", "said"),
    [
        ("editor_emails", '["a@example.com",', "not valid JSON"),
        ("moderation_keys", "spam, eggs", "must be a JSON array"),
        ("purge_command", "varnishadm ban", "must be a JSON array"),
        ("allowed_origins", '"https://a.example"', ""),
        ("allowed_origins", "https://a.example,ftp://b", ""),
        ("trusted_proxies", '["10.0.0.0/8", "nope"]', ""),
        ("toc_levels", "2,x", "[1]"),
        ("editor_emails", '{"a": 1}', ""),
        ("security", "hsts", "must be a JSON object"),
    ],
)  # fmt: skip
def test_a_bad_list_variable_is_refused_naming_it(tmp_path, monkeypatch, name, raw, said):
    var = "MASTHEAD_" + name.upper()
    monkeypatch.setenv(var, raw)
    with pytest.raises(ConfigError) as caught:
        load_site(tmp_path)
    # `said` follows the name: "MASTHEAD_X (environment): said…", or "MASTHEAD_X[1] (…"
    if said.startswith("["):
        assert f"{var}{said} (environment): " in str(caught.value)
    else:
        assert f"{var} (environment): {said}" in str(caught.value)


def test_the_cli_stops_on_a_bad_list_variable_with_it_named(tmp_path, monkeypatch):
    (tmp_path / "masthead.toml").write_text(MAIL_TOML)
    monkeypatch.setenv("MASTHEAD_EDITOR_EMAILS", "[a@example.com]")
    shown = CliRunner().invoke(cli, ["check", str(tmp_path)])
    assert shown.exit_code == 2 and "MASTHEAD_EDITOR_EMAILS (environment)" in shown.output
