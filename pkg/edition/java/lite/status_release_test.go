package lite_test

import (
	"math/rand/v2"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/status"
)

// Regression: on a ViaVersion network a client whose version no login had used yet got
// the answer fetched with the server's own version, and its server list showed the
// server as incompatible. A real release's protocol is asked for as such, as through
// Gate; numbers no release used still share one fetch.
func TestStatusForAnUnseenReleaseIsFetchedWithItsProtocol(t *testing.T) {
	b := newBackend(t, statusJSON("multi", 1, 100))
	p := startProxy(t, oneRoute("*.example.com", b.addr).with("cachePingTTL: 10s").withTop("connectionTimeout: 500ms").quotasOff().String())
	for _, v := range []int32{47, 340, 773} { // 1.8.x, 1.12.2, 1.21.9: no login has used them
		if _, err := dialProxy(t, p.addr).status(v, "play.example.com"); err != nil {
			t.Fatal(err)
		}
		if got := b.StatusHandshake().Protocol; got != v {
			t.Fatalf("a %d client's answer was fetched with protocol %d", v, got)
		}
	}
	before := b.StatusRequests()
	r := rand.New(rand.NewPCG(9, 9))
	for range 1000 {
		v := r.Int32()
		if r.IntN(2) == 0 {
			v = 1 + r.Int32N(800) // among the release numbers too, but never one of them
		}
		if status.IsRelease(v) {
			continue
		}
		if _, err := dialProxy(t, p.addr).status(v, "play.example.com"); err != nil {
			t.Fatal(err)
		}
	}
	if n := b.StatusRequests() - before; n > 1 {
		t.Fatalf("1000 pings with random non-release protocols cost %d backend fetches, want at most 1", n)
	}
}
