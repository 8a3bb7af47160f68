package discovery

import (
	"context"
	"time"
)

// Source watches one engine for routes.
type Source interface {
	// Name is the source's kind as operators see it in logs and the admin
	// API: "kubernetes", "docker".
	Name() string
	// Run watches until ctx ends. Each time the source's view changes it
	// calls sink.Replace with its complete route set (never a delta); when
	// it loses its engine it calls sink.Stale with the cause, and once it is
	// in sync again it calls Replace (with the set, changed or not). Run
	// returns nil when ctx ends, or an error it cannot recover from at start
	// (a kubeconfig that does not load); transient failures are retried
	// inside Run and reported through Stale.
	Run(ctx context.Context, sink Sink) error
}

// Sink receives route sets. Its methods are safe for concurrent use and do not
// block on I/O.
type Sink interface {
	// Replace puts routes in force as the source's whole set, replacing the
	// previous one, and marks the source fresh.
	Replace(source string, routes []Route)
	// Stale marks the source stale since now (if it was fresh) because of
	// cause. Its last set stays in force.
	Stale(source string, cause error)
}

// Route is one discovered route, before its settings are parsed.
type Route struct {
	// Origin names the object the route came from, as operators would look
	// it up: "kubernetes <namespace>/<service>", "docker <container>".
	Origin string
	// Hosts are the host patterns, with the file's `host:` syntax.
	Hosts []string
	// Default marks a catch-all route (mc-router's defaultServer): it is
	// placed after every other route.
	Default bool
	// Backends are the addresses players can be sent to now. Empty is allowed:
	// the route exists (its host is known) but nothing is ready.
	Backends []Backend
	// Settings are the route's other keys, named as in the file (strategy,
	// proxyProtocol, cachePingTTL, fallback, ...), each value the text written
	// on the object (YAML or JSON for a mapping such as fallback).
	Settings map[string]string
	// KeyPrefix is how the source spells a key on its objects
	// ("gate.minekube.com/" for annotations, "gate." for labels), so that a
	// rejected value is reported under the name the operator wrote.
	KeyPrefix string
	// Namespace is a Kubernetes object's namespace and Container a Docker
	// container's name: a `wake` setting that names no namespace or
	// container means the object's own. They are also the route's owner
	// for host claims: routes of different owners never share a host.
	Namespace, Container string
	// Created is when the object was created (a Service's
	// creationTimestamp, the oldest container's creation on a Docker
	// route); zero when the source does not know. Between two
	// owners claiming one host, the earlier object keeps it, as Ingress
	// controllers decide.
	Created time.Time
}

// Backend is one discovered backend address.
type Backend struct {
	// Addr is host:port (IPv6 in brackets).
	Addr string
	// Origin names the object behind this address when it differs from the
	// route's ("docker <container>" in a route several containers share);
	// "" means the route's Origin.
	Origin string
}
