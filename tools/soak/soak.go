package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/admission"
)

// Options shape one soak run.
type Options struct {
	// Duration of the abusive phase. The drain and settle checks come after it.
	Duration time.Duration
	// Workers per attack kind, each making one connection after another.
	Workers int
	// Players is how many legitimate players connect at once, one after another.
	Players int
	// Pace is the pause between two connections of one worker.
	Pace time.Duration
	// Target is a running proxy to aim at; "" starts one in this process.
	Target string
	// PID of the target process for /proc samples ("" for none, "self" in-process).
	PID string
	// Seed makes the abusive traffic reproducible.
	Seed uint64
}

// kindStats is what one attack kind did and what the proxy did to it.
type kindStats struct {
	Name       string
	Attempts   int64
	Answered   int64 // the proxy sent something back (a Disconnect, a status)
	DialErrors int64
	KeptOpen   int64 // still open after 30s: the proxy failed to close it
	MaxHeld    time.Duration
	// MaxAt is when (since the start) the longest-held connection ended: maxima of all
	// kinds at one moment point at the machine (a stall), not at one kind's handling.
	MaxAt time.Duration
	held  []time.Duration
	start time.Time
	mu    sync.Mutex
}

// heldPercentile is the q-quantile of how long connections of this kind lived.
func (k *kindStats) heldPercentile(q float64) time.Duration {
	k.mu.Lock()
	defer k.mu.Unlock()
	return percentile(k.held, q)
}

func (k *kindStats) record(held time.Duration, answered bool, err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.Attempts++
	k.held = append(k.held, held)
	if held > k.MaxHeld {
		k.MaxAt = time.Since(k.start)
	}
	switch {
	case err != nil && held == 0:
		k.DialErrors++
	case err != nil:
		k.KeptOpen++
	}
	if answered {
		k.Answered++
	}
	k.MaxHeld = max(k.MaxHeld, held)
}

func percentile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}

// playerStats is how the legitimate players fared.
type playerStats struct {
	Attempts, Served, Failed int64
	MaxGap                   time.Duration // longest time without a served player
	latencies                []time.Duration
	lastServed               time.Time
	firstErr                 error
	// FailedAt is when (since the run's start) each failed player started.
	FailedAt []time.Duration
	start    time.Time
	mu       sync.Mutex
}

func (p *playerStats) record(start time.Time, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.Attempts++
	if err != nil {
		p.Failed++
		p.FailedAt = append(p.FailedAt, start.Sub(p.start))
		if p.firstErr == nil {
			p.firstErr = err
		}
		return
	}
	now := time.Now()
	p.Served++
	p.latencies = append(p.latencies, now.Sub(start))
	if !p.lastServed.IsZero() {
		p.MaxGap = max(p.MaxGap, now.Sub(p.lastServed))
	}
	p.lastServed = now
}

func (p *playerStats) percentile(q float64) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return percentile(p.latencies, q)
}

// Report is the outcome of one run.
type Report struct {
	Options
	Elapsed                 time.Duration
	Kinds                   []*kindStats
	Legit                   *playerStats
	Baseline, Peak, Settled sample
	Admission               *admission.Stats // in-process runs only
	// Stalls are the times this process went unscheduled for over half a second (a
	// 10ms ticker's lateness), by when they ended: on a shared machine a stall longer
	// than the proxy's deadlines explains failures that are not the proxy's.
	Stalls   []stall
	Problems []string
}

// stall is one time the process stood still.
type stall struct{ At, For time.Duration }

// Run soaks the proxy and reports. An error means the run itself could not happen;
// a proxy that misbehaved is reported in Report.Problems.
func Run(ctx context.Context, o Options) (*Report, error) {
	var h *harness
	if o.Target == "" {
		var err error
		if h, err = startHarness(); err != nil {
			return nil, err
		}
		defer h.close()
		o.Target, o.PID = h.addr, "self"
	}
	r := &Report{Options: o, Legit: &playerStats{start: time.Now()}}
	d := dialer{target: o.Target}
	if err := playOnce(d, 0); err != nil {
		return nil, fmt.Errorf("warm-up player: %w", err)
	}
	if o.PID != "" {
		r.Baseline, _ = measure(o.PID, true)
		r.Peak = r.Baseline
	}
	start := time.Now()
	r.Kinds = hammer(ctx, d, o, r)
	r.Elapsed = time.Since(start)
	if h != nil {
		if err := h.drain(30 * time.Second); err != nil {
			r.Problems = append(r.Problems, err.Error())
		}
		st := h.proxy.Admission().Stats()
		r.Admission = &st
	}
	if o.PID != "" {
		r.Settled = settle(o.PID, r.Baseline, 30*time.Second)
	}
	r.check()
	return r, nil
}

// hammer runs the attackers and the players for o.Duration, sampling the process.
func hammer(ctx context.Context, d dialer, o Options, r *Report) []*kindStats {
	ctx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()
	var wg sync.WaitGroup
	var kinds []*kindStats
	for ki, a := range attacks() {
		ks := &kindStats{Name: a.name, start: time.Now()}
		kinds = append(kinds, ks)
		for w := range o.Workers {
			rng := rand.New(rand.NewPCG(o.Seed, uint64(ki<<16|w)))
			wg.Go(func() {
				for paced(ctx, o.Pace) {
					ks.record(a.run(d, rng))
				}
			})
		}
	}
	var next atomic.Int64
	for range o.Players {
		wg.Go(func() {
			for paced(ctx, o.Pace) {
				n := next.Add(1)
				start := time.Now()
				r.Legit.record(start, playOnce(d, n))
			}
		})
	}
	if o.PID != "" {
		wg.Go(func() { r.Peak = samplePeak(ctx, o.PID, r.Peak) })
	}
	wg.Go(func() { r.Stalls = watchStalls(ctx, r.Legit.start) })
	wg.Wait()
	return kinds
}

// watchStalls records when a 10ms ticker fires over half a second late: that long the
// process (or the machine) stood still.
func watchStalls(ctx context.Context, start time.Time) []stall {
	const period, notable = 10 * time.Millisecond, 500 * time.Millisecond
	tick := time.NewTicker(period)
	defer tick.Stop()
	var stalls []stall
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return stalls
		case <-tick.C:
			now := time.Now()
			if late := now.Sub(last) - period; late > notable {
				stalls = append(stalls, stall{At: now.Sub(start), For: late})
			}
			last = now
		}
	}
}

// paced waits one pace and reports whether the run goes on.
func paced(ctx context.Context, pace time.Duration) bool {
	t := time.NewTimer(pace)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func samplePeak(ctx context.Context, pid string, peak sample) sample {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return peak
		case <-tick.C:
		}
		s, err := measure(pid, false)
		if err != nil {
			continue
		}
		peak.Goroutines, peak.FDs = max(peak.Goroutines, s.Goroutines), max(peak.FDs, s.FDs)
		peak.Sockets, peak.Pipes = max(peak.Sockets, s.Sockets), max(peak.Pipes, s.Pipes)
		peak.HeapInuse, peak.RSS = max(peak.HeapInuse, s.HeapInuse), max(peak.RSS, s.RSS)
	}
}

// playerBlocks is how many /24 blocks the players come from: enough that each block
// sees a human rate (a few logins a minute) even at hundreds of players a second, so
// the per-block quotas meet ordinary players, not the whole test population at once.
const playerBlocks = 4096

// playerAddr gives player n an address in its own /24 of 100.64.0.0/10.
func playerAddr(n int64) netip.AddrPort {
	b := n % playerBlocks
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{100, 64 + byte(b>>8), byte(b), 7}), uint16(20000+n%40000))
}

// playOnce is one legitimate player: a server-list ping, then a login with some play
// traffic, each on its own connection, as the vanilla client does.
func playOnce(d dialer, n int64) error {
	src := playerAddr(n)
	c, err := d.dial("127.0.0.1", src, 10*time.Second)
	if err != nil {
		return err
	}
	err = ping(c, "play.example.com")
	_ = c.Close()
	if err != nil {
		return fmt.Errorf("player %v ping: %w", src, err)
	}
	if c, err = d.dial("127.0.0.1", src, 10*time.Second); err != nil {
		return err
	}
	defer c.Close()
	if err := login(c, "play.example.com", fmt.Sprintf("player%d", n%100000), []byte("hello from a real player")); err != nil {
		return fmt.Errorf("player %v login: %w", src, err)
	}
	return nil
}

// settle waits for the process to return to its baseline and returns the last sample.
func settle(pid string, base sample, within time.Duration) sample {
	deadline := time.Now().Add(within)
	tick := time.NewTicker(200 * time.Millisecond) // the OS has nothing to wait on: poll
	defer tick.Stop()
	for {
		s, err := measure(pid, true)
		back := err == nil && s.Sockets <= base.Sockets && s.FDs-s.Pipes <= base.FDs-base.Pipes &&
			(pid != "self" || s.Goroutines <= base.Goroutines)
		if back || time.Now().After(deadline) {
			return s
		}
		<-tick.C
	}
}

// heapSlack is how much more heap may stay in use after the run than before: the
// quota tables (bounded) and pooled buffers legitimately keep a little. The soak's own
// records come on top (recordBytes).
const heapSlack = 4 << 20

// recordBytes is the heap the soak itself holds for its percentiles: every
// connection's duration, kept in this process next to an in-process proxy. A 3-minute
// run records about 370,000 of them (up to 6 MiB with the slices' spare capacity),
// which would otherwise read as the proxy not returning to its baseline.
func (r *Report) recordBytes() uint64 {
	const size = 8 // one time.Duration
	var n int
	for _, k := range r.Kinds {
		k.mu.Lock()
		n += cap(k.held)
		k.mu.Unlock()
	}
	r.Legit.mu.Lock()
	n += cap(r.Legit.latencies) + cap(r.Legit.FailedAt)
	r.Legit.mu.Unlock()
	return uint64(n) * size
}

// pipeSlack is how many more pipe descriptors may stay open: the relay keeps up to 64
// idle splice pipes (two descriptors each) for reuse, by design.
const pipeSlack = 2 * 64

// check turns the figures into findings.
func (r *Report) check() {
	p := r.Legit
	if p.Failed > 0 {
		r.Problems = append(r.Problems, fmt.Sprintf("%d of %d legitimate players failed (first: %v)", p.Failed, p.Attempts, p.firstErr))
	}
	if p.Served == 0 {
		r.Problems = append(r.Problems, "no legitimate player was served")
	}
	for _, k := range r.Kinds {
		if k.KeptOpen > 0 {
			r.Problems = append(r.Problems, fmt.Sprintf("%s: %d connections still open after 30s", k.Name, k.KeptOpen))
		}
	}
	if r.PID == "" {
		return
	}
	b, s := r.Baseline, r.Settled
	if s.Sockets > b.Sockets || s.FDs-s.Pipes > b.FDs-b.Pipes {
		r.Problems = append(r.Problems, fmt.Sprintf("%d fds (%d sockets) after the run, %d (%d) before, pipes aside",
			s.FDs-s.Pipes, s.Sockets, b.FDs-b.Pipes, b.Sockets))
	}
	if s.Pipes > b.Pipes+pipeSlack {
		r.Problems = append(r.Problems, fmt.Sprintf("%d pipe fds after the run, %d before: more than the pool keeps", s.Pipes, b.Pipes))
	}
	if r.PID == "self" && s.Goroutines > b.Goroutines {
		r.Problems = append(r.Problems, fmt.Sprintf("goroutines %d after the run, %d before", s.Goroutines, b.Goroutines))
	}
	if own := r.recordBytes(); r.PID == "self" && s.HeapInuse > b.HeapInuse+heapSlack+own {
		r.Problems = append(r.Problems, fmt.Sprintf("heap %d bytes after the run, %d before (%d of them the soak's own records)",
			s.HeapInuse, b.HeapInuse, own))
	}
}

var errNotDrained = errors.New("proxy still holds connections")
