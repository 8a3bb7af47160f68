package lite

import (
	"testing"
	"unsafe"
)

// TestRelayedFitsSizeClass keeps what a joined session holds in this package within the
// 256-byte size class. Every idle player keeps one relayed (next to the relay's link and
// the two sockets) for as long as it stays, so a field that pushes it into the 288-byte
// class costs 32 bytes per player; it has to pay for itself elsewhere (the Event is
// already reduced to its context, the admission ticket to one address).
func TestRelayedFitsSizeClass(t *testing.T) {
	const sizeClass = 256
	if n := unsafe.Sizeof(relayed{}); n > sizeClass {
		t.Fatalf("relayed is %d bytes (conn %d, eventContext %d, admission ticket %d), over the %d-byte size class",
			n, unsafe.Sizeof(conn{}), unsafe.Sizeof(eventContext{}), unsafe.Sizeof(conn{}.ticket), sizeClass)
	}
}
