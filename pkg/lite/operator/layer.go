package operator

import (
	"encoding/json"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"go.minekube.com/gate/pkg/edition/java/lite/status"
	"go.minekube.com/gate/pkg/lite/players"
)

// Texts a player is shown when the operator wrote none.
const (
	DefaultMaintenanceText = "This server is under maintenance. Please try again later."
	DefaultBanText         = "You are banned from this server."
)

// Layer is a State compiled for the connection path: lookups by route, player
// and address, immutable and safe for concurrent use. The nil *Layer is the
// empty layer.
type Layer struct {
	state     State
	maint     map[string]*Entry // by target; AllRoutes for every route
	overrides map[string]*Entry
	names     map[string]*Entry // bans by lower-case name
	uuids     map[uuid.UUID]*Entry
	nets      []*Entry // bans by address range
	netsP     []netip.Prefix
	drained   []string // sorted
}

// Compile builds the layer of s. Entries Validate would refuse never reach a
// State (the stores check them), so nothing here can fail.
func Compile(s State) *Layer {
	l := &Layer{state: s, maint: map[string]*Entry{}, overrides: map[string]*Entry{},
		names: map[string]*Entry{}, uuids: map[uuid.UUID]*Entry{}}
	for _, e := range s.Sorted() {
		switch e.Kind {
		case Maintenance:
			l.maint[e.Target] = &e
		case Override:
			l.overrides[e.Target] = &e
		case Drain:
			l.drained = append(l.drained, e.Target)
		case Ban:
			l.addBan(&e)
		}
	}
	return l
}

func (l *Layer) addBan(e *Entry) {
	kind, v, _ := strings.Cut(e.Target, ":")
	switch kind {
	case "name":
		l.names[v] = e
	case "uuid":
		if id, err := uuid.Parse(v); err == nil {
			l.uuids[id] = e
		}
	case "ip":
		if p, err := netip.ParsePrefix(v); err == nil {
			l.nets, l.netsP = append(l.nets, e), append(l.netsP, p)
		}
	}
}

// State is what the layer was compiled from (the API shows it).
func (l *Layer) State() State {
	if l == nil {
		return State{}
	}
	return l.state
}

// Drained lists the drained backends, sorted.
func (l *Layer) Drained() []string {
	if l == nil {
		return nil
	}
	return l.drained
}

// forRoute finds the entry of m for a route: its own (by key or any of its
// hosts) before the one for every route.
func forRoute(m map[string]*Entry, key string, hosts []string) *Entry {
	if len(m) == 0 {
		return nil
	}
	if e := m[key]; e != nil {
		return e
	}
	for _, h := range hosts {
		if e := m[h]; e != nil {
			return e
		}
	}
	return m[AllRoutes]
}

// Refuse reports whether a login of p from ip to the route (key and hosts) is
// refused at now, and the Disconnect text it gets. A ban wins over a
// maintenance's bypass list; a ban that ended is no ban.
func (l *Layer) Refuse(key string, hosts []string, p players.Player, ip netip.Addr, now time.Time) (json.RawMessage, bool) {
	if l == nil {
		return nil, false
	}
	if b := l.ban(p, ip, now); b != nil {
		return status.Text(banText(b, now)), true
	}
	m := forRoute(l.maint, key, hosts)
	if m == nil || bypassed(m.Bypass, p) {
		return nil, false
	}
	return status.Text(orDefault(m.Text, DefaultMaintenanceText)), true
}

// ban finds a ban in force on p or ip: by name, then UUID, then address range
// (an ended ban is skipped, not the end of the search).
func (l *Layer) ban(p players.Player, ip netip.Addr, now time.Time) *Entry {
	inForce := func(e *Entry) bool { return e != nil && (e.Expires == nil || now.Before(*e.Expires)) }
	if len(l.names) > 0 {
		if e := l.names[strings.ToLower(p.Name)]; inForce(e) {
			return e
		}
	}
	if e := l.uuids[p.UUID]; p.HasUUID() && inForce(e) {
		return e
	}
	if !ip.IsValid() {
		return nil
	}
	ip = ip.Unmap()
	for i, n := range l.netsP {
		if n.Contains(ip) && inForce(l.nets[i]) {
			return l.nets[i]
		}
	}
	return nil
}

func banText(b *Entry, now time.Time) string {
	s := DefaultBanText
	if b.Text != "" {
		s += "\nReason: " + b.Text
	}
	if b.Expires != nil {
		s += "\nThe ban ends in " + until(b.Expires.Sub(now)) + "."
	}
	return s
}

// until says a wait the way a player reads it: seconds or minutes (status.About)
// under two hours, then hours, then days.
func until(d time.Duration) string {
	switch {
	case d < 2*time.Hour:
		return "about " + status.About(d)
	case d < 48*time.Hour:
		return "about " + strconv.Itoa(int((d+30*time.Minute)/time.Hour)) + " hours"
	}
	return "about " + strconv.Itoa(int((d+12*time.Hour)/(24*time.Hour))) + " days"
}

// bypassed reports whether p is on a maintenance's bypass list.
func bypassed(list []string, p players.Player) bool {
	for _, b := range list {
		pe, err := players.ParseEntry(b)
		if err != nil {
			continue
		}
		if pe.Name != "" && strings.EqualFold(pe.Name, p.Name) || pe.UUID != uuid.Nil && pe.UUID == p.UUID {
			return true
		}
	}
	return false
}

// Status is what the layer changes in the route's status answers: a
// maintenance's text as the MOTD (the favicon and counts stay the backend's),
// over the route's override. Nil when nothing.
func (l *Layer) Status(key string, hosts []string) *status.Patch {
	if l == nil {
		return nil
	}
	o, m := forRoute(l.overrides, key, hosts), forRoute(l.maint, key, hosts)
	if o == nil && m == nil {
		return nil
	}
	p := &status.Patch{}
	if o != nil {
		p.Favicon, p.Version, p.Max = o.Favicon, o.Version, o.MaxPlayers
		if o.MOTD != "" {
			p.Description = status.Text(o.MOTD)
		}
	}
	if m != nil {
		p.Description = status.Text(orDefault(m.Text, DefaultMaintenanceText))
	}
	return p
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
