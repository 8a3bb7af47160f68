package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// holdResult is what n idle sessions cost the sampled processes.
type holdResult struct {
	Mode        string  `json:"mode"`
	Label       string  `json:"label,omitempty"`
	Sessions    int     `json:"sessions"`
	Errors      int     `json:"errors"`
	FirstError  string  `json:"first_error,omitempty"`
	OpenSeconds float64 `json:"open_s"`
	// Before, Held and After are the sampled processes before opening, while holding
	// (after the settle time) and after closing every session (after the settle time).
	Before        usageJSON `json:"before"`
	Held          usageJSON `json:"held"`
	After         usageJSON `json:"after"`
	KiBPerSession float64   `json:"kib_per_session"`
	FDsPerSession float64   `json:"fds_per_session"`
	// Goroutines are the proxy's go_goroutines before opening and while holding, when
	// -metrics names its Prometheus endpoint.
	GoroutinesBefore     float64 `json:"goroutines_before,omitempty"`
	GoroutinesHeld       float64 `json:"goroutines_held,omitempty"`
	GoroutinesPerSession float64 `json:"goroutines_per_session"`
}

type usageJSON struct {
	RSSKiB     int64   `json:"rss_kib"`
	FDs        int     `json:"fds"`
	CPUSeconds float64 `json:"cpu_s"`
}

func toJSON(u usage) usageJSON {
	return usageJSON{RSSKiB: u.RSSKiB, FDs: u.FDs, CPUSeconds: u.CPU.Seconds()}
}

func runHold(ctx context.Context, fs *flag.FlagSet, args []string) (*holdResult, error) {
	parse := targetFlags(fs)
	n := fs.Int("n", 5000, "idle sessions to open and hold")
	conc := fs.Int("c", 32, "sessions opened in parallel")
	settle := fs.Duration("settle", 2*time.Second, "wait before each sample (GC, lazy frees)")
	metrics := fs.String("metrics", "", "the proxy's Prometheus URL (http://127.0.0.1:8080/metrics): go_goroutines is sampled too")
	t, err := parse(args)
	if err != nil {
		return nil, err
	}
	t.metrics = *metrics
	return hold(ctx, t, *n, *conc, *settle)
}

// goroutines reads go_goroutines from the target's metrics endpoint (0 without one).
func (t target) goroutines(ctx context.Context) (float64, error) {
	if t.metrics == "" {
		return 0, nil
	}
	ctx, cancel := context.WithTimeout(ctx, ioTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.metrics, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("scrape %s: %w", t.metrics, err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "go_goroutines "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return 0, fmt.Errorf("scrape %s: no go_goroutines", t.metrics)
}

func hold(ctx context.Context, t target, n, conc int, settle time.Duration) (*holdResult, error) {
	res := &holdResult{Mode: "hold", Label: t.label}
	// The scrape first: its own allocations must not count against the sessions.
	var err error
	if res.GoroutinesBefore, err = t.goroutines(ctx); err != nil {
		return nil, err
	}
	before, err := t.sampler.sample()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	conns, errs := openIdle(ctx, t, nameIdle, n, conc)
	res.OpenSeconds, res.Sessions = time.Since(start).Seconds(), len(conns)
	res.Errors, res.FirstError = errs.count()
	held, err := sampleAfter(ctx, t.sampler, settle)
	if err == nil {
		res.GoroutinesHeld, err = t.goroutines(ctx)
	}
	closeAll(conns)
	if err != nil {
		return nil, err
	}
	after, err := sampleAfter(ctx, t.sampler, settle)
	if err != nil {
		return nil, err
	}
	res.Before, res.Held, res.After = toJSON(before), toJSON(held), toJSON(after)
	if len(conns) > 0 {
		d := held.sub(before)
		res.KiBPerSession = float64(d.RSSKiB) / float64(len(conns))
		res.FDsPerSession = float64(d.FDs) / float64(len(conns))
		res.GoroutinesPerSession = (res.GoroutinesHeld - res.GoroutinesBefore) / float64(len(conns))
	}
	return res, nil
}

func sampleAfter(ctx context.Context, s *sampler, d time.Duration) (usage, error) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
		return usage{}, ctx.Err()
	}
	return s.sample()
}

// openIdle opens n sessions logging in as name, conc at a time; a session counts once
// the backend's echo of its preamble came back through the proxy, so it is joined end
// to end.
func openIdle(ctx context.Context, t target, name string, n, conc int) ([]net.Conn, *errorCount) {
	var next atomic.Int64
	errs := &errorCount{}
	slots := make([]net.Conn, n)
	var wg sync.WaitGroup
	for range conc {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				pre := t.loginPreamble(name, uint64(i))
				c, err := openOne(t, pre, make([]byte, len(pre)))
				if err != nil {
					errs.add(err)
					continue
				}
				slots[i] = c
			}
		})
	}
	wg.Wait()
	conns := make([]net.Conn, 0, n)
	for _, c := range slots {
		if c != nil {
			conns = append(conns, c)
		}
	}
	return conns, errs
}

func openOne(t target, pre, buf []byte) (net.Conn, error) {
	c, err := t.dial()
	if err != nil {
		return nil, err
	}
	_ = c.SetDeadline(time.Now().Add(ioTimeout))
	if _, err := c.Write(pre); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("write preamble: %w", err)
	}
	if _, err := io.ReadFull(c, buf); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("read echo: %w", err)
	}
	_ = c.SetDeadline(time.Time{})
	return c, nil
}
