"""Interface text and dates in the page's language.

One plain message catalog per language (keyed by the primary subtag: `en`, `zh`), and dates by Babel
(CLDR formats: `July 15, 2025`, `2025年7月15日`). Missing keys fall back to English.
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache

from babel import Locale, UnknownLocaleError
from babel.dates import format_date, format_time, get_datetime_format

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
        # CACHE (issue 11): comment feeds (cards count with n_comments below)
        "comments_on": "Comments on “{title}”",
        "comments_site": "{site}: comments",
        "comment_by": "{name} on “{title}”",
        "anonymous": "Anonymous",
        # --- comments: the reader side (READER, issue 11) ---
        "comments": "Comments",
        "n_comments": "{n} comments",
        "n_comments_one": "1 comment",
        "no_comments": "No comments yet. Be the first to write one.",
        "leave_comment": "Leave a comment",
        "leave_reply": "Reply to {name}",
        "reply": "Reply",
        "reply_to_comment": "Reply to this comment",
        "cancel_reply": "Cancel reply",
        "in_reply_to": "in reply to {name}",
        "in_reply_to_removed": "in reply to a removed comment",
        "comment_removed": "This comment was removed.",
        "comment_pending": "Awaiting moderation",
        "notice_pending": (
            "Your comment is awaiting moderation. It will appear here once an editor approves it."
        ),
        "notice_approved": "Your comment is published.",
        "see_own_pending": "See your comments awaiting moderation",
        "own_pending_title": "Your comments awaiting moderation",
        "own_pending_none": (
            "You have no comment awaiting moderation on this post (in this browser)."
        ),
        "comments_closed": "Comments are closed.",
        "comment_body": "Comment",
        "comment_hint": (
            "Markdown: *emphasis*, **strong**, `code`, "
            "[links](https://example.com), lists and quotes."
        ),
        "comment_name": "Name",
        "comment_email": "Email",
        "comment_email_hint": "Never shown, never shared.",
        "comment_website": "Website",
        "optional": "optional",
        "comment_honeypot": "Leave this field empty",
        "comment_remember": (
            "Save my name, email and website in this browser for the next time I comment."
        ),
        "comment_notify": "Email me when someone replies to my comment.",
        "comment_submit": "Post comment",
        "comment_sending": "Sending…",
        "comment_failed": "Your comment was not sent.",
        "comment_kept": "Your text is kept below: correct what is asked and send it again.",
        "comment_network": (
            "The comment could not be sent (no connection?). Your text is kept; try again."
        ),
        "only_my_language": "Show only comments in {name}",
        "older_comments": "Older comments",
        "newer_comments": "Newer comments",
        "comments_page_n": "Comments page {n}",
        "comment_language": "Written in {name}",
        "back_to_post": "Back to the post",
        "chars_max": "at most {n} characters",
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
        # CACHE (issue 11): comment feeds (cards count with n_comments below)
        "comments_on": "《{title}》的评论",
        "comments_site": "{site}：评论",
        "comment_by": "{name} 评论《{title}》",
        "anonymous": "匿名",
        # --- comments: the reader side (READER, issue 11) ---
        "comments": "评论",
        "n_comments": "{n} 条评论",
        "n_comments_one": "1 条评论",
        "no_comments": "还没有评论，来写第一条吧。",
        "leave_comment": "发表评论",
        "leave_reply": "回复 {name}",
        "reply": "回复",
        "reply_to_comment": "回复这条评论",
        "cancel_reply": "取消回复",
        "in_reply_to": "回复 {name}",
        "in_reply_to_removed": "回复一条已删除的评论",
        "comment_removed": "此评论已删除。",
        "comment_pending": "等待审核",
        "notice_pending": "您的评论正在等待审核，编辑通过后就会显示在这里。",
        "notice_approved": "您的评论已发布。",
        "see_own_pending": "查看您等待审核的评论",
        "own_pending_title": "您等待审核的评论",
        "own_pending_none": "您在这篇文章下（在此浏览器中）没有等待审核的评论。",
        "comments_closed": "评论已关闭。",
        "comment_body": "评论",
        "comment_hint": "支持 Markdown：*强调*、**加粗**、`代码`、[链接](https://example.com)、列表和引用。",
        "comment_name": "名字",
        "comment_email": "电子邮件",
        "comment_email_hint": "不会公开，也不会分享。",
        "comment_website": "网站",
        "optional": "选填",
        "comment_honeypot": "请勿填写此栏",
        "comment_remember": "在此浏览器中保存我的名字、电子邮件和网站，下次评论时使用。",
        "comment_notify": "有人回复我的评论时发邮件通知我。",
        "comment_submit": "发表评论",
        "comment_sending": "正在发送…",
        "comment_failed": "您的评论没有发出。",
        "comment_kept": "您的文字保留在下面：请按提示修改后重新发送。",
        "comment_network": "评论未能发出（网络断开了？）。您的文字仍在，请重试。",
        "only_my_language": "只显示{name}评论",
        "older_comments": "较早的评论",
        "newer_comments": "较新的评论",
        "comments_page_n": "评论第 {n} 页",
        "comment_language": "以{name}撰写",
        "back_to_post": "返回文章",
        "chars_max": "最多 {n} 个字符",
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


def long_datetime(value: datetime, locale: str) -> str:
    """An instant as readers of `locale` write it, in `value`'s own zone (give it the site's):
    `May 2, 2024, 7:30 AM`, `2024年5月2日 07:30` (CLDR long date and short time)."""
    loc = _locale(locale)
    date = format_date(value.date(), format="long", locale=loc)
    time = format_time(value.timetz(), format="short", locale=loc)
    pattern = str(get_datetime_format("long", locale=loc))  # CLDR: "{1}, {0}", "{1} {0}"
    return pattern.replace("'", "").replace("{1}", date).replace("{0}", time)
