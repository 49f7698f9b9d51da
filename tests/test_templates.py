"""Compiled templates are kept for the process (`masthead.web.app.COMPILED`): each app a process
makes renders its own site's templates, overrides included, never another app's."""

from __future__ import annotations

from masthead.web.app import COMPILED

from support.sites import post, write_site


def test_apps_of_one_process_share_compiled_templates_but_each_renders_its_own(tmp_path, serve):
    files = {"posts/a.md": post("Plain", "2024-01-01", body="Plain text.\n")}
    plain = serve(write_site(tmp_path / "plain", files))
    assert "Plain text." in plain.get("/posts/a/").text
    assert COMPILED.compiled, "the package's templates were kept once compiled"
    kept = dict(COMPILED.compiled)

    themed_files = {**files, "../templates/post.html": "THEMED {{ post.title }}\n"}
    themed = serve(
        write_site(tmp_path / "themed", themed_files)
    )  # another site of this process, its own post.html
    assert themed.get("/posts/a/").text == "THEMED Plain"
    third = serve(write_site(tmp_path / "third", files))  # the package's post.html again
    assert "Plain text." in third.get("/posts/a/").text
    assert all(COMPILED.compiled[key] == code for key, code in kept.items())
