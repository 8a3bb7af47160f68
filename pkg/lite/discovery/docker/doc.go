// Package docker is the discovery source that finds routes on the labels of
// Docker containers: `gate.hosts`, `gate.port`, `gate.network` and
// `gate.<key>` for any other route setting, or mc-router's labels with
// mc-router's meaning (`mc-router.host`, `.port`, `.network`, `.default` and
// the `.auto-scale-*` ones, read as the route settings they amount to).
// Containers of one owner (a compose project, else the container itself)
// that share a host become one route with one backend each; owners that
// claim one host make a route each, dated by their oldest container, for the
// merger's first-claimant rule. A stopped or paused container that names a
// wake target (`gate.wake`, or `mc-router.auto-scale-up: true`) keeps its
// route, without a backend, so that a join can start it.
//
// It owns what it asks the daemon (which containers, which events), turning
// the container list into routes, and following the daemon's event stream:
// reconnecting with backoff and reporting staleness while the daemon is away.
//
// It does not own the Engine API client (package engine/docker, shared with
// the wake target), does not parse or validate route settings (the discovery
// merger does, with the file's parsers), does not merge its routes with
// anyone else's, and never changes anything on the daemon (package
// wake/dockerwake starts and stops containers).
package docker
