"""Interface text and dates in the page's language.

One plain message catalog per language (keyed by the primary subtag: `en`, `zh`), and dates by Babel
(CLDR formats: `July 15, 2025`, `2025年7月15日`). Missing keys fall back to English.
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache

from babel import Locale, UnknownLocaleError
from babel.dates import format_date

CATALOGS: dict[str, dict[str, str]] = {
    "en": {
        "contents": "Contents",
        "close": "Close",
        "on_this_page": "On this page",
        "minutes_read": "{n} min read",
        "dates_contradict": (
            "The dates contradict each other: after {after} is later than before {before}, "
            "so no post can match."
        ),
        "by": "By",
        "tags": "Tags",
        "categories": "Categories",
        "category": "Category",
        "archive": "Archive",
        "home": "Home",
        "all_languages": "all languages",
        "search": "Search",
        "search_placeholder": "Search posts",
        "newer": "Newer posts",
        "older": "Older posts",
        "page_n": "Page {n}",
        "read_in": "Read in {name}",
        "translations": "Also in",
        "language": "Language",
        "not_found": "Page not found",
        "not_found_text": "There is nothing at this address. It may have moved, or never existed.",
        "back_home": "Back to the home page",
        "posts_tagged": "Posts tagged “{name}”",
        "posts_in": "Posts in “{name}”",
        "all_tags": "All tags",
        "all_categories": "All categories",
        "no_posts": "No posts yet.",
        "draft": "Draft",
        "draft_note": "This is a draft: it is only visible in development mode.",
        "footnotes": "Footnotes",
        "back_to_content": "Back to content",
        "updated": "Updated",
        "note": "Note",
        "warning": "Warning",
        "caution": "Caution",
        "tip": "Tip",
        "info": "Info",
        "video": "Watch the video on YouTube",
        "diagram": "Diagram",
        "skip": "Skip to content",
        "error": "Error",
        "n_posts": "{n} posts",
        "n_posts_one": "1 post",
        "remove_filter": "Remove this filter",
        "search_prompt": "Type a word to search all posts, in every language.",
        "n_results": "{n} results",
        "n_results_one": "1 result",
        "no_results": "No post matches this search.",
        "did_you_mean": "Did you mean:",
        "search_without_filters": "Search “{q}” without filters",
        "previous": "Previous",
        "next": "Next",
        "narrow": "Narrow the results",
        "search_help": "How to search",
        "help_words": "posts with all these words (Chinese is split into words for you)",
        "help_phrase": "this exact phrase",
        "help_exclude": "without this word",
        "help_or": "either word (OR in capitals)",
        "help_prefix": "words starting with kube",
        "help_filters": "only this tag, category, language or author",
        "help_dates": "dates, inclusive (year, month or day)",
        "help_else": "Anything else is searched as a plain word; case and accents do not matter, "
        "and “containers” also finds “container”.",
        # CACHE (issue 11): comment counts on list cards, comment feeds
        "comment_count": "{n} comments",
        "comment_count_one": "1 comment",
        "comments_on": "Comments on “{title}”",
        "comments_site": "{site}: comments",
        "comment_by": "{name} on “{title}”",
        "anonymous": "Anonymous",
    },
    "zh": {
        "contents": "目录",
        "close": "关闭",
        "on_this_page": "本页目录",
        "minutes_read": "阅读约 {n} 分钟",
        "dates_contradict": (
            "日期条件互相矛盾：起始日期 {after} 晚于截止日期 {before}，没有文章能同时满足。"
        ),
        "by": "作者",
        "tags": "标签",
        "categories": "分类",
        "category": "分类",
        "archive": "归档",
        "home": "首页",
        "all_languages": "所有语言",
        "search": "搜索",
        "search_placeholder": "搜索文章",
        "newer": "较新的文章",
        "older": "较早的文章",
        "page_n": "第 {n} 页",
        "read_in": "阅读 {name} 版",
        "translations": "其他语言",
        "language": "语言",
        "not_found": "页面不存在",
        "not_found_text": "这个地址上没有内容，它可能已被移动，或从未存在。",
        "back_home": "返回首页",
        "posts_tagged": "标签“{name}”下的文章",
        "posts_in": "分类“{name}”下的文章",
        "all_tags": "全部标签",
        "all_categories": "全部分类",
        "no_posts": "还没有文章。",
        "draft": "草稿",
        "draft_note": "这是一篇草稿，只在开发模式下可见。",
        "footnotes": "脚注",
        "back_to_content": "返回正文",
        "updated": "更新于",
        "note": "注意",
        "warning": "警告",
        "caution": "小心",
        "tip": "提示",
        "info": "说明",
        "video": "在 YouTube 上观看视频",
        "diagram": "图示",
        "skip": "跳到正文",
        "error": "错误",
        "n_posts": "{n} 篇文章",
        "n_posts_one": "1 篇文章",
        "remove_filter": "移除此筛选条件",
        "search_prompt": "输入关键词，搜索所有语言的文章。",
        "n_results": "{n} 条结果",
        "n_results_one": "1 条结果",
        "no_results": "没有匹配的文章。",
        "did_you_mean": "你是不是要找：",
        "search_without_filters": "不加筛选条件搜索“{q}”",
        "previous": "上一页",
        "next": "下一页",
        "narrow": "缩小范围",
        "search_help": "搜索语法",
        "help_words": "包含所有这些词的文章（中文会自动分词）",
        "help_phrase": "完全匹配这个短语",
        "help_exclude": "不包含这个词",
        "help_or": "任一个词（OR 需大写）",
        "help_prefix": "以 kube 开头的词",
        "help_filters": "只看某个标签、分类、语言或作者",
        "help_dates": "日期范围，含首尾（年、月或日）",
        "help_else": "其他内容都按普通词搜索；不区分大小写和重音，"
        "“containers”也能找到“container”。",
        # CACHE (issue 11): comment counts on list cards, comment feeds
        "comment_count": "{n} 条评论",
        "comment_count_one": "1 条评论",
        "comments_on": "《{title}》的评论",
        "comments_site": "{site}：评论",
        "comment_by": "{name} 评论《{title}》",
        "anonymous": "匿名",
    },
}


def catalog(locale: str) -> dict[str, str]:
    """The catalog for a Babel locale or code (`zh_Hans_CN`, `zh`, `en`); English if none."""
    primary = locale.replace("_", "-").split("-")[0].lower()
    return CATALOGS.get(primary, CATALOGS["en"])


def gettext(locale: str, key: str, **values: object) -> str:
    """Interface text `key` in `locale`, with `{name}` placeholders filled from `values`."""
    text = catalog(locale).get(key) or CATALOGS["en"].get(key, key)
    return text.format(**values) if values else text


@lru_cache(maxsize=32)
def _locale(locale: str) -> Locale:
    try:
        return Locale.parse(locale)
    except (UnknownLocaleError, ValueError):
        return Locale.parse("en")


def long_date(value: datetime, locale: str) -> str:
    """A date as readers of `locale` write it: `July 15, 2025`, `2025年7月15日` (CLDR long)."""
    return format_date(value.date(), format="long", locale=_locale(locale))
