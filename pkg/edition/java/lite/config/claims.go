package config

import (
	"slices"
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

// decodeHostClaims decodes `hosts: {owner: [pattern, ...]}`. Null leaves
// the default (nil); an empty mapping is kept (not nil): it allows nothing.
func (d *decoder) decodeHostClaims(e entry, dst *HostClaims) {
	if isNull(resolve(e.val)) {
		return
	}
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

// lintCatchAll warns about a file route's catch-all host (`*`, stars only)
// while a discovery source ranks after the file: every discovered exact or
// wildcard host is matched before it, but that source's own catch-all routes
// (mc-router's default server, a claimed `*`) never see a player.
func (d *decoder) lintCatchAll(l *Lite, metas []routeMeta) {
	var shadowed []string
	file := slices.Index(l.Discovery.Precedence, SourceFile)
	for _, s := range l.Discovery.Precedence[file+1:] {
		if s == SourceKubernetes && l.Discovery.Kubernetes.Enabled || s == SourceDocker && l.Discovery.Docker.Enabled {
			shadowed = append(shadowed, s)
		}
	}
	if len(shadowed) == 0 {
		return
	}
	for i, m := range metas {
		for j, h := range l.Routes[i].Host {
			if h == "" || strings.Trim(h, "*") != "" || j >= len(m.hosts) {
				continue
			}
			d.warnf(m.hosts[j].line, m.hosts[j].path, "host %q catches every host: discovered routes are matched before it, "+
				"but the catch-all routes of %s (a default server, a claimed '*') never match while it is here",
				h, strings.Join(shadowed, " and "))
		}
	}
}
