package admin

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// Regression: without a token the loopback API answered any Host header, so a web page
// whose name was rebound to 127.0.0.1 could read the topology from a browser on the
// host. Real HTTP requests on a loopback listener, the Host header set per case.
func TestTokenlessAPIRefusesForeignHostHeaders(t *testing.T) {
	tests := []struct {
		host   string
		token  string
		status int
	}{
		{"127.0.0.1:8080", "", http.StatusOK},
		{"127.0.0.1", "", http.StatusOK},
		{"[::1]:8080", "", http.StatusOK},
		{"localhost:9", "", http.StatusOK},
		{"LocalHost.", "", http.StatusOK},
		{"10.0.0.5:8080", "", http.StatusOK}, // an IP literal is never a rebound name
		{"evil.example:8080", "", http.StatusMisdirectedRequest},
		{"evil.example", "", http.StatusMisdirectedRequest},
		{"localhost.evil.example", "", http.StatusMisdirectedRequest},
		{"127.0.0.1.nip.example", "", http.StatusMisdirectedRequest},
		{"evil.example", "s3cret", http.StatusOK}, // with a token: unchanged
	}
	for _, tc := range tests {
		t.Run(tc.host+" token="+tc.token, func(t *testing.T) {
			s, _ := newTestServer(t, Options{Token: tc.token})
			base := serve(t, s)
			for _, path := range []string{PathRoutes, PathHealthz} {
				req, err := http.NewRequest("GET", base+path, nil)
				if err != nil {
					t.Fatal(err)
				}
				req.Host = tc.host
				if tc.token != "" {
					req.Header.Set("Authorization", "Bearer "+tc.token)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tc.status {
					t.Fatalf("GET %s Host %q = %d %q, want %d", path, tc.host, resp.StatusCode, body, tc.status)
				}
				if tc.status != http.StatusOK && (strings.Contains(string(body), "route") || len(body) > 200) {
					t.Fatalf("refusal body %q: want a short text revealing nothing", body)
				}
			}
		})
	}
}
