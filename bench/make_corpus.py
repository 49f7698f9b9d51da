#!/usr/bin/env python3
# Origin: copied unchanged from /work/shared/bench/make_corpus.py, the project's shared corpus tool.
"""Deterministic Markdown corpus generator for masthead benchmarks (stdlib only).

Usage:
    python3 make_corpus.py OUTDIR N SEED [--layout plain|hugo|pelican]

Writes N posts (exactly N files). The same (N, SEED) always gives the same bytes.

Corpus shape
  * each post ~1.5-6 KB of UTF-8 (front matter included), 3-8 headings (## / ###),
    paragraphs, bullet and ordered lists, >=1 fenced code block (go/python/bash),
    links (external and to other posts), inline code/emphasis; a table in ~35%
    of posts, footnotes in ~25%, a blockquote in ~30%;
  * ~30% of posts are Chinese (lang: zh); ~20% of posts belong to an en/zh
    translation pair sharing a translationKey, files `slug.md` / `slug.zh.md`.
    Every zh post is named `*.zh.md` (the file suffix is the language).

Layouts
  plain    OUTDIR/*.md with YAML front matter:
           title, date, author, category, tags (list), excerpt, lang,
           translationKey (pairs only)
  hugo     OUTDIR/hugo.toml, OUTDIR/layouts/*.html (minimal theme: title,
           meta, TOC, content, tags, translations, paginated lists),
           OUTDIR/content/posts/*.md (same YAML; `categories: [..]` list
           instead of `category` so Hugo's default taxonomy picks it up)
  pelican  OUTDIR/pelicanconf.py, OUTDIR/content/*.md with Pelican's native
           Markdown metadata (`Key: value` lines; Tags comma-separated;
           Slug + Lang so that pairs are linked as translations)
"""
import argparse
import datetime as dt
import os
import random
import re
import statistics
import sys

# --------------------------------------------------------------------------
# vocabularies
# --------------------------------------------------------------------------
EN_NOUNS = (
    "archive city council editor reader newsroom story budget report data "
    "policy market river bridge station school hospital library museum court "
    "election survey network server database index cache query release team "
    "project schedule deadline headline column review draft source interview "
    "neighborhood harbor village economy inflation railway airport festival "
    "garden forest climate storm season winter summer audience platform "
    "pipeline template layout feed search comment translation language "
    "community volunteer committee budget museum theatre orchestra novel "
    "migration border treaty summit ministry parliament startup factory "
    "harvest kitchen recipe market vendor ledger contract license protocol"
).split()
EN_ADJS = (
    "quiet rapid local national early late public private open closed new old "
    "careful bold modest steady fragile robust hidden visible regional global "
    "annual weekly daily digital analog urban rural coastal northern southern "
    "independent official informal complex simple costly cheap familiar rare "
    "patient restless curious detailed concise practical ambitious"
).split()
EN_VERBS = (
    "reshapes delays funds questions publishes reviews improves challenges "
    "tracks measures expands replaces connects supports reveals documents "
    "rebuilds rewrites examines compares indexes caches serves translates "
    "schedules approves rejects follows explains shapes links"
).split()
EN_ADVS = (
    "quietly quickly slowly carefully openly finally repeatedly rarely "
    "suddenly gradually"
).split()
EN_PREPS = "in across under near behind beyond after before during within".split()
EN_CONNECT = (
    "However, Meanwhile, In practice, For now, As a result, Even so, "
    "By contrast, In the end, At first, Later,"
).split(", ")

ZH_WORDS = (
    "我们 他们 可以 已经 需要 通过 因为 所以 但是 如果 虽然 而且 同时 目前 未来 "
    "今天 昨天 明年 去年 一个 这个 那些 非常 更加 以及 并且 其中 包括 认为 表示 "
    "发现 进行 提供 支持 使用 实现 改善 增加 减少 发布 编辑 读者 记者 新闻 文章 "
    "内容 搜索 评论 翻译 语言 数据 系统 开发 用户 问题 时间 方法 服务 网络 性能 "
    "测试 版本 项目 团队 城市 经济 社会 政策 市场 企业 技术 发展 研究 报告 历史 "
    "文化 教育 环境 公司 政府 国际 重要 简单 复杂 快速 稳定 安全 开放 自由 地方 "
    "居民 社区 交通 铁路 机场 港口 河流 天气 季节 农业 工厂 学校 医院 图书馆 博物馆 "
    "法院 选举 调查 预算 合同 标准 平台 模板 索引 缓存 查询 服务器 数据库 读者群 "
    "编辑部 专栏 标题 草稿 来源 采访 计划 进度 结果 影响 变化 机会 挑战 经验 质量"
).split()
ZH_PARTICLES = "的 了 在 是 和 有 也 都 就 不 对 把 被 让 从 向 为".split()
ZH_CONNECT = "然而， 此外， 与此同时， 事实上， 因此， 总的来说， 首先， 其次， 最后，".split()

AUTHORS = (
    "Ada Lin", "Ben Okafor", "Chen Wei", "Dana Ruiz", "Elif Kaya", "Farah Said",
    "Gao Min", "Hugo Berg", "Iris Novak", "Jun Tanaka", "Kofi Mensah",
    "Li Na", "Mara Costa", "Nils Holm", "Olga Petrov", "Priya Nair",
)
CATEGORIES = (
    "news", "culture", "technology", "science", "opinion", "city", "business",
    "travel", "sport", "engineering",
)
TAGS = (
    "go", "python", "databases", "search", "sqlite", "performance", "web",
    "editorial", "typography", "i18n", "chinese", "translation", "climate",
    "transport", "housing", "elections", "budget", "education", "health",
    "music", "film", "books", "food", "markets", "startups", "security",
    "privacy", "open-source", "design", "accessibility", "maps", "history",
    "science", "space", "energy", "water", "labour", "courts", "media", "ai",
)
EXT_SITES = (
    "example.com", "example.org", "news.example.net", "docs.example.com",
    "archive.example.org",
)


# --------------------------------------------------------------------------
# text builders
# --------------------------------------------------------------------------
def en_sentence(r):
    shape = r.random()
    n1, n2, n3 = r.choice(EN_NOUNS), r.choice(EN_NOUNS), r.choice(EN_NOUNS)
    a1, a2 = r.choice(EN_ADJS), r.choice(EN_ADJS)
    v = r.choice(EN_VERBS)
    if shape < 0.35:
        s = f"the {a1} {n1} {v} the {n2} {r.choice(EN_PREPS)} the {a2} {n3}"
    elif shape < 0.6:
        s = (f"a {a1} {n1} {r.choice(EN_ADVS)} {v} every {n2}, "
             f"and the {n3} {r.choice(EN_VERBS)} it")
    elif shape < 0.8:
        s = (f"{r.choice(EN_CONNECT)} the {n1} {v} a {a1} {n2} "
             f"{r.choice(EN_PREPS)} the {n3}")
    else:
        s = (f"when the {n1} {v} the {a1} {n2}, the {n3} "
             f"{r.choice(EN_VERBS)} a {a2} {r.choice(EN_NOUNS)} "
             f"{r.choice(EN_PREPS)} {r.randint(2, 90)} days")
    s = s[0].upper() + s[1:]
    return s + r.choice(".....?")


def zh_sentence(r):
    parts = []
    if r.random() < 0.25:
        parts.append(r.choice(ZH_CONNECT))
    n = r.randint(5, 11)
    for k in range(n):
        parts.append(r.choice(ZH_WORDS))
        if r.random() < 0.35:
            parts.append(r.choice(ZH_PARTICLES))
        if k and k % 5 == 0 and r.random() < 0.5:
            parts.append("，")
    return "".join(parts).rstrip("，") + r.choice("。。。。！？")


def decorate_en(r, words, ctx):
    """Sprinkle inline markup into a list of sentence strings."""
    out = []
    for s in words:
        x = r.random()
        if x < 0.08:
            s = s.replace(" the ", " the **" + r.choice(EN_NOUNS) + "** ", 1)
        elif x < 0.16:
            s = s.replace(" a ", " a *" + r.choice(EN_ADJS) + "* ", 1)
        elif x < 0.22:
            s = s.rstrip(".?") + f" with `{ctx['ident']}()`."
        elif x < 0.30:
            s = s.rstrip(".?") + f", see [{r.choice(EN_NOUNS)} notes]({link(r, ctx)})."
        out.append(s)
    return out


def decorate_zh(r, sents, ctx):
    out = []
    for s in sents:
        x = r.random()
        if x < 0.1:
            w = r.choice(ZH_WORDS)
            s = f"**{w}**" + s
        elif x < 0.18:
            s = s[:-1] + f"（参见[{r.choice(ZH_WORDS)}]({link(r, ctx)})）" + s[-1]
        elif x < 0.23:
            s = s[:-1] + f"，例如 `{ctx['ident']}`" + s[-1]
        out.append(s)
    return out


def link(r, ctx):
    if ctx["others"] and r.random() < 0.5:
        return f"/posts/{r.choice(ctx['others'])}/"
    site = r.choice(EXT_SITES)
    return f"https://{site}/{r.choice(EN_NOUNS)}/{r.randint(100, 9999)}"


def paragraph(r, ctx, target):
    sents, size = [], 0
    while size < target:
        s = en_sentence(r) if ctx["lang"] == "en" else zh_sentence(r)
        sents.append(s)
        size += len(s.encode("utf-8")) + 1
    if ctx["lang"] == "en":
        sents = decorate_en(r, sents, ctx)
        text = " ".join(sents)
    else:
        sents = decorate_zh(r, sents, ctx)
        text = "".join(sents)
    if ctx["footnotes"] is not None and r.random() < 0.3 and len(ctx["footnotes"]) < 3:
        k = len(ctx["footnotes"]) + 1
        ctx["footnotes"].append(k)
        text += f"[^{k}]"
    return text


def heading_text(r, lang):
    if lang == "en":
        words = [r.choice(EN_ADJS if i % 2 == 0 else EN_NOUNS) for i in range(r.randint(2, 5))]
        return " ".join(w.capitalize() for w in words)
    return "".join(r.choice(ZH_WORDS) for _ in range(r.randint(2, 4)))


def title_text(r, lang):
    if lang == "en":
        t = f"The {r.choice(EN_ADJS)} {r.choice(EN_NOUNS)} {r.choice(EN_VERBS)} the {r.choice(EN_NOUNS)}"
        return t[0].upper() + t[1:]
    return "".join(r.choice(ZH_WORDS) for _ in range(r.randint(3, 6)))


def bullet_list(r, lang, ordered):
    items = []
    for i in range(r.randint(3, 6)):
        if lang == "en":
            t = " ".join(r.choice(EN_NOUNS + EN_ADJS) for _ in range(r.randint(3, 9)))
            t = t[0].upper() + t[1:]
        else:
            t = "".join(r.choice(ZH_WORDS) for _ in range(r.randint(3, 7)))
        mark = f"{i + 1}." if ordered else "-"
        items.append(f"{mark} {t}")
    return "\n".join(items)


def ident(r):
    return r.choice(EN_NOUNS) + "_" + r.choice(EN_NOUNS)


def code_block(r):
    lang = r.choice(("go", "python", "bash"))
    a, b, c = ident(r), ident(r), ident(r)
    n = r.randint(2, 12)
    if lang == "python":
        body = [
            "import json",
            "from pathlib import Path",
            "",
            f"def {a}(path: str, limit: int = {n}) -> list[dict]:",
            f'    """Load {b} records and keep the first {n}."""',
            f"    {c} = []",
            "    for line in Path(path).read_text().splitlines():",
            "        item = json.loads(line)",
            f"        if item.get(\"{b}\"):",
            f"            {c}.append(item)",
            f"    return {c}[:limit]",
            "",
            f"print(len({a}(\"{b}.jsonl\")))",
        ]
    elif lang == "go":
        A = "".join(w.capitalize() for w in a.split("_"))
        body = [
            "package main",
            "",
            'import (\n\t"fmt"\n\t"strings"\n)',
            "",
            f"type {A} struct {{",
            "\tName  string",
            "\tCount int",
            "}",
            "",
            f"func ({c[:1]} *{A}) Add(s string) int {{",
            f"\t{c[:1]}.Count += len(strings.Fields(s)) * {n}",
            f"\treturn {c[:1]}.Count",
            "}",
            "",
            "func main() {",
            f'\tv := &{A}{{Name: "{b}"}}',
            f'\tfmt.Println(v.Add("{a} {b} {c}"))',
            "}",
        ]
    else:
        body = [
            "#!/usr/bin/env bash",
            "set -euo pipefail",
            f'DIR="${{1:-./{b}}}"',
            f"for f in \"$DIR\"/*.md; do",
            f'  n=$(grep -c "^#" "$f" || true)',
            f'  echo "$f: $n headings" >> {c}.log',
            "done",
            f"sort -t: -k2 -n {c}.log | tail -n {n}",
        ]
    return f"```{lang}\n" + "\n".join(body) + "\n```"


def table(r, lang):
    cols = r.randint(3, 5)
    rows = r.randint(3, 7)
    if lang == "en":
        head = [r.choice(EN_NOUNS).capitalize() for _ in range(cols)]
    else:
        head = [r.choice(ZH_WORDS) for _ in range(cols)]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * cols) + "|"]
    for _ in range(rows):
        cells = []
        for j in range(cols):
            if j == 0:
                cells.append(r.choice(EN_NOUNS) if lang == "en" else r.choice(ZH_WORDS))
            else:
                cells.append(f"{r.uniform(0, 1000):.1f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def blockquote(r, lang):
    s = " ".join(en_sentence(r) for _ in range(2)) if lang == "en" else zh_sentence(r) + zh_sentence(r)
    return "> " + s


def slugify(words):
    return re.sub(r"[^a-z0-9]+", "-", words.lower()).strip("-")


# --------------------------------------------------------------------------
# one post
# --------------------------------------------------------------------------
def yaml_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def build_body(r, lang, others):
    """Return Markdown body (no front matter) sized for a post of ~target bytes."""
    target = int(r.triangular(1600, 5800, 2800))
    nhead = max(3, min(8, round(target / 750) + r.randint(-1, 1)))
    ctx = {
        "lang": lang,
        "others": others,
        "ident": ident(r),
        "footnotes": [] if r.random() < 0.25 else None,
    }
    per_par = (110, 260) if lang == "zh" else (180, 420)
    sections = []
    for i in range(nhead):
        level = "###" if (i > 0 and r.random() < 0.3) else "##"
        sections.append([f"{level} {heading_text(r, lang)}"])
    intro = [paragraph(r, ctx, r.randint(*per_par))]
    # mandatory blocks, placed in random sections
    sections[r.randrange(nhead)].append(code_block(r))
    sections[r.randrange(nhead)].append(bullet_list(r, lang, ordered=False))
    if r.random() < 0.5:
        sections[r.randrange(nhead)].append(bullet_list(r, lang, ordered=True))
    if r.random() < 0.35:
        sections[r.randrange(nhead)].append(table(r, lang))
    if r.random() < 0.3:
        sections[r.randrange(nhead)].append(blockquote(r, lang))
    # every heading gets one paragraph right after it
    for s in sections:
        s.insert(1, paragraph(r, ctx, r.randint(*per_par)))

    def size():
        return sum(len(b.encode("utf-8")) + 2 for s in sections for b in s) + len(intro[0].encode()) + 300

    while size() < target:
        s = sections[r.randrange(nhead)]
        par = paragraph(r, ctx, r.randint(*per_par))
        if size() + len(par.encode("utf-8")) > 5700:
            break
        s.insert(r.randint(1, len(s)), par)
    blocks = intro + [b for s in sections for b in s]
    if ctx["footnotes"]:
        for k in ctx["footnotes"]:
            note = en_sentence(r) if lang == "en" else zh_sentence(r)
            blocks.append(f"[^{k}]: {note}")
    return "\n\n".join(blocks) + "\n"


def plan(n, seed):
    """Deterministic list of post descriptors (exactly n)."""
    r = random.Random(f"plan:{seed}:{n}")
    pairs = round(0.10 * n)  # 2*pairs posts = ~20% of posts in a pair
    zh_single = max(0, round(0.30 * n) - pairs)
    en_single = n - 2 * pairs - zh_single
    if en_single < 0:  # tiny n
        zh_single += en_single
        en_single = 0
    kinds = ["pair"] * pairs + ["zh"] * zh_single + ["en"] * en_single
    r.shuffle(kinds)
    base = dt.datetime(2016, 1, 4, 8, 0, tzinfo=dt.timezone(dt.timedelta(hours=8)))
    span = 10 * 365 * 24 * 3600
    stamps = sorted(r.randrange(span) for _ in kinds)
    posts, used = [], set()
    for i, (kind, ts) in enumerate(zip(kinds, stamps)):
        tr = random.Random(f"title:{seed}:{i}")
        words = f"{tr.choice(EN_ADJS)} {tr.choice(EN_NOUNS)} {tr.choice(EN_NOUNS)}"
        slug = f"{slugify(words)}-{i:05d}"
        assert slug not in used
        used.add(slug)
        date = base + dt.timedelta(seconds=ts - ts % 60)
        if kind == "pair":
            posts.append({"i": i, "slug": slug, "lang": "en", "key": slug, "date": date})
            posts.append({"i": i, "slug": slug, "lang": "zh", "key": slug, "date": date + dt.timedelta(hours=3)})
        else:
            posts.append({"i": i, "slug": slug, "lang": kind, "key": None, "date": date})
    return posts


def make_post(p, seed, all_slugs):
    r = random.Random(f"post:{seed}:{p['i']}:{p['lang']}")
    lang = p["lang"]
    others = [all_slugs[r.randrange(len(all_slugs))] for _ in range(6)] if all_slugs else []
    meta = {
        "title": title_text(r, lang),
        "date": p["date"].isoformat(),
        "author": r.choice(AUTHORS),
        "category": r.choice(CATEGORIES),
        "tags": sorted(set(r.sample(TAGS, r.randint(1, 5)))),
        "excerpt": (en_sentence(r) + " " + en_sentence(r)) if lang == "en" else zh_sentence(r),
        "lang": lang,
    }
    if p["key"]:
        meta["translationKey"] = p["key"]
    body = build_body(r, lang, others)
    return meta, body


def fm_yaml(meta, hugo=False):
    lines = ["---", f"title: {yaml_str(meta['title'])}", f"date: {meta['date']}",
             f"author: {yaml_str(meta['author'])}"]
    if hugo:
        lines.append(f"categories: [{yaml_str(meta['category'])}]")
    else:
        lines.append(f"category: {meta['category']}")
    lines.append("tags:")
    lines += [f"  - {t}" for t in meta["tags"]]
    lines.append(f"excerpt: {yaml_str(meta['excerpt'])}")
    lines.append(f"lang: {meta['lang']}")
    if "translationKey" in meta:
        lines.append(f"translationKey: {meta['translationKey']}")
    lines.append("---")
    return "\n".join(lines) + "\n\n"


def fm_pelican(meta, slug):
    d = dt.datetime.fromisoformat(meta["date"])
    lines = [
        f"Title: {meta['title']}",
        f"Date: {d.strftime('%Y-%m-%d %H:%M')}",
        f"Author: {meta['author']}",
        f"Category: {meta['category']}",
        f"Tags: {', '.join(meta['tags'])}",
        f"Summary: {meta['excerpt']}",
        f"Lang: {meta['lang']}",
        f"Slug: {slug}",
    ]
    return "\n".join(lines) + "\n\n"


# --------------------------------------------------------------------------
# site scaffolding
# --------------------------------------------------------------------------
HUGO_TOML = """\
baseURL = "http://example.org/"
title = "masthead bench"
defaultContentLanguage = "en"
hasCJKLanguage = true
enableRobotsTXT = false

[pagination]
  pagerSize = 10

[taxonomies]
  tag = "tags"
  category = "categories"

[languages]
  [languages.en]
    weight = 1
    label = "English"
  [languages.zh]
    weight = 2
    label = "中文"

[services.rss]
  limit = 100  # same cap as Pelican's FEED_MAX_ITEMS default

[markup.tableOfContents]
  startLevel = 2
  endLevel = 3
"""

HUGO_LAYOUTS = {
    "baseof.html": """\
<!doctype html>
<html lang="{{ .Language.Lang }}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ .Title }} | {{ .Site.Title }}</title>
</head>
<body>
<header><a href="{{ .Site.Home.RelPermalink }}">{{ .Site.Title }}</a></header>
<main>{{ block "main" . }}{{ end }}</main>
<footer>{{ .Site.Title }}</footer>
</body>
</html>
""",
    "single.html": """\
{{ define "main" }}
<article>
<h1>{{ .Title }}</h1>
<p class="meta"><time datetime="{{ .Date.Format "2006-01-02T15:04:05Z07:00" }}">{{ .Date.Format "2006-01-02" }}</time>
 &middot; {{ .Params.author }}
 {{ range .GetTerms "categories" }}&middot; <a href="{{ .RelPermalink }}">{{ .LinkTitle }}</a>{{ end }}</p>
<nav class="toc">{{ .TableOfContents }}</nav>
{{ .Content }}
<p class="tags">{{ range .GetTerms "tags" }}<a href="{{ .RelPermalink }}">#{{ .LinkTitle }}</a> {{ end }}</p>
{{ with .Translations }}<ul class="translations">{{ range . }}<li><a href="{{ .RelPermalink }}" hreflang="{{ .Language.Lang }}">{{ .Title }}</a></li>{{ end }}</ul>{{ end }}
</article>
{{ end }}
""",
    "list.html": """\
{{ define "main" }}
<h1>{{ .Title }}</h1>
{{ $pages := .Pages }}
{{ if .IsHome }}{{ $pages = .Site.RegularPages }}{{ end }}
{{ $pager := .Paginate $pages }}
<ul>
{{ range $pager.Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a> <time>{{ .Date.Format "2006-01-02" }}</time>{{ with .Params.excerpt }}<p>{{ . }}</p>{{ end }}</li>
{{ end }}
</ul>
<nav class="pager">{{ with $pager.Prev }}<a href="{{ .URL }}">newer</a>{{ end }} {{ with $pager.Next }}<a href="{{ .URL }}">older</a>{{ end }}</nav>
{{ end }}
""",
}

PELICAN_CONF = """\
# Minimal Pelican settings for the masthead benchmark (default theme).
AUTHOR = "masthead bench"
SITENAME = "masthead bench"
SITEURL = ""
RELATIVE_URLS = True
FEED_DOMAIN = "http://example.org"
PATH = "content"
TIMEZONE = "Asia/Shanghai"
DEFAULT_LANG = "en"
DEFAULT_PAGINATION = 10
ARTICLE_TRANSLATION_ID = "slug"
MARKDOWN = {
    "extension_configs": {
        "markdown.extensions.codehilite": {"css_class": "highlight"},
        "markdown.extensions.extra": {},
        "markdown.extensions.meta": {},
        "markdown.extensions.toc": {},
    },
    "output_format": "html5",
}
"""


def write(path, text):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("n", type=int)
    ap.add_argument("seed", type=int)
    ap.add_argument("--layout", choices=("plain", "hugo", "pelican"), default="plain")
    a = ap.parse_args(argv)
    if a.n < 1:
        ap.error("N must be >= 1")

    posts = plan(a.n, a.seed)
    slugs = sorted({p["slug"] for p in posts})
    if a.layout == "plain":
        cdir = a.outdir
    elif a.layout == "hugo":
        cdir = os.path.join(a.outdir, "content", "posts")
        write(os.path.join(a.outdir, "hugo.toml"), HUGO_TOML)
        for name, text in HUGO_LAYOUTS.items():
            write(os.path.join(a.outdir, "layouts", name), text)
    else:
        cdir = os.path.join(a.outdir, "content")
        write(os.path.join(a.outdir, "pelicanconf.py"), PELICAN_CONF)
    os.makedirs(cdir, exist_ok=True)

    sizes, nzh, npair = [], 0, 0
    for p in posts:
        meta, body = make_post(p, a.seed, slugs)
        if a.layout == "pelican":
            text = fm_pelican(meta, p["slug"]) + body
        else:
            text = fm_yaml(meta, hugo=(a.layout == "hugo")) + body
        fname = p["slug"] + (".zh.md" if p["lang"] == "zh" else ".md")
        write(os.path.join(cdir, fname), text)
        sizes.append(len(text.encode("utf-8")))
        nzh += p["lang"] == "zh"
        npair += p["key"] is not None
    sizes.sort()
    print(
        f"{a.layout}: {len(posts)} posts in {cdir} | zh {nzh} ({100 * nzh / len(posts):.0f}%) | "
        f"in pairs {npair} ({100 * npair / len(posts):.0f}%) | bytes min {sizes[0]} "
        f"median {int(statistics.median(sizes))} max {sizes[-1]} total {sum(sizes)}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
