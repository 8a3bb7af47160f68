package lite_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/wake"
)

// wakeConfig has a route to sleepy whose server sleeps (holdFor hold, idleAfter idle)
// and a plain one to awake.
func wakeConfig(sleepy, hold, idle, awake string) string {
	return oneRoute("sleepy.example.com", sleepy).with(`wake: {webhook: "http://127.0.0.1:9/wake"}`,
		"holdFor: "+hold, "idleAfter: "+idle, `asleepMotd: "Asleep: join to wake"`, `fallback: {motd: "fallback", version: {name: "fb"}}`).
		route("awake.example.com", awake).
		withTop("connectionTimeout: 2s").quotasOff("maxConnectionsPerIP: 0").String()
}

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
	lie    atomic.Bool   // the first Running says it runs: stopped behind the proxy's back since
	block  time.Duration // > 0: a webhook that hangs this long, then fails
	// loginDelay: the started server answers each login this late (a JVM just up).
	loginDelay time.Duration

	running       atomic.Bool
	wakes, sleeps atomic.Int64
	// started, if set, runs once the server listens (a discovery source that
	// then publishes its address).
	started func(addr string)

	later delayed // the server starts that Wake schedules
	mu    sync.Mutex
	srv   *mctest.Backend
}

var _ wake.Observer = (*engine)(nil)

func newEngine(t *testing.T, key, status string) *engine {
	e := &engine{key: key, addr: refusedAddr(t), status: status}
	t.Cleanup(e.close)
	return e
}

func (e *engine) Key() string { return e.key }

func (e *engine) Running(context.Context) (bool, error) {
	return e.lie.Swap(false) || e.running.Load(), nil
}

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
	if !e.later.after(e.delay, e.start) {
		return wake.Result{}, errors.New("engine closed")
	}
	return wake.Result{}, nil
}

// start brings the server up at e.addr. If it cannot (the address is taken), the
// test that waits for it fails at its deadline.
func (e *engine) start() {
	b, err := mctest.Start(mctest.Options{Addr: e.addr, Status: e.status, LoginDelay: e.loginDelay})
	if err != nil {
		return
	}
	e.mu.Lock()
	e.srv = b
	e.mu.Unlock()
	e.running.Store(true)
	if e.started != nil {
		e.started(b.Addr())
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

// close waits for a start under way (or drops one not yet due) before it closes the
// server: a server that started after it would outlive the test.
func (e *engine) close() {
	e.later.close()
	e.mu.Lock()
	srv := e.srv
	e.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

// delayed runs functions after a delay on goroutines it owns. A fake engine starts
// its server late, as a real one does; close drops what is not due yet and waits for
// what runs, so nothing started late escapes the test's cleanup.
type delayed struct {
	mu     sync.Mutex
	closed bool
	stop   chan struct{} // closed by close
	wg     sync.WaitGroup
}

// after runs f once d has passed, unless close comes first; it reports false once
// closed.
func (l *delayed) after(d time.Duration, f func()) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	if l.stop == nil {
		l.stop = make(chan struct{})
	}
	stop := l.stop
	l.wg.Go(func() {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			f()
		case <-stop:
		}
	})
	return true
}

func (l *delayed) close() {
	l.mu.Lock()
	if !l.closed && l.stop != nil {
		close(l.stop)
	}
	l.closed = true
	l.mu.Unlock()
	l.wg.Wait()
}

// wakeProxy serves wakeConfig with e as the sleepy route's target; edit, if given,
// changes the config text first.
func wakeProxy(t *testing.T, e *engine, hold, idle, awake string, edit ...func(string) string) *proxy {
	t.Helper()
	factory := func(wake.Spec) (wake.Target, error) { return e, nil }
	yaml := wakeConfig(e.addr, hold, idle, awake)
	for _, f := range edit {
		yaml = f(yaml)
	}
	return startProxy(t, yaml, proxyOpts{wakeTargets: factory})
}

// wakeState is the state of p's wake target key; ok is false while p has none.
func wakeState(p *proxy, key string) (s wake.State, ok bool) {
	for _, s := range p.Wake().States() {
		if s.Key == key {
			return s, true
		}
	}
	return wake.State{}, false
}

func phase(p *proxy, key string) string {
	s, _ := wakeState(p, key)
	return s.Phase
}

// waitAsleep waits until p has found its wake target key asleep.
func waitAsleep(t *testing.T, p *proxy, key string) {
	t.Helper()
	waitFor(t, "target found asleep", 5*time.Second, func() bool { return phase(p, key) == wake.PhaseAsleep })
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
