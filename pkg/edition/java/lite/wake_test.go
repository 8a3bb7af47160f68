package lite_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Tnze/go-mc/bot"
	"github.com/Tnze/go-mc/data/packetid"
	mcnet "github.com/Tnze/go-mc/net"
	pk "github.com/Tnze/go-mc/net/packet"
	"github.com/google/uuid"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/wake"
)

// wakeConfig has a route whose server sleeps ({{hold}}, {{idle}}) and a plain one.
const wakeConfig = `
config:
  connectionTimeout: 2s
  quota:
    connections: {enabled: false}
    logins: {enabled: false}
    status: {enabled: false}
    maxConnectionsPerIP: 0
  lite:
    enabled: true
    routes:
      - host: sleepy.example.com
        backend: {{sleepy}}
        wake: {webhook: "http://127.0.0.1:9/wake"}
        holdFor: {{hold}}
        idleAfter: {{idle}}
        asleepMotd: "Asleep: join to wake"
        fallback: {motd: "fallback", version: {name: "fb"}}
      - host: awake.example.com
        backend: {{awake}}
`

// asleepMOTD is what wakeConfig's asleepMotd renders to.
const asleepMOTD = `{"text":"Asleep: join to wake"}`

const realFavicon = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// sleepyStatus is the real server's status: version, max players and a favicon that an
// asleep answer must keep.
var sleepyStatus = `{"version":{"name":"Paper 1.20.4","protocol":765},"players":{"max":42,"online":0},` +
	`"description":{"text":"the real server"},"favicon":"` + realFavicon + `"}`

// engine plays a wake target's engine in-process: Wake starts a real fake Minecraft
// server on a fixed loopback port after a delay, as a container or a Deployment would.
type engine struct {
	key    string
	addr   string
	status string
	delay  time.Duration // from the wake call to a listening server
	never  bool          // accept the wake, never start
	lie    bool          // says it runs while it does not (stopped behind the proxy's back)
	block  time.Duration // > 0: a webhook that hangs this long, then fails

	running       atomic.Bool
	wakes, sleeps atomic.Int64
	// started, if set, runs once the server listens (a discovery source that
	// then publishes its address).
	started func(addr string)

	mu    sync.Mutex
	srv   *mctest.Backend
	timer *time.Timer
	err   error
}

var _ wake.Observer = (*engine)(nil)

func newEngine(t *testing.T, key, status string) *engine {
	e := &engine{key: key, addr: refusedAddr(t), status: status}
	t.Cleanup(e.close)
	return e
}

func (e *engine) Key() string { return e.key }

func (e *engine) Running(context.Context) (bool, error) { return e.lie || e.running.Load(), nil }

func (e *engine) Wake(ctx context.Context, _ wake.Request) (wake.Result, error) {
	e.wakes.Add(1)
	switch {
	case e.block > 0:
		t := time.NewTimer(e.block)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		return wake.Result{}, errors.New("webhook: no answer within its timeout")
	case e.never || e.running.Load():
		return wake.Result{}, nil
	}
	e.mu.Lock()
	e.timer = time.AfterFunc(e.delay, e.start)
	e.mu.Unlock()
	return wake.Result{}, nil
}

// start brings the server up at e.addr.
func (e *engine) start() {
	b, err := mctest.Start(mctest.Options{Addr: e.addr, Status: e.status})
	e.mu.Lock()
	defer e.mu.Unlock()
	if err != nil {
		e.err = err
		return
	}
	e.srv = b
	e.running.Store(true)
	if e.started != nil {
		go e.started(b.Addr())
	}
}

func (e *engine) Sleep(context.Context, wake.Request) error {
	e.sleeps.Add(1)
	e.mu.Lock()
	srv := e.srv
	e.srv = nil
	e.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
	e.running.Store(false)
	return nil
}

func (e *engine) server() *mctest.Backend {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.srv
}

func (e *engine) close() {
	e.mu.Lock()
	if e.timer != nil {
		e.timer.Stop()
	}
	srv := e.srv
	e.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

// wakeProxy serves wakeConfig with e as the sleepy route's target; edit, if given,
// changes the config text first.
func wakeProxy(t *testing.T, e *engine, hold, idle, awake string, edit ...func(string) string) *proxy {
	t.Helper()
	factory := func(wake.Spec) (wake.Target, error) { return e, nil }
	yaml := fill(wakeConfig, "sleepy", e.addr, "hold", hold, "idle", idle, "awake", awake)
	for _, f := range edit {
		yaml = f(yaml)
	}
	return startProxy(t, yaml, proxyOpts{wakeTargets: factory})
}

func phase(p *proxy, key string) string {
	for _, s := range p.Wake().States() {
		if s.Key == key {
			return s.Phase
		}
	}
	return ""
}

func decodeStatus(t testing.TB, body string) (desc, favicon, version string, online, maxPlayers int) {
	t.Helper()
	var v struct {
		Description json.RawMessage `json:"description"`
		Favicon     string          `json:"favicon"`
		Version     struct{ Name string }
		Players     struct{ Online, Max int }
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("status %q: %v", body, err)
	}
	return string(v.Description), v.Favicon, v.Version.Name, v.Players.Online, v.Players.Max
}

// TestPingsToSleepingRouteNeverWakeIt: once the route's server is asleep, 1,000 pings
// make no wake call, and every answer is its last good status (favicon, version, max
// players) with the asleep MOTD and nobody online.
func TestPingsToSleepingRouteNeverWakeIt(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	e.start() // up at first: the proxy learns its status
	p := wakeProxy(t, e, "25s", "100ms", refusedAddr(t))
	if body, err := mctest.Ping(p.addr, 765, "sleepy.example.com"); err != nil || !strings.Contains(body, "the real server") {
		t.Fatalf("ping while awake: %q, %v", body, err)
	}
	// players.online 0 was reported: after idleAfter the target is put to sleep.
	waitFor(t, "target asleep", 10*time.Second, func() bool { return e.sleeps.Load() == 1 && phase(p, e.key) == wake.PhaseAsleep })

	const pings, workers = 1000, 8
	var next atomic.Int64
	var bad atomic.Int64
	var firstBad atomic.Pointer[string]
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for next.Add(1) <= pings {
				body, err := mctest.Ping(p.addr, 765, "sleepy.example.com")
				if err == nil {
					desc, fav, ver, online, maxPlayers := decodeStatus(t, body)
					if desc == asleepMOTD && fav == realFavicon && ver == "Paper 1.20.4" && online == 0 && maxPlayers == 42 {
						continue
					}
					err = errors.New(body)
				}
				if bad.Add(1) == 1 {
					s := err.Error()
					firstBad.Store(&s)
				}
			}
		})
	}
	wg.Wait()
	if n := bad.Load(); n != 0 {
		t.Fatalf("%d of %d answers wrong; first: %s", n, pings, *firstBad.Load())
	}
	if w := e.wakes.Load(); w != 0 {
		t.Fatalf("%d wake calls for %d pings, want 0", w, pings)
	}
	t.Logf("%d pings to the sleeping route: 0 wake calls, %d asleep answers with the real favicon", pings, pings)
}

// TestPingToSleepingRouteWithoutLastGoodShowsFallback: a route asleep since the proxy
// started has no status of its own yet: its fallback answers, with the asleep MOTD.
func TestPingToSleepingRouteWithoutLastGoodShowsFallback(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	p := wakeProxy(t, e, "25s", "10m", refusedAddr(t))
	waitFor(t, "target found asleep", 5*time.Second, func() bool { return phase(p, e.key) == wake.PhaseAsleep })
	body, err := mctest.Ping(p.addr, 765, "sleepy.example.com")
	if err != nil {
		t.Fatal(err)
	}
	desc, fav, ver, online, _ := decodeStatus(t, body)
	if desc != asleepMOTD || fav != "" || ver != "fb" || online != 0 {
		t.Fatalf("status = %s", body)
	}
	if e.wakes.Load() != 0 {
		t.Fatal("a ping woke the target")
	}
}

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
	waitFor(t, "target found asleep", 5*time.Second, func() bool { return phase(p, e.key) == wake.PhaseAsleep })

	const players = 50
	rng := rand.New(rand.NewPCG(21, 50))
	sent := make([][]byte, players)
	for i := range sent {
		sent[i] = heldLogin(rng, i)
	}
	start := time.Now()
	errs := make([]error, players)
	joinedAfter := make([]time.Duration, players)
	clients := make([]*mctest.Client, players)
	var wg sync.WaitGroup
	for i := range players {
		c := mctest.Dial(t, p.addr)
		clients[i] = c
		wg.Go(func() {
			_ = c.SetDeadline(time.Now().Add(30 * time.Second))
			if _, err := c.Write(sent[i]); err != nil {
				errs[i] = err
				return
			}
			got := make([]byte, len(sent[i]))
			if _, err := io.ReadFull(c.R, got); err != nil {
				errs[i] = err
				return
			}
			joinedAfter[i] = time.Since(start)
			if !bytes.Equal(got, sent[i]) {
				errs[i] = errors.New("the backend received other bytes than the player sent")
			}
		})
	}
	wg.Wait()
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

func sessions(p *proxy, key string) int {
	for _, s := range p.Wake().States() {
		if s.Key == key {
			return s.Sessions
		}
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
	waitFor(t, "target found asleep", 5*time.Second, func() bool { return phase(p, e.key) == wake.PhaseAsleep })
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

// TestBlockedWakeLeavesOtherRoutesResponsive: a webhook target that hangs until its own
// timeout holds 50 players; meanwhile a status storm on another route is answered as
// fast as without it (p99 compared), and the held players get the Disconnect.
func TestBlockedWakeLeavesOtherRoutesResponsive(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	e.block = 4 * time.Second
	other := newBackend(t, statusJSON("other", 1, 10))
	p := wakeProxy(t, e, "2s", "10m", other.addr)
	waitFor(t, "target found asleep", 5*time.Second, func() bool { return phase(p, e.key) == wake.PhaseAsleep })

	const storm = 400
	before := statusP99(t, p.addr, storm)
	var during time.Duration
	var texts []string
	var wg sync.WaitGroup
	wg.Go(func() { texts, _ = heldDisconnects(t, p, 50) })
	waitFor(t, "wake call under way", 5*time.Second, func() bool { return e.wakes.Load() == 1 })
	during = statusP99(t, p.addr, storm)
	wg.Wait()
	for i, txt := range texts {
		if !strings.Contains(txt, "is starting up") {
			t.Fatalf("player %d got %q", i, txt)
		}
	}
	t.Logf("status p99 of another route, %d pings: %v without a blocked wake, %v with 50 logins held on a hanging webhook",
		storm, before.Round(time.Microsecond), during.Round(time.Microsecond))
	if during > 10*before+50*time.Millisecond {
		t.Fatalf("p99 %v during the blocked wake, %v before", during, before)
	}
}

// statusP99 pings awake.example.com n times from 4 workers and returns the p99.
func statusP99(t *testing.T, addr string, n int) time.Duration {
	t.Helper()
	times := make([]time.Duration, n)
	var next atomic.Int64
	var failed atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				start := time.Now()
				if _, err := mctest.Ping(addr, 765, "awake.example.com"); err != nil {
					failed.Add(1)
				}
				times[i] = time.Since(start)
			}
		})
	}
	wg.Wait()
	if f := failed.Load(); f != 0 {
		t.Fatalf("%d of %d pings failed", f, n)
	}
	slices.Sort(times)
	return times[n*99/100]
}

var _ lite.TargetFactory = func(wake.Spec) (wake.Target, error) { return nil, nil }

// TestReloadDoesNotMoveTheSleep: a reload in the middle of an idle countdown (even one
// that changes idleAfter) leaves the sleep at its original time.
func TestReloadDoesNotMoveTheSleep(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	e.start()
	clk := mctest.NewTimerClock(time.Time{})
	awake := refusedAddr(t)
	yaml := func(idle string) string {
		return fill(wakeConfig, "sleepy", e.addr, "hold", "25s", "idle", idle, "awake", awake)
	}
	p := startProxy(t, yaml("60s"), proxyOpts{
		wakeTargets: func(wake.Spec) (wake.Target, error) { return e, nil },
		wake:        wake.Options{Now: clk.Now, AfterFunc: clk.AfterFunc},
	})
	t0 := clk.Now()
	state := func() wake.State {
		for _, s := range p.Wake().States() {
			if s.Key == e.key {
				return s
			}
		}
		return wake.State{}
	}
	waitFor(t, "idle countdown", 5*time.Second, func() bool { return state().Phase == wake.PhaseIdle })
	if at := state().SleepAt; !at.Equal(t0.Add(60 * time.Second)) {
		t.Fatalf("sleep at %v, want %v", at, t0.Add(60*time.Second))
	}
	clk.Advance(30 * time.Second)
	cfg, _, err := config.Parse([]byte(yaml("10m")), "test.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Reload(cfg); err != nil {
		t.Fatal(err)
	}
	if s := state(); s.Phase != wake.PhaseIdle || !s.SleepAt.Equal(t0.Add(60*time.Second)) {
		t.Fatalf("after reload: %+v, want idle until %v", s, t0.Add(60*time.Second))
	}
	clk.Advance(29 * time.Second)
	if n := e.sleeps.Load(); n != 0 {
		t.Fatalf("slept %d times before the original time", n)
	}
	clk.Advance(time.Second)
	waitFor(t, "one sleep at the original time", 5*time.Second, func() bool { return e.sleeps.Load() == 1 })
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
	waitFor(t, "target found asleep", 5*time.Second, func() bool { return phase(p, e.key) == wake.PhaseAsleep })
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
	e.lie, e.delay = true, 300*time.Millisecond
	p := wakeProxy(t, e, "10s", "10m", refusedAddr(t))
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

// TestWakeTargetsBuiltOnceAndBadOnesServeWithoutWaking: a reload that keeps a route's
// wake spec keeps its target (the factory is not called again); a target the factory
// cannot build leaves its route served without waking, and the reload applies.
func TestWakeTargetsBuiltOnceAndBadOnesServeWithoutWaking(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	var built atomic.Int64
	var broken atomic.Bool
	factory := func(wake.Spec) (wake.Target, error) {
		built.Add(1)
		if broken.Load() {
			return nil, errors.New("no webhook client configured")
		}
		return e, nil
	}
	yaml := func(url string) string {
		y := fill(wakeConfig, "sleepy", e.addr, "hold", "2s", "idle", "10m", "awake", refusedAddr(t))
		return strings.Replace(y, "http://127.0.0.1:9/wake", url, 1)
	}
	p := startProxy(t, yaml("http://127.0.0.1:9/wake"), proxyOpts{wakeTargets: factory})
	reload := func(y string) {
		t.Helper()
		cfg, _, err := config.Parse([]byte(y), "test.yml")
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Reload(cfg); err != nil {
			t.Fatalf("reload: %v", err)
		}
	}
	reload(yaml("http://127.0.0.1:9/wake"))
	if n := built.Load(); n != 1 {
		t.Fatalf("factory called %d times for one unchanged spec, want 1", n)
	}
	broken.Store(true)
	reload(yaml("http://127.0.0.1:9/other"))
	if s := p.Wake().States(); len(s) != 0 {
		t.Fatalf("states %+v, want none: the route has no usable target", s)
	}
	c := dialProxy(t, p.addr)
	c.send(mctest.LoginPreamble(765, "sleepy.example.com", "Steve"))
	if txt := c.disconnectText(); !strings.Contains(txt, "unavailable") {
		t.Fatalf("login to a route without a usable target got %q", txt)
	}
	if e.wakes.Load() != 0 {
		t.Fatal("woken through an unusable target")
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
		return fill(wakeConfig, "sleepy", backend, "hold", "10s", "idle", "10m", "awake", awake)
	}
	p := startProxy(t, yaml(refusedAddr(t)), proxyOpts{wakeTargets: factory})
	var reloaded atomic.Bool
	e.started = func(addr string) {
		cfg, _, err := config.Parse([]byte(yaml(addr)), "test.yml")
		if err == nil {
			err = p.Reload(cfg)
		}
		if err != nil {
			t.Errorf("reload with the new address: %v", err)
			return
		}
		reloaded.Store(true)
	}
	waitFor(t, "target found asleep", 5*time.Second, func() bool { return phase(p, e.key) == wake.PhaseAsleep })
	c := dialProxy(t, p.addr)
	_ = c.SetDeadline(time.Now().Add(15 * time.Second))
	c.login("sleepy.example.com")
	if !reloaded.Load() || e.server().Logins() != 1 {
		t.Fatalf("reloaded %v, logins at the new address %d", reloaded.Load(), e.server().Logins())
	}
}

// TestStatusAnswersFeedPlayersOnline: players.online of the route's status answers
// reaches the Coordinator, from a ping's fetch and from a health probe alike, and a
// server with players is not counted down to sleep.
func TestStatusAnswersFeedPlayersOnline(t *testing.T) {
	withPlayers := strings.Replace(sleepyStatus, `"online":0`, `"online":3`, 1)
	for _, tc := range []struct {
		name string
		edit func(string) string
		ping bool
	}{
		{"ping", nil, true},
		{"health probe", func(y string) string {
			return strings.Replace(y, "        holdFor:", "        healthCheck: {enabled: true, interval: 200ms, timeout: 100ms}\n        holdFor:", 1)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(t, "webhook sleepy", withPlayers)
			e.start()
			var edits []func(string) string
			if tc.edit != nil {
				edits = append(edits, tc.edit)
			}
			p := wakeProxy(t, e, "25s", "10m", refusedAddr(t), edits...)
			if tc.ping {
				if _, err := mctest.Ping(p.addr, 765, "sleepy.example.com"); err != nil {
					t.Fatal(err)
				}
			}
			waitFor(t, "3 players reported", 5*time.Second, func() bool {
				for _, s := range p.Wake().States() {
					if s.Key == e.key {
						return s.PlayersOnline == 3 && s.Phase == wake.PhaseAwake
					}
				}
				return false
			})
		})
	}
}

// goMCTarget is a wake target whose server is built on go-mc's codec (status and an
// offline 1.20.2 login): a client and a server we did not write, on both sides of a
// held login.
type goMCTarget struct {
	addr    string
	players chan string
	wakes   atomic.Int64
	mu      sync.Mutex
	ln      *mcnet.Listener
	timer   *time.Timer
	done    chan struct{}
}

func (g *goMCTarget) Key() string                               { return "exec go-mc" }
func (g *goMCTarget) Running(context.Context) (bool, error)     { return false, nil }
func (g *goMCTarget) Sleep(context.Context, wake.Request) error { return nil }
func (g *goMCTarget) Wake(context.Context, wake.Request) (wake.Result, error) {
	if g.wakes.Add(1) == 1 {
		g.mu.Lock()
		g.timer = time.AfterFunc(500*time.Millisecond, g.start)
		g.mu.Unlock()
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

// serve answers a status exchange, or hands a login to serveMCLogin.
func (g *goMCTarget) serve(conn *mcnet.Conn) {
	var p pk.Packet
	var (
		protocol, intent pk.VarInt
		host             pk.String
		port             pk.UnsignedShort
	)
	if conn.ReadPacket(&p) != nil || p.Scan(&protocol, &host, &port, &intent) != nil {
		return
	}
	if intent == 2 {
		var name pk.String
		var id pk.UUID
		if conn.ReadPacket(&p) != nil || p.Scan(&name, &id) != nil {
			return
		}
		if conn.WritePacket(pk.Marshal(packetid.ClientboundLoginSuccess, id, name, pk.VarInt(0))) != nil ||
			conn.ReadPacket(&p) != nil || p.ID != int32(packetid.ServerboundLoginAcknowledged) ||
			conn.WritePacket(pk.Marshal(packetid.ClientboundConfigFinishConfiguration)) != nil ||
			conn.ReadPacket(&p) != nil || p.ID != int32(packetid.ServerboundConfigFinishConfiguration) {
			return
		}
		g.players <- string(name)
		return
	}
	if conn.ReadPacket(&p) != nil || p.ID != 0 {
		return
	}
	_ = conn.WritePacket(pk.Marshal(0x00, pk.String(sleepyStatus)))
	if conn.ReadPacket(&p) == nil && p.ID == 1 {
		_ = conn.WritePacket(p)
	}
}

func (g *goMCTarget) close() {
	g.mu.Lock()
	if g.timer != nil {
		g.timer.Stop()
	}
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
	p := startProxy(t, fill(wakeConfig, "sleepy", g.addr, "hold", "10s", "idle", "10m", "awake", refusedAddr(t)),
		proxyOpts{wakeTargets: func(wake.Spec) (wake.Target, error) { return g, nil }})
	waitFor(t, "target found asleep", 5*time.Second, func() bool { return phase(p, g.Key()) == wake.PhaseAsleep })
	c := bot.NewClient()
	c.Auth.Name = "Alex"
	c.Auth.UUID = uuid.NewSHA1(uuid.NameSpaceOID, []byte("OfflinePlayer:Alex")).String()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := c.JoinServerWithOptions("sleepy.example.com:25565", bot.JoinOptions{MCDialer: proxyDialer{proxy: p.addr}, Context: ctx}); err != nil {
		t.Fatalf("go-mc join of the sleeping route: %v", err)
	}
	defer c.Close()
	select {
	case name := <-g.players:
		if name != "Alex" {
			t.Fatalf("server saw %q", name)
		}
	case <-ctx.Done():
		t.Fatal("the woken server never finished the login")
	}
	if n := g.wakes.Load(); n != 1 {
		t.Fatalf("%d wake calls", n)
	}
}
