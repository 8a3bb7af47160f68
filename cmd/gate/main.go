// Command gate runs the Lite proxy: flags, config, signals and wiring, nothing else.
//
//	gate [--config FILE] [--debug] [--log-format text|json]
//	gate validate [--config FILE]
//	gate lite status [--api URL] [--token TOKEN | --token-file FILE] [--config FILE]
//	gate lite plan --config FILE --host HOST [simulation flags]
//	gate healthcheck [--url URL | --config FILE]
//	gate version
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

// version is set at build time: -ldflags "-X main.version=v1.2.3".
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage:
  gate [--config FILE] [--debug] [--log-format text|json]   run the proxy
  gate validate [--config FILE]                             check a config file
  gate lite status [--api URL] [--token TOKEN]              table of every backend
  gate lite plan --config FILE --host HOST [flags]          simulate a route's strategy
  gate healthcheck [--url URL | --config FILE]              exit 0 when the proxy is up
  gate version                                              print the version`

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "validate":
			return validate(args[1:], stdout, stderr)
		case "healthcheck":
			return healthcheckCmd(args[1:], stdout, stderr)
		case "lite":
			if len(args) > 1 {
				switch args[1] {
				case "plan":
					return planCmd(args[2:], stdout, stderr)
				case "status":
					return statusCmd(args[2:], stdout, stderr)
				}
			}
			fmt.Fprintln(stderr, usage)
			return 2
		case "version", "--version":
			fmt.Fprintln(stdout, "gate", version)
			return 0
		case "help", "-h", "--help":
			fmt.Fprintln(stdout, usage)
			return 0
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, args, stderr, nil)
}

// defaultConfig is config.yml in the working directory, like Gate.
const defaultConfig = "config.yml"

func validate(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("gate validate", stderr)
	path := fs.String("config", "", "config file (default: config.yml in the working directory)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg, warnings, err := load(*path)
	for _, w := range warnings {
		fmt.Fprintln(stdout, "warning:", w.String())
	}
	if err != nil {
		fmt.Fprintln(stdout, err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: ok (%d routes, %d warnings)\n", cfg.File, len(cfg.Lite.Routes), len(warnings))
	return 0
}

func configPath(path string) string {
	if path == "" {
		return defaultConfig
	}
	return path
}

func load(path string) (*config.Config, []config.Warning, error) {
	return config.Load(configPath(path))
}
