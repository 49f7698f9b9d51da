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
        "draft_note": "This is a draft: only development mode and signed-in editors see it.",
        "scheduled_note": "Scheduled for {date}: until then only signed-in editors see it.",
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
        "comment_edit": "Edit",
        "comment_delete": "Delete",
        "comment_save": "Save",
        "comment_cancel": "Cancel",
        "comment_confirm_delete": "Delete this comment?",
        "comment_deleted": "Your comment was deleted.",
        # MAIL (issue 11): notification mails and their one-click pages
        "mail_anonymous": "Anonymous",
        "mail_held_subject": "[{site}] A comment on \u201c{post}\u201d awaits moderation",
        "mail_held_intro": "A new comment on \u201c{post}\u201d is waiting for your moderation.",
        "mail_author": "Author",
        "mail_website": "Website",
        "mail_language": "Language",
        "mail_reason": "Held because",
        "mail_post": "Post",
        "mail_approve": "Approve",
        "mail_spam": "Mark as spam",
        "mail_dashboard": "All pending comments",
        "mail_links_note": (
            "Each link opens a page that asks you to confirm. "
            "A link works once, and for 7 days at most."
        ),
        "mail_reply_subject": "{name} replied to your comment on \u201c{post}\u201d",
        "mail_reply_intro": "{name} replied to your comment on \u201c{post}\u201d:",
        "mail_read_it": "Read it",
        "mail_reply_why": (
            "You get this mail because you asked to be told of replies to your comment."
        ),
        "mail_unsubscribe": "Stop these mails",
        "mail_page_title": "Moderate a comment",
        "mail_confirm_approve": "Approve this comment?",
        "mail_confirm_spam": "Mark this comment as spam?",
        "mail_on_post": "On {post}",
        "mail_status_now": "Status now: {status}",
        "mail_done_approved": "The comment is approved and published.",
        "mail_done_spam": "The comment is marked as spam.",
        "mail_link_expired": "This link has expired. Moderate the comment in the dashboard.",
        "mail_link_invalid": "This link is not valid.",
        "mail_link_used": "This link has been used already.",
        "mail_link_stale": (
            "The comment has changed since this mail was sent (its status is now {status}): "
            "this link no longer works."
        ),
        "mail_comment_gone": "The comment no longer exists.",
        "mail_cross_site": "Refused: this request comes from another site.",
        "unsubscribe_title": "Stop reply notifications",
        "unsubscribe_confirm": (
            "Stop the mails that tell you of replies to your comments on this site?"
        ),
        "unsubscribe_button": "Stop these mails",
        "unsubscribe_done": "Done: no more reply notifications will be sent to this address.",
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
        "draft_note": "这是一篇草稿，只在开发模式下或对已登录的编辑可见。",
        "scheduled_note": "定于 {date} 发布：在此之前只有已登录的编辑可见。",
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
        "comment_edit": "编辑",
        "comment_delete": "删除",
        "comment_save": "保存",
        "comment_cancel": "取消",
        "comment_confirm_delete": "删除这条评论？",
        "comment_deleted": "您的评论已删除。",
        # MAIL (issue 11): notification mails and their one-click pages
        "mail_anonymous": "匿名",
        "mail_held_subject": "[{site}] 《{post}》有一条评论等待审核",
        "mail_held_intro": "《{post}》有一条新评论等待你审核。",
        "mail_author": "作者",
        "mail_website": "网站",
        "mail_language": "语言",
        "mail_reason": "待审原因",
        "mail_post": "文章",
        "mail_approve": "批准",
        "mail_spam": "标为垃圾评论",
        "mail_dashboard": "全部待审评论",
        "mail_links_note": "每个链接都会先打开一个确认页面。链接只能使用一次，最多有效 7 天。",
        "mail_reply_subject": "{name} 回复了你在《{post}》下的评论",
        "mail_reply_intro": "{name} 回复了你在《{post}》下的评论：",
        "mail_read_it": "查看回复",
        "mail_reply_why": "你收到这封邮件，是因为你选择了在评论有回复时接收通知。",
        "mail_unsubscribe": "不再接收这类邮件",
        "mail_page_title": "审核评论",
        "mail_confirm_approve": "批准这条评论？",
        "mail_confirm_spam": "把这条评论标为垃圾评论？",
        "mail_on_post": "文章：{post}",
        "mail_status_now": "当前状态：{status}",
        "mail_done_approved": "评论已批准并发布。",
        "mail_done_spam": "评论已标为垃圾评论。",
        "mail_link_expired": "这个链接已过期，请在后台审核这条评论。",
        "mail_link_invalid": "这个链接无效。",
        "mail_link_used": "这个链接已经用过了。",
        "mail_link_stale": "邮件发出后这条评论已有变动（当前状态：{status}），这个链接不再有效。",
        "mail_comment_gone": "这条评论已不存在。",
        "mail_cross_site": "已拒绝：这个请求来自其他网站。",
        "unsubscribe_title": "停止回复通知",
        "unsubscribe_confirm": "不再接收本站评论的回复通知邮件？",
        "unsubscribe_button": "停止接收",
        "unsubscribe_done": "好了：不会再向这个地址发送回复通知。",
    },
}


def catalog(locale: str) -> dict[str, str]:
    """The catalog for a Babel locale or code (`zh_Hans_CN`, `zh`, `en`); English if none."""
    primary = locale.replace("_", "-").split("-")[0].lower()
    return CATALOGS.get(primary, CATALOGS["en"])


def gettext(locale: str, key: str, **values: object) -> str:
    """Interface text `key` in `locale`, with `{name}` placeholders filled from `values`.
    With a whole number `n`, the text of its CLDR plural category (`KEY_one`, `KEY_few`...,
    Unicode TR35 plural rules through Babel) when the catalog has one, else `key`: English
    `{n} comments` has `_one` "1 comment"; Chinese has one form for every number."""
    texts = catalog(locale)
    n = values.get("n")
    if isinstance(n, int) and not isinstance(n, bool):
        form = texts.get(f"{key}_{_locale(locale).plural_form(n)}")
        if form is not None:
            return form.format(**values)
    text = texts.get(key) or CATALOGS["en"].get(key, key)
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


# --- the /guanli dashboard (issue 12) ---------------------------------------------------------
CATALOGS["en"].update(
    {
        "guanli": "Dashboard",
        "guanli_overview": "Overview",
        "guanli_sign_in": "Sign in",
        "guanli_username": "User name",
        "guanli_pw_label": "Password",
        "guanli_signed_in_as": "Signed in as {name}",
        "guanli_sign_out": "Sign out",
        "guanli_back": "Back to the dashboard",
        "guanli_403": "Refused",
        "guanli_comments": "Comments",
        "guanli_status_pending": "pending",
        "guanli_status_approved": "approved",
        "guanli_status_spam": "spam",
        "guanli_status_trash": "trash",
        "guanli_sessions": "Sessions",
        "guanli_session_seen": "Last seen",
        "guanli_session_client": "Browser",
        "guanli_actions": "Actions",
        "guanli_this_session": "this one",
        "guanli_revoke": "Sign out this session",
    }
)
CATALOGS["zh"].update(
    {
        "guanli": "管理",
        "guanli_overview": "概览",
        "guanli_sign_in": "登录",
        "guanli_username": "用户名",
        "guanli_pw_label": "密码",
        "guanli_signed_in_as": "已登录：{name}",
        "guanli_sign_out": "退出",
        "guanli_back": "返回管理首页",
        "guanli_403": "已拒绝",
        "guanli_comments": "评论",
        "guanli_status_pending": "待审核",
        "guanli_status_approved": "已批准",
        "guanli_status_spam": "垃圾评论",
        "guanli_status_trash": "回收站",
        "guanli_sessions": "登录会话",
        "guanli_session_seen": "最近活动",
        "guanli_session_client": "浏览器",
        "guanli_actions": "操作",
        "guanli_this_session": "当前",
        "guanli_revoke": "结束此会话",
    }
)

CATALOGS["en"].update(
    {
        "guanli_confirm": "Confirm",
        "guanli_400": "Not understood",
        "guanli_404": "Not found",
        "guanli_409": "Changed meanwhile",
        "guanli_410": "Too late",
        "g_views": "Views",
        "g_view_all": "All",
        "g_view_pending": "Pending",
        "g_view_approved": "Approved",
        "g_view_spam": "Spam",
        "g_view_trash": "Trash",
        "g_search": "Search",
        "g_post": "Post",
        "g_any": "Any",
        "g_lang_unknown": "language not known",
        "g_day": "Day",
        "g_order": "Order",
        "g_newest": "Newest first",
        "g_oldest": "Oldest first",
        "g_per_page": "Per page",
        "g_filter": "Filter",
        "g_bulk": "Bulk action",
        "g_choose": "Choose…",
        "g_scope": "Which comments",
        "g_scope_ticked": "the ticked ones",
        "g_scope_all": "all {n} matching this filter",
        "g_apply": "Apply",
        "g_total": "{n} comments",
        "g_tick_page": "Tick every comment on this page",
        "g_tick": "Tick comment {id}",
        "g_author": "Author",
        "g_comment": "Comment",
        "g_in_response": "In response to",
        "g_date": "Submitted on",
        "g_staff": "staff",
        "g_unverified": "unverified",
        "g_ip_hash": "keyed hash of the IP address",
        "g_approved_count": "{n} approved",
        "g_removed": "comment removed",
        "g_reply_to": "in reply to {name}",
        "g_none": "No comments found.",
        "g_pages": "Pages",
        "g_prev": "← Previous",
        "g_next": "Next →",
        "g_page_of": "Page {page} of {pages}",
        "g_empty_spam": "Empty spam",
        "g_empty_trash": "Empty trash",
        "g_keys": "Keyboard shortcuts",
        "g_key_move": "next / previous comment",
        "g_key_tick": "tick the comment",
        "g_key_help": "this help",
        "g_key_hint": "Keyboard: j/k move, x tick, a approve, s spam, d trash, ? help.",
        "g_act_approve": "Approve",
        "g_act_unapprove": "Unapprove",
        "g_act_spam": "Spam",
        "g_act_notspam": "Not spam",
        "g_act_trash": "Trash",
        "g_act_restore": "Restore",
        "g_act_delete": "Delete permanently",
        "g_done_approve": "{n} approved.",
        "g_done_unapprove": "{n} unapproved.",
        "g_done_spam": "{n} marked as spam.",
        "g_done_notspam": "{n} restored from spam.",
        "g_done_trash": "{n} moved to the trash.",
        "g_done_restore": "{n} restored from the trash.",
        "g_done_delete": "{n} deleted permanently.",
        "g_done_undo": "{n} changes undone.",
        "g_skipped": "{n} skipped: changed since you loaded the page.",
        "g_undo": "Undo",
        "g_confirm": "Please confirm",
        "g_confirm_approve": "Approve {n} comments?",
        "g_confirm_unapprove": "Unapprove {n} comments?",
        "g_confirm_spam": "Mark {n} comments as spam?",
        "g_confirm_notspam": "Restore {n} comments from spam?",
        "g_confirm_trash": "Move {n} comments to the trash?",
        "g_confirm_restore": "Restore {n} comments from the trash?",
        "g_confirm_delete": "Delete {n} comments permanently?",
        "g_confirm_empty_spam": "Delete the {n} spam comments listed permanently?",
        "g_confirm_empty_trash": "Delete the {n} comments in the trash permanently?",
        "g_confirm_snapshot": "Comments that arrived after you loaded the page are not included.",
        "g_confirm_permanent": "This cannot be undone.",
        "g_confirm_yes": "Yes, do it",
        "g_cancel": "Cancel",
    }
)

CATALOGS["zh"].update(
    {
        "guanli_confirm": "确认",
        "guanli_400": "无法处理",
        "guanli_404": "未找到",
        "guanli_409": "数据已变化",
        "guanli_410": "已过期",
        "g_views": "视图",
        "g_view_all": "全部",
        "g_view_pending": "待审核",
        "g_view_approved": "已批准",
        "g_view_spam": "垃圾评论",
        "g_view_trash": "回收站",
        "g_search": "搜索",
        "g_post": "文章",
        "g_any": "不限",
        "g_lang_unknown": "语言未知",
        "g_day": "日期",
        "g_order": "排序",
        "g_newest": "最新在前",
        "g_oldest": "最早在前",
        "g_per_page": "每页",
        "g_filter": "筛选",
        "g_bulk": "批量操作",
        "g_choose": "请选择…",
        "g_scope": "作用范围",
        "g_scope_ticked": "已勾选的评论",
        "g_scope_all": "符合筛选条件的全部 {n} 条",
        "g_apply": "应用",
        "g_total": "共 {n} 条评论",
        "g_tick_page": "勾选本页全部评论",
        "g_tick": "勾选评论 {id}",
        "g_author": "作者",
        "g_comment": "评论",
        "g_in_response": "所属文章",
        "g_date": "提交时间",
        "g_staff": "管理员",
        "g_unverified": "未验证",
        "g_ip_hash": "IP 地址的加密散列",
        "g_approved_count": "已批准 {n} 条",
        "g_removed": "评论已删除",
        "g_reply_to": "回复 {name}",
        "g_none": "没有找到评论。",
        "g_pages": "分页",
        "g_prev": "← 上一页",
        "g_next": "下一页 →",
        "g_page_of": "第 {page} 页，共 {pages} 页",
        "g_empty_spam": "清空垃圾评论",
        "g_empty_trash": "清空回收站",
        "g_keys": "键盘快捷键",
        "g_key_move": "下一条 / 上一条评论",
        "g_key_tick": "勾选评论",
        "g_key_help": "显示帮助",
        "g_key_hint": "键盘：j/k 移动，x 勾选，a 批准，s 标为垃圾，d 移入回收站，? 帮助。",
        "g_act_approve": "批准",
        "g_act_unapprove": "驳回",
        "g_act_spam": "标为垃圾",
        "g_act_notspam": "不是垃圾",
        "g_act_trash": "移入回收站",
        "g_act_restore": "还原",
        "g_act_delete": "永久删除",
        "g_done_approve": "已批准 {n} 条。",
        "g_done_unapprove": "已驳回 {n} 条。",
        "g_done_spam": "已将 {n} 条标为垃圾评论。",
        "g_done_notspam": "已从垃圾评论还原 {n} 条。",
        "g_done_trash": "已将 {n} 条移入回收站。",
        "g_done_restore": "已从回收站还原 {n} 条。",
        "g_done_delete": "已永久删除 {n} 条。",
        "g_done_undo": "已撤销 {n} 项更改。",
        "g_skipped": "跳过 {n} 条：载入页面后已被更改。",
        "g_undo": "撤销",
        "g_confirm": "请确认",
        "g_confirm_approve": "批准 {n} 条评论？",
        "g_confirm_unapprove": "驳回 {n} 条评论？",
        "g_confirm_spam": "将 {n} 条评论标为垃圾？",
        "g_confirm_notspam": "从垃圾评论还原 {n} 条？",
        "g_confirm_trash": "将 {n} 条评论移入回收站？",
        "g_confirm_restore": "从回收站还原 {n} 条评论？",
        "g_confirm_delete": "永久删除 {n} 条评论？",
        "g_confirm_empty_spam": "永久删除列出的 {n} 条垃圾评论？",
        "g_confirm_empty_trash": "永久删除回收站中的 {n} 条评论？",
        "g_confirm_snapshot": "载入页面之后新到的评论不包括在内。",
        "g_confirm_permanent": "此操作无法撤销。",
        "g_confirm_yes": "确定",
        "g_cancel": "取消",
    }
)

CATALOGS["en"].update(
    {
        "guanli_search_log": "Search log",
        "guanli_content": "Content errors",
        "guanli_settings": "Discussion settings",
        "guanli_audit": "Audit log",
        "g_chart_table": "The numbers",
        "g_count": "Count",
        "g_comments_per_day": "Comments per day, last 30 days",
        "g_top_threads": "Busiest threads, last 30 days",
        "g_searches_per_day": "Searches per day, last 30 days",
        "g_top_queries": "Top queries",
        "g_no_results": "Queries that found nothing",
        "g_query": "Query",
        "g_filters": "Filters",
        "g_searches": "Searches",
        "g_results": "Results (last)",
        "g_none_yet": "Nothing yet.",
        "g_none_found": "None.",
        "g_last_run": "The last index run",
        "g_when": "When",
        "g_files": "Files",
        "g_parsed": "Parsed",
        "g_unchanged": "Unchanged",
        "g_deleted": "Deleted",
        "g_errors": "Errors",
        "g_warnings": "Warnings",
        "g_seconds": "Seconds",
        "g_settings_note": (
            "Read only: change them in masthead.toml or the environment, then restart the server."
        ),
        "g_setting": "Setting",
        "g_value": "Value",
        "g_set_in": "Set in",
        "g_who": "Who",
        "g_what": "What",
        "g_from_to": "Status",
        "g_detail": "Detail",
        "g_total_events": "{n} events",
        # the CLDR "one" forms of the dashboard's counts (`gettext` picks them by `n`)
        "g_total_one": "{n} comment",
        "g_total_events_one": "{n} event",
        "g_scope_all_one": "the {n} comment matching this filter",
        "g_done_undo_one": "{n} change undone.",
        "g_confirm_approve_one": "Approve {n} comment?",
        "g_confirm_unapprove_one": "Unapprove {n} comment?",
        "g_confirm_spam_one": "Mark {n} comment as spam?",
        "g_confirm_notspam_one": "Restore {n} comment from spam?",
        "g_confirm_trash_one": "Move {n} comment to the trash?",
        "g_confirm_restore_one": "Restore {n} comment from the trash?",
        "g_confirm_delete_one": "Delete {n} comment permanently?",
        "g_confirm_empty_spam_one": "Delete the {n} spam comment listed permanently?",
        "g_confirm_empty_trash_one": "Delete the {n} comment in the trash permanently?",
    }
)

CATALOGS["zh"].update(
    {
        "guanli_search_log": "搜索记录",
        "guanli_content": "内容错误",
        "guanli_settings": "讨论设置",
        "guanli_audit": "操作日志",
        "g_chart_table": "数据",
        "g_count": "数量",
        "g_comments_per_day": "最近 30 天每日评论数",
        "g_top_threads": "最近 30 天最活跃的讨论",
        "g_searches_per_day": "最近 30 天每日搜索次数",
        "g_top_queries": "热门搜索",
        "g_no_results": "没有结果的搜索",
        "g_query": "搜索词",
        "g_filters": "筛选条件",
        "g_searches": "次数",
        "g_results": "结果数（最近一次）",
        "g_none_yet": "暂无。",
        "g_none_found": "无。",
        "g_last_run": "最近一次索引",
        "g_when": "时间",
        "g_files": "文件",
        "g_parsed": "已解析",
        "g_unchanged": "未变化",
        "g_deleted": "已删除",
        "g_errors": "错误",
        "g_warnings": "警告",
        "g_seconds": "秒",
        "g_settings_note": "只读：请在 masthead.toml 或环境变量中修改，然后重启服务器。",
        "g_setting": "设置",
        "g_value": "值",
        "g_set_in": "来源",
        "g_who": "操作者",
        "g_what": "操作",
        "g_from_to": "状态",
        "g_detail": "详情",
        "g_total_events": "共 {n} 条记录",
    }
)

CATALOGS["en"].update(
    {
        "g_reply": "Reply",
        "g_reply_text": "Your reply to {name}",
        "g_reply_send": "Publish the reply",
        "g_quick_edit": "Quick edit",
        "g_save": "Save",
        "g_done_reply": "Your reply is published.",
        "g_done_edit": "The comment is saved.",
    }
)
CATALOGS["zh"].update(
    {
        "g_reply": "回复",
        "g_reply_text": "回复 {name}",
        "g_reply_send": "发布回复",
        "g_quick_edit": "快速编辑",
        "g_save": "保存",
        "g_done_reply": "回复已发布。",
        "g_done_edit": "评论已保存。",
    }
)

CATALOGS["en"].update(
    {
        "guanli_users": "Users",
        "g_users_note": "Add, change and remove users with masthead admin (see the README).",
        "g_role": "Role",
        "g_tokens": "API tokens",
        "g_since": "Since",
        "g_history": "History",
    }
)
CATALOGS["zh"].update(
    {
        "guanli_users": "用户",
        "g_users_note": "用 masthead admin 命令添加、修改和删除用户（见 README）。",
        "g_role": "角色",
        "g_tokens": "API 令牌",
        "g_since": "创建于",
        "g_history": "历史",
    }
)

# --- the dashboard's moderation reasons and audit details (web/routes/guanli_text.py) ---------
CATALOGS["en"].update(
    {
        "g_list_sep": "; ",
        "g_reason_duplicate": "the same comment as #{id}",
        "g_reason_honeypot": "the hidden field was filled in",
        "g_reason_too_fast": "sent {elapsed} s after the form was shown (at least {least} s)",
        "g_reason_all_held": "every comment is held (comments_moderation)",
        "g_reason_staff_address": "claims a staff address",
        "g_reason_first": "first comment from this browser",
        "g_reason_links": "{links} links (held at {most} or more)",
        "g_reason_moderation_word": "contains the moderation word “{word}”",
        "g_reason_disallowed_word": "contains the disallowed word “{word}”",
        "g_reason_staff": "signed-in staff",
        "g_reason_known": "known commenter",
        "g_reason_passed": "passed every rule",
        "g_reason_editor_reply": "a reply by a signed-in editor",
        "g_reason_author_deleted": "deleted by its author",
        "g_reason_imported": "imported from {source} with status {status}",
        "g_reason_edited": "edited: {reason}",
        "g_d_ids": "comments {ids}",
        "g_d_ids_one": "comment {ids}",
        "g_d_no_ids": "no comments changed",
        "g_d_skipped": "skipped {ids}",
        "g_d_more": "… ({n} in all)",
        "g_d_of": "undoes event {id}",
        "g_d_reason": "reason: {reason}",
        "g_d_previous": "before: {values}",
        "g_d_user": "user {value}",
        "g_d_role": "role {value}",
        "g_d_count": "{n} tokens",
        "g_d_count_one": "{n} token",
        "g_d_client": "client {value}",
        "g_d_rule": "rule: {value}",
        "g_d_thread": "thread {value}",
        "g_d_ip_hash": "IP hash {value}",
        "g_d_path": "address {value}",
        "g_d_why": "why: {value}",
        "g_not_found_text": "There is no dashboard page at this address.",
        "g_method_text": "This dashboard address does not take a {method} request.",
        "guanli_405": "Not allowed",
        "guanli_500": "Something went wrong",
    }
)
CATALOGS["zh"].update(
    {
        "g_list_sep": "；",
        "g_reason_duplicate": "与 #{id} 是同一条评论",
        "g_reason_honeypot": "隐藏字段被填写",
        "g_reason_too_fast": "表单显示后 {elapsed} 秒即提交（至少需 {least} 秒）",
        "g_reason_all_held": "所有评论都须审核（comments_moderation）",
        "g_reason_staff_address": "冒用工作人员的邮箱",
        "g_reason_first": "此浏览器的第一条评论",
        "g_reason_links": "含 {links} 个链接（{most} 个及以上须审核）",
        "g_reason_moderation_word": "含有审核词“{word}”",
        "g_reason_disallowed_word": "含有禁用词“{word}”",
        "g_reason_staff": "已登录的工作人员",
        "g_reason_known": "已知的评论者",
        "g_reason_passed": "通过了所有规则",
        "g_reason_editor_reply": "已登录编辑的回复",
        "g_reason_author_deleted": "作者自行删除",
        "g_reason_imported": "从 {source} 导入，状态为{status}",
        "g_reason_edited": "编辑后：{reason}",
        "g_d_ids": "评论 {ids}",
        "g_d_no_ids": "没有评论被更改",
        "g_d_skipped": "跳过 {ids}",
        "g_d_more": "…（共 {n} 条）",
        "g_d_of": "撤销事件 {id}",
        "g_d_reason": "原因：{reason}",
        "g_d_previous": "修改前：{values}",
        "g_d_user": "用户 {value}",
        "g_d_role": "角色 {value}",
        "g_d_count": "{n} 个令牌",
        "g_d_client": "客户端 {value}",
        "g_d_rule": "规则：{value}",
        "g_d_thread": "讨论串 {value}",
        "g_d_ip_hash": "IP 哈希 {value}",
        "g_d_path": "地址 {value}",
        "g_d_why": "原因：{value}",
        "g_not_found_text": "管理后台没有这个地址的页面。",
        "g_method_text": "管理后台的这个地址不接受 {method} 请求。",
        "guanli_405": "不允许",
        "guanli_500": "出错了",
    }
)

# --- the 404 page's way forward (issue 13) ----------------------------------------------------
CATALOGS["en"].update(
    {
        "not_found_search": "Search this site",
        "latest_posts": "Latest posts",
    }
)
CATALOGS["zh"].update(
    {
        "not_found_search": "搜索本站",
        "latest_posts": "最新文章",
    }
)

# --- THEME (issue 13): the light/dark switch and search suggestions ---------------------------
CATALOGS["en"].update(
    {
        "theme_dark": "Dark theme",
        "suggestions": "Suggestions",
        "suggestions_n": "Suggestions: {n}",  # filled in by static/js/suggest.js
    }
)
CATALOGS["zh"].update(
    {
        "theme_dark": "深色主题",
        "suggestions": "搜索建议",
        "suggestions_n": "搜索建议：{n} 条",
    }
)

# READER: footer, author pages, previous/next and related posts
CATALOGS["en"].update(
    {
        "authors": "Authors",
        "all_authors": "All authors",
        "posts_by": "Posts by {name}",
        "author_links": "Elsewhere",
        "previous_post": "Previous post",
        "next_post": "Next post",
        "post_navigation": "More posts",
        "related_posts": "Related posts",
        "site_footer": "Site links",
        "feeds": "Feeds",
        "rss_feed": "RSS",
        "atom_feed": "Atom",
        "about": "About",
    }
)
CATALOGS["zh"].update(
    {
        "authors": "作者",
        "all_authors": "全部作者",
        "posts_by": "{name} 的文章",
        "author_links": "其他链接",
        "previous_post": "上一篇",
        "next_post": "下一篇",
        "post_navigation": "更多文章",
        "related_posts": "相关文章",
        "site_footer": "站点链接",
        "feeds": "订阅",
        "rss_feed": "RSS",
        "atom_feed": "Atom",
        "about": "关于",
    }
)

# --- LAYOUT: code blocks (issue 13) ----------------------------------------------------------
CATALOGS["en"].update(
    {"code_label": "Code", "table_label": "Table", "copy_code": "Copy", "copied": "Copied"}
)
CATALOGS["zh"].update(
    {"code_label": "代码", "table_label": "表格", "copy_code": "复制", "copied": "已复制"}
)

# --- SEARCH: what a query did not use as typed (issue 14) -------------------------------------
CATALOGS["en"].update(
    {
        "search_as_words": "Searched as plain words, not prefixes: {words} (a prefix needs at "
        "least {min} letters, and a query has at most {max}).",
        "search_unsearched": "Not searched: {words} (a query uses its first {max} words).",
        "search_not_filters": "Searched as plain words, not filters: {words} (dates are "
        "YYYY, YYYY-MM or YYYY-MM-DD; year: takes YYYY).",
    }
)
CATALOGS["zh"].update(
    {
        "search_as_words": "以下按普通词而非前缀搜索：{words}（前缀至少 {min} 个字母，"
        "每次查询最多 {max} 个前缀）。",
        "search_unsearched": "未搜索：{words}（每次查询只用前 {max} 个词）。",
        "search_not_filters": "以下按普通词而非筛选条件搜索：{words}（日期格式为 YYYY、YYYY-MM 或 "
        "YYYY-MM-DD；year: 只接受 YYYY）。",
    }
)
CATALOGS["en"].update(
    {
        "comment_too_large": "It is larger than the 1 MiB a comment may be, so the server did not "
        "read it and nothing was stored.",
        "comment_not_read": "The server could not read what was sent, so nothing was stored.",
        "comment_not_kept": "Your text is not on this page: use your browser’s Back button to "
        "return to the form, where it usually still is, then shorten it or send it again.",
        "comment_too_large_kept": "It is larger than the 1 MiB a comment may be: nothing was "
        "stored. Your text is still in the form: shorten it and send it again.",
        "pingback": "Pingback",
        "trackback": "Trackback",
        "ping_from": "{kind} from {site}",
    }
)
CATALOGS["zh"].update(
    {
        "comment_too_large": "评论超过了 1 MiB 的上限，服务器没有读取它，也没有保存任何内容。",
        "comment_not_read": "服务器无法读取所发送的内容，没有保存任何内容。",
        "comment_not_kept": "本页没有您的文字：请用浏览器的“后退”按钮回到表单，"
        "文字通常仍在那里，缩短后或直接重新发送。",
        "comment_too_large_kept": "评论超过了 1 MiB 的上限：没有保存任何内容。"
        "您的文字仍在表单中，请缩短后重新发送。",
        "pingback": "引用通告",
        "trackback": "引用",
        "ping_from": "来自 {site} 的{kind}",
    }
)

# --- SEARCH: a `lang:` filter that names no language of the site ------------------------------
CATALOGS["en"].update(
    {
        "search_not_language": "Searched as plain words, not filters: {words} (not a language "
        "of this site; its languages are {langs}).",
    }
)
CATALOGS["zh"].update(
    {
        "search_not_language": "以下按普通词而非筛选条件搜索：{words}（本站没有这种语言；"
        "本站的语言为 {langs}）。",
    }
)
