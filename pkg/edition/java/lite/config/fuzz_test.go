package config

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/route"
)

// fuzzMinimizeTime replaces go test's default of 60s per input for
// -fuzzminimizetime. The fuzzer minimizes every input that finds new
// coverage, in up to len(input)^2 runs, and counts none of them until it is
// done: an input grown from the 8 KiB reference config kept both workers
// minimizing for up to that minute, which showed as 0 execs/sec and, with a
// short -fuzztime, ended the run while minimizing.
const fuzzMinimizeTime = "1s"

func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.fuzzminimizetime" })
	if !set {
		if err := flag.Set("test.fuzzminimizetime", fuzzMinimizeTime); err != nil {
			fmt.Fprintln(os.Stderr, "bound fuzz minimization:", err)
			os.Exit(2)
		}
	}
	os.Exit(m.Run())
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"config.yml", "config-lite.yml"} {
		if data, err := os.ReadFile(repoRoot + name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(minimal))
	f.Add([]byte("a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]\nconfig:\n  lite:\n    enabled: true\n    routes: *c\n"))
	f.Add([]byte("config:\n  lite:\n    enabled: true\n    routes:\n      - &r {host: a, backend: b, fallback: {motd: &m [*m]}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, warns, err := Parse(data, "fuzz.yml")
		for _, w := range warns {
			if w.File != "fuzz.yml" || w.Line < 0 {
				t.Fatalf("bad warning %+v", w)
			}
		}
		if err != nil {
			var list ErrorList
			if cfg != nil || !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("cfg %v, err %T %v", cfg != nil, err, err)
			}
			return
		}
		if !cfg.Lite.Enabled || len(cfg.Lite.Routes) == 0 {
			t.Fatalf("accepted config without lite routes: %+v", cfg.Lite)
		}
		if _, err := route.Compile(cfg.Lite.Specs()); err != nil {
			t.Fatalf("accepted routes do not compile: %v", err)
		}
		for _, r := range cfg.Lite.Routes {
			if r.CachePingTTL == 0 || r.HealthCheck.Timeout >= r.HealthCheck.Interval || r.HealthCheck.Rise < 1 {
				t.Fatalf("accepted route breaks its invariants: %+v", r)
			}
		}
	})
}
