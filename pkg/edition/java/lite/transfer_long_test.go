package lite_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/wake"
)

// The long-hold figures at full scale, with real clients and a real server
// (npm's minecraft-protocol on 1.21.1) and the default timeouts: minutes per
// test, so they run only with GATETEST_LONG=1.
func longRun(t *testing.T) string {
	t.Helper()
	if os.Getenv("GATETEST_LONG") != "1" {
		t.Skip("a measurement that takes minutes: set GATETEST_LONG=1")
	}
	return mctest.NodeModules(t)
}

// nodeEngine is a wake target whose server is a real 1.21.1 Minecraft server
// (node/server.js) that can be reached delay after the wake call: the process
// runs from the start, and the recording tap in front of it, at addr where the
// route points, listens only then. The delay is a timer the test owns.
type nodeEngine struct {
	key, addr string
	server    *mctest.NodeServer
	delay     time.Duration
	later     delayed
	wakes     atomic.Int64
	scheduled atomic.Bool

	mu   sync.Mutex
	back *loginTap
}

var _ wake.Observer = (*nodeEngine)(nil)

func newNodeEngine(t *testing.T, modules string, delay time.Duration) *nodeEngine {
	_, port, _ := net.SplitHostPort(refusedAddr(t))
	p, _ := strconv.Atoi(port)
	srv := mctest.StartNodeServer(t, modules, mctest.NodeServerOptions{Host: "127.0.0.1", Port: p, Version: "1.21.1", MOTD: "sleepy"})
	e := &nodeEngine{key: "webhook sleepy", addr: refusedAddr(t), server: srv, delay: delay}
	t.Cleanup(e.close)
	return e
}

func (e *nodeEngine) Key() string { return e.key }

func (e *nodeEngine) Running(context.Context) (bool, error) { return e.backend() != nil, nil }

func (e *nodeEngine) Wake(context.Context, wake.Request) (wake.Result, error) {
	e.wakes.Add(1)
	if e.scheduled.CompareAndSwap(false, true) && !e.later.after(e.delay, e.start) {
		return wake.Result{}, fmt.Errorf("engine closed")
	}
	return wake.Result{}, nil
}

// start opens the server's port. If it cannot, the test fails at its deadline.
func (e *nodeEngine) start() {
	back, err := listenTap(e.addr, e.server.Addr)
	if err != nil {
		return
	}
	e.mu.Lock()
	e.back = back
	e.mu.Unlock()
}

func (e *nodeEngine) Sleep(context.Context, wake.Request) error {
	return fmt.Errorf("not in this test")
}

// backend is the tap the proxy's logins go through once the server is up.
func (e *nodeEngine) backend() *loginTap {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.back
}

func (e *nodeEngine) close() {
	e.later.close()
	if back := e.backend(); back != nil {
		back.close()
	}
}

// atScale is a proxy with the default timeouts whose route wakes e, with
// holdFor 25s and the given transferHoldFor, and a tap in front of it through
// which the players join, asking for its IP so that following the Transfer
// needs no DNS.
type atScale struct {
	e     *nodeEngine
	p     *proxy
	front *loginTap
}

func newAtScale(t *testing.T, e *nodeEngine, transferHoldFor string) atScale {
	factory := func(wake.Spec) (wake.Target, error) { return e, nil }
	yaml := oneRoute("sleepy.example.com", e.addr).alsoHost("127.0.0.1").
		with(`wake: {webhook: "http://127.0.0.1:9/wake"}`, "holdFor: 25s", "transferHoldFor: "+transferHoldFor, "idleAfter: 30m").
		quotasOff("maxConnectionsPerIP: 0").String()
	p := startProxy(t, yaml, proxyOpts{wakeTargets: factory})
	waitAsleep(t, p, e.key)
	return atScale{e: e, p: p, front: newTap(t, p.addr)}
}

// returned checks one player's way back: a Transfer to the address it used,
// a reconnect, a join; the backend got its returning login (intent 3) as an
// ordinary one (intent 2), byte-exact otherwise. It returns the join step.
func (s atScale) returned(name string, steps []mctest.TransferStep) (mctest.TransferStep, error) {
	ip, port, _ := net.SplitHostPort(s.front.addr())
	if len(steps) != 3 || steps[0].Event != "transfer" || steps[1].Event != "reconnected" || steps[2].Event != "joined" {
		return mctest.TransferStep{}, fmt.Errorf("steps %+v, want transfer, reconnected, joined", steps)
	}
	if steps[0].Host != ip || strconv.Itoa(steps[0].Port) != port {
		return mctest.TransferStep{}, fmt.Errorf("transferred to %s:%d, want %s", steps[0].Host, steps[0].Port, s.front.addr())
	}
	sent := s.front.login(name, wire.IntentTransfer)
	_, n, err := wire.ParseHandshake(sent)
	if err != nil {
		return mctest.TransferStep{}, fmt.Errorf("returning login as sent %x: %w", sent, err)
	}
	want := bytes.Clone(sent)
	want[n-1] = byte(wire.IntentLogin) // the intent is the handshake's last byte
	if got := s.e.backend().login(name, wire.IntentLogin); !bytes.Equal(got, want) {
		return mctest.TransferStep{}, fmt.Errorf("backend got %x, want %x", got, want)
	}
	return steps[2], nil
}

// Fifty 1.21.1 players on a server that starts 90 s after the wake call, three
// times the client's own timeout: all are parked past holdFor, transferred once
// it answers, and join; one wake call in all. A 1.20.4 player gets the starting
// Disconnect at holdFor.
func TestTransferLongHoldFullScaleFifty(t *testing.T) {
	modules := longRun(t)
	t.Parallel()
	s := newAtScale(t, newNodeEngine(t, modules, 90*time.Second), "5m")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	old := make(chan []mctest.BotResult, 1)
	go func() {
		res, _ := mctest.Bots{Addr: s.front.addr(), Host: "127.0.0.1", Count: 1, NamePrefix: "old", Version: "1.20.4"}.Run(ctx, modules)
		old <- res
	}()
	const players = 50
	steps, err := mctest.Transfers{Addr: s.front.addr(), Host: "127.0.0.1", Version: "1.21.1", Name: "held",
		Count: players, Limit: 4 * time.Minute}.Run(ctx, modules)
	oldRes := <-old
	if err != nil {
		t.Fatalf("clients: %v", err)
	}
	var joined int
	var longest, firstTransfer, lastTransfer time.Duration
	for i := range players {
		name := "held" + strconv.Itoa(i)
		join, err := s.returned(name, steps[name])
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		joined++
		longest = max(longest, join.After())
		tr := steps[name][0].After()
		firstTransfer, lastTransfer = minNonZero(firstTransfer, tr), max(lastTransfer, tr)
	}
	t.Logf("%d of %d joined; %d wake call(s); transfers %v to %v after connecting; longest wait to join %v; the server saw %d joins",
		joined, players, s.e.wakes.Load(), firstTransfer, lastTransfer, longest, len(s.e.server.Joins()))
	if len(oldRes) != 1 || oldRes[0].Outcome != "kicked" || !strings.Contains(oldRes[0].Reason, "is starting up") {
		t.Errorf("1.20.4 player: %+v, want the starting Disconnect", oldRes)
	} else {
		t.Logf("1.20.4 player: kicked after %v: %q", oldRes[0].After, oldRes[0].Reason)
	}
	if joined != players || s.e.wakes.Load() != 1 {
		t.Fatalf("%d of %d joined with %d wake calls, want all with 1", joined, players, s.e.wakes.Load())
	}
}

func minNonZero(a, b time.Duration) time.Duration {
	if a == 0 || b < a {
		return b
	}
	return a
}

// One 1.21.1 player parked for more than five minutes: the proxy's keep-alives
// keep its client (which gives up after 30 s without one) connected. The server
// is up 5m25s after the wake call, past the Coordinator's own readiness bound
// (5 minutes); the route's transferHoldFor (6m) extends its poll, so the player
// is sent on as soon as the server answers, joins, and the backend sees an
// ordinary login (intent 2), byte-exact otherwise.
func TestTransferLongHoldFullScaleParkedFiveMinutes(t *testing.T) {
	modules := longRun(t)
	t.Parallel()
	const holdFor, parked = 25 * time.Second, 5 * time.Minute
	s := newAtScale(t, newNodeEngine(t, modules, holdFor+parked), "6m")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	steps, err := mctest.Transfers{Addr: s.front.addr(), Host: "127.0.0.1", Version: "1.21.1", Name: "patient",
		Count: 1, Limit: 7 * time.Minute}.Run(ctx, modules)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	join, err := s.returned("patient", steps["patient"])
	if err != nil {
		t.Fatal(err)
	}
	tr := steps["patient"][0]
	back := s.e.backend().login("patient", wire.IntentLogin)
	hs, _, _ := wire.ParseHandshake(back)
	t.Logf("transferred %v after connecting (parked about %v past holdFor, %d keep-alives answered); joined at %v; backend saw intent %d: %x; %d wake call(s)",
		tr.After(), tr.After()-holdFor, tr.KeepAlives, join.After(), hs.Intent, back, s.e.wakes.Load())
	if tr.After() < holdFor+parked || tr.After() > holdFor+parked+15*time.Second || s.e.wakes.Load() != 1 {
		t.Fatalf("transferred after %v with %d wake calls, want soon after %v (the server up) and 1", tr.After(), s.e.wakes.Load(), holdFor+parked)
	}
}
