package admin

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/events"
)

func get(t *testing.T, url, token string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// Streams have a budget of their own: with StreamSlots streams open a further one
// is refused, and the other endpoints and the probes still answer. The stream
// needs the token. Open streams end when the API shuts down.
func TestStreamsHaveTheirOwnBudget(t *testing.T) {
	bus := events.NewBus(0)
	s, _ := newTestServer(t, Options{Token: "tok", Events: bus})
	ln := mctest.Listen(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	defer func() { cancel(); <-done }()
	url := "http://" + ln.Addr().String()
	if resp := get(t, url+PathEvents, ""); resp.StatusCode != 401 {
		t.Fatalf("stream without the token: %s", resp.Status)
	}
	var streams []*bufio.Reader
	for range StreamSlots {
		resp := get(t, url+PathEvents, "tok")
		if resp.StatusCode != 200 {
			t.Fatalf("stream: %s", resp.Status)
		}
		streams = append(streams, bufio.NewReader(resp.Body))
	}
	if resp := get(t, url+PathEvents, "tok"); resp.StatusCode != 503 {
		t.Fatalf("stream past the budget: %s, want 503", resp.Status)
	}
	for _, p := range []string{PathBackends, PathRoutes, PathSessions, PathHealthz} {
		if resp := get(t, url+p, "tok"); resp.StatusCode != 200 {
			t.Fatalf("%s with the streams open: %s", p, resp.Status)
		}
	}
	bus.Publish(events.Event{Type: events.Joined, Route: "play.example.com"})
	for _, r := range streams {
		var lines []string
		for len(lines) < 3 {
			l, err := r.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, strings.TrimSpace(l))
		}
		if lines[0] != "id: 1" || lines[1] != "event: joined" || !strings.Contains(lines[2], `"route":"play.example.com"`) {
			t.Fatalf("stream got %q", lines)
		}
	}
	start := time.Now()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 900*time.Millisecond {
		t.Fatalf("Serve took %s to return with streams open (it must end them, not wait for its 1s grace)", took)
	}
	done <- nil // for the deferred receive
}
