# UI stage: the built web UI (served by the binary from LANGBOT_WEB_DIR).
FROM node:22-bookworm-slim AS web
WORKDIR /src/web
COPY web/package.json web/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY web/ ./
COPY openapi/ /src/openapi/
RUN npm run build

# Build stage: the release binary.
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p langbot

# Runtime stage: the binary, curl for the healthcheck, and LangBot's plugin runtime (the
# pinned langbot-plugin in a venv; procps for `kill`, which stops a runtime's process group).
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl procps python3 python3-venv \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --home /data langbot \
 && mkdir -p /data && chown langbot /data
COPY scripts/install-plugin-runtime.sh /opt/langbot/scripts/
COPY scripts/lib/plugin_venv.sh /opt/langbot/scripts/lib/
RUN /opt/langbot/scripts/install-plugin-runtime.sh /opt/langbot-plugin-runtime
COPY --from=build /src/target/release/langbot /usr/local/bin/langbot
COPY --from=web /src/web/dist /opt/langbot/web
USER langbot
ENV LANGBOT_HTTP_ADDR=0.0.0.0:5300 LANGBOT_DATA_DIR=/data LANGBOT_WEB_DIR=/opt/langbot/web \
    LANGBOT_PLUGIN_RUNTIME_PYTHON=/opt/langbot-plugin-runtime/bin/python
EXPOSE 5300
VOLUME ["/data"]
ENTRYPOINT ["langbot"]
CMD ["serve"]
