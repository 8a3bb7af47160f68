# syntax=docker/dockerfile:1
#
# gate (Lite) container image: a static binary on distroless, running as nonroot.
#   docker build -t gate-lite .
#   docker run -p 25565:25565 -v "$PWD/my-config.yml:/etc/gate/config.yml:ro" gate-lite
# The config lives at /etc/gate/config.yml; mount a directory over /etc/gate to
# have edits reloaded live (see docs/lite/docker.md).

FROM --platform=$BUILDPLATFORM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
ARG TARGETOS
ARG TARGETARCH
ARG VERSION=dev
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -ldflags="-s -w -X main.version=${VERSION}" -o /out/gate ./cmd/gate

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/gate /usr/local/bin/gate
COPY deploy/docker/config.yml /etc/gate/config.yml
USER nonroot:nonroot
# Players. The admin API (8080) listens on the container's loopback by default.
EXPOSE 25565
# distroless has no shell or curl: the binary checks itself. With api.enabled it
# fetches /healthz from api.bind, otherwise it connects to the player port.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["/usr/local/bin/gate", "healthcheck", "--config", "/etc/gate/config.yml"]
ENTRYPOINT ["/usr/local/bin/gate"]
CMD ["--config", "/etc/gate/config.yml"]
