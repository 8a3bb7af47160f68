package lite_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcnet "github.com/Tnze/go-mc/net"
	pk "github.com/Tnze/go-mc/net/packet"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/wake"
)

// Logins of sleeping routes: held, woken once, joined with their bytes, or told why.

// heldLogin is one player's login to a sleeping route: handshake, Login Start and a
// few more frames (as a modded client may send before the server answers), all of
// which the backend must receive byte for byte.
func heldLogin(rng *rand.Rand, i int) []byte {
	payload := make([]byte, 1+rng.IntN(120))
	for j := range payload {
		payload[j] = byte(rng.UintN(256))
	}
	frame := append([]byte{byte(1 + len(payload)), 0x02}, payload...) // a Login Plugin Response
	return append(mctest.LoginPreamble(765, "sleepy.example.com", "p"+strconv.Itoa(i)), frame...)
}

// TestFiftyLoginsShareOneWakeAndJoinWithTheirBytes: 50 players log in to a sleeping
// route at once; one wake call starts the server after a delay, and all 50 join with
// every byte they sent while held replayed to it exactly.
//
// The server's start delay is 2s; GATETEST_WAKE_DELAY (e.g. 8s) sets another, below
// holdFor (25s).
func TestFiftyLoginsShareOneWakeAndJoinWithTheirBytes(t *testing.T) {
	delay := 2 * time.Second
	if v := os.Getenv("GATETEST_WAKE_DELAY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d >= 24*time.Second {
			t.Fatalf("GATETEST_WAKE_DELAY=%q: want a duration between 0 and 24s", v)
		}
		delay = d
	}
	fiftyLoginsJoin(t, delay)
}

func fiftyLoginsJoin(t *testing.T, delay time.Duration) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	e.delay = delay
	p := wakeProxy(t, e, "25s", "10m", refusedAddr(t))
	waitAsleep(t, p, e.key)

	const players = 50
	rng := rand.New(rand.NewPCG(21, 50))
	sent := make([][]byte, players)
	for i := range sent {
		sent[i] = heldLogin(rng, i)
	}
	clients, errs, joinedAfter := joinWith(t, p.addr, sent)
	joined := 0
	for i, err := range errs {
		if err != nil {
			t.Errorf("player %d: %v", i, err)
			continue
		}
		joined++
	}
	if w := e.wakes.Load(); w != 1 {
		t.Errorf("%d wake calls for %d logins, want 1", w, players)
	}
	if joined != players {
		t.Fatalf("%d of %d joined", joined, players)
	}
	if srv := e.server(); srv == nil || srv.Logins() != players {
		t.Fatalf("backend saw %v logins", srv)
	}
	slices.Sort(joinedAfter)
	if joinedAfter[0] < delay {
		t.Fatalf("a player joined after %v, before the server started (%v)", joinedAfter[0], delay)
	}
	waitFor(t, "50 sessions held", 5*time.Second, func() bool { return sessions(p, e.key) == players })
	for _, c := range clients {
		_ = c.Close()
	}
	waitFor(t, "sessions released", 5*time.Second, func() bool { return sessions(p, e.key) == 0 })
	t.Logf("%d logins, %d wake call, server up after %v: %d of %d joined byte-exact, first %v, last %v after the first login",
		players, e.wakes.Load(), delay, joined, players, joinedAfter[0].Round(time.Millisecond), joinedAfter[players-1].Round(time.Millisecond))
}

// joinWith logs players in at once through the proxy at addr, each sending its own
// bytes, and returns their connections, each one's error and when each was joined
// (its bytes echoed), counted from before the first dial.
func joinWith(t *testing.T, addr string, sent [][]byte) ([]*mctest.Client, []error, []time.Duration) {
	start := time.Now()
	errs := make([]error, len(sent))
	joinedAfter := make([]time.Duration, len(sent))
	clients := make([]*mctest.Client, len(sent))
	var wg sync.WaitGroup
	for i := range sent {
		c := mctest.Dial(t, addr)
		clients[i] = c
		wg.Go(func() {
			_ = c.SetDeadline(time.Now().Add(30 * time.Second))
			errs[i] = echoed(c, sent[i])
			joinedAfter[i] = time.Since(start)
		})
	}
	wg.Wait()
	return clients, errs, joinedAfter
}

func sessions(p *proxy, key string) int {
	if s, ok := wakeState(p, key); ok {
		return s.Sessions
	}
	return -1
}

// TestHeldLoginsOfServerThatNeverStartsAreToldWhy: the target accepts the wake but its
// server never comes up; every held player gets the starting Disconnect naming the
// host within holdFor, never a bare close.
func TestHeldLoginsOfServerThatNeverStartsAreToldWhy(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	e.never = true
	const hold = 1500 * time.Millisecond
	p := wakeProxy(t, e, "1500ms", "10m", refusedAddr(t))
	waitAsleep(t, p, e.key)
	texts, slowest := heldDisconnects(t, p, 50)
	for i, txt := range texts {
		if !strings.Contains(txt, "The server sleepy.example.com is starting up. Please join again in a moment.") {
			t.Fatalf("player %d got %q", i, txt)
		}
	}
	if slowest > hold+time.Second {
		t.Fatalf("slowest Disconnect after %v, want within holdFor %v + 1s", slowest, hold)
	}
	if w := e.wakes.Load(); w != 1 {
		t.Fatalf("%d wake calls, want 1", w)
	}
	t.Logf("server never starts, holdFor %v: 50 of 50 got the starting Disconnect, slowest after %v", hold, slowest.Round(time.Millisecond))
}

// heldDisconnects logs n players in at once and returns each one's Disconnect text
// and when the last one arrived.
func heldDisconnects(t *testing.T, p *proxy, n int) ([]string, time.Duration) {
	t.Helper()
	texts := make([]string, n)
	took := make([]time.Duration, n)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range n {
		c := mctest.Dial(t, p.addr)
		wg.Go(func() {
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(30 * time.Second))
			if _, err := c.Write(mctest.LoginPreamble(765, "sleepy.example.com", "p"+strconv.Itoa(i))); err != nil {
				texts[i] = "write: " + err.Error()
				return
			}
			s, err := c.Disconnect()
			if err != nil {
				s = "no Disconnect: " + err.Error()
			}
			texts[i], took[i] = s, time.Since(start)
		})
	}
	wg.Wait()
	return texts, slices.Max(took)
}

// TestHeldLoginsHoldAdmissionSlots: a held login keeps its connection slot, so holding
// is bounded by maxConnections like any other connection: with 5 slots, 5 players are
// held and the 6th is refused with the busy Disconnect.
func TestHeldLoginsHoldAdmissionSlots(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	e.never = true
	p := wakeProxy(t, e, "3s", "10m", refusedAddr(t), func(y string) string {
		return strings.Replace(y, "maxConnectionsPerIP: 0", "maxConnectionsPerIP: 0\n    maxConnections: 5", 1)
	})
	waitAsleep(t, p, e.key)
	var wg sync.WaitGroup
	var texts []string
	wg.Go(func() { texts, _ = heldDisconnects(t, p, 5) })
	waitFor(t, "5 logins held", 5*time.Second, func() bool { return e.wakes.Load() == 1 && p.Admission().Stats().Open == 5 })
	c := dialProxy(t, p.addr)
	c.send(mctest.LoginPreamble(765, "sleepy.example.com", "sixth"))
	if txt := c.disconnectText(); !strings.Contains(txt, "too many connections") {
		t.Fatalf("sixth player got %q", txt)
	}
	wg.Wait()
	for i, txt := range texts {
		if !strings.Contains(txt, "is starting up") {
			t.Fatalf("held player %d got %q", i, txt)
		}
	}
	waitFor(t, "slots given back", 5*time.Second, func() bool { return p.Admission().Stats().Open == 0 })
}

// TestLoginToStoppedAwakeTargetWakesIt: the engine stopped the server behind the
// proxy's back (the target is thought awake); a login finds no backend, is held, and
// the target is woken and joined instead of the player getting "unavailable".
func TestLoginToStoppedAwakeTargetWakesIt(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	e.lie.Store(true)
	e.delay = 300 * time.Millisecond
	p := wakeProxy(t, e, "10s", "10m", refusedAddr(t))
	waitFor(t, "the engine asked at start", 5*time.Second, func() bool { return !e.lie.Load() })
	if ph := phase(p, e.key); ph != wake.PhaseAwake && ph != wake.PhaseIdle {
		t.Fatalf("phase %q, want awake or idle", ph)
	}
	c := dialProxy(t, p.addr)
	_ = c.SetDeadline(time.Now().Add(15 * time.Second))
	c.login("sleepy.example.com")
	if w := e.wakes.Load(); w != 1 {
		t.Fatalf("%d wake calls, want 1", w)
	}
}

// TestWokenServerFoundAtItsNewAddress: the route has no live backend when the wake
// starts; the server comes up at an address the route table learns only afterwards (a
// discovered route's new EndpointSlice, here a reload). The readiness checks read the
// live table, so the held player joins there.
func TestWokenServerFoundAtItsNewAddress(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	e.delay = 300 * time.Millisecond
	factory := func(wake.Spec) (wake.Target, error) { return e, nil }
	awake := refusedAddr(t)
	yaml := func(backend string) string {
		return wakeConfig(backend, "10s", "10m", awake)
	}
	p := startProxy(t, yaml(refusedAddr(t)), proxyOpts{wakeTargets: factory})
	var reloaded atomic.Bool
	e.started = func(addr string) {
		if err := p.reload(yaml(addr)); err != nil {
			t.Errorf("reload with the new address: %v", err)
			return
		}
		reloaded.Store(true)
	}
	waitAsleep(t, p, e.key)
	c := dialProxy(t, p.addr)
	_ = c.SetDeadline(time.Now().Add(15 * time.Second))
	c.login("sleepy.example.com")
	if !reloaded.Load() || e.server().Logins() != 1 {
		t.Fatalf("reloaded %v, logins at the new address %d", reloaded.Load(), e.server().Logins())
	}
}

// goMCTarget is a wake target whose server is built on go-mc's codec (status and an
// offline 1.20.2 login): a client and a server we did not write, on both sides of a
// held login.
type goMCTarget struct {
	addr    string
	players chan string
	wakes   atomic.Int64
	later   delayed // the server's start, 500ms after the first wake
	mu      sync.Mutex
	ln      *mcnet.Listener
	done    chan struct{}
}

func (g *goMCTarget) Key() string                               { return "exec go-mc" }
func (g *goMCTarget) Running(context.Context) (bool, error)     { return false, nil }
func (g *goMCTarget) Sleep(context.Context, wake.Request) error { return nil }
func (g *goMCTarget) Wake(context.Context, wake.Request) (wake.Result, error) {
	if g.wakes.Add(1) == 1 && !g.later.after(500*time.Millisecond, g.start) {
		return wake.Result{}, errors.New("target closed")
	}
	return wake.Result{}, nil
}

func (g *goMCTarget) start() {
	ln, err := mcnet.ListenMC(g.addr)
	if err != nil {
		return
	}
	g.mu.Lock()
	g.ln, g.done = ln, make(chan struct{})
	g.mu.Unlock()
	go func() {
		defer close(g.done)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			g.serve(&conn)
			_ = conn.Close()
		}
	}()
}

// serve answers a status exchange, or finishes a login (finishMCLogin).
func (g *goMCTarget) serve(conn *mcnet.Conn) {
	intent, ok := readMCHandshake(conn)
	if !ok {
		return
	}
	if intent == 2 {
		finishMCLogin(conn, g.players)
		return
	}
	var p pk.Packet
	if conn.ReadPacket(&p) != nil || p.ID != 0 {
		return
	}
	_ = conn.WritePacket(pk.Marshal(0x00, pk.String(sleepyStatus)))
	if conn.ReadPacket(&p) == nil && p.ID == 1 {
		_ = conn.WritePacket(p)
	}
}

func (g *goMCTarget) close() {
	g.later.close() // the listener, if any, is set from here on
	g.mu.Lock()
	ln, done := g.ln, g.done
	g.mu.Unlock()
	if ln != nil {
		_ = ln.Close()
		<-done
	}
}

// TestGoMCJoinsSleepingRoute: go-mc's client logs in to a sleeping route; it is held
// while a go-mc-codec server starts, and completes a real offline login through it.
func TestGoMCJoinsSleepingRoute(t *testing.T) {
	g := &goMCTarget{addr: refusedAddr(t), players: make(chan string, 1)}
	t.Cleanup(g.close)
	p := startProxy(t, wakeConfig(g.addr, "10s", "10m", refusedAddr(t)),
		proxyOpts{wakeTargets: func(wake.Spec) (wake.Target, error) { return g, nil }})
	waitAsleep(t, p, g.Key())
	goMCJoin(t, p.addr, "sleepy.example.com", 15*time.Second, g.players)
	if n := g.wakes.Load(); n != 1 {
		t.Fatalf("%d wake calls", n)
	}
}
