package lite_test

import (
	"bufio"
	"bytes"
	"errors"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// sessionConfig is one route over backends a and b with short backend deadlines.
func sessionConfig(a, b string) string {
	return oneRoute("*", a, b).withTop("connectionTimeout: 500ms", "readTimeout: 3s").String()
}

// A backend that dies mid-session: the player is closed promptly and every count the
// session held is released.
func TestBackendCrashMidSession(t *testing.T) {
	a := newBackend(t, "")
	p := startProxy(t, sessionConfig(a.addr, refusedAddr(t)))
	c := dialProxy(t, p.addr)
	c.login("a.example.com")
	waitFor(t, "session counted", 5*time.Second, func() bool { return activeOn(p, a.addr) == 1 })
	start := time.Now()
	a.kill()
	c.expectClosed()
	if d := time.Since(start); d > time.Second {
		t.Fatalf("player closed %v after the crash", d)
	}
	_ = c.Close() // a client closes once it reads EOF
	admissionSettled(t, p)
}

// loginOutcome is how one login attempt of a burst ended.
type loginOutcome int

const (
	outcomeJoined     loginOutcome = iota // the backend echoed the handshake
	outcomeDisconnect                     // a Login Disconnect text
	outcomeClosed                         // closed without a word (backend crashed mid-login)
	outcomeHung                           // nothing within the client's deadline: a bug
)

// tryLogin logs in once without failing the test (it runs on other goroutines).
func tryLogin(addr, host string) loginOutcome {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return outcomeClosed
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(8 * time.Second))
	hs := handshake(765, host, wire.IntentLogin)
	if _, err := c.Write(append(append([]byte(nil), hs...), loginStart("Burst")...)); err != nil {
		return outcomeClosed
	}
	br := bufio.NewReader(c)
	var buf []byte
	for {
		_, payload, n, err := wire.ParseFrame(buf, 1<<16)
		if err == nil {
			if bytes.Equal(buf[:n], hs) {
				return outcomeJoined
			}
			if bytes.Contains(payload, []byte(`"text"`)) {
				return outcomeDisconnect
			}
			return outcomeClosed
		}
		b, rerr := br.ReadByte()
		if rerr != nil {
			if ne, ok := errors.AsType[net.Error](rerr); ok && ne.Timeout() {
				return outcomeHung
			}
			return outcomeClosed
		}
		buf = append(buf, b)
	}
}

// burst runs n logins at once and counts their outcomes.
func burst(addr string, n int, during func()) [4]int {
	var mu sync.Mutex
	var counts [4]int
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			o := tryLogin(addr, "burst.example.com")
			mu.Lock()
			counts[o]++
			mu.Unlock()
		})
	}
	if during != nil {
		during()
	}
	wg.Wait()
	return counts
}

// The first backend restarts while logins pour in: each login joins (the restarting
// backend or the failover one), or at worst is closed by the crash; none hangs, and
// once the burst is over nothing is left counted.
func TestBackendRestartDuringLoginBurst(t *testing.T) {
	a, b := newBackend(t, ""), newBackend(t, "")
	p := startProxy(t, sessionConfig(a.addr, b.addr))
	if got := burst(p.addr, 20, nil); got != [4]int{20, 0, 0, 0} {
		t.Fatalf("before the restart: %v", got)
	}
	got := burst(p.addr, 40, a.kill)
	if got[outcomeHung] != 0 || got[outcomeJoined]+got[outcomeClosed] != 40 {
		t.Fatalf("during the crash: joined %d, disconnect %d, closed %d, hung %d",
			got[outcomeJoined], got[outcomeDisconnect], got[outcomeClosed], got[outcomeHung])
	}
	a2 := newBackendOn(t, a.addr)
	got = burst(p.addr, 40, nil)
	if got != [4]int{40, 0, 0, 0} {
		t.Fatalf("after the restart: %v", got)
	}
	if a2.Logins()+b.Logins() < 40 {
		t.Fatalf("restarted a got %d, b got %d", a2.Logins(), b.Logins())
	}
	admissionSettled(t, p)
}

// plateau waits until counter stops growing (its writer is blocked by flow control) and
// returns its value.
func plateau(t *testing.T, counter func() int64) int64 {
	t.Helper()
	last, since := int64(-1), time.Now()
	waitFor(t, "writer blocked by flow control", 20*time.Second, func() bool {
		if v := counter(); v != last {
			last, since = v, time.Now()
			return false
		}
		return time.Since(since) > 300*time.Millisecond
	})
	return last
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// A side that stops reading must stall the other side through TCP flow control, not
// make the proxy buffer: bytes in flight stay within the sockets' buffers.
func TestSlowReaderMemoryStaysBounded(t *testing.T) {
	t.Run("player stops reading", func(t *testing.T) {
		f := newFaultyBackend(t, mctest.FaultFlood)
		p, c, before := slowSession(t, f.addr)
		stalledWithinBounds(t, "backend", plateau(t, f.BytesOut), before)
		_ = c.Close()
		admissionSettled(t, p)
	})
	t.Run("backend stops reading", func(t *testing.T) {
		stall := newFaultyBackend(t, mctest.FaultStall)
		p, c, before := slowSession(t, stall.addr)
		var written atomic.Int64
		done := mctest.Flood(c.Conn, &written)
		stalledWithinBounds(t, "player", plateau(t, written.Load), before)
		_ = c.Close()
		<-done
		// The backend recovers here, so this test measures memory, not the stall bound
		// (TestPlayerLeavingAStalledBackendIsReleased covers that).
		stall.close()
		admissionSettled(t, p)
	})
}

// slowSession logs a player in to backend and returns the proxy, the player and the
// proxy's heap in use before the login.
func slowSession(t *testing.T, backend string) (*proxy, *client, uint64) {
	p := startProxy(t, sessionConfig(backend, refusedAddr(t)))
	before := heapInUse()
	c := dialProxy(t, p.addr)
	c.send(handshake(765, "a.example.com", wire.IntentLogin), loginStart("Slow"))
	return p, c, before
}

// stalledWithinBounds checks that the writer (who: "player" or "backend") stalled
// after at most 64 MiB in flight, and the proxy's heap grew at most 8 MiB since
// before.
func stalledWithinBounds(t *testing.T, who string, got int64, before uint64) {
	t.Helper()
	const maxInFlight, maxHeapGrowth = 64 << 20, 8 << 20
	if grew := int64(heapInUse()) - int64(before); got > maxInFlight || grew > maxHeapGrowth {
		t.Fatalf("%s wrote %d bytes before stalling; proxy heap grew %d bytes", who, got, grew)
	}
	t.Logf("%s stalled after %d bytes", who, got)
}
