package plan

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// ScenarioResult compares the strategies on one scenario.
type ScenarioResult struct {
	Scenario string `json:"scenario"`
	Summary  string `json:"summary"`
	Target   string `json:"target,omitempty"`
	Setup
	Backends []string      `json:"backends"`
	Runs     []StrategyRun `json:"runs"`
}

// StrategyRun is one strategy's outcome on a scenario.
type StrategyRun struct {
	Strategy strategy.Name `json:"strategy"`
	Metrics  Metrics       `json:"metrics"`
	// Players per backend, in the scenario's backend order.
	Players        []int    `json:"players"`
	Placed         int      `json:"placed"`
	TurnedAway     int      `json:"turnedAway"`
	Refusals       int      `json:"refusals"`
	Unplaced       int      `json:"unplaced"`
	FailedDials    int      `json:"failedDials"`
	FailedDialTime Duration `json:"failedDialTime"`
}

func rowOf(r *Result) StrategyRun {
	row := StrategyRun{Strategy: r.Strategy, Metrics: r.Metrics, Placed: r.Placed, TurnedAway: r.TurnedAway, Refusals: r.Refusals,
		Unplaced: r.Unplaced, FailedDials: r.FailedDials, FailedDialTime: r.FailedDialTime}
	for _, b := range r.Backends {
		row.Players = append(row.Players, b.Players)
	}
	return row
}

// WriteJSON writes r as indented JSON.
func (r *ScenarioResult) WriteJSON(w io.Writer) error { return writeJSON(w, r, "scenario") }

// WriteTable writes the metrics per strategy, then where the players went.
func (r *ScenarioResult) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	replicas := "1 replica"
	if r.Replicas != 1 {
		replicas = fmt.Sprintf("%d replicas", r.Replicas)
	}
	fmt.Fprintf(tw, "scenario %s: %s\n%s, %d players, one every %v, sessions ~%v, seed %d\n", r.Scenario, r.Summary,
		replicas, r.Count, time.Duration(r.Arrival), time.Duration(r.Session), r.Seed)
	if r.Target != "" {
		fmt.Fprintf(tw, "target: %s\n", r.Target)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "STRATEGY\tMAX/FAIR\tMIN SHARE\tFIRST PLAYER\tNEXT 100\tDEAD DIALS/REPLICA\tSHED <5%\tFLAPS/H\tADOPTED\tPROBE GAP\tINTO >=90%\tTURNED AWAY\tREFUSALS\tFAILED DIALS\tUNPLACED")
	for _, run := range r.Runs {
		m := run.Metrics
		fmt.Fprintf(tw, "%s\t%.2f\t%.1f%%\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\n", run.Strategy, m.MaxOverFair, m.MinShare,
			firstCell(m.FirstPlayerAfter), percentCell(m.NewShareNext100), intCell(m.DeadDialsPerReplica),
			spanCell(m.ShedAfter), floatCell(m.FlapsPerHour), spanCell(m.AdoptedAfter), spanCell(m.ProbeGap),
			m.IntoNearFull, run.TurnedAway, run.Refusals, run.FailedDials, run.Unplaced)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "PLAYERS\t"+strings.Join(r.Backends, "\t"))
	for _, run := range r.Runs {
		countRow(tw, string(run.Strategy), run.Players)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write scenario table: %w", err)
	}
	return nil
}

func firstCell(v *int) string {
	switch {
	case v == nil:
		return "-"
	case *v < 0:
		return "never"
	}
	return strconv.Itoa(*v)
}

func intCell(v *int) string {
	if v == nil {
		return "-"
	}
	return strconv.Itoa(*v)
}

func percentCell(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", *v)
}

func floatCell(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *v)
}

func spanCell(v *Span) string {
	if v == nil {
		return "-"
	}
	return v.String()
}
