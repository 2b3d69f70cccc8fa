# pads in a container: a static binary (CGO_ENABLED=0: pads and its SQLite
# are pure Go) on a distroless base, run as the nonroot user (65532).
#
#   docker build -t pads --build-arg VERSION=$(git describe --always) .
#   docker run -p 8080:8080 -v pads-data:/var/lib/pads -v /etc/pads:/etc/pads:ro \
#     --env-file /etc/pads/pads.env pads
#
# The config's listen must be 0.0.0.0:8080 (or another port you publish)
# and its dataDir /var/lib/pads. docs/deploy.md.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 GOTOOLCHAIN=local go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/pads ./cmd/pads \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/pads /usr/local/bin/pads
# The data directory, owned by nonroot: mount a volume on it.
COPY --from=build --chown=65532:65532 /out/data /var/lib/pads
VOLUME /var/lib/pads
WORKDIR /var/lib/pads
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/pads"]
CMD ["serve", "--config", "/etc/pads/pads.yaml"]
