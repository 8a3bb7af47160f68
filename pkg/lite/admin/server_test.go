package admin

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.minekube.com/gate/internal/mctest"
)

func do(t *testing.T, h http.Handler, method, path, auth string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(method, "http://localhost"+path, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

func TestAuth(t *testing.T) {
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "m 1\n") })
	tests := []struct {
		name   string
		token  string
		public bool
		method string
		path   string
		auth   string
		want   int
	}{
		{"no token configured: the API is open", "", false, "GET", PathBackends, "", 200},
		{"token configured, none sent", "s3cret", false, "GET", PathBackends, "", 401},
		{"wrong token", "s3cret", false, "GET", PathRoutes, "Bearer nope", 401},
		{"token as a prefix of the real one", "s3cret", false, "GET", PathRoutes, "Bearer s3c", 401},
		{"right token", "s3cret", false, "GET", PathRoutes, "Bearer s3cret", 200},
		{"scheme is case-insensitive", "s3cret", false, "GET", PathRoutes, "bearer s3cret", 200},
		{"basic auth is not a bearer token", "s3cret", false, "GET", PathRoutes, "Basic s3cret", 401},
		{"healthz never needs the token", "s3cret", false, "GET", PathHealthz, "", 200},
		{"readyz never needs the token", "s3cret", false, "GET", PathReadyz, "", 200},
		{"metrics need the token", "s3cret", false, "GET", PathMetrics, "", 401},
		{"public metrics do not", "s3cret", true, "GET", PathMetrics, "", 200},
		{"HEAD is a read", "s3cret", false, "HEAD", PathHealthz, "", 200},
		{"the API is read-only", "", false, "POST", PathBackends, "", 405},
		{"unknown path", "", false, "GET", "/api/v1/players", "", 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestServer(t, Options{Token: tt.token, Metrics: metrics, PublicMetrics: tt.public})
			if code, body := do(t, s.Handler(), tt.method, tt.path, tt.auth); code != tt.want {
				t.Fatalf("%s %s = %d %q, want %d", tt.method, tt.path, code, body, tt.want)
			}
		})
	}
}

func TestSetTokenAtRunTime(t *testing.T) {
	s, _ := newTestServer(t, Options{Token: "old"})
	s.SetToken("new")
	if code, _ := do(t, s.Handler(), "GET", PathRoutes, "Bearer old"); code != 401 {
		t.Fatalf("old token: %d, want 401", code)
	}
	if code, _ := do(t, s.Handler(), "GET", PathRoutes, "Bearer new"); code != 200 {
		t.Fatalf("new token: %d, want 200", code)
	}
	s.SetToken("")
	if code, _ := do(t, s.Handler(), "GET", PathRoutes, ""); code != 200 {
		t.Fatalf("token removed: %d, want 200", code)
	}
}

func TestReadyz(t *testing.T) {
	s, src := newTestServer(t, Options{})
	if code, body := do(t, s.Handler(), "GET", PathReadyz, ""); code != 200 || body != "ready\n" {
		t.Fatalf("ready: %d %q", code, body)
	}
	src.ready.Store(false)
	if code, body := do(t, s.Handler(), "GET", PathReadyz, ""); code != 503 || body != "not ready\n" {
		t.Fatalf("not ready: %d %q", code, body)
	}
	if code, body := do(t, s.Handler(), "GET", PathHealthz, ""); code != 200 || body != "ok\n" {
		t.Fatalf("healthz while not ready: %d %q", code, body)
	}
}

func TestRoutesJSON(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	_, body := do(t, s.Handler(), "GET", PathRoutes, "")
	want := `[
  {
    "key": "play.example.com",
    "origin": "config.yml:12",
    "hosts": [
      "play.example.com"
    ],
    "strategy": "least-connections",
    "backends": [
      "10.0.0.1:25565",
      "10.0.0.2:25565"
    ],
    "fallback": true
  },
  {
    "key": "*.dev.example.com",
    "origin": "kubernetes games/dev",
    "hosts": [
      "*.dev.example.com"
    ],
    "strategy": "sequential",
    "backends": [
      "$1.dev.svc:25565"
    ],
    "fallback": false
  }
]
`
	if body != want {
		t.Fatalf("got\n%s\nwant\n%s", body, want)
	}
}

func TestBackendsJSON(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	_, body := do(t, s.Handler(), "GET", PathBackends, "")
	want := `[
  {
    "route": "play.example.com",
    "backend": "10.0.0.1:25565",
    "origin": "config.yml:12",
    "state": "healthy",
    "active": 3,
    "latencyMs": 12.5,
    "load": {
      "online": 40,
      "max": 100
    },
    "lastReport": "2024-05-01T12:00:00Z",
    "version": "Paper 1.20.4",
    "reason": "healthy",
    "eligible": true,
    "why": "eligible: healthy"
  },
  {
    "route": "play.example.com",
    "backend": "10.0.0.2:25565",
    "origin": "config.yml:12",
    "state": "ejected",
    "active": 0,
    "ejectedUntil": "2024-05-01T12:00:30Z",
    "reason": "ejected",
    "eligible": false,
    "why": "demoted: ejected after 3 dial failures in a row until 12:00:30"
  },
  {
    "route": "*.dev.example.com",
    "backend": "$1.dev.svc:25565",
    "template": "$1.dev.svc:25565",
    "state": "template",
    "active": 0,
    "eligible": true,
    "why": "template: each player's host fills in $n; state is kept per expanded address"
  },
  {
    "route": "*.dev.example.com",
    "backend": "abc.dev.svc:25565",
    "template": "$1.dev.svc:25565",
    "state": "unknown",
    "active": 1,
    "reason": "unmeasured",
    "score": 0.25,
    "eligible": true,
    "why": "eligible: not measured yet, tried like a healthy one"
  }
]
`
	if body != want {
		t.Fatalf("got\n%s\nwant\n%s", body, want)
	}
}

func TestBind(t *testing.T) {
	tests := []struct {
		bind, token string
		refused     bool
	}{
		{"localhost:8080", "", false},
		{"127.0.0.1:8080", "", false},
		{"127.8.9.10:8080", "", false},
		{"[::1]:8080", "", false},
		{"0.0.0.0:8080", "", true},
		{":8080", "", true},
		{"[::]:8080", "", true},
		{"10.1.2.3:8080", "", true},
		{"example.com:8080", "", true},
		{"0.0.0.0:8080", "s3cret", false},
	}
	for _, tt := range tests {
		err := CheckBind(tt.bind, tt.token)
		if got := errors.Is(err, ErrOpenBind); got != tt.refused {
			t.Errorf("CheckBind(%q, %q) = %v, want refused=%v", tt.bind, tt.token, err, tt.refused)
		}
	}
	s, _ := newTestServer(t, Options{})
	if err := s.ListenAndServe(context.Background(), "0.0.0.0:0"); !errors.Is(err, ErrOpenBind) {
		t.Fatalf("ListenAndServe on 0.0.0.0 without a token = %v, want ErrOpenBind", err)
	}
}

func TestClientTable(t *testing.T) {
	s, _ := newTestServer(t, Options{Token: "s3cret"})
	url := serve(t, s)
	ctx := context.Background()

	if _, err := (&Client{URL: url}).Backends(ctx); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("without token: %v, want ErrUnauthorized", err)
	}
	c := &Client{URL: url + "/", Token: "s3cret"}
	if err := c.Check(ctx, PathReadyz); err != nil {
		t.Fatalf("readyz: %v", err)
	}
	routes, err := c.Routes(ctx)
	if err != nil || len(routes) != 2 || routes[0].Strategy != "least-connections" {
		t.Fatalf("routes = %+v, %v", routes, err)
	}
	bs, err := c.Backends(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := WriteTable(&out, bs); err != nil {
		t.Fatal(err)
	}
	wantTable(t, out.String(),
		"ROUTE              BACKEND            ORIGIN         STATE     ACTIVE  LATENCY  LOAD    SCORE  ELIGIBLE  WHY",
		"play.example.com   10.0.0.1:25565     config.yml:12  healthy   3       12.5ms   40/100  -      yes       eligible: healthy",
		"play.example.com   10.0.0.2:25565     config.yml:12  ejected   0       -        -       -      no        demoted: ejected after 3 dial failures in a row until 12:00:30",
		"*.dev.example.com  $1.dev.svc:25565   -              template  0       -        -       -      yes       template: each player's host fills in $n; state is kept per expanded address",
		"*.dev.example.com  abc.dev.svc:25565  -              unknown   1       -        -       0.25   yes       eligible: not measured yet, tried like a healthy one")
}

func TestClientErrors(t *testing.T) {
	s, src := newTestServer(t, Options{})
	url := serve(t, s)
	src.ready.Store(false)
	err := (&Client{URL: url}).Check(context.Background(), PathReadyz)
	if err == nil || !strings.Contains(err.Error(), "503 Service Unavailable: not ready") {
		t.Fatalf("readyz while not ready: %v", err)
	}
	dead := "http://" + mctest.RefusedAddr(t)
	if err := (&Client{URL: dead}).Check(context.Background(), PathHealthz); err == nil {
		t.Fatal("healthz of a closed port succeeded")
	}
}

func BenchmarkBackendsJSON(b *testing.B) {
	src := &fakeSource{}
	s := New(Options{Source: src})
	h := s.Handler()
	req := httptest.NewRequest("GET", "http://localhost"+PathBackends, nil)
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
}
