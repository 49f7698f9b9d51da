"""Boolean settings are strict (config.py): in masthead.toml only TOML's `true` and `false`, so a
string such as `raw_html = "yes"` (which a fresh-user trial saw accepted, turning the HTML
sanitizer off) stops start-up naming the key; a `MASTHEAD_*` variable, always text, takes the
spellings the README lists."""

from __future__ import annotations

import subprocess
import sys

import pytest

from masthead.config import Settings, load_site
from masthead.errors import ConfigError

BOOLEANS = [name for name, f in Settings.model_fields.items() if f.annotation is bool]


def test_the_booleans_are_the_ones_expected():
    assert set(BOOLEANS) >= {"raw_html", "feed_full_text", "comments_moderation"}


@pytest.mark.parametrize("value", ['"yes"', '"true"', '"false"', "1", "0", '""'])
@pytest.mark.parametrize("key", BOOLEANS)
def test_a_toml_boolean_given_as_anything_else_is_refused_naming_the_key(tmp_path, key, value):
    (tmp_path / "masthead.toml").write_text(f"{key} = {value}\n")
    with pytest.raises(ConfigError) as caught:
        load_site(tmp_path)
    assert f"{key}: must be true or false" in str(caught.value)


def test_a_nested_boolean_is_strict_too(tmp_path):
    (tmp_path / "masthead.toml").write_text('[security]\nhsts_include_subdomains = "yes"\n')
    with pytest.raises(ConfigError, match=r"security\.hsts_include_subdomains: must be true"):
        load_site(tmp_path)


def test_toml_true_and_false_are_taken(tmp_path):
    (tmp_path / "masthead.toml").write_text("raw_html = true\nfeed_full_text = false\n")
    settings = load_site(tmp_path).settings
    assert settings.raw_html is True and settings.feed_full_text is False


@pytest.mark.parametrize(
    ("raw", "expect"),
    [("true", True), ("TRUE", True), ("1", True), ("yes", True), ("on", True), (" True ", True),
     ("false", False), ("False", False), ("0", False), ("no", False), ("off", False)],
)  # fmt: skip
def test_environment_booleans_take_the_documented_spellings(tmp_path, monkeypatch, raw, expect):
    monkeypatch.setenv("MASTHEAD_RAW_HTML", raw)
    assert load_site(tmp_path).settings.raw_html is expect
    monkeypatch.setenv("MASTHEAD_RAW_HTML", "yes" if not expect else "no")
    (tmp_path / "masthead.toml").write_text(f"raw_html = {'true' if expect else 'false'}\n")
    assert load_site(tmp_path).settings.raw_html is not expect  # the environment wins


@pytest.mark.parametrize("raw", ["", "maybe", "t", "y", "2"])
def test_an_environment_boolean_of_another_spelling_is_refused(tmp_path, monkeypatch, raw):
    monkeypatch.setenv("MASTHEAD_COMMENTS_MODERATION", raw)
    with pytest.raises(ConfigError) as caught:
        load_site(tmp_path)
    message = str(caught.value)
    assert "MASTHEAD_COMMENTS_MODERATION (environment): must be one of true" in message


def test_the_cli_stops_on_a_string_boolean_with_the_key_named(tmp_path):
    (tmp_path / "masthead.toml").write_text('raw_html = "yes"\n')
    result = subprocess.run(
        [sys.executable, "-m", "masthead", "check", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "raw_html: must be true or false" in result.stderr, result.stderr
