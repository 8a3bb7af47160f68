package plan

import (
	"fmt"
	"io"
	"strings"
)

// headline is the figure one scenario is summed up by in the overview.
type headline struct {
	title string
	cell  func(StrategyRun) string
}

func maxFair(r StrategyRun) string { return fmt.Sprintf("%.2f", r.Metrics.MaxOverFair) }

// headlines picks each scenario's figure; scenarios not listed show
// MAX/FAIR.
var headlines = map[string]headline{
	"heterogeneous-capacity": {"max/fair (into >=90% / turned away)", func(r StrategyRun) string {
		return fmt.Sprintf("%.2f (%d / %d)", r.Metrics.MaxOverFair, r.Metrics.IntoNearFull, r.TurnedAway)
	}},
	"backend-added": {"first player / next 100", func(r StrategyRun) string {
		return firstCell(r.Metrics.FirstPlayerAfter) + " / " + percentCell(r.Metrics.NewShareNext100)
	}},
	"degraded":             {"shed <5%", func(r StrategyRun) string { return spanCell(r.Metrics.ShedAfter) }},
	"slow-server":          {"shed <5%", func(r StrategyRun) string { return spanCell(r.Metrics.ShedAfter) }},
	"dead-and-black-holed": {"dead dials/replica", func(r StrategyRun) string { return intCell(r.Metrics.DeadDialsPerReplica) }},
	"noisy-equal":          {"flaps/h", func(r StrategyRun) string { return floatCell(r.Metrics.FlapsPerHour) }},
	"spiky-equal": {"flaps/h, min share", func(r StrategyRun) string {
		return fmt.Sprintf("%s, %.1f%%", floatCell(r.Metrics.FlapsPerHour), r.Metrics.MinShare)
	}},
	"unlucky-first-probe": {"min share", func(r StrategyRun) string { return fmt.Sprintf("%.1f%%", r.Metrics.MinShare) }},
	"faster-for-real":     {"adopted", func(r StrategyRun) string { return spanCell(r.Metrics.AdoptedAfter) }},
	"all-failing":         {"unplaced", func(r StrategyRun) string { return fmt.Sprint(r.Unplaced) }},
	"zero-reporter-16":    {"turned away", func(r StrategyRun) string { return fmt.Sprint(r.TurnedAway) }},
	"identical-pair":      {"min share", func(r StrategyRun) string { return fmt.Sprintf("%.1f%%", r.Metrics.MinShare) }},
	"bimodal-login":       {"min share", func(r StrategyRun) string { return fmt.Sprintf("%.1f%%", r.Metrics.MinShare) }},
	"spiky-busy":          {"flaps/h", func(r StrategyRun) string { return floatCell(r.Metrics.FlapsPerHour) }},
}

// WriteMarkdown writes one table of every strategy against every
// scenario in rs, each cell the scenario's headline figure (MAX/FAIR
// unless the scenario is about something else). The strategies are those
// of the first result, in its order.
func WriteMarkdown(w io.Writer, rs []*ScenarioResult) error {
	if len(rs) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("| strategy |")
	for _, r := range rs {
		h, ok := headlines[r.Scenario]
		title := "max/fair"
		if ok {
			title = h.title
		}
		fmt.Fprintf(&b, " %s: %s |", r.Scenario, title)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(rs)) + "\n")
	for i, run := range rs[0].Runs {
		fmt.Fprintf(&b, "| %s |", run.Strategy)
		for _, r := range rs {
			cell := "-"
			if i < len(r.Runs) {
				cell = cellOf(r.Scenario, r.Runs[i])
			}
			fmt.Fprintf(&b, " %s |", cell)
		}
		b.WriteString("\n")
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write scenario summary: %w", err)
	}
	return nil
}

func cellOf(scenario string, r StrategyRun) string {
	if h, ok := headlines[scenario]; ok {
		return h.cell(r)
	}
	return maxFair(r)
}
