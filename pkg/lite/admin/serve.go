package admin

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/lite/logging"
)

// ProbeConns is how many of the lite.AdminConns descriptors a probe listener of its
// own (Options.ProbeListener) keeps; the API's port keeps the rest.
const ProbeConns = 4

// Serve serves on ln (and on Options.ProbeListener) until ctx ends, then shuts down
// (in-flight requests get a second) and returns once the HTTP servers have stopped.
// It closes the listeners. At most lite.AdminConns connections are open at once, the
// descriptors the proxy keeps for the API, so /healthz answers even when the proxy is
// at its open-files cap; idle or slow clients cannot keep the probes out of them
// (limitListener).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if s.o.ProbeListener == nil {
		return s.serveOn(ctx, ln, s.Handler(), lite.AdminConns)
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var probeErr error
	wg.Go(func() {
		probeErr = s.serveOn(ctx, s.o.ProbeListener, s.probeHandler(), ProbeConns)
		cancel() // a probe listener that failed stops the API too: both or neither
	})
	err := s.serveOn(ctx, ln, s.Handler(), lite.AdminConns-ProbeConns)
	cancel()
	wg.Wait()
	return errors.Join(err, probeErr)
}

// probeHandler serves the probe listener: health and readiness, no token, and no
// Host check (they reveal nothing a DNS-rebinding page could use).
func (s *Server) probeHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(HeaderAPI, APIVersion)
		s.probes.ServeHTTP(w, r)
	})
}

// serveOn serves h on ln with at most conns descriptors until ctx ends.
func (s *Server) serveOn(ctx context.Context, ln net.Listener, h http.Handler, conns int) error {
	lim := limitConns(ln, conns)
	srv := &http.Server{
		Handler:           lim.markBusy(h),
		ConnState:         lim.connState,
		ConnContext:       connContext,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    16 << 10,
		// The server's own errors (bad TLS, broken requests) are peer-triggered: they
		// go through the structured, rate-limited logger, not to stderr as text.
		ErrorLog: logging.StdLogger(s.o.Log, "admin HTTP server"),
	}
	srv.RegisterOnShutdown(func() { s.closeOnce.Do(func() { close(s.closing) }) })
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			_ = srv.Close()
		}
	})
	s.o.Log.Info("admin API listening", "bind", ln.Addr().String(), "connections", conns)
	err := srv.Serve(lim)
	cancel() // also when Serve failed on its own: the shutdown goroutine must end
	wg.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return fmt.Errorf("admin API: %w", err)
}
