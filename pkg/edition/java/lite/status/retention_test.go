package status

import (
	"fmt"
	"math/rand/v2"
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
	c := NewCache(Options{Now: clk.Now, MaxEntries: maxEntries})
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
}
