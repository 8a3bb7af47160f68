package admin

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteBalance prints, per route, the strategy's decision state (for a
// lowest-latency route: the best backend, the challenger and its
// confirmations, the last switch and why it does not switch) and one line per
// backend with its score, eligibility, load and where the load came from, the
// replica estimate, the slow-start ramp and the failure share. It renders what
// the API returns; the proxy's strategy manager computed all of it.
func WriteBalance(w io.Writer, routes []Route, bs []Backend) error {
	for i, r := range routes {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "route %s: %s", r.Key, r.Strategy)
		if r.ScoreUnit != "" {
			fmt.Fprintf(w, ", score in %s", r.ScoreUnit)
		}
		if r.Spills > 0 {
			fmt.Fprintf(w, ", storm spills %d", r.Spills)
		}
		fmt.Fprintln(w)
		if d := r.Decision; d != nil {
			fmt.Fprintln(w, decisionLine(d))
		}
		if err := writeBalanceRows(w, r.Key, bs); err != nil {
			return err
		}
	}
	return nil
}

func decisionLine(d *Decision) string {
	var b strings.Builder
	fmt.Fprintf(&b, "best %s", orDash(d.Best))
	if d.Challenger != "" {
		fmt.Fprintf(&b, ", challenger %s (%d of %d confirmations)", d.Challenger, d.Confirmations, d.Needed)
	}
	last := "never"
	if d.LastSwitch != nil {
		last = d.LastSwitch.Format(time.RFC3339)
	}
	fmt.Fprintf(&b, ", last switch %s, not switching: %s", last, orDash(d.Hold))
	fmt.Fprintf(&b, ", changes: confirmed %d, incumbent-gone %d", d.Changes["confirmed"], d.Changes["incumbent-gone"])
	return b.String()
}

func writeBalanceRows(w io.Writer, route string, bs []Backend) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  BACKEND\tSTATE\tELIGIBLE\tSCORE\tLATENCY\tFAILURES\tLOAD\tSOURCE\tCAPACITY\tREPLICAS\tRAMP\tWHY")
	for _, b := range bs {
		if b.Route != route {
			continue
		}
		load, src, capacity, replicas, ramp := "-", "-", "-", "-", "-"
		if bl := b.Balance; bl != nil {
			load, src = strconv.FormatFloat(bl.Load, 'f', 2, 64), bl.LoadSource
			capacity = strconv.FormatInt(bl.Capacity, 10) + " " + bl.CapacitySource
			replicas, ramp = strconv.FormatInt(bl.Replicas, 10), strconv.Itoa(bl.RampPercent)+"%"
		}
		failures := fmt.Sprintf("%.1f%% (+%sms)", float64(b.FailuresPermille)/10, strconv.FormatFloat(b.PenaltyMs, 'f', -1, 64))
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", b.Backend, b.State, yesNo(b.Eligible),
			scoreCell(b.Score), latencyCell(b.LatencyMs), failures, load, src, capacity, replicas, ramp, b.Why)
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
