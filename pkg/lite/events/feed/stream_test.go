package feed_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/admin"
	"go.minekube.com/gate/pkg/lite/events"
)

const token = "tok"

// serveAdmin runs the admin API over w's proxy, bus and sessions.
func (w *world) serveAdmin(t *testing.T) string {
	t.Helper()
	s := admin.New(admin.Options{Source: w.proxy, Token: token, Events: w.bus, Sessions: w.live.List})
	ln := mctest.Listen(t)
	mctest.Run(t, "admin", func(ctx context.Context) error { return s.Serve(ctx, ln) })
	return "http://" + ln.Addr().String()
}

// stream is an open /api/v1/events response.
type stream struct {
	resp *http.Response
	r    *bufio.Reader
}

func openStream(t *testing.T, url, lastID string) *stream {
	t.Helper()
	req, _ := http.NewRequest("GET", url+admin.PathEvents, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream answered %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	s := &stream{resp: resp, r: bufio.NewReader(resp.Body)}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return s
}

// next reads the next event: its id line and its data.
func (s *stream) next(t *testing.T) (uint64, events.JSON) {
	t.Helper()
	var id uint64
	var e events.JSON
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, "id: "):
			id, _ = strconv.ParseUint(line[4:], 10, 64)
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(line[6:]), &e); err != nil {
				t.Fatal(err)
			}
		case line == "" && id != 0:
			if e.ID != id {
				t.Fatalf("id line %d, data id %d", id, e.ID)
			}
			return id, e
		}
	}
}

// An SSE client sees joined right after the join, with the player; after a
// reconnect with Last-Event-ID it gets what it missed, in order, and nothing twice.
func TestStreamSeesJoinedAndResumesWithLastEventID(t *testing.T) {
	w := newWorld(t, true)
	url := w.serveAdmin(t)
	s := openStream(t, url, "")
	start := time.Now()
	c, _ := w.join(t, "Alex")
	id, e := s.next(t)
	seen := time.Since(start)
	t.Logf("joined seen on the stream %s after the login was sent", seen)
	if e.Type != "joined" || e.Player == nil || e.Player.Name != "Alex" || seen > time.Second {
		t.Fatalf("first event %+v after %s", e, seen)
	}
	_ = s.resp.Body.Close()
	_ = c.Close()
	mctest.WaitFor(t, "Alex's session over", 5*time.Second, func() bool { return len(w.live.List()) == 0 })
	w.session(t, "Bob")
	mctest.WaitFor(t, "both sessions ended", 5*time.Second, func() bool { return w.bus.Last() >= id+3 })
	s = openStream(t, url, strconv.FormatUint(id, 10))
	for i, want := range []string{"ended/Alex", "joined/Bob", "ended/Bob"} {
		gotID, e := s.next(t)
		if gotID != id+uint64(i)+1 || e.Type+"/"+e.Player.Name != want {
			t.Fatalf("resumed event %d: id %d %s/%s, want id %d %s", i, gotID, e.Type, e.Player.Name, id+uint64(i)+1, want)
		}
	}
}

// /api/v1/sessions lists a live session with its player, and not once it ended.
func TestSessionsShowThePlayer(t *testing.T) {
	w := newWorld(t, true)
	url := w.serveAdmin(t)
	c, _ := w.join(t, "Alex")
	cl := &admin.Client{URL: url, Token: token}
	ss, err := cl.Sessions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 1 || ss[0].Player == nil || ss[0].Player.Name != "Alex" || ss[0].Route != host || ss[0].Backend == "" {
		t.Fatalf("sessions: %+v", ss)
	}
	var out strings.Builder
	if err := admin.WriteSessions(&out, ss, time.Now(), 0); err != nil || !strings.Contains(out.String(), "Alex") {
		t.Fatalf("table %q, %v", out.String(), err)
	}
	_ = c.Close()
	mctest.WaitFor(t, "the session gone", 5*time.Second, func() bool {
		ss, err := cl.Sessions(context.Background())
		return err == nil && len(ss) == 0
	})
}
