"""The site: an ASGI app (FastAPI on Starlette) serving the index as HTML pages."""
