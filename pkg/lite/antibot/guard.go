package antibot

import (
	"encoding/json"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"

	"go.minekube.com/gate/pkg/lite/players"
)

// DefaultMaxEntries bounds the per-name rate table and the attack mode address
// table, each.
const DefaultMaxEntries = 10000

// Options are what a Guard needs besides the settings each login brings.
type Options struct {
	// Now is the clock rates and windows are measured by; nil uses time.Now.
	Now func() time.Time
	Log logr.Logger
	// MaxNames and MaxAddrs bound the name and address tables; < 1 is
	// DefaultMaxEntries.
	MaxNames, MaxAddrs int
}

// Login is one login to check: who it claims to be, from where, to which route,
// and the settings in force (the config snapshot's, so a reload applies to the
// next login).
type Login struct {
	Player *players.Player
	// Addr is the player's address; the zero Addr (unknown behind a trusted proxy
	// that sent no PROXY header) is not subject to attack mode.
	Addr netip.Addr
	// Route names the route's scope (its key); Global and Route are the settings of
	// every route and of this one.
	Route       string
	Global, Own *Settings
	Attack      *AttackMode
}

// Verdict is a Check's answer: Reason is "" for a login let through, else one of
// the reasons above, with the text the player gets (Text, or Default when nil).
type Verdict struct {
	Reason  string
	Text    json.RawMessage
	Default string
}

// Guard holds the anti-bot state of one proxy instance for its life (reloads
// change only the settings logins bring). Safe for concurrent use.
type Guard struct {
	now func() time.Time
	log logr.Logger

	mu sync.Mutex
	// names holds each name's login bucket, per scope; overflow is the bucket the
	// names share that find the table full of buckets still holding state.
	names    *table[nameKey, bucket]
	overflow bucket
	// open counts each name's live sessions per scope; held is what each live
	// session holds, so End gives back exactly that. holding is len(held), read
	// without the lock by End.
	open    map[nameKey]int
	held    map[*players.Player][2]nameKey
	holding atomic.Int64
	attack  attackState
}

// nameKey is a folded name within a scope ("" is the global scope).
type nameKey struct{ scope, name string }

// New returns an empty Guard.
func New(o Options) *Guard {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxNames < 1 {
		o.MaxNames = DefaultMaxEntries
	}
	if o.MaxAddrs < 1 {
		o.MaxAddrs = DefaultMaxEntries
	}
	return &Guard{
		now: o.Now, log: o.Log,
		names:  newTable[nameKey, bucket](o.MaxNames),
		open:   make(map[nameKey]int),
		held:   make(map[*players.Player][2]nameKey),
		attack: attackState{addrs: newTable[netip.Addr, addrState](o.MaxAddrs)},
	}
}

// Check decides whether in may proceed. A login let through that a session cap
// applies to holds a session of its name until End.
func (g *Guard) Check(in Login) Verdict {
	if (in.Global.ValidNames || in.Own.ValidNames) && !ValidName(in.Player.Name) {
		return in.Own.refuse(InvalidName)
	}
	if !in.Attack.On() && !in.Global.counts() && !in.Own.counts() {
		return Verdict{} // nothing to count: no lock, no folding
	}
	now := g.now()
	g.mu.Lock()
	v, change := g.checkLocked(in, now)
	g.mu.Unlock()
	change.log(g.log, in.Attack)
	return v
}

func (g *Guard) checkLocked(in Login, now time.Time) (Verdict, attackChange) {
	var change attackChange
	if in.Attack.On() && in.Addr.IsValid() {
		var ok bool
		if ok, change = g.attack.admit(in.Addr, in.Attack, now); !ok {
			return Verdict{Reason: AttackReconnect, Text: in.Attack.Text, Default: DefaultAttackText}, change
		}
	}
	name := strings.ToLower(in.Player.Name)
	keys := [2]nameKey{{name: name}, {scope: in.Route, name: name}}
	for i, s := range [2]*Settings{in.Global, in.Own} {
		if s.LoginRate.On() && !g.take(keys[i], s.LoginRate, now) {
			return in.Own.refuse(NameRate), change
		}
	}
	for i, s := range [2]*Settings{in.Global, in.Own} {
		if s.MaxSessionsPerName > 0 && g.open[keys[i]] >= s.MaxSessionsPerName {
			return in.Own.refuse(NameSessions), change
		}
	}
	if in.Global.MaxSessionsPerName > 0 || in.Own.MaxSessionsPerName > 0 {
		g.hold(in.Player, keys)
	}
	return Verdict{}, change
}

// take takes one login from k's bucket. A name that finds the table full of
// buckets still refilling shares the overflow bucket: a flood of new names then
// throttles itself and the buckets of the names already known survive it.
func (g *Guard) take(k nameKey, r Rate, now time.Time) bool {
	b := g.names.get(k)
	if b == nil {
		b = g.names.add(k, func(b *bucket) bool { return b.full(r, now) }, false)
		if b == nil {
			b = &g.overflow
		} else {
			b.fill(r, now)
		}
	}
	return b.take(r, now)
}

// hold counts a session of p's name in both scopes until End.
func (g *Guard) hold(p *players.Player, keys [2]nameKey) {
	for _, k := range keys {
		g.open[k]++
	}
	g.held[p] = keys
	g.holding.Add(1)
}

// End gives back the session p holds, if any: call it once a connection that
// passed Check ends, however it ends. A nil or unknown player is ignored.
func (g *Guard) End(p *players.Player) {
	if p == nil || g.holding.Load() == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	keys, ok := g.held[p]
	if !ok {
		return
	}
	delete(g.held, p)
	g.holding.Add(-1)
	for _, k := range keys {
		if g.open[k]--; g.open[k] <= 0 {
			delete(g.open, k)
		}
	}
}

// Sizes reports how many names and addresses the tables hold and how many
// sessions are counted (for tests and metrics).
func (g *Guard) Sizes() (names, addrs, sessions int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.names.len(), g.attack.addrs.len(), len(g.held)
}

// counts reports whether s keeps state per name.
func (s *Settings) counts() bool { return s.LoginRate.On() || s.MaxSessionsPerName > 0 }

// refuse is the verdict for reason with s's text for it.
func (s *Settings) refuse(reason string) Verdict {
	v := Verdict{Reason: reason}
	switch reason {
	case InvalidName:
		v.Text, v.Default = s.Texts.InvalidName, DefaultInvalidNameText
	case NameRate:
		v.Text, v.Default = s.Texts.NameRate, DefaultNameRateText
	default:
		v.Text, v.Default = s.Texts.Sessions, DefaultSessionsText
	}
	return v
}
