package admin

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/operator"
)

const opToken = "s3cret-operator-token"

// newOperatorServer is a server with a token and a real operator hub over a
// state file; applied counts the layers the hub put in force.
func newOperatorServer(t *testing.T, token string, logs *mctest.Logs) (*Server, *operator.Hub, *int) {
	t.Helper()
	applied := new(int)
	hub := operator.NewHub(operator.HubOptions{Store: operator.NewFileStore(filepath.Join(t.TempDir(), "op.json"), nil),
		Apply: func(*operator.Layer) error { *applied++; return nil }})
	s, _ := newTestServer(t, Options{Token: token, Operator: hub, OperatorStore: "file op.json", Log: logs.Logger(0),
		Hosts: []string{"gate-admin.games.svc"}})
	return s, hub, applied
}

func request(t *testing.T, h http.Handler, method, target, body string, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

var writes = []struct{ method, path, body string }{
	{"POST", "/api/v1/operator/maintenance", `{"text":"back soon","bypass":["Admin"]}`},
	{"DELETE", "/api/v1/operator/maintenance", ``},
	{"POST", "/api/v1/operator/drain", `{"target":"10.0.0.1:25565"}`},
	{"DELETE", "/api/v1/operator/drain?target=10.0.0.1:25565", ``},
	{"POST", "/api/v1/operator/ban", `{"target":"Griefer","text":"griefing","for":"5s"}`},
	{"DELETE", "/api/v1/operator/ban?target=Griefer", ``},
	{"POST", "/api/v1/operator/override", `{"target":"play.example.com","motd":"Event","maxPlayers":500}`},
	{"DELETE", "/api/v1/operator/override?target=play.example.com", ``},
}

func TestEveryWriteWantsTheToken(t *testing.T) {
	var logs mctest.Logs
	s, hub, applied := newOperatorServer(t, opToken, &logs)
	for _, w := range writes {
		for _, auth := range []string{"", "Bearer wrong", "Basic " + opToken} {
			rec := request(t, s.Handler(), w.method, "http://127.0.0.1:8080"+w.path, w.body, map[string]string{"Authorization": auth})
			if rec.Code != http.StatusUnauthorized {
				t.Fatalf("%s %s with %q: %d, want 401", w.method, w.path, auth, rec.Code)
			}
		}
	}
	if *applied != 0 || len(hub.Layer().State()) != 0 {
		t.Fatalf("a refused write changed the layer: %d applies", *applied)
	}
	for _, w := range writes {
		rec := request(t, s.Handler(), w.method, "http://127.0.0.1:8080"+w.path, w.body,
			map[string]string{"Authorization": "Bearer " + opToken, HeaderBy: "alice"})
		if rec.Code != http.StatusOK {
			t.Fatalf("%s %s with the token: %d %s", w.method, w.path, rec.Code, rec.Body)
		}
	}
	if got := logs.Count(`"operator write"`); got != len(writes) {
		t.Fatalf("%d audit lines, want one per write (%d): %q", got, len(writes), logs.Find("operator"))
	}
	if line := logs.Find(`"kind"="ban"`)[0]; !strings.Contains(line, `"by"="alice"`) || !strings.Contains(line, `"target"="name:griefer"`) {
		t.Fatalf("audit line says neither who nor what: %s", line)
	}
}

func TestWritesWithoutAConfiguredTokenAreForbidden(t *testing.T) {
	s, _, applied := newOperatorServer(t, "", &mctest.Logs{})
	rec := request(t, s.Handler(), "POST", "http://127.0.0.1:8080/api/v1/operator/drain", `{"target":"10.0.0.1:25565"}`, nil)
	if rec.Code != http.StatusForbidden || *applied != 0 {
		t.Fatalf("tokenless write: %d, %d applies", rec.Code, *applied)
	}
}

func TestForeignHostOrOriginRefused(t *testing.T) {
	s, _, applied := newOperatorServer(t, opToken, &mctest.Logs{})
	auth := "Bearer " + opToken
	cases := []struct {
		name, host, origin, site string
		want                     int
	}{
		{"rebound name", "evil.example", "", "", http.StatusMisdirectedRequest},
		{"foreign origin", "127.0.0.1:8080", "http://evil.example", "", http.StatusForbidden},
		{"origin on another port", "127.0.0.1:8080", "http://127.0.0.1:9999", "", http.StatusForbidden},
		{"cross-site fetch", "127.0.0.1:8080", "", "cross-site", http.StatusForbidden},
		{"same-site is not same-origin", "127.0.0.1:8080", "", "same-site", http.StatusForbidden},
		{"own name", "gate-admin.games.svc:8080", "http://gate-admin.games.svc:8080", "same-origin", http.StatusOK},
		{"loopback with own origin", "127.0.0.1:8080", "http://127.0.0.1:8080", "", http.StatusOK},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, path := range []string{"/api/v1/operator/drain", "/"} {
				method, body := "POST", `{"target":"10.0.0.1:25565"}`
				if path == "/" {
					method, body = "GET", ""
				}
				req := httptest.NewRequest(method, "http://"+c.host+path, strings.NewReader(body))
				req.Host = c.host
				req.Header.Set("Authorization", auth)
				if c.origin != "" {
					req.Header.Set("Origin", c.origin)
				}
				if c.site != "" {
					req.Header.Set("Sec-Fetch-Site", c.site)
				}
				rec := httptest.NewRecorder()
				s.Handler().ServeHTTP(rec, req)
				if rec.Code != c.want {
					t.Fatalf("%s %s: %d, want %d (%s)", method, path, rec.Code, c.want, rec.Body)
				}
			}
		})
	}
	if *applied != 2 {
		t.Fatalf("%d applies, want the 2 same-origin writes", *applied)
	}
}

func TestInvalidWritesAre400AndChangeNothing(t *testing.T) {
	s, hub, _ := newOperatorServer(t, opToken, &mctest.Logs{})
	h := map[string]string{"Authorization": "Bearer " + opToken}
	for _, w := range []struct{ path, body string }{
		{"/api/v1/operator/ban", `{"target":"*"}`},
		{"/api/v1/operator/ban", `{"target":"x","for":"-5s"}`},
		{"/api/v1/operator/drain", `{"target":"10.0.0.1:25565","motd":"x"}`},
		{"/api/v1/operator/override", `{"favicon":"https://example.invalid/x.png"}`},
		{"/api/v1/operator/override", `{"unknownField":1}`},
		{"/api/v1/operator/reboot", `{"target":"*"}`},
		{"/api/v1/operator/maintenance", `{"text":"` + strings.Repeat("x", operator.MaxText+1) + `"}`},
	} {
		if rec := request(t, s.Handler(), "POST", "http://127.0.0.1"+w.path, w.body, h); rec.Code != http.StatusBadRequest {
			t.Fatalf("%s %s: %d, want 400 (%s)", w.path, w.body, rec.Code, rec.Body)
		}
	}
	if n := len(hub.Layer().State()); n != 0 {
		t.Fatalf("invalid writes left %d entries", n)
	}
}

func TestLoginCookieAuthenticatesThePage(t *testing.T) {
	s, _, _ := newOperatorServer(t, opToken, &mctest.Logs{})
	form := func(tok string) *httptest.ResponseRecorder {
		return request(t, s.Handler(), "POST", "http://127.0.0.1:8080"+PathLogin, url.Values{"token": {tok}}.Encode(),
			map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": "http://127.0.0.1:8080"})
	}
	if rec := form("wrong"); len(rec.Result().Cookies()) != 0 {
		t.Fatal("a wrong token got a cookie")
	}
	rec := form(opToken)
	cookies := rec.Result().Cookies()
	if len(cookies) != 1 || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode || strings.Contains(cookies[0].Value, opToken) {
		t.Fatalf("login cookie: %+v", cookies)
	}
	req := httptest.NewRequest("POST", "http://127.0.0.1:8080/api/v1/operator/drain", strings.NewReader(`{"target":"10.0.0.1:25565"}`))
	req.AddCookie(cookies[0])
	out := httptest.NewRecorder()
	s.Handler().ServeHTTP(out, req)
	if out.Code != http.StatusOK {
		t.Fatalf("write with the session cookie: %d %s", out.Code, out.Body)
	}
	s.SetToken("rotated")
	out = httptest.NewRecorder()
	s.Handler().ServeHTTP(out, req)
	if out.Code != http.StatusUnauthorized {
		t.Fatalf("cookie of a rotated token: %d, want 401", out.Code)
	}
}

func TestPageIsEmbeddedAndSelfContained(t *testing.T) {
	s, _, _ := newOperatorServer(t, opToken, &mctest.Logs{})
	for _, p := range []string{"/", "/ui/app.js", "/ui/style.css"} {
		rec := request(t, s.Handler(), "GET", "http://127.0.0.1:8080"+p, "", nil)
		body := rec.Body.String()
		// A Referrer-Policy of no-referrer would make the login form's Origin "null" (refused).
		if rec.Code != http.StatusOK || !strings.Contains(rec.Header().Get("Content-Security-Policy"), "default-src 'none'") ||
			rec.Header().Get("Referrer-Policy") != "same-origin" {
			t.Fatalf("GET %s: %d, CSP %q", p, rec.Code, rec.Header().Get("Content-Security-Policy"))
		}
		for _, external := range []string{"http://", "https://", "//cdn"} {
			if strings.Contains(body, external) {
				t.Fatalf("%s refers to %q: the page must need nothing from the network", p, external)
			}
		}
	}
}

func TestClientWritesTheLayer(t *testing.T) {
	var logs mctest.Logs
	s, _, _ := newOperatorServer(t, opToken, &logs)
	c := &Client{URL: serve(t, s), Token: opToken, By: "cli-user"}
	ctx := context.Background()
	e, err := c.SetOperator(ctx, operator.Ban, WriteRequest{Entry: operator.Entry{Target: "uuid:069a79f444e94726a5befca90e38aaf5"}, For: "1h"})
	if err != nil || e.Expires == nil || e.By != "cli-user" {
		t.Fatalf("SetOperator = %+v, %v", e, err)
	}
	l, err := c.Operator(ctx)
	if err != nil || l.Layer != "operator" || len(l.Entries) != 1 || l.Store != "file op.json" {
		t.Fatalf("Operator = %+v, %v", l, err)
	}
	if err := c.DeleteOperator(ctx, operator.Ban, "069a79f4-44e9-4726-a5be-fca90e38aaf5"); err != nil {
		t.Fatal(err)
	}
	if l, _ = c.Operator(ctx); len(l.Entries) != 0 {
		t.Fatalf("after delete: %+v", l)
	}
	if _, err := (&Client{URL: c.URL}).SetOperator(ctx, operator.Drain, WriteRequest{Entry: operator.Entry{Target: "10.0.0.1:1"}}); err != ErrUnauthorized {
		t.Fatalf("without token: %v", err)
	}
}
