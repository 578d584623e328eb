# sikpan bot: installs from the registries only (python:3.11.11-slim-bookworm from Docker Hub, dependencies from PyPI),
# at the versions of constraints.txt (scripts/gen_constraints.py).
# pinned: a rebuild gets the same Python and Debian release (move the pin deliberately, with the tests)
FROM python:3.11.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_CONSTRAINT=/app/constraints.txt \
    SIKPAN_DB=/data/sikpan.db

WORKDIR /app
# 1. Dependencies in their own layer: rebuilt only when pyproject.toml or constraints.txt change, not the code.
#    They are the project's dependencies plus those of the [all] extra (both chat libraries, PostgreSQL,
#    the webhook server and its metrics, Redis): one image for every role of docker-compose.yml.
COPY pyproject.toml constraints.txt ./
RUN python -c "import tomllib; p = tomllib.load(open('pyproject.toml', 'rb'))['project']; \
extras = p['optional-dependencies']; \
print('\n'.join(p['dependencies'] + extras['telegram'] + extras['discord'] + extras['postgres'] \
+ extras['webhook'] + extras['redis']))" > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

# 2. The code. The build compiles the .po catalogs into .mo (setup.py, Babel as a build requirement only).
COPY setup.py README.md ./
COPY engine ./engine
COPY bot ./bot
COPY templates ./templates
COPY locales ./locales
RUN pip install --no-deps '.[all]' \
    && useradd --system --uid 10001 --home-dir /data sikpan \
    && mkdir -p /data && chown sikpan /data

USER sikpan
WORKDIR /data
VOLUME ["/data"]
# The Telegram webhook role listens here (TELEGRAM_WEBHOOK_PORT: the updates' path only).
EXPOSE 8443
# /healthz and /metrics: the webhook role always (SIKPAN_METRICS_PORT, default 9100 for it), any other role
# when SIKPAN_METRICS_PORT=9100 is set (and SIKPAN_METRICS_LISTEN=0.0.0.0 to be reached from outside the
# container), as docker-compose.yml's scale profile sets them.
EXPOSE 9100
# GET /healthz of the metrics listener (database and Redis answer, 503 while stopping or draining) when the
# role has one, else the database answers a SELECT 1 (bot/healthcheck.py). The role is read from
# SIKPAN_ROLE, as sikpan run reads it.
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 CMD ["python", "-m", "bot.healthcheck"]
# sikpan run stops cleanly on SIGTERM (docker stop) and SIGINT; the webhook finishes the updates in flight.
STOPSIGNAL SIGTERM
ENTRYPOINT ["sikpan"]
CMD ["run"]
