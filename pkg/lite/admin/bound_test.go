package admin

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite"
)

type sprayedSource struct{ fakeSource }

// Backends is a template route after a spray: 2 configured rows, then 5000 addresses
// players expanded.
func (s *sprayedSource) Backends() []lite.BackendInfo {
	out := []lite.BackendInfo{{Route: "r", Backend: "10.0.0.1:25565"}}
	for i := range 5000 {
		out = append(out, lite.BackendInfo{Route: "t", Backend: fmt.Sprintf("p%d.svc:25565", i), Template: "$1.svc:25565"})
	}
	return append(out, lite.BackendInfo{Route: "t", Backend: "$1.svc:25565", Template: "$1.svc:25565"})
}

// TestBackendsAnswerIsBounded: /api/v1/backends lists at most MaxBackendsListed rows,
// configured backends and templates first, and says it left rows out.
func TestBackendsAnswerIsBounded(t *testing.T) {
	src := &sprayedSource{}
	src.ready.Store(true)
	s := New(Options{Source: src})
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "http://localhost"+PathBackends, nil))
	var rows []Backend
	if err := json.Unmarshal(rec.Body.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != MaxBackendsListed || rows[0].Backend != "10.0.0.1:25565" || rows[1].Backend != "$1.svc:25565" {
		t.Fatalf("%d rows, first %+v %+v", len(rows), rows[0], rows[1])
	}
	if rec.Header().Get("X-Truncated") != "true" || rec.Header().Get("X-Total-Count") != "5002" {
		t.Fatalf("headers %v", rec.Header())
	}
}
