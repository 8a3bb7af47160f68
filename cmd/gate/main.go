// Command gate runs the Lite proxy: flags, config, signals and wiring, nothing else.
//
//	gate [--config FILE] [--debug] [--log-format text|json]
//	gate validate [--config FILE]
//	gate lite plan --config FILE --host HOST [simulation flags]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/go-logr/logr"

	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "validate":
			return validate(args[1:], stdout, stderr)
		case "lite":
			if len(args) > 1 && args[1] == "plan" {
				return planCmd(args[2:], stdout, stderr)
			}
			fmt.Fprintln(stderr, "usage: gate lite plan --config FILE --host HOST [flags]")
			return 2
		}
	}
	return serve(args, stderr)
}

// defaultConfig is config.yml in the working directory, like Gate.
const defaultConfig = "config.yml"

func serve(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("gate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("config", "", "config file (default: config.yml in the working directory)")
	debug := fs.Bool("debug", false, "log debug messages")
	format := fs.String("log-format", "text", "log format: text or json")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg, warnings, err := load(*path)
	log, lerr := newLogger(stderr, *format, *debug || (cfg != nil && cfg.Debug))
	if lerr != nil {
		fmt.Fprintln(stderr, lerr)
		return 2
	}
	for _, w := range warnings {
		log.Info("config warning", "warning", w.String())
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	p, err := lite.New(cfg, lite.Options{Log: log})
	if err != nil {
		log.Error(err, "start")
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := p.ListenAndServe(ctx); err != nil && !errors.Is(err, context.Canceled) {
		log.Error(err, "serve")
		return 1
	}
	log.Info("stopped")
	return 0
}

func validate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gate validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
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

func load(path string) (*config.Config, []config.Warning, error) {
	if path == "" {
		path = defaultConfig
	}
	return config.Load(path)
}

func newLogger(w io.Writer, format string, debug bool) (logr.Logger, error) {
	level := slog.LevelInfo
	if debug {
		level = slog.LevelDebug
	}
	opts := &slog.HandlerOptions{Level: level}
	switch format {
	case "text":
		return logr.FromSlogHandler(slog.NewTextHandler(w, opts)), nil
	case "json":
		return logr.FromSlogHandler(slog.NewJSONHandler(w, opts)), nil
	default:
		return logr.Logger{}, fmt.Errorf("--log-format: unknown %q (want text or json)", format)
	}
}
