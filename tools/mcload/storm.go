package main

import (
	"context"
	"flag"
	"fmt"
	"sync"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// statusResult is one status storm: c clients pinging back to back.
type statusResult struct {
	Mode        string  `json:"mode"`
	Label       string  `json:"label,omitempty"`
	Concurrency int     `json:"concurrency"`
	Seconds     float64 `json:"seconds"`
	Ops         int     `json:"ops"`
	Errors      int     `json:"errors"`
	FirstError  string  `json:"first_error,omitempty"`
	OpsPerSec   float64 `json:"ops_per_s"`
	latencies
	CPUSeconds float64 `json:"cpu_s,omitempty"`
	CPUPerOpUS float64 `json:"cpu_us_per_op,omitempty"`
}

// op is one timed exchange: when it finished and how long it took.
type op struct {
	end time.Time
	d   time.Duration
}

func runStatus(ctx context.Context, fs *flag.FlagSet, args []string) (*statusResult, error) {
	parse := targetFlags(fs)
	conc := fs.Int("c", 64, "concurrent clients")
	warm, dur := windowFlags(fs)
	t, err := parse(args)
	if err != nil {
		return nil, err
	}
	return statusStorm(ctx, t, *conc, *warm, *dur)
}

// statusStorm runs c workers doing full server-list pings (connect, handshake, status
// request, response, ping, pong, close) for warm+dur; it counts the pings that
// finished inside the measured window.
func statusStorm(ctx context.Context, t target, c int, warm, dur time.Duration) (*statusResult, error) {
	ctx, cancel := context.WithTimeout(ctx, warm+dur)
	defer cancel()
	start := time.Now()
	from, to := start.Add(warm), start.Add(warm+dur)
	var wg sync.WaitGroup
	ops := make([][]op, c)
	errs := &errorCount{}
	pre := t.statusPreamble()
	for i := range c {
		wg.Go(func() { ops[i] = pingLoop(ctx, t, pre, errs) })
	}
	cpu, err := t.sampler.window(ctx, from, nil)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	res := &statusResult{Mode: "status", Label: t.label, Concurrency: c, Seconds: dur.Seconds()}
	var lat []time.Duration
	res.Errors, res.FirstError = errs.count()
	for i := range ops {
		for _, o := range ops[i] {
			if !o.end.Before(from) && !o.end.After(to) {
				lat = append(lat, o.d)
			}
		}
	}
	res.Ops = len(lat)
	res.OpsPerSec = float64(res.Ops) / dur.Seconds()
	res.latencies = summarize(lat)
	res.CPUSeconds = cpu.Seconds()
	if res.Ops > 0 {
		res.CPUPerOpUS = float64(cpu.Microseconds()) / float64(res.Ops)
	}
	return res, nil
}

// pingLoop pings until ctx ends and returns every exchange it finished.
func pingLoop(ctx context.Context, t target, pre []byte, errs *errorCount) []op {
	var out []op
	r := &frameReader{buf: make([]byte, 0, 2048)}
	for ctx.Err() == nil {
		begin := time.Now()
		if err := pingOnce(t, pre, r); err != nil {
			if ctx.Err() == nil {
				errs.add(err)
			}
			continue
		}
		now := time.Now()
		out = append(out, op{end: now, d: now.Sub(begin)})
	}
	return out
}

// pingOnce is one server-list ping as the game does it.
func pingOnce(t target, pre []byte, r *frameReader) error {
	c, err := t.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(ioTimeout))
	if _, err := c.Write(pre); err != nil {
		return fmt.Errorf("write status request: %w", err)
	}
	r.reset(c)
	if id, _, err := r.frame(wire.MaxStatusResponseLen); err != nil || id != wire.IDStatusRequest { // the response shares the request's id
		return fmt.Errorf("status response (id %d): %w", id, err)
	}
	const token int64 = 0x6d636c6f6164 // "mcload"
	if _, err := c.Write(wire.AppendPing(nil, token)); err != nil {
		return fmt.Errorf("write ping: %w", err)
	}
	id, payload, err := r.frame(64)
	if err != nil || id != wire.IDPing {
		return fmt.Errorf("pong (id %d): %w", id, err)
	}
	if v, err := wire.ParsePing(payload); err != nil || v != token {
		return fmt.Errorf("pong %d, want %d: %v", v, token, err)
	}
	return nil
}

// setupResult is sequential connection setups: dial to the first byte back.
type setupResult struct {
	Mode       string `json:"mode"`
	Label      string `json:"label,omitempty"`
	Intent     string `json:"intent"`
	N          int    `json:"n"`
	Errors     int    `json:"errors"`
	FirstError string `json:"first_error,omitempty"`
	latencies
}

func runSetup(ctx context.Context, fs *flag.FlagSet, args []string) (*setupResult, error) {
	parse := targetFlags(fs)
	n := fs.Int("n", 1000, "measured connections")
	warm := fs.Int("warmup", 50, "unmeasured connections first")
	intent := fs.String("intent", "status", "status (first status byte) or login (first echoed byte)")
	t, err := parse(args)
	if err != nil {
		return nil, err
	}
	var pre []byte
	var in int32
	switch *intent {
	case "status":
		pre, in = t.statusPreamble(), wire.IntentStatus
	case "login":
		pre, in = t.loginPreamble(nameEcho, 0), wire.IntentLogin // one at a time
	default:
		return nil, fmt.Errorf("%w: -intent %q (want status or login)", errUsage, *intent)
	}
	res := &setupResult{Mode: "setup", Label: t.label, Intent: *intent, N: *n}
	lat := make([]time.Duration, 0, *n)
	errs := &errorCount{}
	for i := 0; i < *warm+*n && ctx.Err() == nil; i++ {
		d, err := firstByte(t, in, pre)
		switch {
		case err != nil:
			errs.add(err)
		case i >= *warm:
			lat = append(lat, d)
		}
	}
	res.Errors, res.FirstError = errs.count()
	res.latencies = summarize(lat)
	return res, ctx.Err()
}

// firstByte times one connection from dial to the first byte the far end sends.
func firstByte(t target, intent int32, pre []byte) (time.Duration, error) {
	begin := time.Now()
	c, err := t.dial()
	if err != nil {
		return 0, err
	}
	defer c.Close()
	_ = c.SetDeadline(begin.Add(ioTimeout))
	if _, err := c.Write(pre); err != nil {
		return 0, fmt.Errorf("write preamble: %w", err)
	}
	r := &frameReader{c: c, buf: make([]byte, 0, 1024)}
	if err := r.more(); err != nil {
		return 0, fmt.Errorf("read first byte: %w", err)
	}
	d := time.Since(begin)
	// Read the whole answer, so the connection ends with a FIN like a real client's
	// rather than a reset for unread bytes.
	if intent == wire.IntentStatus {
		_, _, err = r.frame(wire.MaxStatusResponseLen)
	} else {
		for err == nil && len(r.buf) < len(pre) {
			err = r.more()
		}
	}
	if err != nil {
		return 0, fmt.Errorf("read answer: %w", err)
	}
	return d, nil
}
