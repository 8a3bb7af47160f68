package docker

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/discovery"
)

// TestEngine lends engine_test.go's daemon helpers to wake_test.go, which is
// in package docker_test because it imports the wake target, which imports
// this package.
type TestEngine struct{ e *engine }

func NeedTestEngine(t *testing.T) TestEngine { return TestEngine{needEngine(t)} }

func (te TestEngine) Host() string { return te.e.host }

// Create creates a container of the test image (mcload's backend on 25565)
// without starting it, and removes it when the test ends.
func (te TestEngine) Create(t *testing.T, name string, labels map[string]string) string {
	return te.e.create(t, spec{name: name, labels: labels})
}

func (te TestEngine) IP(t *testing.T, id string) string { return te.e.ip(t, id, "bridge") }

// Starts counts the daemon's start events of container id between since and
// until (both in the past, so the event stream ends).
func (te TestEngine) Starts(t *testing.T, id string, since, until time.Time) int {
	t.Helper()
	return te.events(t, id, "start", since, until)
}

// Stops counts the daemon's stop events (a stop request's, not an exit of
// the process by itself) of container id between since and until.
func (te TestEngine) Stops(t *testing.T, id string, since, until time.Time) int {
	t.Helper()
	return te.events(t, id, "stop", since, until)
}

func (te TestEngine) events(t *testing.T, id, action string, since, until time.Time) int {
	t.Helper()
	f, _ := json.Marshal(filters{"container": {id}, "event": {action}})
	stamp := func(ts time.Time) string { return fmt.Sprintf("%d.%09d", ts.Unix(), ts.Nanosecond()) }
	q := url.Values{"since": {stamp(since)}, "until": {stamp(until)}, "filters": {string(f)}}
	u := url.URL{Scheme: "http", Host: "docker", Path: "/events", RawQuery: q.Encode()}
	resp, err := te.e.http.Get(u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("events: %s", resp.Status)
	}
	n := 0
	for dec := json.NewDecoder(resp.Body); ; n++ {
		var ev apiEvent
		if err := dec.Decode(&ev); err == io.EOF {
			return n
		} else if err != nil {
			t.Fatalf("events: %v", err)
		}
	}
}

// Uniq makes a name no other run on the same daemon uses.
func Uniq(s string) string { return uniq(s) }

// WatchRoutes runs a source against the engine until the test ends and
// returns the newest route of a host starting with prefix.
func (te TestEngine) WatchRoutes(t *testing.T) func(prefix string) (discovery.Route, bool) {
	rec := startSource(t, te.e.host, "", &mctest.Logs{})
	return rec.route
}

// Protocol is the protocol version the tests write into status pings.
const Protocol = protocol
