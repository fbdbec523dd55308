# feltroom's image (docs/operations.md): built in one stage, run in another as a non-root user.
#   docker build -t feltroom .
#   docker run -p 127.0.0.1:8000:8000 -v feltroom:/var/lib/feltroom feltroom
# The exact versions come from requirements/constraints.txt, as for every other install.

FROM python:3.11-slim-bookworm AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
WORKDIR /src
RUN python -m venv /opt/feltroom
COPY requirements/constraints.txt requirements/constraints.txt
COPY pyproject.toml README.md LICENSE ./
COPY src ./src
# the cluster extra: PostgreSQL's driver and the Redis client (docs/cluster.md)
RUN /opt/feltroom/bin/pip install --constraint requirements/constraints.txt ".[cluster]"

FROM python:3.11-slim-bookworm
# pg_dump and pg_restore for `feltroom backup` and `feltroom restore` on PostgreSQL; Debian's
# current security release of the client, hence no pinned version
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends postgresql-client \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 feltroom \
    && useradd --system --uid 10001 --gid 10001 --home-dir /var/lib/feltroom --create-home \
       --shell /usr/sbin/nologin feltroom
COPY --from=build /opt/feltroom /opt/feltroom
ENV PATH=/opt/feltroom/bin:$PATH PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 \
    FELTROOM_LOG__FORMAT=json
# the feltroom user, by number (a runtime that checks runAsNonRoot needs it)
USER 10001:10001
WORKDIR /var/lib/feltroom
VOLUME ["/var/lib/feltroom"]
# 8000: the room (put it behind the TLS proxy); 9100: GET /metrics for the scraper only
EXPOSE 8000 9100
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["feltroom"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8000", "--db", "sqlite:////var/lib/feltroom/feltroom.sqlite3", "--metrics-port", "9100"]
