package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"sync"
	"syscall"
	"time"
)

// active logs n players in through the target, then has each send a frame every
// 1/rate seconds at a seeded random phase, for warm + dur, and reads the backend's
// echoes. The players are split over a few drivers, each one goroutine with an epoll
// instance of its own that sends every frame due at a wake and reads every echo that
// arrived, with plain read and write calls: a goroutine and a ticker per player would
// cost the shared cores more than the proxy under test at a few thousand players.
func active(ctx context.Context, t target, o activeOptions) (*activeResult, error) {
	res := &activeResult{Mode: "active", Label: t.label, Players: o.players, Rate: o.rate, Size: o.size, Seconds: o.dur.Seconds()}
	conns, errs := openIdle(ctx, t, nameEcho, o.players, o.conc)
	res.Errors, res.FirstError = errs.count()
	fds, err := detach(conns)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, fd := range fds {
			_ = syscall.Close(fd)
		}
	}()
	if len(fds) == 0 {
		return res, nil
	}
	period := time.Duration(float64(time.Second) / o.rate)
	ds, err := newDrivers(o, period, activePlayers(fds, o, period))
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, d := range ds {
			_ = syscall.Close(d.epfd)
		}
	}()
	proxy, self := t.sampler, newSampler([]int{selfPID})
	base := time.Now()
	var wg sync.WaitGroup
	var sampleErr error
	var pcpu, lcpu time.Duration
	wg.Go(func() {
		pcpu, lcpu, res.RSSKiB, sampleErr = sampleWindow(ctx, proxy, self, base.Add(o.warm), base.Add(o.warm+o.dur))
	})
	for _, d := range ds {
		wg.Go(func() { d.run(ctx, base) })
	}
	wg.Wait()
	if sampleErr != nil {
		return nil, sampleErr
	}
	res.add(ds, errs)
	res.CPUSeconds, res.LoadCPUSeconds = pcpu.Seconds(), lcpu.Seconds()
	res.CoresBusy, res.LoadCoresBusy = pcpu.Seconds()/o.dur.Seconds(), lcpu.Seconds()/o.dur.Seconds()
	if res.Delivered > 0 {
		res.CPUUsPerPacket = float64(pcpu.Microseconds()) / float64(2*res.Delivered)
	}
	return res, ctx.Err()
}

// activePlayers gives each socket a player with a seeded random phase within period.
func activePlayers(fds []int, o activeOptions, period time.Duration) []*activePlayer {
	rng := rand.New(rand.NewPCG(o.seed, o.seed^0x9e3779b97f4a7c15))
	ps := make([]*activePlayer, len(fds))
	for i, fd := range fds {
		ps[i] = &activePlayer{fd: fd, phase: time.Duration(rng.Int64N(int64(period))), in: make([]byte, 0, o.size)}
	}
	return ps
}

// newDrivers makes o.drivers drivers (at most one a player) and deals the players
// out to them in turn.
func newDrivers(o activeOptions, period time.Duration, ps []*activePlayer) ([]*driver, error) {
	ds := make([]*driver, min(o.drivers, len(ps)))
	for i := range ds {
		d, err := newDriver(o, period, o.warm, o.warm+o.dur)
		if err != nil {
			for _, d := range ds[:i] {
				_ = syscall.Close(d.epfd)
			}
			return nil, err
		}
		ds[i] = d
	}
	for i, p := range ps {
		ds[i%len(ds)].add(p)
	}
	return ds, nil
}

// add sums what the drivers counted and measured into r.
func (r *activeResult) add(ds []*driver, errs *errorCount) {
	var rtts []time.Duration
	for _, d := range ds {
		r.Sent += d.sent
		r.Blocked += d.blocked
		r.Delivered += d.delivered
		r.Mismatched += d.mismatched
		rtts = append(rtts, d.rtts...)
		if d.err != nil {
			errs.add(d.err)
		}
	}
	r.Errors, r.FirstError = errs.count()
	r.Lost = r.Sent + r.Blocked - r.Delivered
	r.latencies = summarize(rtts)
}

// sampleWindow reads the proxy's and this process's CPU at from and at to, and the
// proxy's resident memory at to.
func sampleWindow(ctx context.Context, proxy, self *sampler, from, to time.Time) (pcpu, lcpu time.Duration, rss int64, err error) {
	var a, b, sa, sb usage
	for i, at := range []time.Time{from, to} {
		timer := time.NewTimer(time.Until(at))
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return 0, 0, 0, nil
		}
		p, err := proxy.sample()
		if err != nil {
			return 0, 0, 0, err
		}
		s, err := self.sample()
		if err != nil {
			return 0, 0, 0, err
		}
		if i == 0 {
			a, sa = p, s
		} else {
			b, sb = p, s
		}
	}
	return b.CPU - a.CPU, sb.CPU - sa.CPU, b.RSSKiB, nil
}

// detach takes each connection's socket out of the Go runtime: a duplicate descriptor
// the drivers read and write directly, the original closed (which also removes it
// from the runtime's poller, so only the driver's epoll sees it).
func detach(conns []net.Conn) ([]int, error) {
	fds := make([]int, 0, len(conns))
	var ferr error
	for _, c := range conns {
		if ferr != nil {
			_ = c.Close()
			continue
		}
		raw, err := c.(*net.TCPConn).SyscallConn()
		if err != nil {
			ferr = err
			_ = c.Close()
			continue
		}
		var nfd int
		var derr error
		if err := raw.Control(func(fd uintptr) { nfd, derr = syscall.Dup(int(fd)) }); err != nil {
			derr = err
		}
		_ = c.Close()
		if derr != nil {
			ferr = fmt.Errorf("dup player socket: %w", derr)
			continue
		}
		syscall.CloseOnExec(nfd)
		fds = append(fds, nfd)
	}
	if ferr != nil {
		for _, fd := range fds {
			_ = syscall.Close(fd)
		}
		return nil, ferr
	}
	return fds, nil
}

// activePlayer is one player's socket and where its frames are.
type activePlayer struct {
	fd    int
	phase time.Duration // offset of its sends within each period
	seq   uint64        // next frame to send
	rseq  uint64        // next echo expected
	in    []byte        // a partly received echo
	out   []byte        // the unwritten tail of a frame the socket took only part of
}

// windowBit marks the sequence number of a frame due in the measured window, so its
// echo counts whatever its timing.
const windowBit = 1 << 63

// driver runs a share of the players on one goroutine: they are kept in phase order,
// so the next send due is always the cursor's.
type driver struct {
	epfd            int
	players         []*activePlayer
	period          time.Duration
	from, to, grace time.Duration
	frame           []byte
	buf             []byte
	// Counters of frames due in the window (see activeResult).
	sent, blocked, delivered, mismatched int64
	rtts                                 []time.Duration
	err                                  error
}

func newDriver(o activeOptions, period, from, to time.Duration) (*driver, error) {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll_create1: %w", err)
	}
	return &driver{epfd: epfd, period: period, from: from, to: to, grace: o.grace,
		frame: activeFrame(o.size), buf: make([]byte, 64<<10)}, nil
}

func (d *driver) add(p *activePlayer) {
	d.players = append(d.players, p)
}

// run sends and reads until the window's echoes are in (or the grace ran out).
func (d *driver) run(ctx context.Context, base time.Time) {
	slices.SortFunc(d.players, func(a, b *activePlayer) int { return int(a.phase - b.phase) })
	for i, p := range d.players {
		// Level-triggered: an echo left unread (a buffer's worth) shows again next wait.
		ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(i)}
		if err := syscall.EpollCtl(d.epfd, syscall.EPOLL_CTL_ADD, p.fd, &ev); err != nil {
			d.err = fmt.Errorf("epoll_ctl: %w", err)
			return
		}
	}
	events := make([]syscall.EpollEvent, 256)
	cursor, round := 0, time.Duration(0)
	for ctx.Err() == nil {
		now := time.Since(base)
		// Every frame due by now (and the ones due within the next half millisecond:
		// epoll's timeout is in milliseconds, so they go in this wake, not late).
		for {
			p := d.players[cursor]
			due := round + p.phase
			if due >= d.to || due > now+500*time.Microsecond {
				break
			}
			d.send(p, due, time.Since(base))
			if cursor++; cursor == len(d.players) {
				cursor, round = 0, round+d.period
			}
		}
		var timeout int
		if next := round + d.players[cursor].phase; next < d.to {
			timeout = int(max(0, (next-now+time.Millisecond-1)/time.Millisecond))
		} else {
			if d.sent == d.delivered+d.mismatched || now > d.to+d.grace {
				return
			}
			timeout = int((d.to + d.grace - now + time.Millisecond - 1) / time.Millisecond)
		}
		n, err := syscall.EpollWait(d.epfd, events, timeout)
		if err != nil && err != syscall.EINTR {
			d.err = fmt.Errorf("epoll_wait: %w", err)
			return
		}
		for _, ev := range events[:max(n, 0)] {
			d.receive(d.players[ev.Fd], base)
		}
	}
}

// send writes p's next frame (with what is left of the last one first).
func (d *driver) send(p *activePlayer, due, now time.Duration) {
	inWindow := due >= d.from && due < d.to
	if len(p.out) > 0 {
		n, _ := syscall.Write(p.fd, p.out)
		p.out = p.out[max(n, 0):]
		if len(p.out) > 0 {
			if inWindow {
				d.blocked++ // the socket still holds the last frame: the proxy stopped reading
			}
			return
		}
	}
	seq := p.seq
	if inWindow {
		seq |= windowBit
	}
	stamp(d.frame, seq, now)
	n, err := syscall.Write(p.fd, d.frame)
	if n <= 0 {
		if err != syscall.EAGAIN && d.err == nil {
			d.err = fmt.Errorf("write frame: %w", err)
		}
		if inWindow {
			d.blocked++
		}
		return
	}
	p.seq++
	if n < len(d.frame) {
		p.out = append(p.out[:0], d.frame[n:]...)
	}
	if inWindow {
		d.sent++
	}
}

// receive reads what arrived for p and checks each whole echo: the next sequence
// number, the frame's bytes as sent.
func (d *driver) receive(p *activePlayer, base time.Time) {
	n, err := syscall.Read(p.fd, d.buf)
	if n <= 0 {
		if err != syscall.EAGAIN && d.err == nil {
			d.err = fmt.Errorf("read echo: %v (0 bytes: the proxy closed the session)", err)
			_ = syscall.EpollCtl(d.epfd, syscall.EPOLL_CTL_DEL, p.fd, nil)
		}
		return
	}
	now := time.Since(base)
	b := d.buf[:n]
	size := len(d.frame)
	for len(b) > 0 {
		k := min(size-len(p.in), len(b))
		p.in, b = append(p.in, b[:k]...), b[k:]
		if len(p.in) < size {
			return
		}
		seq, sent := readStamp(p.in)
		// The frame minus its stamp is fixed: compare it to the template's bytes.
		off := stampOffset(p.in)
		ok := seq&^windowBit == p.rseq && bytes.Equal(p.in[:off], d.frame[:off]) && bytes.Equal(p.in[off+16:], d.frame[off+16:])
		p.rseq++
		p.in = p.in[:0]
		if seq&windowBit == 0 {
			continue
		}
		if !ok {
			d.mismatched++
			continue
		}
		d.delivered++
		d.rtts = append(d.rtts, now-sent)
	}
}
