"""Reading time for Chinese and mixed posts (issue 32, item 7): Han characters are read at about
400 a minute and Latin-script words at 230, and a post that has both takes the sum."""

from __future__ import annotations

from masthead.content.post import parse_post

from support.sites import post

# Chinese prose, repeated: 46 Han characters and four marks of punctuation per sentence
_SENTENCE = (
    "编辑平台应当让技术作者专心写作，而不必担心公式、图表和图片的呈现方式；"
    "读者在手机上也能顺畅阅读全文。"
)


def _han(text: str) -> int:
    return sum("\u4e00" <= c <= "\u9fff" for c in text)


def _chinese(chars: int) -> str:
    """Paragraphs of `_SENTENCE` holding exactly `chars` Han characters."""
    out: list[str] = []
    left = chars
    while left:
        sentence = _SENTENCE
        if _han(sentence) > left:  # the last one cut short, after its `left`-th character
            han = [i for i, c in enumerate(sentence) if _han(c)]
            sentence = sentence[: han[left - 1] + 1] + "。"
        out.append(sentence)
        left -= _han(sentence)
    return "\n\n".join(out)


def test_a_4000_character_chinese_post_reads_in_about_ten_minutes(make_site):
    body = _chinese(4000)
    assert _han(body) == 4000
    site = make_site({})
    zh = parse_post(site, "posts/zh.md", post("长文", body=body + "\n", lang="zh").encode())
    assert zh.reading_minutes == 10


def test_a_mixed_post_sums_its_chinese_and_its_english(make_site):
    chinese = _chinese(2000)  # 5 minutes at 400 a minute
    english = " ".join(["reading"] * 1150)  # 5 minutes at 230 a minute
    site = make_site({})
    mixed = parse_post(
        site, "posts/mixed.md", post("混合", body=f"{chinese}\n\n{english}\n", lang="zh").encode()
    )
    only_zh = parse_post(site, "posts/a.md", post("A", body=chinese + "\n", lang="zh").encode())
    only_en = parse_post(site, "posts/b.md", post("B", body=english + "\n").encode())
    assert (only_zh.reading_minutes, only_en.reading_minutes) == (5, 5)
    assert mixed.reading_minutes == 10, "both scripts count: neither is dropped"
