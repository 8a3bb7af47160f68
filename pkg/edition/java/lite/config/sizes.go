package config

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Per-route size caps. A route's hosts, backends and settings come from the
// file or from a discovered object's annotations and labels, which a tenant
// writes. Every host is matched, linted and claimed one by one, every backend
// is probed and exported as series of its own, and each setting is parsed as
// YAML: without caps one 900 KB label of 50,000 hosts cost 37 MB of /metrics.
// Each cap is far above what a real network writes; over one, a file is
// refused with the key's line and a discovered route is rejected, with one log
// line naming the object and the key.
const (
	// MaxHostsPerRoute caps a route's host patterns. A real route lists a
	// network's few addresses (with and without "mc.", a couple of domains);
	// more names than this are several routes or one wildcard.
	MaxHostsPerRoute = 256

	// maxHostPattern caps one host pattern: a vanilla client sends at most 255
	// bytes of host (a DNS name has at most 253), and route matching costs up
	// to len(host) times len(pattern), so a longer pattern only adds cost.
	maxHostPattern = 255

	// MaxBackendsPerRoute caps a route's backends. Each is health-checked,
	// ordered on every login and exported as about 30 series; a network behind
	// one address runs tens of servers, not thousands.
	MaxBackendsPerRoute = 1024

	// MaxSettingBytes caps the text of one discovered setting (an annotation's
	// or a label's value), which is parsed as YAML before any key's own check
	// sees it. The largest real value is a fallback with a favicon data URI and
	// a MOTD, each capped on its own (maxFaviconURI, maxTextJSON); both fit.
	// Kubernetes allows 256 KiB of annotations per object, Docker no limit.
	MaxSettingBytes = 64 << 10

	// maxRouteKey caps a route's identity (RouteKey): it labels the route's
	// series in /metrics and its field in every session's log line.
	maxRouteKey = 128
)

// overCap reports a list at e longer than limit, and returns whether it was,
// so that the caller skips decoding its items.
func (d *decoder) overCap(e entry, limit int, what string) bool {
	n := resolve(e.val)
	if n == nil || n.Kind != yaml.SequenceNode || len(n.Content) <= limit {
		return false
	}
	d.errorf(e.val.Line, e.path, ErrLimit, "%d %s (limit %d): split the route", len(n.Content), what, limit)
	return true
}

// checkSizes reports what of in is over a cap. DecodeDiscovered runs it
// first, before building anything from in, and so does CheckSizes.
func (d *decoder) checkSizes(in Discovered) {
	if len(in.Hosts) > MaxHostsPerRoute {
		d.errorf(0, "host", ErrLimit, "%d host patterns (limit %d)", len(in.Hosts), MaxHostsPerRoute)
	}
	for _, h := range in.Hosts {
		if len(h) > maxHostPattern {
			d.errorf(0, "host", ErrLimit, "invalid host pattern %q: %v", truncate(h), errLongPattern)
			break // one is enough to reject the route
		}
	}
	if len(in.Backends) > MaxBackendsPerRoute {
		d.errorf(0, "backend", ErrLimit, "%d backends (limit %d)", len(in.Backends), MaxBackendsPerRoute)
	}
	var over []string // rare: the common case allocates nothing
	for k, v := range in.Settings {
		if len(v) > MaxSettingBytes {
			over = append(over, k)
		}
	}
	slices.Sort(over)
	for _, k := range over {
		d.errorf(0, child("", k), ErrLimit, "value of %d bytes (limit %d KiB)", len(in.Settings[k]), MaxSettingBytes>>10)
	}
}

// CheckSizes returns the caps in exceeds, as an ErrorList in DecodeDiscovered's
// form, or nil. A caller that works on a discovered route before decoding it
// (host claims) checks first, so that an oversized object costs one rejection,
// not one step per host.
func (in Discovered) CheckSizes() error {
	d := &decoder{file: in.Origin}
	d.checkSizes(in)
	if len(d.errs) == 0 {
		return nil
	}
	for _, e := range d.errs {
		e.Path = prefixed(in.KeyPrefix, e.Path)
	}
	return d.errs
}

// RouteKey names a route by its hosts, for logs, metrics and the state kept
// across reloads: the hosts joined with ",", or, when that is longer than
// maxRouteKey, the leading hosts that fit, how many more there are and a hash
// of them all, so that two routes whose hosts differ keep different names:
// "a.example.com,b.example.com +254 more #5f2c1a9e0b3d4c7f".
func RouteKey(hosts []string) string {
	joined := strings.Join(hosts, ",")
	if len(joined) <= maxRouteKey {
		return joined
	}
	sum := sha256.New()
	for _, h := range hosts {
		sum.Write([]byte(strconv.Itoa(len(h)) + ":" + h)) // unambiguous whatever a host holds
	}
	tag := " #" + hex.EncodeToString(sum.Sum(nil)[:8])
	room := maxRouteKey - len(tag) - len(moreHosts(len(hosts)-1)) // at least one is shown
	var b strings.Builder
	shown := 0
	for _, h := range hosts {
		if b.Len()+len(h)+min(shown, 1) > room {
			break
		}
		if shown > 0 {
			b.WriteByte(',')
		}
		b.WriteString(h)
		shown++
	}
	if shown == 0 { // not even the first host fits: show its start
		b.WriteString(clipBytes(hosts[0], room-len("...")) + "...")
		shown = 1
	}
	return b.String() + moreHosts(len(hosts)-shown) + tag
}

// moreHosts says how many hosts a RouteKey leaves out.
func moreHosts(n int) string {
	if n == 0 {
		return ""
	}
	return " +" + strconv.Itoa(n) + " more"
}

// clipBytes cuts s to at most n bytes, never inside a UTF-8 sequence.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
