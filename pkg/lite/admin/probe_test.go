package admin

import (
	"context"
	"net/http"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
)

// A probe listener of its own answers the probes and nothing else, and the two
// listeners together stay within lite.AdminConns descriptors.
func TestProbeListenerServesOnlyTheProbes(t *testing.T) {
	apiLn := &countingListener{Listener: mctest.Listen(t)}
	probeLn := &countingListener{Listener: mctest.Listen(t)}
	s, _ := newTestServer(t, Options{Token: "s3cret", ProbeListener: probeLn})
	mctest.Run(t, "Serve", func(ctx context.Context) error { return s.Serve(ctx, apiLn) })
	api, probes := apiLn.Addr().String(), probeLn.Addr().String()

	c := dialFrom(t, "", probes)
	for _, path := range []string{PathHealthz, PathReadyz} {
		if err := c.get(path, 5*time.Second); err != nil {
			t.Fatalf("probe listener %s: %v", path, err)
		}
	}
	if err := c.get(PathRoutes, 5*time.Second); err == nil || err.Error() != "GET /api/v1/routes: 404 Not Found" {
		t.Fatalf("probe listener %s: %v, want 404", PathRoutes, err)
	}
	for range 64 {
		_ = dialFrom(t, "", api).get(PathHealthz, time.Second)
		_ = dialFrom(t, "", probes).get(PathHealthz, time.Second)
	}
	if got := probesAnswered(t, probes); got != 25 {
		t.Fatalf("with 64 idle connections on each port %d of 25 probes answered", got)
	}
	if a, p := apiLn.peak.Load(), probeLn.peak.Load(); a > lite.AdminConns-ProbeConns || p > ProbeConns {
		t.Fatalf("%d API and %d probe connections open at once, want at most %d and %d",
			a, p, lite.AdminConns-ProbeConns, ProbeConns)
	}
}

// A connection whose handler runs is never cut for a newcomer, and API requests past
// the connections probes keep are answered 503 at once instead of taking them.
func TestBusyConnectionsAreNotCutAndProbesKeepTheirSlots(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			close(started)
			<-release
		}
		writeText(w, http.StatusOK, "ok")
	})
	s, _ := newTestServer(t, Options{})
	ln := mctest.Listen(t)
	const conns = ProbeSlots + 2 // one API request at a time
	mctest.Run(t, "serveOn", func(ctx context.Context) error { return s.serveOn(ctx, ln, h, conns) })
	addr := ln.Addr().String()

	slow := dialFrom(t, "", addr)
	answer := make(chan error, 1)
	go func() { answer <- slow.get("/slow", 10*time.Second) }()
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the slow request never reached its handler")
	}
	if err := dialFrom(t, "", addr).get("/other", time.Second); err == nil || err.Error() != "GET /other: 503 Service Unavailable" {
		t.Fatalf("a second API request while one runs: %v, want 503", err)
	}
	if got := probesAnswered(t, addr); got != 25 {
		t.Fatalf("with an API request running %d of 25 probes answered", got)
	}
	close(release)
	if err := <-answer; err != nil {
		t.Fatalf("the busy connection was cut: %v", err)
	}
}
