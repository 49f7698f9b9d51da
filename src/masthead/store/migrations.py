"""Numbered schema migrations. Never edit a released one: append a new list instead.

Migration N brings `PRAGMA user_version` from N-1 to N; each runs in one transaction.
"""

from __future__ import annotations

MIGRATIONS: list[list[str]] = [
    # 1: the derived post index
    [
        """CREATE TABLE site_state (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        )""",
        """CREATE TABLE sources (
            path TEXT PRIMARY KEY,          -- site-relative POSIX path of a content file
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            sha256 TEXT NOT NULL,
            status TEXT NOT NULL            -- 'ok' or 'error' (the last good post stays)
        )""",
        """CREATE TABLE posts (
            id INTEGER PRIMARY KEY,
            source TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL,             -- 'post' or 'page'
            lang TEXT NOT NULL,
            slug TEXT NOT NULL,
            url TEXT NOT NULL,
            title TEXT NOT NULL,
            date TEXT NOT NULL,             -- ISO 8601 with the author's offset
            date_ts REAL NOT NULL,          -- seconds since the epoch, for order and schedule
            updated TEXT,
            authors TEXT NOT NULL,          -- JSON list of strings
            excerpt TEXT NOT NULL,
            cover TEXT NOT NULL,
            draft INTEGER NOT NULL,
            noindex INTEGER NOT NULL,
            comments INTEGER NOT NULL,
            show_toc INTEGER NOT NULL,
            canonical TEXT NOT NULL,
            translation_key TEXT NOT NULL,
            html TEXT NOT NULL,
            toc_html TEXT NOT NULL,
            body_text TEXT NOT NULL,
            word_count INTEGER NOT NULL,
            reading_minutes INTEGER NOT NULL,
            extra TEXT NOT NULL,            -- JSON of unknown front-matter keys
            shadowed INTEGER NOT NULL DEFAULT 0  -- another post holds this URL (duplicate slug)
        )""",
        "CREATE INDEX posts_list ON posts (kind, lang, draft, shadowed, date_ts DESC)",
        "CREATE INDEX posts_url ON posts (url)",
        "CREATE INDEX posts_translation ON posts (translation_key)",
        """CREATE TABLE post_terms (
            post_id INTEGER NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
            taxonomy TEXT NOT NULL,         -- 'tags' or 'categories'
            key TEXT NOT NULL,
            name TEXT NOT NULL,
            position INTEGER NOT NULL,
            PRIMARY KEY (post_id, taxonomy, key)
        )""",
        "CREATE INDEX post_terms_key ON post_terms (taxonomy, key)",
        """CREATE TABLE aliases (
            path TEXT NOT NULL,
            post_id INTEGER NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
            PRIMARY KEY (path, post_id)
        )""",
        """CREATE TABLE content_issues (
            path TEXT NOT NULL,
            line INTEGER NOT NULL,
            severity TEXT NOT NULL,         -- 'error' or 'warning'
            code TEXT NOT NULL,             -- 'parse', 'duplicate-slug', 'shortcode', 'link'
            reason TEXT NOT NULL
        )""",
        "CREATE INDEX content_issues_path ON content_issues (path)",
    ],
    # 2: full-text search (FTS5), unstemmed terms for suggestions, the search log
    [
        "ALTER TABLE posts ADD COLUMN code_text TEXT NOT NULL DEFAULT ''",
        # the text FTS5 indexes: Han words separated by U+200B (see masthead.search.segment)
        # no foreign key: a cascade would bypass the FTS5 'delete' that store/search.py issues
        """CREATE TABLE search_docs (
            post_id INTEGER PRIMARY KEY,
            title TEXT NOT NULL,
            tags TEXT NOT NULL,
            categories TEXT NOT NULL,
            excerpt TEXT NOT NULL,
            body TEXT NOT NULL,
            code TEXT NOT NULL,
            extra TEXT NOT NULL             -- jieba search-mode sub-words
        )""",
        """CREATE VIRTUAL TABLE search_fts USING fts5 (
            title, tags, categories, excerpt, body, code, extra,
            content = 'search_docs', content_rowid = 'post_id',
            tokenize = 'porter unicode61 remove_diacritics 2'
        )""",
        # the same text, unstemmed and without positions: its vocabulary feeds suggestions
        """CREATE VIRTUAL TABLE search_words USING fts5 (
            title, tags, categories, excerpt, body,
            content = 'search_docs', content_rowid = 'post_id', detail = none,
            tokenize = 'unicode61 remove_diacritics 2'
        )""",
        "CREATE VIRTUAL TABLE search_vocab USING fts5vocab (search_words, 'row')",
        """CREATE TABLE search_log (
            id INTEGER PRIMARY KEY,
            at REAL NOT NULL,               -- seconds since the epoch
            query TEXT NOT NULL,            -- as typed
            terms TEXT NOT NULL,            -- the query without its filters
            filters TEXT NOT NULL,          -- JSON of the parsed filters
            lang TEXT NOT NULL,
            results INTEGER NOT NULL,
            latency_ms REAL NOT NULL,
            client TEXT NOT NULL            -- salted hash of the address; the salt changes daily
        )""",
        "CREATE INDEX search_log_at ON search_log (at)",
        # every file is parsed again by the next index, which fills the search tables
        "DELETE FROM sources",
    ],
    # 3: every URL a post has had, so old URLs answer 301 after a permalink pattern changes
    [
        """CREATE TABLE url_history (
            url TEXT PRIMARY KEY,           -- a URL path a post had (percent-encoded, as posts.url)
            source TEXT NOT NULL,           -- the content file that had it
            translation_key TEXT NOT NULL,  -- and its translation: a renamed file is found again
            lang TEXT NOT NULL,
            kind TEXT NOT NULL
        )""",
        "CREATE INDEX url_history_source ON url_history (source)",
        # the URLs posts have now; a shadowed post or a draft never held its URL
        """INSERT OR IGNORE INTO url_history (url, source, translation_key, lang, kind)
            SELECT url, source, translation_key, lang, kind FROM posts
            WHERE shadowed = 0 AND draft = 0 ORDER BY date_ts""",
    ],
    # 4: comments (never derived: no index run touches them), their threads' versions, the
    # audit log, the mail outbox and used one-click tokens
    [
        """CREATE TABLE comments (
            id INTEGER PRIMARY KEY,
            thread TEXT NOT NULL,           -- the post's translation group (posts.translation_key)
            post_url TEXT NOT NULL,         -- the permalink it was written on
            parent_id INTEGER REFERENCES comments (id),  -- NULL: top level
            lang TEXT NOT NULL,             -- the language it was written in
            status TEXT NOT NULL CHECK (status IN
                ('pending', 'approved', 'spam', 'trash', 'deleted')),  -- deleted: a placeholder
            kind TEXT NOT NULL DEFAULT 'comment',  -- 'comment', 'pingback', 'trackback'
            author_name TEXT NOT NULL,
            author_email TEXT NOT NULL,     -- as typed, trimmed; never shown publicly
            author_url TEXT NOT NULL,       -- a checked http(s) URL, or ''
            author_user TEXT,               -- the /guanli user who wrote it, when signed in
            body TEXT NOT NULL,             -- the Markdown exactly as submitted
            body_html TEXT NOT NULL,        -- rendered and sanitized (comments.sanitize)
            created REAL NOT NULL,          -- seconds since the epoch (UTC)
            updated REAL,                   -- last edit, by its author or an editor
            ip_hash TEXT NOT NULL,          -- keyed hash of the client IP; '' once expired
            client_hash TEXT NOT NULL,      -- keyed hash of the commenter cookie's id, or ''
            fingerprint TEXT NOT NULL,      -- duplicate key: thread, parent, author, text
            reason TEXT NOT NULL,           -- why the rules gave it its status
            notify INTEGER NOT NULL DEFAULT 0,  -- mail its author when a reply is approved
            email_confirmed INTEGER NOT NULL DEFAULT 0,
            source TEXT NOT NULL DEFAULT '',    -- '' (written here), 'wxr', 'disqus', 'json'
            source_id TEXT NOT NULL DEFAULT ''  -- the comment's id in that source
        )""",
        "CREATE INDEX comments_thread ON comments (thread, status, created)",
        "CREATE INDEX comments_status ON comments (status, created)",
        "CREATE INDEX comments_parent ON comments (parent_id)",
        "CREATE INDEX comments_fingerprint ON comments (fingerprint)",
        "CREATE INDEX comments_ip ON comments (ip_hash, created)",
        "CREATE INDEX comments_email ON comments (author_email COLLATE NOCASE)",
        """CREATE UNIQUE INDEX comments_source ON comments (source, source_id)
            WHERE source != ''""",
        """CREATE TABLE comment_threads (
            thread TEXT PRIMARY KEY,
            version INTEGER NOT NULL        -- bumped by every change readers of it see
        )""",
        """CREATE TABLE audit_log (
            id INTEGER PRIMARY KEY,
            at REAL NOT NULL,               -- seconds since the epoch (UTC)
            actor TEXT NOT NULL,            -- 'reader', 'author', 'editor:NAME', 'mail', 'import'
            action TEXT NOT NULL,           -- 'create', 'approve', 'spam', 'edit', 'login', ...
            comment_id INTEGER,             -- no foreign key: the log outlives the comment
            from_status TEXT,
            to_status TEXT,
            detail TEXT NOT NULL DEFAULT '{}'  -- JSON: an edit's old values, a bulk action's ids
        )""",
        "CREATE INDEX audit_log_comment ON audit_log (comment_id, at)",
        "CREATE INDEX audit_log_at ON audit_log (at)",
        """CREATE TABLE mail_outbox (
            id INTEGER PRIMARY KEY,
            created REAL NOT NULL,
            kind TEXT NOT NULL,             -- 'held', 'reply', ...
            recipient TEXT NOT NULL,
            message BLOB NOT NULL,          -- the whole RFC 5322 message, as sent
            status TEXT NOT NULL CHECK (status IN ('queued', 'sent', 'failed')),
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt REAL NOT NULL,     -- seconds since the epoch
            last_error TEXT NOT NULL DEFAULT '',
            sent_at REAL,
            comment_id INTEGER
        )""",
        "CREATE INDEX mail_outbox_due ON mail_outbox (status, next_attempt)",
        """CREATE TABLE used_tokens (
            digest TEXT PRIMARY KEY,        -- sha256 of a one-click token already acted on
            used REAL NOT NULL
        )""",
    ],
    # 5: /guanli accounts: users, server-side sessions, API tokens, failed logins (throttling)
    [
        """CREATE TABLE users (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE COLLATE NOCASE,
            email TEXT NOT NULL DEFAULT '',  -- a comment claiming it without a session is held
            role TEXT NOT NULL CHECK (role IN ('editor', 'admin')),
            password_hash TEXT NOT NULL,    -- argon2id, PHC string format
            created REAL NOT NULL
        )""",
        """CREATE TABLE sessions (
            id_hash TEXT PRIMARY KEY,       -- sha256 of the cookie's random id (never the id)
            user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            csrf TEXT NOT NULL,             -- the session's CSRF token
            created REAL NOT NULL,
            seen REAL NOT NULL,             -- last request
            expires REAL NOT NULL,
            ip_hash TEXT NOT NULL DEFAULT '',
            user_agent TEXT NOT NULL DEFAULT ''
        )""",
        "CREATE INDEX sessions_user ON sessions (user_id)",
        """CREATE TABLE api_tokens (
            id INTEGER PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            token_hash TEXT NOT NULL UNIQUE,  -- sha256 of the token (printed once, never stored)
            created REAL NOT NULL,
            used REAL
        )""",
        """CREATE TABLE login_failures (
            key TEXT NOT NULL,              -- 'user:NAME' or 'client:IP-HASH'
            at REAL NOT NULL
        )""",
        "CREATE INDEX login_failures_key ON login_failures (key, at)",
    ],
    # 6: Han character bigrams beside the words (masthead.search.segment.bigrams), so that a
    # Chinese word is found whatever the segmenter made of its context. FTS5 tables take no new
    # column: search_fts is made again and rebuilt from search_docs (the new column empty, so
    # the 'delete' of an old row matches what was indexed), and every file is parsed again by
    # the next index, which fills the bigrams
    [
        "ALTER TABLE search_docs ADD COLUMN bigrams TEXT NOT NULL DEFAULT ''",
        "DROP TABLE search_fts",
        """CREATE VIRTUAL TABLE search_fts USING fts5 (
            title, tags, categories, excerpt, body, code, extra, bigrams,
            content = 'search_docs', content_rowid = 'post_id',
            tokenize = 'porter unicode61 remove_diacritics 2'
        )""",
        "INSERT INTO search_fts (search_fts) VALUES ('rebuild')",
        "DELETE FROM sources",
    ],
    # 7: authors are a taxonomy (post_terms 'authors') and content/authors/ holds bios: every
    # content file is parsed again by the next index pass (derived data only)
    [
        "UPDATE sources SET mtime_ns = -1, sha256 = ''",
    ],
    # 8: posts that put themselves in a menu from front matter (`menu`/`menus`, Hugo's keys,
    # kept in `extra`): a partial index, so drawing the menu on each page reads only those
    # rows; `store.posts.MENU_FILTER` is this WHERE clause, word for word
    [
        "CREATE INDEX IF NOT EXISTS posts_menu ON posts (lang, kind) "
        "WHERE instr(extra, '\"menu') > 0",
    ],
    # 9: a random key per comment, signed into the tokens given out for it (its edit token,
    # `comments.identity.edit_token`; its mail links, `notify.tokens`): ids are reused (a
    # restore, a delete of the newest rows), so the id alone cannot say which comment a token
    # was given for; edit tokens and moderation links made before this stop working
    [
        "ALTER TABLE comments ADD COLUMN token_key TEXT NOT NULL DEFAULT ''",
        "UPDATE comments SET token_key = lower(hex(randomblob(16)))",
    ],
    # 10: when a comment went to spam or trash (`trashed`, NULL in any other status): spam and
    # trash are emptied `comments_trash_days` after that, as WordPress counts EMPTY_TRASH_DAYS,
    # never by the comment's own date; the spam and trash found here start their count now
    [
        "ALTER TABLE comments ADD COLUMN trashed REAL",
        "UPDATE comments SET trashed = (julianday('now') - 2440587.5) * 86400.0 "
        "WHERE status IN ('spam', 'trash')",
    ],
    # 11: the origin (`source`, `source_id`) of every imported comment deleted for good (by a
    # moderator, the emptied trash, an erasure request), kept by a trigger whatever code
    # deletes it: importing the same export again skips them instead of bringing them back
    [
        """CREATE TABLE IF NOT EXISTS comments_purged_imports (
            source TEXT NOT NULL,
            source_id TEXT NOT NULL,
            purged REAL NOT NULL,
            PRIMARY KEY (source, source_id)
        ) WITHOUT ROWID""",
        """CREATE TRIGGER IF NOT EXISTS comments_purged_import AFTER DELETE ON comments
        WHEN OLD.source != '' AND OLD.source_id != ''
        BEGIN
            INSERT OR REPLACE INTO comments_purged_imports (source, source_id, purged)
            VALUES (OLD.source, OLD.source_id, (julianday('now') - 2440587.5) * 86400.0);
        END""",
    ],
    # 12: series (front matter `series`, `series_weight`), and translations that fall behind:
    # each post's body hash and the original's hash a translation was last brought up to date
    # with (`translation_of`); `original_bodies` keeps an original's past bodies by hash, as
    # long as a translation names it, for the dashboard's diff (never derived from the files:
    # no index run or rebuild drops a body a translation still names); every file is parsed
    # again by the next index pass to fill the new columns
    [
        "ALTER TABLE posts ADD COLUMN series_weight INTEGER",
        "ALTER TABLE posts ADD COLUMN translation_of TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE posts ADD COLUMN body_hash TEXT NOT NULL DEFAULT ''",
        """CREATE TABLE IF NOT EXISTS post_series (
            post_id INTEGER NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            name TEXT NOT NULL,
            position INTEGER NOT NULL,
            PRIMARY KEY (post_id, key)
        )""",
        "CREATE INDEX IF NOT EXISTS post_series_key ON post_series (key)",
        """CREATE TABLE IF NOT EXISTS original_bodies (
            hash TEXT PRIMARY KEY,          -- content.translations.body_hash of `body`
            source TEXT NOT NULL,           -- the original's content file when it was seen
            body TEXT NOT NULL,             -- its Markdown body then
            seen REAL NOT NULL              -- when the index first saw it (seconds)
        )""",
        "UPDATE sources SET mtime_ns = -1, sha256 = ''",
    ],
    # 13: posts by slug, as the comment import maps each thread of an export (WordPress's
    # `post_name`, `comment_targets.post_with_slug`): without it each thread read the whole
    # posts table, minutes for the comments of a 10,000-post blog
    [
        "CREATE INDEX IF NOT EXISTS posts_slug ON posts (slug)",
    ],
    # 14: the posts of a term by one index read (`posts.related`, `posts.list_posts` of a term,
    # `seo.term_languages`): post_terms_key held only the row id, so each match cost a second
    # look-up in the table for its post id
    [
        "CREATE INDEX IF NOT EXISTS post_terms_posts ON post_terms (taxonomy, key, post_id)",
        "DROP INDEX IF EXISTS post_terms_key",
    ],
    # 15: readers' privacy requests (GDPR articles 15 and 17): a copy or the erasure of the
    # comments written with an address, asked for from the site and confirmed by a signed link
    # mailed there; `email_hash` and `client_hash` (keyed hashes) count requests for the rate
    # limits; an erasure done leaves only a masked address
    [
        """CREATE TABLE IF NOT EXISTS privacy_requests (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('export', 'erase')),
            email TEXT NOT NULL,            -- masked once an erasure is done
            email_hash TEXT NOT NULL,
            client_hash TEXT NOT NULL DEFAULT '',
            key TEXT NOT NULL,              -- random, signed into the mailed link
            requested REAL NOT NULL,        -- seconds since the epoch
            state TEXT NOT NULL CHECK (state IN ('mailed', 'done')),
            done REAL,
            actor TEXT NOT NULL DEFAULT '', -- who answered it: 'reader', 'editor:NAME'
            comments INTEGER NOT NULL DEFAULT 0  -- how many comments it exported or erased
        )""",
        "CREATE INDEX IF NOT EXISTS privacy_requests_email "
        "ON privacy_requests (email_hash, requested)",
        "CREATE INDEX IF NOT EXISTS privacy_requests_client "
        "ON privacy_requests (client_hash, requested)",
    ],
    # 16: what `posts.related` filters and orders on, by post id, without reading the posts'
    # rows: `shadowed` is the rows' last column, after the bodies, so each test of it read the
    # whole row (at 50,000 posts a post's related posts read 19,000 rows, 80 MB, on every render)
    [
        "CREATE INDEX IF NOT EXISTS posts_facts "
        "ON posts (id, kind, lang, shadowed, draft, date_ts, source)",
        # and the next scheduled post (`posts.next_scheduled`, after every change) by one seek
        "CREATE INDEX IF NOT EXISTS posts_due ON posts (draft, date_ts)",
    ],
    # 17: a post's aliases by its id: writing a post deletes its old aliases (`write_post`), and
    # deleting a post deletes them by the foreign key's cascade; keyed by (path, post_id) only,
    # each read the whole table, which made indexing aliased posts quadratic (a WordPress import
    # of 10,000 posts, two aliases each, spent a third of its index writer's time there)
    [
        "CREATE INDEX IF NOT EXISTS aliases_post ON aliases (post_id)",
    ],
    # 18: the search catalog (`search.catalog`, `catalog_terms`: every searchable post's id,
    # language, date, authors and draft flag, built in each worker per index generation) read
    # from posts_facts alone: without `authors` it read every post's whole row, bodies and
    # all, to reach `shadowed` (at 50,000 posts 1 GB of pages for 2 MB of values); and the
    # next scheduled post by a partial index on the date alone: posts_due (draft,
    # date_ts) of migration 16 was taken, without sqlite_stat1, for every statement that tests
    # `draft = 0 AND date_ts <= :now` (a post by its URL, its translations), over every
    # published post, instead of their own index (at 50,000 posts 0.25 s of each render)
    [
        "DROP INDEX IF EXISTS posts_facts",
        "CREATE INDEX posts_facts "
        "ON posts (id, kind, lang, shadowed, draft, date_ts, source, authors)",
        "DROP INDEX IF EXISTS posts_due",
        "CREATE INDEX posts_due ON posts (date_ts) WHERE draft = 0",
    ],
]
