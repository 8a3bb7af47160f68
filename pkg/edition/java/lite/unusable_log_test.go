package lite_test

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.minekube.com/gate/pkg/lite/logging"
)

// lockedBuffer is an io.Writer the proxy's goroutines may share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// Regression: the "unusable address" error embedded the player-chosen address whole in
// its error text, so every login was a new error to the log limiter and a 4 KB host
// wrote a 4 KB line: 100 logins wrote megabytes.
func TestUnusableAddressLogIsClippedAndRateLimited(t *testing.T) {
	spare := newBackend(t, "")
	var out lockedBuffer
	log, err := logging.New(&out, logging.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, oneRoute("*.example.com", "127.0.0.1:$1", spare.addr).quotasOff().String(), proxyOpts{log: log})
	for i := range 100 {
		// A different 4 KB port each time: digits, so it is not a valid port.
		host := strings.Repeat("9", 4000) + strconv.Itoa(i) + ".example.com"
		dialProxy(t, p.addr).login(host)
		spare.next(t)
	}
	var lines []string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.Contains(l, "unusable address") {
			lines = append(lines, l)
		}
	}
	t.Logf("%d lines, %d bytes of log in all", len(lines), len(out.String()))
	if len(lines) == 0 || len(lines) > 3 {
		t.Fatalf("%d unusable-address lines, want 1 to 3", len(lines))
	}
	for _, l := range lines {
		if len(l) >= 512 {
			t.Fatalf("line of %d bytes, want < 512: %.200s...", len(l), l)
		}
	}
}
