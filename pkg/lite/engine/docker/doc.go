// Package docker is the Docker Engine API client that discovery and wake
// share: plain HTTP and JSON over the daemon's socket, standard library only.
// It owns where the daemon is (the configured host, else $DOCKER_HOST, else
// the default socket), the transport, the daemon's error replies, and the
// calls both sides make: listing and inspecting containers, following the
// event stream, and starting and stopping a container.
//
// It does not decide what to ask for (the discovery source picks its filters
// and watched events, the wake target its stop grace), turns nothing into
// routes, and keeps no state between calls beyond its idle connections.
// Paths carry no API version, so any daemon answers in its own current
// version; the fields read here have been stable since API 1.21.
package docker
