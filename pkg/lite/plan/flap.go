package plan

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// FaultRates are the login rates (per second, over all replicas) the fault table
// covers: from a quiet server to a busy network.
var FaultRates = []float64{4, 20, 100}

// TableFaults are the faults of the fault-cost table.
var TableFaults = []Fault{FaultBlackhole, FaultHang, FaultReset, FaultRefuse}

// FaultCosts runs every fault at every rate for every strategy through one proxy:
// the backend serves for 10s, fails for a minute, then serves again; two minutes in
// all. Dial timeout 2s, first-response timeout 3s, health checks off (the default),
// probes as the proxy always runs them (the retest of an ejected backend).
func FaultCosts(seed uint64) ([]FaultResult, error) {
	var runs []FaultOptions
	for _, f := range TableFaults {
		for _, rate := range FaultRates {
			for _, name := range strategy.Names() {
				runs = append(runs, FaultOptions{Strategy: name, Fault: f, Rate: rate, Duration: 2 * time.Minute,
					Seed: seed, FaultAt: 10 * time.Second, RecoverAt: 70 * time.Second})
			}
		}
	}
	return runFaultsAll(runs)
}

// FlapRuns runs the flapping backend (down 10s, up 10s, from 10s in, for 5 minutes)
// at 4 logins/s for every strategy, through 1 and through 4 replicas.
func FlapRuns(seed uint64) ([]FaultResult, error) {
	var runs []FaultOptions
	for _, replicas := range []int{1, 4} {
		for _, name := range strategy.Names() {
			runs = append(runs, FaultOptions{Strategy: name, Fault: FaultFlap, Rate: 4, Duration: 5 * time.Minute,
				Replicas: replicas, Seed: seed, FaultAt: 10 * time.Second, FlapUp: 10 * time.Second, FlapDown: 10 * time.Second})
		}
	}
	return runFaultsAll(runs)
}

// StormRuns are issue 22's login storm as the sockets' test runs it, for
// every strategy through one proxy: four backends whose servers take
// 300ms to a login's first byte serve 4 logins a second for 30s, health
// checks every 100ms (fall 2); the first goes dark (dials time out after
// 1s) and is marked down, then 300 players come in one second. Every live
// backend soon has attempts in flight, which is what widens an order to
// the dark one.
func StormRuns(seed uint64) ([]FaultResult, error) {
	var runs []FaultOptions
	for _, name := range strategy.Names() {
		runs = append(runs, FaultOptions{Strategy: name, Fault: FaultBlackhole, Rate: 300, Duration: 31 * time.Second,
			Seed: seed, Service: 300 * time.Millisecond, WarmRate: 4, StormAt: 30 * time.Second, FaultAt: 29 * time.Second,
			DialTimeout: time.Second, Live: 3,
			Health: strategy.HealthCheck{Enabled: true, Interval: 100 * time.Millisecond, Timeout: 80 * time.Millisecond, Rise: 2, Fall: 2}})
	}
	return runFaultsAll(runs)
}

// runFaultsAll runs each of runs and returns the results in the order of runs.
func runFaultsAll(runs []FaultOptions) ([]FaultResult, error) {
	return eachParallel(runs, RunFaults)
}

// WriteFaultTable prints fault runs as one row per fault, rate and replicas, with the
// attempts each strategy wasted on the faulty backend (the most one replica paid).
func WriteFaultTable(w io.Writer, runs []FaultResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "FAULT\tLOGINS/S\tREPLICAS")
	names := strategy.Names()
	for _, n := range names {
		fmt.Fprintf(tw, "\t%s", n)
	}
	fmt.Fprint(tw, "\tERRORS\tMAX WAIT\tSHED AFTER\tBACK AFTER\n")
	for i := 0; i < len(runs); i += len(names) {
		row := runs[i:min(i+len(names), len(runs))]
		r0 := row[0]
		fmt.Fprintf(tw, "%s\t%g\t%d", r0.Fault, r0.Rate, r0.Replicas)
		errs, wait, shed, back := 0, Duration(0), Duration(0), Duration(0)
		for _, r := range row {
			fmt.Fprintf(tw, "\t%d", r.WastedPerReplica)
			errs += r.Errors
			wait, shed, back = max(wait, r.MaxWait), max(shed, r.Shed), max(back, r.Back)
		}
		fmt.Fprintf(tw, "\t%d\t%v\t%s\t%s\n", errs, time.Duration(wait), orDash(shed), orDash(back))
	}
	return tw.Flush()
}

// orDash formats d, or "-" when it is zero.
func orDash(d Duration) string {
	if d == 0 {
		return "-"
	}
	return time.Duration(d).String()
}
