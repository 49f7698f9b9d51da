"""Notifications by mail (issue 11, item 8): the outbox, its sender and the one-click links.

`collect` (collect.py) queues a mail for every comment event not yet in the outbox, `drain`
(sender.py) sends what is due over SMTP with retries, `MailRunner` (runner.py) does both in the
server's background, `messages` builds each mail with the stdlib `email` package, `tokens` signs
the one-click links that web/routes/mail.py answers. The SQL is in store/outbox.py.
"""
