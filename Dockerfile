# gate (Lite) container image: a static binary on distroless, running as nonroot.
# Image names are fully qualified, so docker and podman (which refuses short names
# without a registries.conf alias) build it alike:
#   docker build -t gate-lite .        or   podman build --format docker -t gate-lite .
# (podman's default OCI format has no HEALTHCHECK and drops it; --format docker keeps it)
#   docker run -p 25565:25565 -v "$PWD/gate:/etc/gate:ro" gate-lite
# The config is /etc/gate/config.yml. Mount the directory that holds your config.yml
# over /etc/gate, not the single file: editors save by renaming a new file over the
# old one, and a single-file mount keeps the old inode, so reload would never see the
# edit (docs/lite/docker.md).
#
# Two build arguments make a variant that pulls nothing, for machines that cannot
# reach a registry (scripts/image-check.sh builds it that way):
#   CGO_ENABLED=0 go build -o gate ./cmd/gate
#   docker build --build-arg BINARY=prebuilt --build-arg BASE=scratch -t gate-lite:local .
# BINARY=prebuilt takes the binary from the build context (PREBUILT, default ./gate)
# instead of compiling it in the Go image; BASE=scratch replaces distroless with the
# empty image. The final stage is the same for both, so the variant runs the same
# user, config, port, health check and entrypoint as the published image. It needs a
# builder that skips stages the target does not use (BuildKit, recent buildah); the
# Dockerfile's platform arguments need one anyway.

# The base of the final stage: distroless's static image (CA certificates, tzdata,
# /etc/passwd with nonroot = 65532), or scratch.
ARG BASE=gcr.io/distroless/static-debian12:nonroot
# The stage /out/gate comes from: build (compile here) or prebuilt (the context).
ARG BINARY=build

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

# A binary built outside (CGO_ENABLED=0, for the image's platform), for builds that
# cannot pull the Go image.
FROM scratch AS prebuilt
ARG PREBUILT=gate
COPY ${PREBUILT} /out/gate

# COPY --from takes no build arguments; a stage named by one does.
FROM ${BINARY} AS binary

FROM ${BASE}
COPY --from=binary /out/gate /usr/local/bin/gate
COPY deploy/docker/config.yml /etc/gate/config.yml
# distroless's nonroot user, by number: scratch has no /etc/passwd to look a name up in.
USER 65532:65532
# Players. The admin API (8080) listens on the container's loopback by default.
EXPOSE 25565
# distroless has no shell or curl: the binary checks itself. With api.enabled it
# fetches /healthz from api.bind, otherwise it does a server-list ping with the
# player port.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["/usr/local/bin/gate", "healthcheck", "--config", "/etc/gate/config.yml"]
ENTRYPOINT ["/usr/local/bin/gate"]
CMD ["--config", "/etc/gate/config.yml"]
