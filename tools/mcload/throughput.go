package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// throughputResult is bytes streamed from the backend to the client over N streams.
type throughputResult struct {
	Mode       string  `json:"mode"`
	Label      string  `json:"label,omitempty"`
	Streams    int     `json:"streams"`
	Seconds    float64 `json:"seconds"`
	Bytes      int64   `json:"bytes"`
	MBPerSec   float64 `json:"mb_per_s"` // 10^6 bytes per second
	CPUSeconds float64 `json:"cpu_s,omitempty"`
	CPUPerGB   float64 `json:"cpu_s_per_gb,omitempty"` // 10^9 bytes
}

func runThroughput(ctx context.Context, fs *flag.FlagSet, args []string) (*throughputResult, error) {
	parse := targetFlags(fs)
	streams := fs.Int("streams", 8, "parallel sessions")
	warm, dur := windowFlags(fs)
	t, err := parse(args)
	if err != nil {
		return nil, err
	}
	return throughput(ctx, t, *streams, *warm, *dur)
}

// throughput opens n "source" sessions (the backend streams, the client reads and
// counts: the receiver's count is exact) and measures the bytes received during dur.
func throughput(ctx context.Context, t target, n int, warm, dur time.Duration) (*throughputResult, error) {
	var total atomic.Int64
	conns := make([]net.Conn, 0, n)
	for i := range n {
		c, err := t.dial()
		if err != nil {
			closeAll(conns)
			return nil, err
		}
		conns = append(conns, c)
		if _, err := c.Write(t.loginPreamble(nameSource, uint64(i))); err != nil {
			closeAll(conns)
			return nil, fmt.Errorf("write preamble: %w", err)
		}
	}
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			buf := make([]byte, 256<<10)
			for {
				k, err := c.Read(buf)
				total.Add(int64(k))
				if err != nil {
					return
				}
			}
		})
	}
	res, err := measureBytes(ctx, t, &total, warm, dur)
	closeAll(conns) // ends the readers
	wg.Wait()
	if err != nil {
		return nil, err
	}
	res.Streams = n
	return res, nil
}

// measureBytes reads the counter (and the sampled CPU) after warm and after warm+dur.
func measureBytes(ctx context.Context, t target, total *atomic.Int64, warm, dur time.Duration) (*throughputResult, error) {
	wctx, cancel := context.WithTimeout(ctx, warm+dur)
	defer cancel()
	from := time.Now().Add(warm)
	var atFrom int64
	cpu, err := t.sampler.window(wctx, from, func() { atFrom = total.Load() })
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	got := total.Load() - atFrom
	res := &throughputResult{Mode: "throughput", Label: t.label, Seconds: dur.Seconds(), Bytes: got,
		MBPerSec: float64(got) / dur.Seconds() / 1e6, CPUSeconds: cpu.Seconds()}
	if got > 0 && cpu > 0 {
		res.CPUPerGB = cpu.Seconds() / (float64(got) / 1e9)
	}
	return res, nil
}

func closeAll(conns []net.Conn) {
	for _, c := range conns {
		_ = c.Close()
	}
}
