package admission

import (
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"testing"
	"time"
)

func TestAccessLists(t *testing.T) {
	cfg := Config{
		Allow: prefixes(t, "203.0.113.0/24", "2001:db8::/32"),
		Deny:  prefixes(t, "203.0.113.66/32", "2001:db8:bad::/48"),
	}
	tests := []struct {
		name string
		addr string
		want error
	}{
		{"inside the allow list", "203.0.113.7", nil},
		{"outside the allow list", "198.51.100.1", ErrDenied},
		{"deny wins over allow", "203.0.113.66", ErrDenied},
		{"IPv4-mapped IPv6 is the IPv4 address", "::ffff:203.0.113.66", ErrDenied},
		{"IPv6 inside allow", "2001:db8:1::1", nil},
		{"IPv6 inside a denied /48", "2001:db8:bad:1::1", ErrDenied},
		{"player unknown: lists cannot apply", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := New(cfg, Options{})
			var a netip.Addr
			if tc.addr != "" {
				a = addr(t, tc.addr)
			}
			tk, err := c.Admit(a)
			if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Fatalf("Admit(%s) = %v, want %v", tc.addr, err, tc.want)
			}
			tk.Release()
			if st := c.Stats(); st.Open != 0 {
				t.Fatalf("open after release = %d", st.Open)
			}
		})
	}
}

// admitN admits n connections from a and returns how many were refused with ErrRateLimited.
func admitN(t *testing.T, c *Controller, a netip.Addr, n int) (refused int) {
	t.Helper()
	for range n {
		tk, err := c.Admit(a)
		switch {
		case err == nil:
			tk.Release()
		case errors.Is(err, ErrRateLimited):
			refused++
		default:
			t.Fatalf("Admit(%s): %v", a, err)
		}
	}
	return refused
}

func TestConnectionsQuotaIsPerBlock(t *testing.T) {
	tests := []struct {
		name        string
		first, then string
		shared      bool
	}{
		{"same IPv4 /24 shares a bucket", "198.51.100.1", "198.51.100.200", true},
		{"neighbouring IPv4 /24 has its own", "198.51.100.1", "198.51.101.1", false},
		{"same IPv6 /64 shares a bucket", "2001:db8:1:2::1", "2001:db8:1:2:ffff::9", true},
		{"neighbouring IPv6 /64 has its own", "2001:db8:1:2::1", "2001:db8:1:3::1", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := newClock()
			c := New(Config{Connections: limit(1, 3)}, Options{Now: clk.Now})
			if got := admitN(t, c, addr(t, tc.first), 3); got != 0 {
				t.Fatalf("burst of 3: %d refused", got)
			}
			want := 0
			if tc.shared {
				want = 1
			}
			if got := admitN(t, c, addr(t, tc.then), 1); got != want {
				t.Fatalf("after the burst, %s refused %d, want %d", tc.then, got, want)
			}
		})
	}
}

func TestConnectionsQuotaRefillsWithTheClock(t *testing.T) {
	clk := newClock()
	c := New(Config{Connections: limit(2, 4)}, Options{Now: clk.Now})
	a := addr(t, "192.0.2.10")
	if got := admitN(t, c, a, 6); got != 2 {
		t.Fatalf("6 at once with burst 4: %d refused, want 2", got)
	}
	clk.Advance(500 * time.Millisecond) // 2/s: one token back
	if got := admitN(t, c, a, 2); got != 1 {
		t.Fatalf("after 500ms: %d of 2 refused, want 1", got)
	}
	clk.Advance(time.Hour) // the bucket never holds more than its burst
	if got := admitN(t, c, a, 5); got != 1 {
		t.Fatalf("after an hour: %d of 5 refused, want 1", got)
	}
}

func TestIntentQuotasAreSeparate(t *testing.T) {
	clk := newClock()
	c := New(Config{Status: limit(1, 2), Logins: limit(1, 1)}, Options{Now: clk.Now})
	a := addr(t, "192.0.2.1")
	steps := []struct {
		intent Intent
		want   error
	}{
		{IntentStatus, nil},
		{IntentStatus, nil},
		{IntentStatus, ErrRateLimited}, // status budget spent...
		{IntentLogin, nil},             // ...the login budget is untouched
		{IntentLogin, ErrRateLimited},
		{IntentStatus, ErrRateLimited},
	}
	for i, s := range steps {
		err := c.AdmitIntent(a, s.intent)
		if !errors.Is(err, s.want) || (s.want == nil && err != nil) {
			t.Fatalf("step %d (intent %d): %v, want %v", i, s.intent, err, s.want)
		}
	}
	if err := c.AdmitIntent(netip.Addr{}, IntentLogin); err != nil {
		t.Fatalf("unknown player: %v", err)
	}
	if err := c.AdmitIntent(a, Intent(9)); err == nil {
		t.Fatal("unknown intent admitted")
	}
}

func TestDisabledQuotaAdmitsEverything(t *testing.T) {
	c := New(Config{Connections: Limit{Enabled: false, Rate: 1, Burst: 1}}, Options{})
	if got := admitN(t, c, addr(t, "192.0.2.1"), 100); got != 0 {
		t.Fatalf("%d refused by a disabled quota", got)
	}
	if st := c.Stats(); st.ConnectionEntries != 0 {
		t.Fatalf("disabled quota tracks %d entries", st.ConnectionEntries)
	}
}

func TestPerAddressCap(t *testing.T) {
	c := New(Config{MaxConnectionsPerAddr: 2}, Options{})
	a, sameHost, other := addr(t, "192.0.2.1"), addr(t, "::ffff:192.0.2.1"), addr(t, "192.0.2.2")
	t1, err1 := c.Admit(a)
	t2, err2 := c.Admit(sameHost)
	_, err3 := c.Admit(a)
	if err1 != nil || err2 != nil || !errors.Is(err3, ErrTooManyFromAddr) {
		t.Fatalf("third connection of one host: %v %v %v", err1, err2, err3)
	}
	t4, err := c.Admit(other)
	if err != nil {
		t.Fatalf("another host: %v", err)
	}
	t1.Release()
	t5, err := c.Admit(a)
	if err != nil {
		t.Fatalf("after a release: %v", err)
	}
	for _, tk := range []*Ticket{&t2, &t4, &t5} {
		tk.Release()
	}
	if st := c.Stats(); st.Open != 0 || st.OpenAddrs != 0 || st.TooManyFromAddr != 1 {
		t.Fatalf("stats after releases: %+v", st)
	}
}

func TestPerAddressCapCountsIPv6Slash64AsOneHost(t *testing.T) {
	c := New(Config{MaxConnectionsPerAddr: 1}, Options{})
	t1, err := c.Admit(addr(t, "2001:db8::1"))
	if err != nil {
		t.Fatal(err)
	}
	defer t1.Release()
	if _, err := c.Admit(addr(t, "2001:db8::2")); !errors.Is(err, ErrTooManyFromAddr) {
		t.Fatalf("second address of the same /64: %v", err)
	}
}

func TestGlobalCapAppliesToUnknownPlayers(t *testing.T) {
	c := New(Config{MaxConnections: 2, MaxConnectionsPerAddr: 1}, Options{})
	t1, _ := c.Admit(netip.Addr{})
	t2, _ := c.Admit(addr(t, "192.0.2.1"))
	if _, err := c.Admit(netip.Addr{}); !errors.Is(err, ErrBusy) {
		t.Fatalf("third connection with cap 2: %v", err)
	}
	if _, err := c.Admit(addr(t, "192.0.2.9")); !errors.Is(err, ErrBusy) {
		t.Fatalf("known address over the global cap: %v", err)
	}
	if st := c.Stats(); st.Open != 2 || st.OpenAddrs != 1 || st.Busy != 2 {
		t.Fatalf("a refused connection must hold nothing: %+v", st)
	}
	t1.Release()
	t2.Release()
	t2.Release() // twice is harmless
	var zero Ticket
	zero.Release()
	if st := c.Stats(); st.Open != 0 || st.OpenAddrs != 0 {
		t.Fatalf("after release: %+v", st)
	}
}

func TestUpdateKeepsState(t *testing.T) {
	clk := newClock()
	cfg := Config{Connections: limit(1, 2), MaxConnections: 10}
	c := New(cfg, Options{Now: clk.Now})
	a := addr(t, "192.0.2.1")
	held, err := c.Admit(a) // open across every reload; it pays its token when released
	if err != nil {
		t.Fatal(err)
	}
	held.Exempt()
	if got := admitN(t, c, a, 3); got != 1 {
		t.Fatalf("burst 2: %d of 3 refused, want 1", got)
	}

	c.Update(cfg) // a reload with the same quota must not hand out a fresh burst
	if got := admitN(t, c, a, 1); got != 1 {
		t.Fatal("a reload reset the bucket")
	}
	cfg.Connections.Burst = 5
	c.Update(cfg) // a bigger bucket does not fill up by itself either
	if got := admitN(t, c, a, 1); got != 1 {
		t.Fatal("raising the burst refilled the bucket")
	}
	cfg.Connections.Enabled = false
	c.Update(cfg)
	if got := admitN(t, c, a, 3); got != 0 {
		t.Fatalf("quota turned off: %d refused", got)
	}
	if st := c.Stats(); st.Open != 1 {
		t.Fatalf("open connection forgotten across reloads: %+v", st)
	}
	held.Release()
	if st := c.Stats(); st.Open != 0 {
		t.Fatalf("after release: %+v", st)
	}
}

// TestConnectionTokenIsPaidUnlessExempt: the connections quota is checked at accept
// and paid when the connection ends, unless its handshake turned out to be a ping or
// a login (Exempt), which their own quotas charge. A player's pings never drain the
// budget of the join that follows; silent or garbage connections do.
func TestConnectionTokenIsPaidUnlessExempt(t *testing.T) {
	clk := newClock()
	c := New(Config{Connections: limit(1, 3), Logins: limit(1, 3), Status: limit(5, 10)}, Options{Now: clk.Now})
	a := addr(t, "192.0.2.1")
	for i := range 30 { // a player refreshing the server list
		tk, err := c.Admit(a)
		if err != nil {
			t.Fatalf("ping %d refused at accept: %v", i, err)
		}
		tk.Exempt()
		_ = c.AdmitIntent(a, IntentStatus) // the status quota refuses some; that is its job
		tk.Release()
	}
	tk, err := c.Admit(a)
	if err != nil {
		t.Fatalf("join after 30 pings refused at accept: %v", err)
	}
	tk.Exempt()
	if err := c.AdmitIntent(a, IntentLogin); err != nil {
		t.Fatalf("join after 30 pings refused: %v", err)
	}
	tk.Release()
	if got := admitN(t, c, a, 4); got != 1 { // garbage: 3 paid, the 4th refused
		t.Fatalf("%d of 4 unexempted connections refused, want 1", got)
	}
	if err := c.AdmitIntent(a, IntentLogin); err != nil {
		t.Fatal("the logins budget is its own")
	}
	_, err = c.Admit(a)
	if wait := c.RetryAfter(a, err); !errors.Is(err, ErrRateLimited) || wait <= 0 || wait > time.Second {
		t.Fatalf("refusal %v, retry after %v; want rate limited, within 1s", err, wait)
	}
}

func TestConcurrentAdmitReleaseReturnsToZero(t *testing.T) {
	c := New(Config{
		Connections:           limit(1000, 50),
		Logins:                limit(1000, 50),
		MaxConnections:        64,
		MaxConnectionsPerAddr: 8,
	}, Options{})
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 500 {
				a := netip.AddrFrom4([4]byte{198, 51, byte(g), byte(i % 7)})
				tk, err := c.Admit(a)
				if err != nil {
					continue
				}
				_ = c.AdmitIntent(a, IntentLogin)
				tk.Release()
			}
		})
	}
	wg.Wait()
	if st := c.Stats(); st.Open != 0 || st.OpenAddrs != 0 {
		t.Fatalf("counts after every release: %+v", st)
	}
}

func ExampleController() {
	c := New(Config{Logins: Limit{Enabled: true, Rate: 0.4, Burst: 3, MaxEntries: 1000}, MaxConnections: 10000}, Options{})
	player := netip.MustParseAddr("203.0.113.7")
	ticket, err := c.Admit(player)
	if err != nil {
		fmt.Println("refused:", err)
		return
	}
	defer ticket.Release()
	for range 4 {
		fmt.Println(c.AdmitIntent(player, IntentLogin))
	}
	// Output:
	// <nil>
	// <nil>
	// <nil>
	// logins quota: rate limited
}
