package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
)

// rootFlags are Gate's root flags, with the same names, short forms and
// environment variables, plus --log-format.
type rootFlags struct {
	config       string
	configSet    bool // given by flag or GATE_CONFIG: the file must exist
	debug        bool
	verbosity    int
	verbositySet bool
	version      bool
	noAutoReload bool
	logFormat    string
}

// flagDoc is one line of `gate --help`.
type flagDoc struct{ short, long, arg, env, usage string }

var rootFlagDocs = []flagDoc{
	{"c", "config", "FILE", "GATE_CONFIG", "config file (default: config.json, config.yaml or config.yml in the working directory)"},
	{"d", "debug", "", "GATE_DEBUG", "log debug messages (also config.debug)"},
	{"v", "verbosity", "N", "GATE_VERBOSITY", "log V(1)..V(N) messages; --debug without -v shows every level"},
	{"V", "version", "", "", "print the version and exit"},
	{"", "no-auto-reload", "", "GATE_NO_AUTO_RELOAD", "do not reload when the config file changes (SIGHUP still reloads)"},
	{"", "log-format", "text|json", "", "log format (default text)"},
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// configFlag registers -c and --config on fs, both writing one value.
func configFlag(fs *flag.FlagSet, def string) *string {
	p := new(string)
	const usage = "config file (default: config.json, config.yaml or config.yml in the working directory)"
	fs.StringVar(p, "config", def, usage)
	fs.StringVar(p, "c", def, "short for --config")
	return p
}

// parseRoot parses the flags before the command. Environment variables give
// the defaults; flags win over them, as with Gate's CLI library.
func parseRoot(args []string, stderr io.Writer) (*rootFlags, []string, error) {
	r := &rootFlags{logFormat: "text"}
	if err := r.fromEnv(); err != nil {
		return nil, nil, err
	}
	fs := newFlagSet("gate", stderr)
	fs.Usage = func() { writeUsage(stderr) }
	fs.StringVar(&r.config, "config", r.config, "")
	fs.StringVar(&r.config, "c", r.config, "")
	fs.BoolVar(&r.debug, "debug", r.debug, "")
	fs.BoolVar(&r.debug, "d", r.debug, "")
	fs.IntVar(&r.verbosity, "verbosity", r.verbosity, "")
	fs.IntVar(&r.verbosity, "v", r.verbosity, "")
	fs.BoolVar(&r.version, "version", false, "")
	fs.BoolVar(&r.version, "V", false, "")
	fs.BoolVar(&r.noAutoReload, "no-auto-reload", r.noAutoReload, "")
	fs.StringVar(&r.logFormat, "log-format", r.logFormat, "")
	if err := fs.Parse(args); err != nil {
		return nil, nil, err
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "config", "c":
			r.configSet = true
		case "verbosity", "v":
			r.verbositySet = true
		}
	})
	return r, fs.Args(), nil
}

// fromEnv reads GATE_CONFIG, GATE_DEBUG, GATE_VERBOSITY and GATE_NO_AUTO_RELOAD.
func (r *rootFlags) fromEnv() error {
	if v, ok := os.LookupEnv("GATE_CONFIG"); ok && v != "" {
		r.config, r.configSet = v, true
	}
	var errs []error
	boolEnv := func(name string, dst *bool) {
		if v, ok := os.LookupEnv(name); ok && v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s=%q: want true or false", name, v))
			}
			*dst = b
		}
	}
	boolEnv("GATE_DEBUG", &r.debug)
	boolEnv("GATE_NO_AUTO_RELOAD", &r.noAutoReload)
	if v, ok := os.LookupEnv("GATE_VERBOSITY"); ok && v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("GATE_VERBOSITY=%q: want a number", v))
		}
		r.verbosity, r.verbositySet = n, true
	}
	return errors.Join(errs...)
}

// level is the log level the flags and config.debug ask for. logr's V(n) is
// slog level -n; debug without an explicit verbosity shows every V level, as
// in Gate.
func (r *rootFlags) level(configDebug bool) slog.Level {
	if (r.debug || configDebug) && !r.verbositySet {
		return slog.LevelDebug
	}
	return slog.LevelInfo - slog.Level(r.verbosity)
}

const commandsHelp = `Commands:
  (none)                                  run the proxy
  config [-t|--type lite|full] [-w|--write]
                                          print an example config (--write: to config.yml)
  validate [-c FILE]                      check a config file; exit 0 or 1
  lite status [-c FILE] [--api URL] [--token T | --token-file F]
                                          table of every backend from the admin API
  lite plan -c FILE --host HOST [flags]   simulate a route's strategy (gate lite plan -h)
  lite maintenance|drain|undrain|ban|unban|override [flags]
                                          write the operator layer through the admin API
  lite upgrade --pid PID [--timeout D]    hand a running proxy's sessions to the binary on disk
  healthcheck [-c FILE | --url URL]       exit 0 when the running proxy answers
  sleep DURATION                          pause (a preStop hook in an image without a shell)
  version                                 print the version
  help                                    this text`

const envHelp = `Environment:
  GATE_CONFIG, GATE_DEBUG, GATE_VERBOSITY, GATE_NO_AUTO_RELOAD
                      as the flags above (a flag wins over its variable)
  GATE_<KEY>          overrides a config key: the key path in upper case with "."
                      as "_", e.g. GATE_CONFIG_BIND=0.0.0.0:25565,
                      GATE_CONFIG_CONNECTIONTIMEOUT=5s, GATE_API_ENABLED=true
  GATE_API_TOKEN      the token gate lite status sends (not a config override)`

// writeUsage prints `gate --help`: every flag, command and variable.
func writeUsage(w io.Writer) {
	var b strings.Builder
	b.WriteString("gate runs a Minecraft Lite proxy (Gate-compatible config and command line).\n\n")
	b.WriteString("Usage: gate [flags] [command]\n\nFlags:\n")
	for _, f := range rootFlagDocs {
		name := "    "
		if f.short != "" {
			name = "-" + f.short + ", "
		}
		name += "--" + f.long
		if f.arg != "" {
			name += " " + f.arg
		}
		line := fmt.Sprintf("  %-27s %s", name, f.usage)
		if f.env != "" {
			line += " [$" + f.env + "]"
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("\n" + commandsHelp + "\n\n" + envHelp + "\n")
	_, _ = io.WriteString(w, b.String())
}
