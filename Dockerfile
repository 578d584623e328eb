# sikpan bot: installs from the registries only (python:3.11-slim from Docker Hub, dependencies from PyPI).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    SIKPAN_DB=/data/sikpan.db

WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY bot ./bot
COPY templates ./templates
COPY locales ./locales
RUN pip install . \
    && useradd --system --uid 10001 --home-dir /data sikpan \
    && mkdir -p /data && chown sikpan /data

USER sikpan
WORKDIR /data
VOLUME ["/data"]
# sikpan run stops cleanly on SIGTERM (docker stop) and SIGINT.
STOPSIGNAL SIGTERM
ENTRYPOINT ["sikpan"]
CMD ["run"]
