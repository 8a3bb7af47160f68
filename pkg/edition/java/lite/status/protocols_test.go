package status

import (
	"encoding/binary"
	"slices"
	"testing"
)

func TestProtocolsKeyFor(t *testing.T) {
	p := NewProtocols(2)
	if k := p.KeyFor("r", "b", "*.example.com", 1001); k.Protocol != UnknownProtocol || k.Host != "*.example.com" {
		t.Fatalf("unlearned key %+v", k)
	}
	p.Learn("r", 1001)
	p.Learn("r", 1002)
	if k := p.KeyFor("r", "b", "*.example.com", 1001); k.Protocol != 1001 {
		t.Fatalf("learned 1001 keyed as %d", k.Protocol)
	}
	if k := p.KeyFor("other", "b", "x", 1001); k.Protocol != UnknownProtocol {
		t.Fatal("learning is per route")
	}
	p.Learn("r", 1001) // 1002 is now the least recently seen
	p.Learn("r", 1003)
	if p.Known("r", 1002) || !p.Known("r", 1001) || !p.Known("r", 1003) {
		t.Fatal("want 1002 evicted, 1001 and 1003 kept")
	}
	if got := p.FetchProtocol("r", UnknownProtocol); got != UnknownProtocol {
		t.Fatalf("fetch protocol before a report %d", got)
	}
	p.Reported("r", 1003)
	if got := p.FetchProtocol("r", UnknownProtocol); got != 1003 {
		t.Fatalf("fetch protocol %d, want the reported 1003", got)
	}
	if got := p.FetchProtocol("r", 1001); got != 1001 {
		t.Fatalf("learned key fetched with %d", got)
	}
}

// FuzzProtocolsKeyFor drives Learn and KeyFor with client-chosen numbers. However the
// numbers are chosen, a key's protocol is UnknownProtocol, a release's, or one the
// route learned and still holds, and a route never holds more than its bound: the
// distinct keys a route can have at a time are bounded by the release table plus
// perRoute+1 per backend and pattern.
func FuzzProtocolsKeyFor(f *testing.F) {
	f.Add([]byte{0, 0xfd, 0x02, 0, 0, 1, 0xfd, 0x02, 0, 0})
	f.Add([]byte{0, 0xff, 0xff, 0xff, 0xff, 1, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, ops []byte) {
		const perRoute = 4
		p := NewProtocols(perRoute)
		for len(ops) >= 5 {
			op, v := ops[0], int32(binary.LittleEndian.Uint32(ops[1:5]))
			ops = ops[5:]
			route := string(rune('a' + op%3))
			if op&0x80 != 0 {
				p.Learn(route, v)
				if v != UnknownProtocol && !p.Known(route, v) {
					t.Fatalf("Learn(%q, %d) then not Known", route, v)
				}
			}
			k := p.KeyFor(route, "10.0.0.1:25565", "*.example.com", v)
			if k.Protocol != UnknownProtocol && (k.Protocol != v || !(IsRelease(v) || p.Known(route, v))) {
				t.Fatalf("KeyFor(%d) = %d, neither a release nor learned", v, k.Protocol)
			}
			if k.Host != "*.example.com" || k.Route != route {
				t.Fatalf("key %+v", k)
			}
			if n := len(p.routes[route]); n > perRoute {
				t.Fatalf("route holds %d protocols, bound %d", n, perRoute)
			}
		}
	})
}

// Regression: on a multi-version network a client whose version no login had used yet
// was answered with the shared key, fetched with the server's own version, and saw
// the server as incompatible. Every release number keys its own answer; other numbers
// still fold into one.
func TestReleaseProtocolsKeyTheirOwnAnswer(t *testing.T) {
	if !slices.IsSorted(releaseProtocols) {
		t.Fatal("releaseProtocols must be ascending for the binary search")
	}
	tests := []struct {
		name string
		v    int32
		want int32
	}{
		{"1.7.2", 4, 4},
		{"1.8.9", 47, 47},
		{"1.12.2", 340, 340},
		{"1.20.4", 765, 765},
		{"1.21.10", 773, 773},
		{"between 1.8 and 1.9", 48, UnknownProtocol},
		{"a snapshot", 0x40000000 + 200, UnknownProtocol},
		{"pingers' -1", -1, UnknownProtocol},
		{"zero", 0, UnknownProtocol},
		{"a large random number", 1 << 30, UnknownProtocol},
	}
	p := NewProtocols(0)
	for _, tc := range tests {
		k := p.KeyFor("r", "b", "*", tc.v)
		if k.Protocol != tc.want {
			t.Errorf("%s (%d): keyed %d, want %d", tc.name, tc.v, k.Protocol, tc.want)
		}
		if got := p.FetchProtocol("r", k.Protocol); tc.want != UnknownProtocol && got != tc.v {
			t.Errorf("%s: fetched with %d, want the client's %d", tc.name, got, tc.v)
		}
	}
}
