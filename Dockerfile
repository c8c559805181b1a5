# syntax=docker/dockerfile:1
# StackMob Server image.
#
#   docker build -t stackmob-server .
#   docker run -p 8080:8080 -v stackmob-data:/data stackmob-server
#
# The keys are generated on first start and kept in /data/keys.json; the log (`docker logs`) shows
# the public keys, and the development private key at that first start only;
# `docker exec <container> stackmob-server keys --data-dir /data` prints them all.
# Configuration: STACKMOB_* environment variables (config/README.md), or mount a file and add
# `--config /path/to/file.json` to the command.

# ---- build ----------------------------------------------------------------------------------
# The dependencies (Hummingbird 2.28 and others) need Swift tools 6.2 or later.
ARG SWIFT_VERSION=6.3
FROM swift:${SWIFT_VERSION}-bookworm AS build

RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update \
    && apt-get install -y --no-install-recommends libsqlite3-dev zlib1g-dev \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /src

# Manifest first, so the dependency checkout is cached while only sources change.
# (Package.resolved is optional: the wildcard copies it only when the build context has one.)
COPY Package.swift Package.resolve[d] ./
RUN swift package resolve

COPY . .
# The Swift runtime linked in, and the functions a server runs laid out side by side
# (scripts/build-release.sh says why).
RUN scripts/build-release.sh \
    && install -D -m 0755 .build-release/release/stackmob-server /out/stackmob-server

# ---- run ------------------------------------------------------------------------------------
FROM debian:bookworm-slim

RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update \
    && apt-get install -y --no-install-recommends libsqlite3-0 libstdc++6 zlib1g ca-certificates curl \
    && rm -rf /var/lib/apt/lists/*

RUN groupadd --system stackmob \
    && useradd --system --gid stackmob --home-dir /data --no-create-home --shell /usr/sbin/nologin stackmob \
    && mkdir -p /data \
    && chown stackmob:stackmob /data \
    && chmod 700 /data

COPY --from=build /out/stackmob-server /usr/local/bin/stackmob-server

USER stackmob
WORKDIR /data
VOLUME /data
EXPOSE 8080

HEALTHCHECK CMD curl -fsS -I http://127.0.0.1:8080/ || exit 1

ENTRYPOINT ["stackmob-server"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080", "--data-dir", "/data"]
