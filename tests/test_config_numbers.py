"""Number settings are strict (config.py), as booleans are: in masthead.toml only a TOML integer,
so `posts_per_page = "5"` (which a fresh-user trial saw pass `masthead check` with exit 0) stops
start-up naming the key, and so do a float and a boolean; a `MASTHEAD_*` variable, always text,
takes decimal digits."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from masthead.config import Settings, load_site
from masthead.errors import ConfigError

INTEGERS = [name for name, f in Settings.model_fields.items() if f.annotation is int]


def test_the_integers_are_the_ones_expected():
    assert set(INTEGERS) >= {"posts_per_page", "feed_items", "comments_flood_seconds", "smtp_port"}


@pytest.mark.parametrize("value", ['"5"', "5.0", "true", '""'])
@pytest.mark.parametrize("key", INTEGERS)
def test_a_toml_integer_given_as_anything_else_is_refused_naming_the_key(tmp_path, key, value):
    (tmp_path / "masthead.toml").write_text(f"{key} = {value}\n")
    with pytest.raises(ConfigError) as caught:
        load_site(tmp_path)
    assert f"{key}: must be a whole number (a TOML integer, unquoted), not " in str(caught.value)


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ('[security]\nhsts_max_age = "600"\n', "security.hsts_max_age"),
        ('toc_levels = ["2", 3]\n', "toc_levels.0"),
        ('[[menu.en]]\ntitle = "About"\nurl = "/about/"\nweight = "1"\n', "menu.en.0.weight"),
    ],
)
def test_nested_integers_are_strict_too(tmp_path, toml, key):
    (tmp_path / "masthead.toml").write_text(toml)
    with pytest.raises(ConfigError, match=rf"{key}: must be a whole number"):
        load_site(tmp_path)


def test_toml_integers_are_taken(tmp_path):
    (tmp_path / "masthead.toml").write_text("posts_per_page = 5\n[security]\nhsts_max_age = 0\n")
    settings = load_site(tmp_path).settings
    assert (settings.posts_per_page, settings.security.hsts_max_age) == (5, 0)


def test_environment_integers_are_text_and_taken(tmp_path, monkeypatch):
    monkeypatch.setenv("MASTHEAD_POSTS_PER_PAGE", " 7 ")
    monkeypatch.setenv("MASTHEAD_SMTP_PORT", "2525")
    settings = load_site(tmp_path).settings
    assert (settings.posts_per_page, settings.smtp_port) == (7, 2525)


@pytest.mark.parametrize("raw", ["seven", "7.5", ""])
def test_an_environment_integer_that_is_no_number_is_refused_naming_the_variable(
    tmp_path, monkeypatch, raw
):
    monkeypatch.setenv("MASTHEAD_POSTS_PER_PAGE", raw)
    with pytest.raises(ConfigError) as caught:
        load_site(tmp_path)
    assert "MASTHEAD_POSTS_PER_PAGE (environment): must be a whole number" in str(caught.value)


def test_check_stops_on_a_quoted_number(tmp_path):
    (tmp_path / "masthead.toml").write_text('posts_per_page = "5"\n')
    (tmp_path / "content").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MASTHEAD_")}
    result = subprocess.run(
        [sys.executable, "-m", "masthead", "check", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert result.returncode == 2, result.stdout + result.stderr
    assert "posts_per_page: must be a whole number" in result.stderr
