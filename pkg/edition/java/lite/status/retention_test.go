package status

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestLastGood(t *testing.T) {
	const route, proto, host = "lobby", int32(765), "play.example.com"
	a := Key{Route: route, Backend: "a:25565", Protocol: proto, Host: host}
	b := Key{Route: route, Backend: "b:25565", Protocol: proto, Host: host}
	for _, tc := range []struct {
		name     string
		opts     Options
		ttl      time.Duration
		fetchA   time.Duration // offset of a's fetch from start; <0: never
		fetchB   time.Duration
		askAt    time.Duration
		askProto int32
		want     string
	}{
		{"within bound", Options{}, 10 * time.Second, 0, -1, 5*time.Minute - time.Millisecond, proto, "a"},
		{"at bound", Options{}, 10 * time.Second, 0, -1, 5 * time.Minute, proto, ""},
		{"newest backend wins", Options{}, 10 * time.Second, time.Second, 0, 2 * time.Second, proto, "a"},
		{"expired response skipped", Options{LastGoodFor: time.Minute}, time.Second, 0, 30 * time.Second, time.Minute + time.Second, proto, "b"},
		{"other protocol not served", Options{}, 10 * time.Second, 0, -1, time.Second, 769, ""},
		{"caching disabled still remembered", Options{}, -1, 0, -1, time.Second, proto, "a"},
		{"disabled", Options{LastGoodFor: -1}, 10 * time.Second, 0, -1, time.Second, proto, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := newFakeClock()
			start := clk.Now()
			tc.opts.Now = clk.Now
			c := NewCache(tc.opts)
			defer c.Close()
			type fetchAt struct {
				at   time.Duration
				k    Key
				body string
			}
			plan := []fetchAt{{tc.fetchA, a, "a"}, {tc.fetchB, b, "b"}}
			if tc.fetchB >= 0 && tc.fetchB < tc.fetchA {
				plan[0], plan[1] = plan[1], plan[0]
			}
			for _, p := range plan {
				if p.at < 0 {
					continue
				}
				clk.Advance(start.Add(p.at).Sub(clk.Now()))
				mustGet(t, c, p.k, tc.ttl, (&counter{body: p.body}).fetch)
			}
			clk.Advance(start.Add(tc.askAt).Sub(clk.Now()))
			got, ok := c.LastGood(route, tc.askProto, host)
			if string(got) != tc.want || ok != (tc.want != "") {
				t.Errorf("LastGood = (%q, %v), want %q", got, ok, tc.want)
			}
		})
	}
}

func TestMaxEntriesBoundsKeySpray(t *testing.T) {
	const maxEntries = 100
	clk := newFakeClock()
	c := NewCache(Options{Now: clk.Now, MaxEntries: maxEntries, MissRate: -1})
	defer c.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	f := &counter{body: `{}`}
	var first, last Key
	for i := range 5000 {
		last = Key{
			Route:    "lobby",
			Backend:  fmt.Sprintf("10.0.0.%d:25565", rng.IntN(4)),
			Protocol: rng.Int32N(1000),
			Host:     fmt.Sprintf("h%d.example.com", i),
		}
		if i == 0 {
			first = last
		}
		clk.Advance(time.Millisecond)
		mustGet(t, c, last, 10*time.Second, f.fetch)
		if n := c.Len(); n > maxEntries {
			t.Fatalf("after %d keys Len = %d, want <= %d", i+1, n, maxEntries)
		}
	}
	assertConsistent(t, c)
	if c.Len() != maxEntries {
		t.Errorf("Len = %d, want %d", c.Len(), maxEntries)
	}
	if _, hit := mustGet(t, c, last, 10*time.Second, f.fetch); !hit {
		t.Error("newest key was evicted")
	}
	if _, ok := c.LastGood(first.Route, first.Protocol, first.Host); ok {
		t.Error("oldest key survived the spray")
	}
}

func TestExpiredEntriesAreSweptOnInsert(t *testing.T) {
	clk := newFakeClock()
	c := NewCache(Options{Now: clk.Now, LastGoodFor: time.Minute})
	defer c.Close()
	f := &counter{body: `{}`}
	for i := range 10 {
		mustGet(t, c, Key{Host: fmt.Sprint(i)}, 10*time.Second, f.fetch)
	}
	clk.Advance(time.Minute)
	mustGet(t, c, Key{Host: "fresh"}, 10*time.Second, f.fetch)
	assertConsistent(t, c)
	if n := c.Len(); n != 1 {
		t.Errorf("Len = %d, want 1 (expired entries swept)", n)
	}
}

// assertConsistent checks that the count, the order list and the group maps agree.
func assertConsistent(t *testing.T, c *Cache) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	inGroups := 0
	for gk, g := range c.groups {
		if len(g) == 0 {
			t.Errorf("empty group %+v kept", gk)
		}
		inGroups += len(g)
	}
	if inGroups != c.n || c.order.Len() != c.n {
		t.Errorf("n = %d, order = %d, groups hold %d", c.n, c.order.Len(), inGroups)
	}
	var bytes int64
	for e := c.order.Front(); e != nil; e = e.Next() {
		bytes += e.Value.(*entry).size
	}
	if bytes != c.bytes || c.bytes > c.maxBytes {
		t.Errorf("bytes = %d, entries hold %d, max %d", c.bytes, bytes, c.maxBytes)
	}
}

// TestMaxBytesBoundsLargeResponses: 100 KiB answers under many keys (a server with a big
// favicon, sprayed with client-chosen keys) hold at most MaxBytes, the newest kept.
func TestMaxBytesBoundsLargeResponses(t *testing.T) {
	const maxBytes = 1 << 20
	clk := newFakeClock()
	c := NewCache(Options{Now: clk.Now, MaxBytes: maxBytes, MissRate: -1})
	defer c.Close()
	f := &counter{body: strings.Repeat("x", 100<<10)}
	var last Key
	for i := range 200 {
		last = Key{Route: "lobby", Backend: "10.0.0.1:25565", Protocol: int32(i), Host: "play.example.com"}
		clk.Advance(time.Millisecond)
		mustGet(t, c, last, time.Minute, f.fetch)
		if c.Bytes() > maxBytes {
			t.Fatalf("after %d keys Bytes = %d, want <= %d", i+1, c.Bytes(), maxBytes)
		}
	}
	assertConsistent(t, c)
	if n := c.Len(); n != maxBytes/(100<<10+entryOverhead+40) {
		t.Errorf("Len = %d, want as many 100 KiB answers as fit in 1 MiB", n)
	}
	if _, hit := mustGet(t, c, last, time.Minute, f.fetch); !hit {
		t.Error("newest key was evicted")
	}
	// An answer bigger than the whole budget is served but not kept.
	huge := &counter{body: strings.Repeat("y", maxBytes)}
	big := Key{Route: "lobby", Backend: "10.0.0.1:25565", Protocol: 1, Host: "huge"}
	mustGet(t, c, big, time.Minute, huge.fetch)
	if _, hit := mustGet(t, c, big, time.Minute, huge.fetch); hit || huge.calls.Load() != 2 {
		t.Errorf("oversized answer was cached (hit=%v, fetches %d)", hit, huge.calls.Load())
	}
}

// TestMissesPerRouteAreRateLimited: new keys cost at most MissBurst fetches at once and
// MissRate a second after; a miss over the limit starts no fetch; another route has
// its own budget; hits are never limited.
func TestMissesPerRouteAreRateLimited(t *testing.T) {
	clk := newFakeClock()
	c := NewCache(Options{Now: clk.Now, MissRate: 2, MissBurst: 5})
	defer c.Close()
	f := &counter{body: `{}`}
	key := func(route string, i int) Key {
		return Key{Route: route, Backend: "10.0.0.1:25565", Protocol: int32(i), Host: "h"}
	}
	refused := 0
	for i := range 100 {
		if _, _, err := c.Get(context.Background(), key("lobby", i), time.Minute, f.fetch); errors.Is(err, ErrMissLimited) {
			refused++
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if f.calls.Load() != 5 || refused != 95 {
		t.Fatalf("%d fetches, %d refused; want 5 and 95", f.calls.Load(), refused)
	}
	if _, hit := mustGet(t, c, key("lobby", 0), time.Minute, f.fetch); !hit {
		t.Fatal("a cached key was refused")
	}
	mustGet(t, c, key("other", 0), time.Minute, f.fetch)
	clk.Advance(time.Second)
	for i := range 3 {
		_, _, _ = c.Get(context.Background(), key("lobby", 1000+i), time.Minute, f.fetch)
	}
	if got := f.calls.Load(); got != 5+1+2 {
		t.Fatalf("%d fetches after a second, want 8 (2 refilled)", got)
	}
}
