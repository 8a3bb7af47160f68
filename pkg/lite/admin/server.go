package admin

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-logr/logr"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/discovery"
	"go.minekube.com/gate/pkg/lite/events"
	"go.minekube.com/gate/pkg/lite/wake"
)

// Paths served.
const (
	PathHealthz  = "/healthz"
	PathReadyz   = "/readyz"
	PathRoutes   = "/api/v1/routes"
	PathBackends = "/api/v1/backends"
	PathMetrics  = "/metrics"
)

// HeaderAPI is set on every response of the API (value APIVersion), so that
// clients can tell this API from another program on the same port.
const (
	HeaderAPI  = "X-Gate-Lite-Admin"
	APIVersion = "v1"
)

// ErrOpenBind is returned for a non-loopback bind without a token: anyone who
// can reach the port could read the proxy's whole topology.
var ErrOpenBind = errors.New("admin API: refusing to listen on a non-loopback address without a token (set api.token or api.tokenFile, or bind to localhost)")

// Options configure a Server.
type Options struct {
	// Source is the proxy the API describes. Required.
	Source Source
	// Token, when not empty, is the bearer token requests must carry. /healthz
	// and /readyz never need it (they reveal nothing and probes carry no
	// credentials). SetToken changes it at run time.
	Token string
	// Metrics, when not nil, is served at /metrics.
	Metrics http.Handler
	// PublicMetrics serves /metrics without the token, for scrapers that carry
	// none (Kubernetes annotation-based discovery). Default false.
	PublicMetrics bool
	// Sources, when not nil, reports the discovery sources for
	// /api/v1/sources (the discovery.Merger's Sources).
	Sources func() []discovery.SourceStatus
	// Wake, when not nil, reports the wake targets for /api/v1/wake (the
	// wake.Coordinator's States).
	Wake func() []wake.State
	// Events, when not nil, is streamed at /api/v1/events (Server-Sent Events).
	Events *events.Bus
	// Sessions, when not nil, lists the live sessions for /api/v1/sessions.
	Sessions func() []events.Session
	// ProbeListener, when not nil, is a listener of its own for /healthz and /readyz
	// (nothing else, no token), so that a NetworkPolicy or firewall can close the API's
	// port and leave the probes theirs. Serve serves and closes it; it takes
	// ProbeConns of the API's lite.AdminConns descriptors.
	ProbeListener net.Listener
	// Operator, when not nil, is the operator layer the write endpoints change
	// (PathOperator); OperatorStore says where it lives. Writes need a token.
	Operator      Operator
	OperatorStore string
	// Hosts are host names, besides IP addresses and localhost, the page and the
	// writes answer to (the API's own name); any other Host is refused.
	Hosts []string
	// Log receives listener errors and the audit lines of writes. The zero
	// Logger discards.
	Log logr.Logger
}

// Server is the admin HTTP API. Its handlers read, except the operator layer's writes.
type Server struct {
	o      Options
	token  atomic.Pointer[[32]byte] // sha256 of the token; nil means no token
	mux    *http.ServeMux
	probes *http.ServeMux // the probe listener's: health and readiness only
	// closing ends the event streams when the API shuts down (they never go idle).
	closing   chan struct{}
	closeOnce sync.Once
}

// New creates a server; it listens only when Serve or ListenAndServe is called.
func New(o Options) *Server {
	s := &Server{o: o, mux: http.NewServeMux(), probes: http.NewServeMux(), closing: make(chan struct{})}
	s.SetToken(o.Token)
	for _, mux := range []*http.ServeMux{s.mux, s.probes} {
		mux.HandleFunc("GET "+PathHealthz, func(w http.ResponseWriter, _ *http.Request) {
			writeText(w, http.StatusOK, "ok")
		})
		mux.HandleFunc("GET "+PathReadyz, s.readyz)
	}
	s.mux.Handle("GET "+PathRoutes, s.auth(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, routesView(s.o.Source.Routes()))
	})))
	s.mux.Handle("GET "+PathBackends, s.auth(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, backendsView(boundBackends(w, s.o.Source.Backends())))
	})))
	s.mux.Handle("GET "+PathSources, s.auth(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		var ss []discovery.SourceStatus
		if s.o.Sources != nil {
			ss = s.o.Sources()
		}
		writeJSON(w, sourcesView(ss))
	})))
	s.mux.Handle("GET "+PathWake, s.auth(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		ss := []wake.State{}
		if s.o.Wake != nil {
			ss = s.o.Wake()
		}
		writeJSON(w, ss)
	})))
	if o.Events != nil {
		s.mux.Handle("GET "+PathEvents, s.auth(http.HandlerFunc(s.streamEvents)))
	}
	s.mux.Handle("GET "+PathSessions, s.auth(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		var ss []events.Session
		if s.o.Sessions != nil {
			ss = s.o.Sessions()
		}
		writeJSON(w, sessionsView(ss))
	})))
	s.routeOperator()
	s.routePage()
	if o.Metrics != nil {
		h := o.Metrics
		if !o.PublicMetrics {
			h = s.auth(h)
		}
		s.mux.Handle("GET "+PathMetrics, h)
	}
	return s
}

// SetToken replaces the bearer token (on config reload); "" turns it off.
func (s *Server) SetToken(token string) {
	if token == "" {
		s.token.Store(nil)
		return
	}
	sum := sha256.Sum256([]byte(token))
	s.token.Store(&sum)
}

// Handler is the API's HTTP handler, for tests and embedding programs.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(HeaderAPI, APIVersion)
		if s.token.Load() == nil && !localHost(r.Host) {
			writeText(w, http.StatusMisdirectedRequest, "admin API: without a token only requests to an IP address or localhost are answered")
			return
		}
		s.mux.ServeHTTP(w, r)
	})
}

// localHost reports whether a request's Host names the API the way a local client
// does: an IP literal or localhost, any port. Without a token the loopback bind is the
// only protection, and a web page can reach it by DNS rebinding (its own name, now
// resolving to 127.0.0.1); such a request carries the page's name as its Host. A
// tokenless bind is always localhost or a loopback IP (CheckBind), so its own host
// name is one of these too.
func localHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), ".")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	_, err := netip.ParseAddr(host)
	return err == nil
}

func (s *Server) readyz(w http.ResponseWriter, _ *http.Request) {
	if !s.o.Source.Ready() {
		writeText(w, http.StatusServiceUnavailable, "not ready")
		return
	}
	writeText(w, http.StatusOK, "ready")
}

// auth checks the bearer token in constant time (comparing digests, so the
// token's length does not leak either), or the page's session cookie.
func (s *Server) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		want := s.token.Load()
		if want != nil {
			got := sha256.Sum256([]byte(bearer(r.Header.Get("Authorization"))))
			if subtle.ConstantTimeCompare(got[:], want[:]) != 1 && !cookieOK(r, want) {
				w.Header().Set("WWW-Authenticate", `Bearer realm="gate"`)
				writeText(w, http.StatusUnauthorized, "unauthorized")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func bearer(h string) string {
	const prefix = "Bearer "
	if len(h) > len(prefix) && strings.EqualFold(h[:len(prefix)], prefix) {
		return h[len(prefix):]
	}
	return ""
}

// CheckBind refuses a bind that is not loopback-only when there is no token.
func CheckBind(bind, token string) error {
	if token != "" || Loopback(bind) {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrOpenBind, bind)
}

// Loopback reports whether a listen address accepts local peers only (the config's rule).
func Loopback(bind string) bool { return config.LoopbackBind(bind) }

// ListenAndServe checks the bind against the token, listens and serves until ctx ends.
func (s *Server) ListenAndServe(ctx context.Context, bind string) error {
	if s.token.Load() == nil && !Loopback(bind) {
		return fmt.Errorf("%w: %s", ErrOpenBind, bind)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", bind)
	if err != nil {
		return fmt.Errorf("admin API: listen %s: %w", bind, err)
	}
	return s.Serve(ctx, ln)
}

func writeText(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = fmt.Fprintln(w, msg)
}

func writeJSON(w http.ResponseWriter, v any) {
	body, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		writeText(w, http.StatusInternalServerError, "encode: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(append(body, '\n'))
}
