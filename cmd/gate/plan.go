package main

import (
	"flag"
	"fmt"
	"io"

	"go.minekube.com/gate/pkg/edition/java/lite/route"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
	"go.minekube.com/gate/pkg/lite/plan"
	"go.minekube.com/gate/pkg/lite/strategy"
)

// planCmd resolves --host against the config's routes exactly like a player's handshake
// would, then runs the simulator on that route's strategy and backends.
func planCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gate lite plan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("config", "", "config file (default: config.yml in the working directory)")
	host := fs.String("host", "", "virtual host a player connects with (required)")
	format := fs.String("format", "table", "output: table, json or both")
	var o plan.Options
	o.Flags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *host == "" {
		fmt.Fprintln(stderr, "gate lite plan: --host is required")
		return 2
	}
	cfg, _, err := load(*path)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	specs := make([]route.Spec, len(cfg.Lite.Routes))
	for i, r := range cfg.Lite.Routes {
		specs[i] = route.Spec{Hosts: r.Host, Backends: r.Backend}
	}
	table, err := route.Compile(specs)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	m, ok := table.Match(wire.CleanHost(*host))
	if !ok {
		fmt.Fprintf(stderr, "gate lite plan: no route matches host %q\n", *host)
		return 1
	}
	r := cfg.Lite.Routes[m.Route]
	o.Strategy = strategy.Name(r.Strategy)
	o.Backends = m.Backends
	hc := r.HealthCheck
	o.Health = strategy.HealthCheck{Enabled: hc.Enabled, Interval: hc.Interval, Timeout: hc.Timeout, Rise: hc.Rise, Fall: hc.Fall}
	res, err := plan.Run(o)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	switch *format {
	case "table":
		err = res.WriteTable(stdout)
	case "json":
		err = res.WriteJSON(stdout)
	case "both":
		if err = res.WriteTable(stdout); err == nil {
			fmt.Fprintln(stdout)
			err = res.WriteJSON(stdout)
		}
	default:
		fmt.Fprintf(stderr, "--format: unknown %q (want table, json or both)\n", *format)
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}
