// Command gate runs the Lite proxy: flags, config, signals and wiring, nothing else.
// Its command line is Gate's (see `gate --help` and flags.go):
//
//	gate [-c FILE] [-d] [-v N] [--no-auto-reload] [--log-format text|json]
//	gate -V | version
//	gate config [--type lite|full] [--write]
//	gate validate [-c FILE]
//	gate lite status [-c FILE] [--api URL] [--token TOKEN | --token-file FILE]
//	gate lite plan -c FILE --host HOST [simulation flags]
//	gate lite maintenance|drain|undrain|ban|unban|override [flags] (operator.go)
//	gate lite upgrade --pid PID [--timeout 1m]
//	gate healthcheck [-c FILE | --url URL]
//	gate sleep DURATION
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/wake/engines"
)

// version is set at build time: -ldflags "-X main.version=v1.2.3".
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	root, rest, err := parseRoot(args, io.Discard)
	switch {
	case errors.Is(err, flag.ErrHelp):
		writeUsage(stdout)
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "gate: %v\nRun gate --help for the flags and commands.\n", err)
		return 2
	case root.version:
		printVersion(stdout)
		return 0
	case len(rest) == 0:
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return serveRoot(ctx, root, stderr, nil)
	}
	sub := rest[1:]
	if root.configSet { // a root --config (or GATE_CONFIG) is the command's default
		sub = append([]string{"--config", root.config}, sub...)
	}
	switch rest[0] {
	case "config":
		return configCmd(rest[1:], stdout, stderr)
	case "validate":
		return validate(sub, stdout, stderr)
	case "healthcheck":
		return healthcheckCmd(sub, stdout, stderr)
	case "lite":
		return liteCmd(rest[1:], root, stdout, stderr)
	case "sleep":
		return sleepCmd(rest[1:], stderr)
	case "version":
		printVersion(stdout)
		return 0
	case "help":
		writeUsage(stdout)
		return 0
	}
	fmt.Fprintf(stderr, "gate: unknown command %q\nRun gate --help for the flags and commands.\n", rest[0])
	return 2
}

// liteCmd runs `gate lite status` and `gate lite plan`.
func liteCmd(args []string, root *rootFlags, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "upgrade" { // upgrade_linux.go
		return upgradeCmd(args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "plan" && args[0] != "status" && !operatorCommands[args[0]] {
		fmt.Fprintln(stderr, "usage: gate lite status|plan|upgrade|maintenance|drain|undrain|ban|unban|override [flags] (gate --help lists them)")
		return 2
	}
	sub := shortConfig(args[1:])
	if root.configSet {
		sub = append([]string{"--config", root.config}, sub...)
	}
	if operatorCommands[args[0]] {
		return operatorCmd(args[0], sub, stdout, stderr)
	}
	if args[0] == "plan" {
		return planCmd(sub, stdout, stderr)
	}
	return statusCmd(sub, stdout, stderr)
}

// shortConfig spells -c as --config for commands whose flag sets know only
// the long form.
func shortConfig(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		switch {
		case a == "-c":
			a = "--config"
		case strings.HasPrefix(a, "-c="):
			a = "--config=" + a[len("-c="):]
		}
		out[i] = a
	}
	return out
}

// sleepCmd pauses for a duration: a Kubernetes preStop hook for clusters
// without the sleep action, in an image that has no shell and no sleep binary.
func sleepCmd(args []string, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: gate sleep DURATION (e.g. 5s)")
		return 2
	}
	d, err := time.ParseDuration(args[0])
	if err != nil || d < 0 || d > time.Hour {
		fmt.Fprintf(stderr, "gate sleep: want a duration from 0s to 1h, got %q\n", args[0])
		return 2
	}
	time.Sleep(d)
	return 0
}

func printVersion(w io.Writer) { fmt.Fprintln(w, "gate version", version) }

func validate(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("gate validate", stderr)
	path := configFlag(fs, "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg, warnings, err := checked(load(*path))
	for _, w := range warnings {
		fmt.Fprintln(stdout, "warning:", w.String())
	}
	if err == nil {
		err = checkSources(cfg)
	}
	if err != nil {
		fmt.Fprintln(stdout, err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: ok (%d routes, %d warnings)\n", cfg.File, len(cfg.Lite.Routes), len(warnings))
	return 0
}

// defaultConfigs are the files looked for in the working directory when no
// config is given, in the order Gate's config library tries them.
var defaultConfigs = []string{"config.json", "config.yaml", "config.yml"}

// defaultConfig is the file named in messages when none of them exists.
const defaultConfig = "config.yml"

// configPath returns path, or the first default config file that exists.
func configPath(path string) string {
	if path != "" {
		return path
	}
	for _, p := range defaultConfigs {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return defaultConfig
}

func load(path string) (*config.Config, []config.Warning, error) {
	return config.Load(configPath(path))
}

// checked adds to a config load what validate, serve's start and every reload
// check beyond the file itself: that each file route's wake target can be
// built.
func checked(cfg *config.Config, warnings []config.Warning, err error) (*config.Config, []config.Warning, error) {
	if err == nil {
		err = engines.CheckRoutes(cfg)
	}
	return cfg, warnings, err
}
