//go:build linux

package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

// frameLen is a game-sized frame: a sequence number, the send time and a pattern
// that names its player, so a byte lost, doubled or moved anywhere shows.
const frameLen = 32

// gamePlayer is a logged-in session sending frames at a game's rate through the echo
// backend and checking every frame that comes back, in order.
type gamePlayer struct {
	c        *net.TCPConn
	id       byte
	sent     atomic.Uint32
	recv     uint32
	err      error
	mu       sync.Mutex
	rtts     []rttSample
	finished chan struct{}
}

type rttSample struct {
	at  time.Time
	rtt time.Duration
}

// gameLoad is players sending until halt.
type gameLoad struct {
	players []*gamePlayer
	stop    chan struct{}
	wg      sync.WaitGroup
}

// login joins one player through proxy and reads the backend's echo of its login.
func login(t *testing.T, proxy string, name string) *net.TCPConn {
	t.Helper()
	p := joinAs(t, proxy, "play.example.com", name)
	if err := p.echoed(); err != nil {
		t.Fatalf("login %s: %v", name, err)
	}
	_ = p.c.SetDeadline(time.Time{})
	t.Cleanup(func() { _ = p.c.Close() })
	return p.c.(*net.TCPConn)
}

func startGameLoad(t *testing.T, proxy string, n int, rate float64) *gameLoad {
	t.Helper()
	l := &gameLoad{stop: make(chan struct{})}
	every := time.Duration(float64(time.Second) / rate)
	for i := range n {
		p := &gamePlayer{c: login(t, proxy, fmt.Sprintf("p%d", i)), id: byte(i), finished: make(chan struct{})}
		l.players = append(l.players, p)
		l.wg.Go(func() { p.send(l.stop, every, time.Duration(i)*every/time.Duration(n)) })
		l.wg.Go(p.read)
	}
	return l
}

func (p *gamePlayer) frame(seq uint32) []byte {
	var f [frameLen]byte
	binary.BigEndian.PutUint32(f[:], seq)
	binary.BigEndian.PutUint64(f[4:], uint64(time.Now().UnixNano()))
	for i := 12; i < frameLen; i++ {
		f[i] = p.id ^ byte(i)
	}
	return f[:]
}

// send writes a frame every every (from phase on) until stop, then half-closes: the
// echo backend ends the stream after the last echo, so read sees a clean end.
func (p *gamePlayer) send(stop <-chan struct{}, every, phase time.Duration) {
	defer func() { _ = p.c.CloseWrite() }()
	select {
	case <-time.After(phase):
	case <-stop:
		return
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if _, err := p.c.Write(p.frame(p.sent.Load() + 1)); err != nil {
			p.fail(fmt.Errorf("write: %w", err))
			return
		}
		p.sent.Add(1)
		select {
		case <-tick.C:
		case <-stop:
			return
		}
	}
}

// read checks every echoed frame until the stream ends.
func (p *gamePlayer) read() {
	defer close(p.finished)
	var f [frameLen]byte
	for {
		if _, err := io.ReadFull(p.c, f[:]); err != nil {
			if !errors.Is(err, io.EOF) {
				p.fail(fmt.Errorf("read after %d frames: %w", p.recv, err))
			}
			return
		}
		now := time.Now()
		seq, at := binary.BigEndian.Uint32(f[:]), int64(binary.BigEndian.Uint64(f[4:]))
		want := p.frame(p.recv + 1)
		if seq != p.recv+1 || !bytes.Equal(f[12:], want[12:]) {
			p.fail(fmt.Errorf("frame %d arrived where %d was due, or altered", seq, p.recv+1))
			return
		}
		p.recv++
		p.mu.Lock()
		p.rtts = append(p.rtts, rttSample{at: now, rtt: now.Sub(time.Unix(0, at))})
		p.mu.Unlock()
	}
}

func (p *gamePlayer) fail(err error) {
	p.mu.Lock()
	if p.err == nil {
		p.err = err
	}
	p.mu.Unlock()
}

// halt stops sending, waits for every echo and reports the first failure: an error
// (a reset), a frame lost, doubled, reordered or altered, or a stream cut short.
func (l *gameLoad) halt(t *testing.T) {
	t.Helper()
	close(l.stop)
	for _, p := range l.players {
		select {
		case <-p.finished:
		case <-time.After(10 * time.Second):
			t.Fatalf("player %d: echoes stopped at %d of %d", p.id, p.recv, p.sent.Load())
		}
	}
	l.wg.Wait()
	for _, p := range l.players {
		if p.err != nil || p.recv != p.sent.Load() {
			t.Fatalf("player %d: %d frames sent, %d came back in order: %v", p.id, p.sent.Load(), p.recv, p.err)
		}
	}
}

// p99 is the 99th percentile round trip of the frames that came back between from
// and to, and how many there were.
func (l *gameLoad) p99(from, to time.Time) (time.Duration, int) {
	var all []time.Duration
	for _, p := range l.players {
		p.mu.Lock()
		for _, s := range p.rtts {
			if !s.at.Before(from) && !s.at.After(to) {
				all = append(all, s.rtt)
			}
		}
		p.mu.Unlock()
	}
	if len(all) == 0 {
		return 0, 0
	}
	slices.Sort(all)
	return all[len(all)*99/100], len(all)
}

// visitors pings and logs new players in through proxy until stop: every one must be
// served while a hand-over runs. It returns how many of each it did.
func visitors(t *testing.T, proxy string, stop <-chan struct{}) (done func() (pings, logins int)) {
	var wg sync.WaitGroup
	var pings, logins int
	var failed error
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := mctest.Ping(proxy, 764, "play.example.com"); err != nil {
				failed = fmt.Errorf("ping %d: %w", i, err)
				return
			}
			pings++
			if err := visit(proxy, fmt.Sprintf("v%d", i)); err != nil {
				failed = fmt.Errorf("login %d: %w", i, err)
				return
			}
			logins++
		}
	})
	return func() (int, int) {
		wg.Wait()
		if failed != nil {
			t.Fatalf("during the hand-over: %v", failed)
		}
		return pings, logins
	}
}

// visit logs a player in through proxy, checks the backend's echo and leaves.
func visit(proxy, name string) error {
	c, err := net.DialTimeout("tcp", proxy, 5*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	out := mctest.LoginPreamble(764, "play.example.com", name)
	if _, err := c.Write(out); err != nil {
		return err
	}
	got := make([]byte, len(out))
	if _, err := io.ReadFull(c, got); err != nil {
		return err
	}
	if !bytes.Equal(got, out) {
		return errors.New("echo differs")
	}
	return nil
}
