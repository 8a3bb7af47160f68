//go:build linux

package relay

import (
	"net"
	"runtime"
	"testing"
	"unsafe"
)

// TestLinkFitsSizeClass keeps a link within the 352-byte size class. Every idle
// session keeps one; the next class is 384 bytes, 32 more per idle player. A field that
// crosses the line has to pay for itself elsewhere in the link (both directions and
// the loop's state are inside it).
func TestLinkFitsSizeClass(t *testing.T) {
	const sizeClass = 352
	if n := unsafe.Sizeof(link{}); n > sizeClass {
		t.Fatalf("link is %d bytes (dir %d, linkLoop %d), over the %d-byte size class",
			n, unsafe.Sizeof(dir{}), unsafe.Sizeof(linkLoop{}), sizeClass)
	}
}

// TestStartAllocations pins what Start allocates for a pipe that parks: the link,
// which its idle session keeps, and a raw conn and a callback per socket to duplicate
// its descriptor, garbage once Start returns. Anything more per call would show here.
func TestStartAllocations(t *testing.T) {
	const runs, want = 50, 5
	var r Relay
	done := func(Result) {}
	pairs := make([][2]*net.TCPConn, 2*runtime.GOMAXPROCS(0)+runs+1)
	for i := range pairs {
		client, _ := tcpPair(t)
		backend, _ := tcpPair(t)
		pairs[i] = [2]*net.TCPConn{client, backend}
	}
	next := 0
	start := func() {
		r.Start(pairs[next][0], pairs[next][1], Options{}, done)
		next++
	}
	for range 2 * runtime.GOMAXPROCS(0) { // every poller shard started once
		start()
	}
	allocs := testing.AllocsPerRun(runs, start)
	parked := r.Stats().Parked
	r.Abort()
	waitCond(t, "the pipes to end", func() bool { return r.Stats().Sessions == 0 })
	if parked != 2*len(pairs) {
		t.Fatalf("%d directions parked, want %d", parked, 2*len(pairs))
	}
	if allocs > want {
		t.Errorf("Start allocates %v objects, want at most %d", allocs, want)
	}
}
