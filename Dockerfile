# gate (Lite) container image: a static binary on distroless, running as nonroot.
# Image names are fully qualified, so docker and podman (which refuses short names
# without a registries.conf alias) build it alike:
#   docker build -t gate-lite .        or   podman build -t gate-lite .
#   docker run -p 25565:25565 -v "$PWD/gate:/etc/gate:ro" gate-lite
# The config is /etc/gate/config.yml. Mount the directory that holds your config.yml
# over /etc/gate, not the single file: editors save by renaming a new file over the
# old one, and a single-file mount keeps the old inode, so reload would never see the
# edit (docs/lite/docker.md).

FROM --platform=$BUILDPLATFORM docker.io/library/golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG TARGETOS
ARG TARGETARCH
ARG VERSION=dev
# BuildKit and recent buildah set TARGETOS/TARGETARCH; older podman leaves them
# empty, and the build is then for the build machine.
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH:-$(go env GOARCH)} \
    go build -trimpath -ldflags="-s -w -X main.version=${VERSION}" -o /out/gate ./cmd/gate

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/gate /usr/local/bin/gate
COPY deploy/docker/config.yml /etc/gate/config.yml
USER nonroot:nonroot
# Players. The admin API (8080) listens on the container's loopback by default.
EXPOSE 25565
# distroless has no shell or curl: the binary checks itself. With api.enabled it
# fetches /healthz from api.bind, otherwise it does a server-list ping with the
# player port.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["/usr/local/bin/gate", "healthcheck", "--config", "/etc/gate/config.yml"]
ENTRYPOINT ["/usr/local/bin/gate"]
CMD ["--config", "/etc/gate/config.yml"]
