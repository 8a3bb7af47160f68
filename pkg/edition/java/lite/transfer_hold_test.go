package lite_test

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// longHoldProxy serves wakeConfig with holdFor 1s, transferHoldFor 20s and a
// readTimeout of 900ms, which makes parked players get a keep-alive every 300ms.
func longHoldProxy(t *testing.T, e *engine, extra ...string) *proxy {
	return wakeProxy(t, e, "1s", "10m", refusedAddr(t), func(y string) string {
		y = strings.Replace(y, "holdFor: 1s", strings.Join(append([]string{"holdFor: 1s", "transferHoldFor: 20s"}, extra...), "\n        "), 1)
		return strings.Replace(y, "connectionTimeout: 2s", "connectionTimeout: 2s\n  readTimeout: 900ms", 1)
	})
}

// parkedClient logs in to the sleepy route and acknowledges the proxy's Login Success.
func parkedClient(t *testing.T, addr string, protocol int32) *client {
	t.Helper()
	ids, _ := wire.LookupTransfer(protocol)
	c := dialProxy(t, addr)
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	c.send(handshake(protocol, "sleepy.example.com", wire.IntentLogin), loginStart("Steve"))
	if id, _, err := c.frame(); err != nil || id != ids.LoginSuccess {
		t.Fatalf("frame 0x%02x (%v), want login success", id, err)
	}
	c.send(wire.AppendFrame(nil, ids.LoginAcknowledged, nil))
	return c
}

// untilTransfer answers keep-alives until the Transfer comes; it returns the
// Transfer's host and port and how many keep-alives were answered.
func untilTransfer(t *testing.T, c *client, protocol int32) (host string, port uint16, kept int) {
	t.Helper()
	ids, _ := wire.LookupTransfer(protocol)
	for {
		id, p, err := c.frame()
		switch {
		case err != nil:
			t.Fatalf("parked client: %v after %d keep-alives", err, kept)
		case id == ids.KeepAliveClientbound && len(p) == 8:
			kept++
			c.send(wire.AppendFrame(nil, ids.KeepAliveServerbound, p))
		case id == ids.Transfer:
			host, port, err := wire.ParseTransfer(p)
			if err != nil {
				t.Fatal(err)
			}
			return host, port, kept
		default:
			t.Fatalf("unexpected frame 0x%02x %x", id, p)
		}
	}
}

// A 1.21 player not joined within holdFor is parked with keep-alives while the server
// takes longer than the client would wait, transferred to the address they used once
// it answers, and their returning login (intent 3) reaches the backend as an ordinary
// login (intent 2), byte-exact otherwise; one wake call in all.
func TestTransferLongHoldParksAndJoins(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	e.delay = 3 * time.Second
	p := longHoldProxy(t, e)
	waitAsleep(t, p, e.key)
	c := parkedClient(t, p.addr, 767)
	host, port, kept := untilTransfer(t, c, 767)
	if host != "sleepy.example.com" || port != wire.DefaultPort || kept < 3 {
		t.Fatalf("transfer to %s:%d after %d keep-alives, want sleepy.example.com:%d after several", host, port, kept, wire.DefaultPort)
	}
	_ = c.Close()
	back := dialProxy(t, p.addr)
	pre := append(handshake(767, host, wire.IntentTransfer), loginStart("Steve")...)
	back.send(pre)
	want := append(handshake(767, host, wire.IntentLogin), loginStart("Steve")...)
	if got := back.readN(len(want)); !bytes.Equal(got, want) {
		t.Fatalf("backend got %x, want the ordinary login %x", got, want)
	}
	if w := e.wakes.Load(); w != 1 {
		t.Fatalf("%d wake calls, want 1", w)
	}
}

// transferKeepIntent: true replays the returning login as it came (intent 3).
func TestTransferLongHoldKeepIntent(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	e.delay = 1500 * time.Millisecond
	p := longHoldProxy(t, e, "transferKeepIntent: true")
	waitAsleep(t, p, e.key)
	c := parkedClient(t, p.addr, 767)
	host, _, _ := untilTransfer(t, c, 767)
	_ = c.Close()
	back := dialProxy(t, p.addr)
	pre := append(handshake(767, host, wire.IntentTransfer), loginStart("Steve")...)
	back.send(pre)
	if got := back.readN(len(pre)); !bytes.Equal(got, pre) {
		t.Fatalf("backend got %x, want %x", got, pre)
	}
}

// A 1.20.4 client has no Transfer: it gets today's starting Disconnect at holdFor.
func TestTransferLongHoldOldClientGetsStartingText(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	e.never = true
	p := longHoldProxy(t, e)
	waitAsleep(t, p, e.key)
	c := dialProxy(t, p.addr)
	c.send(mctest.LoginPreamble(765, "sleepy.example.com", "Alex"))
	if txt := c.disconnectText(); !strings.Contains(txt, "is starting up") {
		t.Fatalf("told %s, want the starting text", txt)
	}
}

// A parked player who leaves frees the hold at once, not at a keep-alive deadline;
// one who stops answering keep-alives is dropped within two intervals.
func TestTransferParkedPlayerWhoLeavesFreesAtOnce(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	e.never = true
	p := longHoldProxy(t, e)
	waitAsleep(t, p, e.key)
	c := parkedClient(t, p.addr, 768)
	waitFor(t, "player parked", 5*time.Second, func() bool { return p.HeldLogins() == 1 })
	_ = c.Close()
	start := time.Now()
	waitFor(t, "parked player freed", 5*time.Second, func() bool { return p.HeldLogins() == 0 })
	if d := time.Since(start); d > 300*time.Millisecond {
		t.Fatalf("freed %v after the player left", d)
	}
	silent := parkedClient(t, p.addr, 768)
	waitFor(t, "silent player parked", 5*time.Second, func() bool { return p.HeldLogins() == 1 })
	waitFor(t, "silent player dropped", 3*time.Second, func() bool { return p.HeldLogins() == 0 })
	for { // what is left is keep-alives it never answered, then the close
		id, _, err := silent.frame()
		if err != nil {
			break
		}
		if id != 0x04 {
			t.Fatalf("silent player got frame 0x%02x, want keep-alives then the close", id)
		}
	}
}

// Fifty 1.21 players held past holdFor by a server that starts 3 s after the one wake
// call: all are parked, transferred back, and reach the server as ordinary logins.
func TestTransferLongHoldFiftyPlayers(t *testing.T) {
	e := newEngine(t, "webhook sleepy", sleepyStatus)
	e.delay = 3 * time.Second
	p := longHoldProxy(t, e)
	waitAsleep(t, p, e.key)
	const players = 50
	errs := make([]error, players)
	var wg sync.WaitGroup
	for i := range players {
		wg.Go(func() { errs[i] = parkAndReturn(p.addr, "p"+strconv.Itoa(i)) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("player %d: %v", i, err)
		}
	}
	if w := e.wakes.Load(); w != 1 {
		t.Fatalf("%d wake calls for %d players, want 1", w, players)
	}
}

// parkAndReturn is one 1.21.1 player of a long hold, as a vanilla client: log in,
// answer keep-alives until the Transfer, then log in again with intent 3; the
// backend's echo must be the ordinary login (intent 2).
func parkAndReturn(addr, name string) error {
	ids, _ := wire.LookupTransfer(767)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	c := mctest.NewClient(conn)
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	ls := wire.AppendLoginStart(nil, 767, wire.LoginStart{Name: name, HasUUID: true}, nil)
	_, _ = c.Write(append(handshake(767, "sleepy.example.com", wire.IntentLogin), ls...))
	if id, _, err := c.ReadFrame(); err != nil || id != ids.LoginSuccess {
		return fmt.Errorf("frame 0x%02x (%v), want login success", id, err)
	}
	_, _ = c.Write(wire.AppendFrame(nil, ids.LoginAcknowledged, nil))
	for {
		id, pl, err := c.ReadFrame()
		if err != nil {
			return fmt.Errorf("parked: %w", err)
		}
		if id == ids.Transfer {
			break
		}
		_, _ = c.Write(wire.AppendFrame(nil, ids.KeepAliveServerbound, pl))
	}
	back, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer back.Close()
	_ = back.SetDeadline(time.Now().Add(10 * time.Second))
	_, _ = back.Write(append(handshake(767, "sleepy.example.com", wire.IntentTransfer), ls...))
	want := append(handshake(767, "sleepy.example.com", wire.IntentLogin), ls...)
	got := make([]byte, len(want))
	if _, err := io.ReadFull(back, got); err != nil || !bytes.Equal(got, want) {
		return fmt.Errorf("backend echoed %x (%v), want %x", got, err, want)
	}
	return nil
}
