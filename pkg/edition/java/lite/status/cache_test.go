package status

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

// newFakeClock is an injected clock that moves only when a test says so.
func newFakeClock() *mctest.Clock {
	return mctest.NewClock(time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC))
}

// counter is a fetch function that returns body and counts its calls.
type counter struct {
	calls atomic.Int32
	body  string
}

func (f *counter) fetch() ([]byte, error) {
	f.calls.Add(1)
	return []byte(f.body), nil
}

var testKey = Key{Route: "lobby", Backend: "10.0.0.1:25565", Protocol: 765, Host: "play.example.com"}

func mustGet(t *testing.T, c *Cache, k Key, ttl time.Duration, fetch func() ([]byte, error)) ([]byte, bool) {
	t.Helper()
	b, hit, err := c.Get(context.Background(), k, ttl, fetch)
	if err != nil {
		t.Fatalf("Get(%+v): %v", k, err)
	}
	return b, hit
}

func TestGetSharesOneInFlightFetch(t *testing.T) {
	for _, tc := range []struct {
		name string
		ttl  time.Duration
	}{
		{"cached route", 10 * time.Second},
		{"caching disabled", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := NewCache(Options{})
				defer c.Close()
				gate := make(chan struct{})
				var calls atomic.Int32
				fetch := func() ([]byte, error) {
					calls.Add(1)
					<-gate
					return []byte(`{"shared":true}`), nil
				}
				const n = 64
				got := make([]string, n)
				hits := make([]bool, n)
				var wg sync.WaitGroup
				for i := range n {
					wg.Go(func() {
						b, hit, err := c.Get(context.Background(), testKey, tc.ttl, fetch)
						if err != nil {
							t.Errorf("caller %d: %v", i, err)
						}
						got[i], hits[i] = string(b), hit
					})
				}
				synctest.Wait() // every caller is now blocked on the one flight
				if c := calls.Load(); c != 1 {
					t.Fatalf("fetches while in flight = %d, want 1", c)
				}
				close(gate)
				wg.Wait()
				for i := range n {
					if got[i] != `{"shared":true}` || hits[i] {
						t.Errorf("caller %d got (%q, hit=%v), want shared fetch result", i, got[i], hits[i])
					}
				}
				if c := calls.Load(); c != 1 {
					t.Errorf("fetches = %d, want 1", c)
				}
			})
		})
	}
}

func TestGetTTLCountsFromFetch(t *testing.T) {
	const ttl = 10 * time.Second
	steps := []struct {
		name        string
		advance     time.Duration
		wantHit     bool
		wantFetches int32
	}{
		{"first ping fetches", 0, false, 1},
		{"just before ttl is a hit", ttl - time.Millisecond, true, 1},
		{"hit did not extend: at ttl refetch", time.Millisecond, false, 2},
		{"fresh again after refetch", ttl - time.Millisecond, true, 2},
		{"ttl from second fetch", time.Millisecond, false, 3},
	}
	clk := newFakeClock()
	c := NewCache(Options{Now: clk.Now})
	defer c.Close()
	f := &counter{body: `{"v":1}`}
	for _, s := range steps {
		clk.Advance(s.advance)
		b, hit := mustGet(t, c, testKey, ttl, f.fetch)
		if hit != s.wantHit || f.calls.Load() != s.wantFetches || string(b) != f.body {
			t.Fatalf("%s: got (%q, hit=%v, fetches=%d), want (%q, hit=%v, fetches=%d)",
				s.name, b, hit, f.calls.Load(), f.body, s.wantHit, s.wantFetches)
		}
	}
}

func TestGetZeroOrNegativeTTLAlwaysFetches(t *testing.T) {
	for _, ttl := range []time.Duration{-1, 0} {
		t.Run(fmt.Sprint("ttl ", ttl), func(t *testing.T) {
			c := NewCache(Options{Now: newFakeClock().Now})
			defer c.Close()
			f := &counter{body: `{}`}
			for i := range 3 {
				if _, hit := mustGet(t, c, testKey, ttl, f.fetch); hit {
					t.Fatalf("call %d was a hit", i)
				}
			}
			if got := f.calls.Load(); got != 3 {
				t.Errorf("fetches = %d, want 3", got)
			}
		})
	}
}

func TestGetSeparatesKeys(t *testing.T) {
	for _, tc := range []struct {
		name  string
		other Key
	}{
		{"other protocol", Key{Route: testKey.Route, Backend: testKey.Backend, Protocol: 769, Host: testKey.Host}},
		{"other host", Key{Route: testKey.Route, Backend: testKey.Backend, Protocol: testKey.Protocol, Host: "mc.example.com"}},
		{"other backend", Key{Route: testKey.Route, Backend: "10.0.0.2:25565", Protocol: testKey.Protocol, Host: testKey.Host}},
		{"other route", Key{Route: "survival", Backend: testKey.Backend, Protocol: testKey.Protocol, Host: testKey.Host}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCache(Options{Now: newFakeClock().Now})
			defer c.Close()
			first := &counter{body: `{"first":1}`}
			second := &counter{body: `{"second":2}`}
			mustGet(t, c, testKey, time.Minute, first.fetch)
			b, hit := mustGet(t, c, tc.other, time.Minute, second.fetch)
			if hit || string(b) != second.body {
				t.Fatalf("other key got (%q, hit=%v), want its own fetch", b, hit)
			}
			b, hit = mustGet(t, c, testKey, time.Minute, second.fetch)
			if !hit || string(b) != first.body {
				t.Errorf("first key got (%q, hit=%v), want cached %q", b, hit, first.body)
			}
			if c.Len() != 2 {
				t.Errorf("Len = %d, want 2", c.Len())
			}
		})
	}
}

func TestGetFailedFetchIsNotCached(t *testing.T) {
	errRefused := errors.New("connection refused")
	for _, tc := range []struct {
		name    string
		fetch   func() ([]byte, error)
		wantErr error
	}{
		{"backend refused", func() ([]byte, error) { return []byte("partial"), errRefused }, errRefused},
		{"empty body", func() ([]byte, error) { return nil, nil }, ErrEmptyResponse},
		{"fetch panicked", func() ([]byte, error) { panic("bug in dialer") }, ErrFetchPanic},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCache(Options{Now: newFakeClock().Now})
			defer c.Close()
			b, hit, err := c.Get(context.Background(), testKey, time.Minute, tc.fetch)
			if !errors.Is(err, tc.wantErr) || b != nil || hit {
				t.Fatalf("Get = (%q, %v, %v), want error %v", b, hit, err, tc.wantErr)
			}
			if c.Len() != 0 {
				t.Errorf("Len after failure = %d, want 0", c.Len())
			}
			if _, ok := c.LastGood(testKey.Route, testKey.Protocol, testKey.Host); ok {
				t.Error("failed fetch became last good")
			}
			ok := &counter{body: `{"ok":true}`}
			if b, hit := mustGet(t, c, testKey, time.Minute, ok.fetch); hit || string(b) != ok.body {
				t.Errorf("retry got (%q, hit=%v), want a fresh fetch", b, hit)
			}
		})
	}
}

func TestGetKeepsCopyOfFetchBuffer(t *testing.T) {
	c := NewCache(Options{Now: newFakeClock().Now})
	defer c.Close()
	buf := []byte(`{"a":1}`)
	mustGet(t, c, testKey, time.Minute, func() ([]byte, error) { return buf, nil })
	copy(buf, `XXXXXXX`)
	if b, _ := mustGet(t, c, testKey, time.Minute, nil); string(b) != `{"a":1}` {
		t.Errorf("cached bytes = %q, want the bytes as fetched", b)
	}
}

func TestGetCancelReturnsWhileFetchContinues(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := NewCache(Options{})
		defer c.Close()
		gate := make(chan struct{})
		f := &counter{body: `{"late":true}`}
		fetch := func() ([]byte, error) {
			<-gate
			return f.fetch()
		}
		ctx, cancel := context.WithCancel(context.Background())
		impatient := make(chan error, 1)
		go func() {
			_, _, err := c.Get(ctx, testKey, time.Minute, fetch)
			impatient <- err
		}()
		patient := make(chan []byte, 1)
		go func() {
			b, _, err := c.Get(context.Background(), testKey, time.Minute, fetch)
			if err != nil {
				t.Errorf("patient caller: %v", err)
			}
			patient <- b
		}()
		synctest.Wait()
		cancel()
		synctest.Wait()
		select {
		case err := <-impatient:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("impatient caller err = %v, want context.Canceled", err)
			}
		default:
			t.Fatal("impatient caller still blocked after cancel")
		}
		close(gate)
		if b := <-patient; string(b) != f.body {
			t.Fatalf("patient caller got %q, want %q", b, f.body)
		}
		if b, hit := mustGet(t, c, testKey, time.Minute, nil); !hit || string(b) != f.body {
			t.Errorf("after flight got (%q, hit=%v), want cached result", b, hit)
		}
		if n := f.calls.Load(); n != 1 {
			t.Errorf("fetches = %d, want 1", n)
		}
	})
}

func TestGetCanceledBeforeMissStartsNoFetch(t *testing.T) {
	c := NewCache(Options{Now: newFakeClock().Now})
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := &counter{body: `{}`}
	if _, _, err := c.Get(ctx, testKey, time.Minute, f.fetch); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n := f.calls.Load(); n != 0 {
		t.Errorf("fetches = %d, want 0", n)
	}
}

func TestCloseWaitsForFlightsAndRejectsMisses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := NewCache(Options{})
		mustGet(t, c, testKey, time.Minute, (&counter{body: `{"warm":1}`}).fetch)
		gate := make(chan struct{})
		ctx, cancel := context.WithCancel(context.Background())
		other := Key{Route: "lobby", Backend: "10.0.0.9:25565", Host: "slow.example.com"}
		go func() {
			_, _, _ = c.Get(ctx, other, time.Minute, func() ([]byte, error) {
				<-gate
				return []byte(`{}`), nil
			})
		}()
		synctest.Wait()
		cancel() // the caller leaves; the flight it started must still be waited for
		closed := make(chan struct{})
		go func() {
			c.Close()
			close(closed)
		}()
		synctest.Wait()
		select {
		case <-closed:
			t.Fatal("Close returned while a fetch was in flight")
		default:
		}
		close(gate)
		<-closed
		if _, _, err := c.Get(context.Background(), Key{Host: "new"}, time.Minute, nil); !errors.Is(err, ErrClosed) {
			t.Errorf("miss after Close err = %v, want ErrClosed", err)
		}
		if b, hit := mustGet(t, c, testKey, time.Minute, nil); !hit || string(b) != `{"warm":1}` {
			t.Errorf("hit after Close = (%q, %v), want cached bytes", b, hit)
		}
		c.Close()
	})
}

func BenchmarkGetHit(b *testing.B) {
	c := NewCache(Options{})
	defer c.Close()
	ctx := context.Background()
	body := []byte(`{"version":{"name":"1.20.4","protocol":765}}`)
	fetch := func() ([]byte, error) { return body, nil }
	if _, _, err := c.Get(ctx, testKey, time.Hour, fetch); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, hit, _ := c.Get(ctx, testKey, time.Hour, fetch); !hit {
			b.Fatal("miss")
		}
	}
}

func BenchmarkGetHitParallel(b *testing.B) {
	c := NewCache(Options{})
	defer c.Close()
	ctx := context.Background()
	fetch := func() ([]byte, error) { return []byte(`{}`), nil }
	if _, _, err := c.Get(ctx, testKey, time.Hour, fetch); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, hit, _ := c.Get(ctx, testKey, time.Hour, fetch); !hit {
				b.Error("miss")
				return
			}
		}
	})
}
