# syntax=docker/dockerfile:1
#
# masthead's production image (docs/deploying.md).
#   build:  docker build -t masthead .
#   run:    docker run -p 8000:8000 -v "$PWD/site:/site:ro" -v masthead-data:/data masthead
#
# Two stages from one pinned base: the build stage installs the locked dependencies into a virtual
# environment and builds masthead's wheel from this source tree; the final stage gets only that
# virtual environment (requirements.lock plus the wheel), runs as an unprivileged user, keeps the
# site at /site and the SQLite database at /data, and reports its health through /healthz.
#
# Python 3.12, not 3.13: markdown-it-pyrs (the compiled parser of post bodies, about a third less
# work for a full index) has wheels up to CPython 3.12 only (pyproject.toml); on 3.13 the image
# would parse with markdown-it-py. Move to 3.13 when markdown-it-pyrs ships cp313 wheels.

FROM python:3.12.15-slim-trixie AS build

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1

WORKDIR /src

# The locked dependencies first, so this layer is reused until requirements.lock changes. The lock
# pins every package, transitive ones included, hence --no-deps; `pip check` proves it complete.
COPY requirements.lock ./
RUN python -m venv /opt/masthead \
    && /opt/masthead/bin/pip install --no-cache-dir --no-deps -r requirements.lock

# Then masthead itself, as a wheel built from the source (never an editable or source install),
# with the build backend pinned like everything else: PIP_CONSTRAINT reaches pip's isolated build
# environment, so setuptools and wheel are requirements-build.lock's versions. pip leaves the
# virtual environment last: nothing runs it at run time.
COPY requirements-build.lock pyproject.toml README.md ./
COPY src ./src
RUN PIP_CONSTRAINT=/src/requirements-build.lock \
       /opt/masthead/bin/pip wheel --no-cache-dir --no-deps --wheel-dir /wheels . \
    && /opt/masthead/bin/pip install --no-cache-dir --no-deps /wheels/masthead-*.whl \
    && /opt/masthead/bin/pip check \
    && /opt/masthead/bin/python -m pip uninstall --yes pip


FROM python:3.12.15-slim-trixie

LABEL org.opencontainers.image.title="masthead" \
      org.opencontainers.image.description="An editorial web platform: Markdown files you own, a bilingual site, SQLite search." \
      org.opencontainers.image.licenses="MIT"

# PORT: the port `masthead serve` listens on. MASTHEAD_DATABASE: the database lives on the /data
# volume, never in the (possibly read-only) site folder. Every other setting can be given as a
# MASTHEAD_* variable too (docs/deploying.md).
ENV PATH="/opt/masthead/bin:${PATH}" \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PORT=8000 \
    MASTHEAD_DATABASE=/data/site.db

# The base image's own pip goes too: the image runs masthead, it installs nothing.
RUN python -m pip uninstall --yes pip \
    && groupadd --system --gid 10001 masthead \
    && useradd --system --no-log-init --uid 10001 --gid masthead --home-dir /data \
       --shell /usr/sbin/nologin masthead \
    && mkdir -p /site /data \
    && chown masthead:masthead /data

COPY --from=build /opt/masthead /opt/masthead

# Numeric, so that a runtime (Kubernetes' runAsNonRoot, for one) can see it is not root.
USER 10001:10001
WORKDIR /site
VOLUME ["/site", "/data"]
EXPOSE 8000

# /healthz answers 200 once the database answers; slim images have no curl, so Python asks.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, sys, urllib.request; r = urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('PORT', '8000') + '/healthz', timeout=4); sys.exit(r.status != 200)"]

# A shell only to read $PORT; `exec` leaves masthead as PID 1, so it gets SIGTERM on `docker stop`.
# An empty /site is served as an empty site with the default settings.
CMD ["/bin/sh", "-c", "exec masthead serve /site --host 0.0.0.0 --port \"${PORT:-8000}\""]
