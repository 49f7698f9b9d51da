"""Requests to real servers on 127.0.0.1, cheaply, each on a connection of its own.

`httpx.get(url)` makes a new `httpx.Client` for the one request, and with it an SSL context that
loads certifi's certificates: about 30 ms of CPU a call, even for plain HTTP, more than the
20 ms a poll (`support.wait.until`) waits between two tries. A test polling a server that starts
or restarts spent more CPU asking than the server spent answering. The functions here go
through one client made once, with the ceiling as its timeout, that keeps no connection alive:
every request opens a new connection, so that a server with several worker processes may hand
each request to another worker, as with `httpx.get`.
"""

from __future__ import annotations

import httpx

from support.wait import CEILING

FRESH = httpx.Client(timeout=CEILING, limits=httpx.Limits(max_keepalive_connections=0))

get = FRESH.get
post = FRESH.post
put = FRESH.put
