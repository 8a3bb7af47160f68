package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"go.minekube.com/gate/pkg/edition/java/lite/route"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/plan"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// scenarioFlags are the flags that apply to a named scenario; the others
// describe a world, which the scenario brings along.
var scenarioFlags = map[string]bool{"scenario": true, "seed": true, "count": true, "replicas": true, "strategy": true, "format": true}

// planCmd resolves --host against the config's routes exactly like a player's handshake
// would, then runs the simulator on that route's strategy and backends. With --scenario
// it runs a built-in scenario against every strategy instead, and needs no config.
func planCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gate lite plan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("config", "", "config file (default: config.yml in the working directory)")
	host := fs.String("host", "", "virtual host a player connects with (required without --scenario)")
	format := fs.String("format", "table", "output: table, json or both; with --scenario also markdown (one summary table)")
	scenario := fs.String("scenario", "", "run a built-in scenario against every strategy: "+
		strings.Join(plan.ScenarioNames(), ", ")+", all, or list")
	var o plan.Options
	o.Flags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *format != "table" && *format != "json" && *format != "both" && (*format != "markdown" || *scenario == "") {
		fmt.Fprintf(stderr, "--format: unknown %q (want table, json or both; markdown with --scenario)\n", *format)
		return 2
	}
	if *scenario != "" {
		return scenarioCmd(fs, *scenario, o, *format, stdout, stderr)
	}
	if *host == "" {
		fmt.Fprintln(stderr, "gate lite plan: --host is required (or --scenario)")
		return 2
	}
	if err := routeOptions(*path, *host, &o); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	res, err := plan.Run(o)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return write(res, *format, stdout, stderr)
}

// routeOptions fills o with the strategy, backends and tuning of the route host matches.
func routeOptions(path, host string, o *plan.Options) error {
	cfg, _, err := load(path)
	if err != nil {
		return err
	}
	table, err := route.Compile(cfg.Lite.Specs())
	if err != nil {
		return err
	}
	m, ok := table.Match(wire.CleanHost(host))
	if !ok {
		return fmt.Errorf("gate lite plan: no route matches host %q", host)
	}
	sr := cfg.Lite.Routes[m.Route].StrategyRoute("", m.Backends)
	o.Strategy, o.Backends, o.Health, o.P2C, o.CapacityOverride = sr.Strategy, sr.Backends, sr.Health, sr.P2C, sr.Capacity
	return nil
}

// scenarioCmd runs one built-in scenario, or all of them, or lists them.
func scenarioCmd(fs *flag.FlagSet, name string, o plan.Options, format string, stdout, stderr io.Writer) int {
	if name == "list" {
		for _, s := range plan.Scenarios() {
			fmt.Fprintf(stdout, "%-24s %s\n", s.Name, s.Summary)
		}
		return 0
	}
	var bad []string
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) {
		set[f.Name] = true
		if !scenarioFlags[f.Name] {
			bad = append(bad, "--"+f.Name)
		}
	})
	if len(bad) > 0 {
		fmt.Fprintf(stderr, "gate lite plan: %s cannot be combined with --scenario (it brings its own world; use --seed, --count, --replicas, --strategy)\n",
			strings.Join(bad, ", "))
		return 2
	}
	so := plan.ScenarioOptions{Seed: o.Seed}
	if set["count"] {
		so.Count = o.Count
	}
	if set["replicas"] {
		so.Replicas = o.Replicas
	}
	if o.Override != "" {
		so.Strategies = []strategy.Name{o.Override}
	}
	names := []string{name}
	if name == "all" {
		names = plan.ScenarioNames()
	}
	var all []*plan.ScenarioResult
	for i, n := range names {
		res, err := plan.RunScenario(n, so)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		if format == "markdown" {
			all = append(all, res)
			continue
		}
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if code := write(res, format, stdout, stderr); code != 0 {
			return code
		}
	}
	if format == "markdown" {
		if err := plan.WriteMarkdown(stdout, all); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
	}
	return 0
}

// writable is a plan or a scenario comparison.
type writable interface {
	WriteTable(io.Writer) error
	WriteJSON(io.Writer) error
}

func write(res writable, format string, stdout, stderr io.Writer) int {
	var err error
	switch format {
	case "table":
		err = res.WriteTable(stdout)
	case "json":
		err = res.WriteJSON(stdout)
	default:
		if err = res.WriteTable(stdout); err == nil {
			fmt.Fprintln(stdout)
			err = res.WriteJSON(stdout)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}
