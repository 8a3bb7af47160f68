package main

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	gate "go.minekube.com/gate"
)

// `gate --help` lists every flag with its short form and variable, every
// command and the config-key variables.
func TestHelpListsEverything(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		for _, want := range []string{
			"-c, --config FILE", "[$GATE_CONFIG]", "-d, --debug", "[$GATE_DEBUG]",
			"-v, --verbosity N", "[$GATE_VERBOSITY]", "-V, --version", "--no-auto-reload", "[$GATE_NO_AUTO_RELOAD]",
			"--log-format", "config [-t|--type", "validate", "lite status", "lite plan", "healthcheck", "version",
			"GATE_CONFIG_BIND", "GATE_API_TOKEN",
		} {
			if !strings.Contains(out.String(), want) {
				t.Fatalf("%v: help lacks %q:\n%s", args, want, out.String())
			}
		}
	}
}

func TestConfigCommandPrintsExamples(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []byte
	}{
		{[]string{"config", "--type", "lite"}, gate.LiteConfig},
		{[]string{"config", "-t", "lite"}, gate.LiteConfig},
		{[]string{"config"}, gate.FullConfig},
	} {
		var out, errOut bytes.Buffer
		if code := run(tc.args, &out, &errOut); code != 0 || !bytes.Equal(out.Bytes(), tc.want) {
			t.Fatalf("%v: exit %d, %d bytes (want %d): %s", tc.args, code, out.Len(), len(tc.want), errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"config", "--type", "bedrock"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "not supported") {
		t.Fatalf("bedrock: exit %d, %s", code, errOut.String())
	}
}

// The example loads: `gate config --type lite > config.yml && gate` works.
func TestConfigWriteThenValidate(t *testing.T) {
	t.Chdir(t.TempDir())
	var out, errOut bytes.Buffer
	if code := run([]string{"config", "-t", "lite", "-w"}, &out, &errOut); code != 0 {
		t.Fatalf("write: exit %d: %s", code, errOut.String())
	}
	if code := run([]string{"config", "-w"}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "not overwriting") {
		t.Fatalf("second write: exit %d: %s", code, errOut.String())
	}
	out.Reset()
	if code := run([]string{"validate"}, &out, &errOut); code != 0 || !strings.HasPrefix(out.String(), "config.yml: ok") {
		t.Fatalf("validate the written file: exit %d: %s", code, out.String())
	}
}

func TestRootFlagsAndEnv(t *testing.T) {
	t.Setenv("GATE_CONFIG", "from-env.yml")
	t.Setenv("GATE_DEBUG", "true")
	t.Setenv("GATE_NO_AUTO_RELOAD", "1")
	r, rest, err := parseRoot([]string{"-v", "3", "validate"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if r.config != "from-env.yml" || !r.configSet || !r.debug || !r.noAutoReload || r.verbosity != 3 || len(rest) != 1 {
		t.Fatalf("flags %+v rest %v", r, rest)
	}
	if got := r.level(false); got != slog.LevelInfo-3 {
		t.Fatalf("level with -v 3 = %v, want V(3)", got)
	}
	r, _, err = parseRoot([]string{"--config", "flag.yml", "-d=false"}, &bytes.Buffer{})
	if err != nil || r.config != "flag.yml" || r.debug {
		t.Fatalf("flags win over the environment: %+v %v", r, err)
	}
	if got := r.level(true); got != slog.LevelDebug {
		t.Fatalf("config.debug without -v: level %v, want debug", got)
	}
	t.Setenv("GATE_VERBOSITY", "many")
	if _, _, err := parseRoot(nil, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "GATE_VERBOSITY") {
		t.Fatalf("bad GATE_VERBOSITY: %v", err)
	}
}

// GATE_CONFIG names the file and GATE_CONFIG_BIND overrides config.bind of a
// running proxy; -c before a command is that command's --config.
func TestServeWithGateEnvironment(t *testing.T) {
	b := newFakeServer(t, 1, 20)
	dir := t.TempDir()
	path := filepath.Join(dir, "gate.yml")
	writeFile(t, path, gateYAML("a.example.com", b.addr))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	want := ln.Addr().String()
	_ = ln.Close()
	t.Setenv("GATE_CONFIG", path)
	t.Setenv("GATE_CONFIG_BIND", want)
	t.Setenv("GATE_NO_AUTO_RELOAD", "true")

	a, log, stop := serveNoArgs(t)
	if got := a.ln.Addr().String(); got != want {
		t.Fatalf("listening on %s, want %s from GATE_CONFIG_BIND", got, want)
	}
	if !strings.Contains(log.String(), `autoReload=false`) {
		t.Fatalf("GATE_NO_AUTO_RELOAD not honoured:\n%s", log.String())
	}
	if body := ping(t, want, "a.example.com"); !strings.Contains(body, `"online":1`) {
		t.Fatalf("status through the env-bound listener: %s", body)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"validate"}, &out, &errOut); code != 0 || !strings.HasPrefix(out.String(), path+": ok") {
		t.Fatalf("validate with GATE_CONFIG: exit %d: %s%s", code, out.String(), errOut.String())
	}
	if code := stop(); code != 0 {
		t.Fatalf("exit %d: %s", code, log.String())
	}
}

// serveNoArgs runs `gate` without arguments (the config from the working
// directory and the environment) until stop, once it serves.
func serveNoArgs(t *testing.T) (a *app, log *syncBuffer, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	log = &syncBuffer{}
	up := make(chan *app, 1)
	done := make(chan int, 1)
	go func() { done <- serve(ctx, nil, log, func(a *app) { up <- a }) }()
	select {
	case a = <-up:
	case code := <-done:
		cancel()
		t.Fatalf("exit %d: %s", code, log.String())
	}
	waitReady(t, a.proxy)
	var once sync.Once
	code := 0
	stop = func() int {
		once.Do(func() { cancel(); code = <-done })
		return code
	}
	t.Cleanup(func() { stop() })
	return a, log, stop
}

func TestServeWithoutConfigFile(t *testing.T) {
	t.Chdir(t.TempDir())
	var log syncBuffer
	code := serve(context.Background(), nil, &log, func(*app) { t.Error("started") })
	if code != 1 || !strings.Contains(log.String(), "no config file: none of config.json, config.yaml, config.yml") {
		t.Fatalf("exit %d: %s", code, log.String())
	}
	if err := os.WriteFile("config.yaml", []byte("config:\n  lite:\n    enabled: true\n    routes:\n      - host: a\n        backend: 127.0.0.1:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := configPath(""); got != "config.yaml" {
		t.Fatalf("default config = %q, want config.yaml", got)
	}
}

// Without a config file, GATE_CONFIG_* variables can carry the whole config.
func TestServeFromEnvironmentOnly(t *testing.T) {
	t.Chdir(t.TempDir())
	b := newFakeServer(t, 2, 20)
	t.Setenv("GATE_CONFIG_BIND", "127.0.0.1:0")
	t.Setenv("GATE_CONFIG_LITE_ENABLED", "true")
	t.Setenv("GATE_CONFIG_LITE_SHUTDOWNGRACE", "0s")
	t.Setenv("GATE_CONFIG_LITE_ROUTES", "[{host: a.example.com, backend: '"+b.addr+"'}]")
	a, log, stop := serveNoArgs(t)
	if body := ping(t, a.ln.Addr().String(), "a.example.com"); !strings.Contains(body, `"online":2`) {
		t.Fatalf("status: %s", body)
	}
	if !strings.Contains(log.String(), `config="(environment only)"`) {
		t.Fatalf("log does not say where the config came from:\n%s", log.String())
	}
	if code := stop(); code != 0 {
		t.Fatalf("exit %d: %s", code, log.String())
	}
}
