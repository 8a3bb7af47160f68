package enginetest

import (
	"net/netip"
	"os"
	"strings"
	"testing"
)

// Shares of the test addresses 10.9.0.x, so that packages whose tests run at
// once never listen on one another's.
const (
	KubeFirst, KubeLast = 11, 25 // the Kubernetes tests' backends
)

// Addrs returns the test addresses from 10.9.0.first to 10.9.0.last, at
// least n of them; it skips when there are none (not inside scripts/test.sh)
// and fails when there are fewer than n.
func Addrs(t testing.TB, first, last byte, n int) []string {
	t.Helper()
	env := os.Getenv("GATETEST_LO_ADDRS")
	if env == "" {
		t.Skip("needs test addresses on lo: run scripts/test.sh (GATETEST_LO_ADDRS)")
	}
	var out []string
	for a := range strings.SplitSeq(env, ",") {
		ip, err := netip.ParseAddr(strings.TrimSpace(a))
		if err != nil || !ip.Is4() {
			continue
		}
		b := ip.As4()
		if b[0] == 10 && b[1] == 9 && b[2] == 0 && b[3] >= first && b[3] <= last {
			out = append(out, ip.String())
		}
	}
	if len(out) < n {
		t.Fatalf("GATETEST_LO_ADDRS has %d addresses in 10.9.0.%d-10.9.0.%d, want at least %d: run scripts/test.sh", len(out), first, last, n)
	}
	return out
}
