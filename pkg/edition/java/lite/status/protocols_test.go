package status

import (
	"encoding/binary"
	"testing"
)

func TestProtocolsKeyFor(t *testing.T) {
	p := NewProtocols(2)
	if k := p.KeyFor("r", "b", "*.example.com", 765); k.Protocol != UnknownProtocol || k.Host != "*.example.com" {
		t.Fatalf("unlearned key %+v", k)
	}
	p.Learn("r", 765)
	p.Learn("r", 767)
	if k := p.KeyFor("r", "b", "*.example.com", 765); k.Protocol != 765 {
		t.Fatalf("learned 765 keyed as %d", k.Protocol)
	}
	if k := p.KeyFor("other", "b", "x", 765); k.Protocol != UnknownProtocol {
		t.Fatal("learning is per route")
	}
	p.Learn("r", 765) // 767 is now the least recently seen
	p.Learn("r", 769)
	if p.Known("r", 767) || !p.Known("r", 765) || !p.Known("r", 769) {
		t.Fatal("want 767 evicted, 765 and 769 kept")
	}
	if got := p.FetchProtocol("r", UnknownProtocol); got != UnknownProtocol {
		t.Fatalf("fetch protocol before a report %d", got)
	}
	p.Reported("r", 769)
	if got := p.FetchProtocol("r", UnknownProtocol); got != 769 {
		t.Fatalf("fetch protocol %d, want the reported 769", got)
	}
	if got := p.FetchProtocol("r", 765); got != 765 {
		t.Fatalf("learned key fetched with %d", got)
	}
}

// FuzzProtocolsKeyFor drives Learn and KeyFor with client-chosen numbers. However the
// numbers are chosen, a key's protocol is UnknownProtocol or one the route learned
// and still holds, and a route never holds more than its bound: the distinct keys a
// route can have at a time are bounded by perRoute+1 per backend and pattern.
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
			if k.Protocol != UnknownProtocol && (k.Protocol != v || !p.Known(route, v)) {
				t.Fatalf("KeyFor(%d) = %d, not learned", v, k.Protocol)
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
