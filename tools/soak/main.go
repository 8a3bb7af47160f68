package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"
)

func main() {
	o := Options{}
	flag.DurationVar(&o.Duration, "duration", 10*time.Second, "how long the abusive phase lasts")
	flag.IntVar(&o.Workers, "workers", 4, "workers per attack kind")
	flag.IntVar(&o.Players, "players", 4, "legitimate players connecting at once")
	flag.DurationVar(&o.Pace, "pace", 10*time.Millisecond, "pause between two connections of one worker")
	flag.StringVar(&o.Target, "target", "", "a running proxy to soak (default: start one in this process)")
	flag.StringVar(&o.PID, "pid", "", "the target's process id, to sample its fds and memory")
	flag.Uint64Var(&o.Seed, "seed", 1, "seed of the abusive traffic")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	r, err := Run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	r.print(os.Stdout)
	if len(r.Problems) > 0 {
		os.Exit(1)
	}
}

// print writes the report as the tables docs/lite/security.md shows.
func (r *Report) print(w io.Writer) {
	fmt.Fprintf(w, "soak: %v against %s, %d workers per kind, %d players, pace %v, seed %d\n\n",
		r.Elapsed.Round(time.Millisecond), r.Target, r.Workers, r.Players, r.Pace, r.Seed)
	fmt.Fprintf(w, "| kind | connections | answered | held p50 | held p99 | held max (at) | dial errors | left open |\n|---|---|---|---|---|---|---|---|\n")
	total := int64(0)
	for _, k := range r.Kinds {
		total += k.Attempts
		fmt.Fprintf(w, "| %s | %d | %d | %v | %v | %v (%v) | %d | %d |\n", k.Name, k.Attempts, k.Answered,
			k.heldPercentile(0.5).Round(time.Millisecond), k.heldPercentile(0.99).Round(time.Millisecond),
			k.MaxHeld.Round(time.Millisecond), k.MaxAt.Round(time.Second), k.DialErrors, k.KeptOpen)
	}
	p := r.Legit
	fmt.Fprintf(w, "\nabusive connections: %d\nlegitimate players: %d served of %d (p50 %v, p99 %v, longest gap %v)\n",
		total, p.Served, p.Attempts, p.percentile(0.5).Round(time.Microsecond), p.percentile(0.99).Round(time.Microsecond), p.MaxGap.Round(time.Millisecond))
	if len(p.FailedAt) > 0 {
		fmt.Fprintf(w, "failed players started at: %v\n", roundAll(p.FailedAt[:min(len(p.FailedAt), 20)], 100*time.Millisecond))
	}
	fmt.Fprintf(w, "process stalls over 500ms (ended at, lasted): %d", len(r.Stalls))
	for _, s := range r.Stalls[:min(len(r.Stalls), 20)] {
		fmt.Fprintf(w, " (%v, %v)", s.At.Round(100*time.Millisecond), s.For.Round(10*time.Millisecond))
	}
	fmt.Fprintln(w)
	if r.PID != "" {
		fmt.Fprintf(w, "baseline: %v\npeak:     %v\nsettled:  %v\n", r.Baseline, r.Peak, r.Settled)
	}
	if a := r.Admission; a != nil {
		fmt.Fprintf(w, "admission: open %d, refused: denied %d, rate-limited %d, per-address cap %d, global cap %d; buckets %d/%d/%d\n",
			a.Open, a.Denied, a.RateLimited, a.TooManyFromAddr, a.Busy, a.ConnectionEntries, a.StatusEntries, a.LoginEntries)
	}
	if len(r.Problems) == 0 {
		fmt.Fprintln(w, "\nOK: back to baseline, every legitimate player served")
		return
	}
	fmt.Fprintln(w, "\nPROBLEMS:")
	for _, pr := range r.Problems {
		fmt.Fprintln(w, " -", pr)
	}
}

func roundAll(ds []time.Duration, m time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(m)
	}
	return out
}
