# Build stage: the release binary.
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p langbot

# Runtime stage: the binary and curl for the healthcheck.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --home /data langbot \
 && mkdir -p /data && chown langbot /data
COPY --from=build /src/target/release/langbot /usr/local/bin/langbot
USER langbot
ENV LANGBOT_HTTP_ADDR=0.0.0.0:5300 LANGBOT_DATA_DIR=/data
EXPOSE 5300
VOLUME ["/data"]
ENTRYPOINT ["langbot"]
CMD ["serve"]
