package config

import (
	"strings"

	"go.minekube.com/gate/pkg/edition/java/lite/route"
)

// HostClaims is a discovery source's `hosts`: the host patterns the objects
// of each owner may claim. An owner is a Kubernetes namespace or a Docker
// container name; an owner key may use the host pattern wildcards (`*`,
// `?`), so `team-*` names every namespace starting with "team-". A claim is
// allowed when some entry whose key matches its owner lists a pattern that
// covers the claimed pattern (see route.Covers): `*.example.com` covers
// `lobby.example.com` and `*.games.example.com`, not `*`. Nil (the default):
// every owner may claim every host, and between owners the first claimant of
// a host keeps it.
type HostClaims []HostClaim

// HostClaim is one entry of HostClaims, in file order.
type HostClaim struct {
	Owner string   // namespace or container name, possibly a pattern
	Hosts []string // host patterns the owner's objects may claim
}

// Allows reports whether owner may claim host.
func (c HostClaims) Allows(owner, host string) bool {
	if c == nil {
		return true
	}
	for _, e := range c {
		if !route.Covers(e.Owner, owner) {
			continue
		}
		for _, p := range e.Hosts {
			if route.Covers(p, host) {
				return true
			}
		}
	}
	return false
}

// decodeHostClaims decodes `hosts: {owner: [pattern, ...]}`. An empty
// mapping is kept (not nil): it allows nothing.
func (d *decoder) decodeHostClaims(e entry, dst *HostClaims) {
	entries, ok := d.pairs(e)
	if !ok {
		return
	}
	out := HostClaims{}
	for _, f := range entries {
		owner := strings.TrimSpace(f.key.Value)
		if owner == "" {
			d.invalid(f, "an owner (namespace or container name) must not be empty")
			continue
		}
		items, ok := d.stringList(f)
		if !ok {
			continue
		}
		hc := HostClaim{Owner: owner}
		for _, it := range items {
			p := strings.ToLower(strings.TrimSpace(it.s))
			if p == "" || strings.ContainsAny(p, " \t\r\n:") {
				d.errorf(it.line, it.path, ErrInvalid, "host pattern %q: want a host pattern without port or whitespace", truncate(it.s))
				continue
			}
			hc.Hosts = append(hc.Hosts, p)
		}
		out = append(out, hc)
	}
	*dst = out
}
