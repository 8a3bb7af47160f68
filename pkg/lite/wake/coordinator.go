package wake

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
)

// Options configure NewCoordinator. Every zero value means the default named.
type Options struct {
	// Holders is how replicas agree before a sleep; nil means Local().
	Holders Holders
	// Log receives one line per phase transition; the zero Logger discards.
	Log logr.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// AfterFunc schedules f after d and returns its stop func; nil means
	// time.AfterFunc. Tests inject a fake clock's timers. It drives the idle
	// countdown, hold renewals and the readiness poll's backoff.
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
	// RenewEvery is how often Holders.Hold is renewed while sessions remain;
	// 0 means 10s.
	RenewEvery time.Duration
	// ReadyWithin bounds the readiness poll of one shared wake, counted from
	// the wake call; 0 means 5m. It outlasts every caller's own wait on
	// purpose: players give up after holdFor, but a slow server that comes up
	// later is then marked awake with a measured wake time.
	ReadyWithin time.Duration
	// CallTimeout bounds each Holders call and an Observer's first query;
	// 0 means 10s. Target calls are bounded by the Target itself.
	CallTimeout time.Duration
	// RetryWakeAfter is how long logins are turned away after a failed wake
	// call before one may call again; it doubles with each failure in a row
	// up to RetryWakeAtMost. 0 means 1s.
	RetryWakeAfter time.Duration
	// RetryWakeAtMost caps that wait; 0 means 4m.
	RetryWakeAtMost time.Duration
}

// Coordinator keeps the state of every target the route set names: its
// phase, sessions, the players its backends report, the idle countdown, one
// shared wake per target and the calls to Holders. It is safe for concurrent
// use; engine and Holders calls never run under its lock.
type Coordinator struct {
	holders     Holders
	log         logr.Logger
	now         func() time.Time
	afterFunc   func(time.Duration, func()) func() bool
	renewEvery  time.Duration
	readyWithin time.Duration
	callTimeout time.Duration
	retryAfter  time.Duration
	retryAtMost time.Duration
	m           *collector

	ctx    context.Context // of every background call; Close cancels it
	cancel context.CancelFunc
	wg     sync.WaitGroup // every goroutine the Coordinator starts

	mu      sync.Mutex
	closed  bool
	targets map[string]*target
	dropped map[string]*target // unbound, but sessions remain (their holds are renewed until they end)
	names   map[string]bool    // target.name of every target in targets or dropped

	// stepped, when set (by tests, before any call), sees every step taken or
	// refused, also those that change nothing shown.
	stepped func(change)
}

// target is one key's state; every field but engine is guarded by Coordinator.mu.
type target struct {
	key      string
	name     string // Name(key), unique among the Coordinator's targets; fixed
	bind     Binding
	phase    phase
	since    time.Time // when the phase shown last changed
	sessions int
	players  int // -1: none reported since the target came up
	dropped  bool
	err      string

	sleepAt  time.Time
	stopIdle func() bool
	idleGen  uint64 // a countdown that fires with an older generation was cancelled
	flight   *flight
	events   uint64 // wakes, sessions and sleeps begun: an Observer's answer asked before them is stale

	wakes, sleeps uint64
	lastWake      time.Duration
	// readyAt: when a readiness poll last found readyAddr answering, after the
	// first check failed (a server just started, or slow): see Warming.
	readyAddr string
	readyAt   time.Time
	recent    []time.Duration // newest last, at most typicalOf

	failures   int       // failed wake calls in a row
	retryAt    time.Time // in backoff: when a login may call again
	turnedAway int       // logins turned away during this backoff

	holdWant              int
	holdDirty, holdActive bool
	holdDone              chan struct{} // closed when the running hold loop ends
	stopRenew             func() bool
	renewGen              uint64

	// engine serialises this target's Wake and Sleep calls (and the claim
	// before a sleep), as Target promises its implementations.
	engine sync.Mutex
}

// typicalOf is how many recent wakes TypicalWake takes the median of.
const typicalOf = 5

// NewCoordinator returns a Coordinator with no targets; Bind gives it some.
func NewCoordinator(o Options) *Coordinator {
	if o.Holders == nil {
		o.Holders = Local()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.AfterFunc == nil {
		o.AfterFunc = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	}
	if o.RenewEvery <= 0 {
		o.RenewEvery = 10 * time.Second
	}
	if o.ReadyWithin <= 0 {
		o.ReadyWithin = 5 * time.Minute
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = 10 * time.Second
	}
	if o.RetryWakeAfter <= 0 {
		o.RetryWakeAfter = time.Second
	}
	if o.RetryWakeAtMost <= 0 {
		o.RetryWakeAtMost = 4 * time.Minute
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Coordinator{
		holders: o.Holders, log: o.Log, now: o.Now, afterFunc: o.AfterFunc,
		renewEvery: o.RenewEvery, readyWithin: o.ReadyWithin, callTimeout: o.CallTimeout,
		retryAfter: o.RetryWakeAfter, retryAtMost: max(o.RetryWakeAtMost, o.RetryWakeAfter),
		ctx: ctx, cancel: cancel,
		targets: map[string]*target{}, dropped: map[string]*target{}, names: map[string]bool{},
	}
	c.m = newCollector(c)
	return c
}

// Binding is one target the route set names.
type Binding struct {
	Target Target
	// IdleAfter is how long the target stays idle (awake, no session here,
	// players.online 0) before it is put to sleep; 0 means never.
	IdleAfter time.Duration
	// Request is what sleep calls send.
	Request Request
	// ReadyWithin, when longer than Options.ReadyWithin, bounds this target's
	// readiness poll instead: a player parked for longer (a long hold) is sent on
	// as soon as the server answers, not when the park runs out.
	ReadyWithin time.Duration
}

// Bind is called on every (re)load of the route set with every target the
// routes now name. Keys that stay keep all their state, the Target value and
// IdleAfter are replaced, and a running idle countdown is neither re-armed
// nor cancelled: it ends at its original deadline, and a new IdleAfter
// applies from the next countdown on (a reload is no player activity). Keys
// gone are dropped and their countdown stopped; a dropped key's sessions keep
// their hold renewed until they end. When two bindings name one key, the
// first one's IdleAfter and Request count.
//
// A new key starts awake (its state unknown) with no players reported, so an
// awake target that nobody joins still goes to sleep after IdleAfter. A
// Target that is an Observer is asked once, in the background, whether it
// runs; "no" makes it asleep unless a wake, session or sleep began since.
func (c *Coordinator) Bind(bs []Binding) {
	var logs []change
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	// Drop first, so that a new key may take the name of one gone.
	keys, first := firstBindings(bs)
	for key, t := range c.targets {
		if _, ok := first[key]; !ok {
			c.unbind(t, &logs)
		}
	}
	next := make(map[string]*target, len(keys))
	for _, key := range keys {
		next[key] = c.bound(key, first[key])
	}
	c.targets = next
	for _, t := range next {
		c.maybeIdle(t, &logs)
	}
	c.mu.Unlock()
	c.logChanges(logs)
}

// firstBindings is the keys bs names, in order, each with its first binding.
func firstBindings(bs []Binding) ([]string, map[string]Binding) {
	keys := make([]string, 0, len(bs))
	first := make(map[string]Binding, len(bs))
	for _, b := range bs {
		if b.Target == nil {
			continue
		}
		if key := b.Target.Key(); first[key].Target == nil {
			first[key] = b
			keys = append(keys, key)
		}
	}
	return keys, first
}

// bound gives key's target, kept or dropped before or new, binding b.
// Caller holds c.mu.
func (c *Coordinator) bound(key string, b Binding) *target {
	t := c.targets[key]
	if t == nil {
		if t = c.dropped[key]; t != nil {
			delete(c.dropped, key)
			t.dropped = false
		}
	}
	if t == nil {
		t = &target{key: key, name: c.newName(key), phase: awake, since: c.now(), players: -1}
		if obs, ok := b.Target.(Observer); ok {
			c.wg.Add(1)
			go c.observe(t, obs, t.events)
		}
	}
	t.bind = b
	return t
}

// unbind drops t from the route set; it is kept while its sessions last.
// Caller holds c.mu.
func (c *Coordinator) unbind(t *target, logs *[]change) {
	c.fire(t, onUnbind, logs)
	t.dropped = true
	if t.sessions > 0 {
		c.dropped[t.key] = t
	} else {
		c.forget(t)
	}
}

// newName is Name(key), with " #2", " #3"... when a target kept here
// already shows as that. Caller holds c.mu.
func (c *Coordinator) newName(key string) string {
	base := Name(key)
	name := base
	for n := 2; c.names[name]; n++ {
		name = base + " #" + strconv.Itoa(n)
	}
	c.names[name] = true
	return name
}

// forget lets t go: its series and its name. Caller holds c.mu.
func (c *Coordinator) forget(t *target) {
	c.m.forget(t.name)
	delete(c.names, t.name)
}

// observe asks an Observer target once whether it runs. The answer counts
// only if no wake, session or sleep began since the target was bound.
func (c *Coordinator) observe(t *target, obs Observer, events uint64) {
	defer c.wg.Done()
	ctx, cancel := context.WithTimeout(c.ctx, c.callTimeout)
	running, err := obs.Running(ctx)
	cancel()
	var logs []change
	c.mu.Lock()
	switch {
	case c.closed || t.dropped || t.events != events:
	case err != nil:
		t.err = "ask engine whether it runs: " + err.Error()
	case !running:
		c.fire(t, onStopped, &logs)
	}
	c.mu.Unlock()
	if err != nil {
		c.log.Error(err, "ask wake target whether it runs", "target", t.name)
	}
	c.logChanges(logs)
}

// Asleep says whether pings should be answered as asleep: the target is
// asleep or waking (its backends are not up yet). It never wakes anything.
func (c *Coordinator) Asleep(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.targets[key]
	return t != nil && t.phase.down()
}

// Phase is the key's phase as State.Phase names it, "" for a key not bound.
func (c *Coordinator) Phase(key string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.targets[key]; t != nil {
		return t.phase.shown()
	}
	return ""
}

// ReportPlayers feeds players.online from a status answer of the target's
// backends. A report > 0 cancels the idle countdown; 0 (or unknown, < 0)
// lets it start. Reports while the target is asleep or waking are ignored:
// its backends are down, so such a report comes from a cache of before.
func (c *Coordinator) ReportPlayers(key string, online int) {
	var logs []change
	c.mu.Lock()
	t := c.targets[key]
	if t == nil || t.phase.down() {
		c.mu.Unlock()
		return
	}
	t.players = max(online, -1)
	if online > 0 {
		c.fire(t, onPlayers, &logs)
	} else {
		c.maybeIdle(t, &logs)
	}
	c.mu.Unlock()
	c.logChanges(logs)
}

// TypicalWake is how long this target usually takes to start: the median of
// its last few measured wakes (call to ready; the upper one of the two middle
// values for an even count), 0 if never measured.
func (c *Coordinator) TypicalWake(key string) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.targets[key]
	if t == nil || len(t.recent) == 0 {
		return 0
	}
	r := slices.Clone(t.recent)
	slices.Sort(r)
	return r[len(r)/2]
}

// States lists every bound target's state, sorted by key.
func (c *Coordinator) States() []State {
	c.mu.Lock()
	ss := make([]State, 0, len(c.targets))
	for _, t := range c.targets {
		ss = append(ss, State{
			Key: t.name, Phase: t.phase.shown(), Since: t.since, Sessions: t.sessions,
			PlayersOnline: t.players, SleepAt: t.sleepAt, RetryAt: t.retryAt, LastWake: t.lastWake,
			Wakes: t.wakes, Sleeps: t.sleeps, Error: t.err,
		})
	}
	c.mu.Unlock()
	slices.SortFunc(ss, func(a, b State) int { return strings.Compare(a.Key, b.Key) })
	return ss
}

// Close stops every timer, cancels the calls under way and waits for every
// goroutine the Coordinator started. Waiting Wake calls return ErrClosed.
// Holds are not dropped (the context of their calls is gone); a Lease
// expires by itself. Close is idempotent.
func (c *Coordinator) Close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	for _, m := range []map[string]*target{c.targets, c.dropped} {
		for _, t := range m {
			c.stopCountdown(t)
			c.stopRenewal(t)
		}
	}
	c.mu.Unlock()
	c.cancel()
	c.wg.Wait()
}
