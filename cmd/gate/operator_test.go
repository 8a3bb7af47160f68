package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.minekube.com/gate/internal/mctest"
)

// operatorYAML is gateYAML with the operator layer's state file at state.
func operatorYAML(host, backend, state, motd string) string {
	y := strings.Replace(gateYAML(host, backend), "    shutdownGrace: 0s\n",
		fmt.Sprintf("    shutdownGrace: 0s\n    operator: {stateFile: %s}\n", state), 1)
	return strings.Replace(y, "motd: down", "motd: "+motd, 1)
}

// refusedAs logs in as name and returns the Disconnect text ("" when the backend answered).
func refusedAs(t *testing.T, proxy, host, name string) string {
	t.Helper()
	p := joinAs(t, proxy, host, name)
	defer p.c.Close()
	c := mctest.NewClient(p.c)
	text, err := c.Disconnect()
	if err != nil {
		return ""
	}
	return text
}

// gateLite runs `gate lite ARGS...` against g's API and returns its exit code and output.
func gateLite(g *running, token string, args ...string) (int, string) {
	var out, errOut bytes.Buffer
	all := append([]string{"lite", args[0], "--api", g.api, "--by", "test-operator"}, args[1:]...)
	if token != "" {
		all = append(all, "--token", token)
	}
	code := run(all, &out, &errOut)
	return code, out.String() + errOut.String()
}

func TestOperatorLayerSurvivesFileReloadAndRestart(t *testing.T) {
	b := newFakeServer(t, 7, 20)
	state := filepath.Join(t.TempDir(), "operator.json")
	g := startGate(t, operatorYAML("a.example.com", b.addr, state, "down"), "s3cret")
	if code, out := gateLite(g, "", "drain", b.addr); code != 1 || !strings.Contains(out, "unauthorized") {
		t.Fatalf("drain without the token: exit %d, %s", code, out)
	}
	for _, args := range [][]string{
		{"ban", "Griefer", "--reason", "griefing"},
		{"override", "--route", "a.example.com", "--motd", "Event tonight", "--max-players", "500"},
	} {
		if code, out := gateLite(g, "s3cret", args...); code != 0 {
			t.Fatalf("gate lite %v: exit %d, %s", args, code, out)
		}
	}
	check := func(when string, g *running) {
		t.Helper()
		if text := refusedAs(t, g.proxy, "a.example.com", "griefer"); !strings.Contains(text, "griefing") {
			t.Fatalf("%s: the banned player was told %q", when, text)
		}
		if got := ping(t, g.proxy, "a.example.com"); !strings.Contains(got, "Event tonight") || !strings.Contains(got, `"max":500`) || !strings.Contains(got, `"online":7`) {
			t.Fatalf("%s: ping = %s", when, got)
		}
		if _, body := g.get("/api/v1/operator"); !strings.Contains(body, `"layer": "operator"`) || strings.Count(body, `"kind"`) != 2 {
			t.Fatalf("%s: /api/v1/operator = %s", when, body)
		}
		p := joinAs(t, g.proxy, "a.example.com", "alice")
		if err := p.echoed(); err != nil {
			t.Fatalf("%s: a player not banned: %v", when, err)
		}
		_ = p.c.Close()
	}
	check("after the writes", g)
	writeFile(t, g.path, operatorYAML("a.example.com", b.addr, state, "changed"))
	g.waitMetric(`gate_lite_config_reloads_total{result="ok"}`, "1")
	check("after a file reload", g)
	if code := g.stop(); code != 0 {
		t.Fatalf("stop: %d\n%s", code, g.log.String())
	}
	g.done <- 0 // for the cleanup's stop: this one has stopped
	g2 := startGate(t, operatorYAML("a.example.com", b.addr, state, "down"), "s3cret")
	check("after a restart", g2)
	if code, out := gateLite(g2, "s3cret", "unban", "Griefer"); code != 0 {
		t.Fatalf("unban: %d %s", code, out)
	}
	p := joinAs(t, g2.proxy, "a.example.com", "Griefer")
	if err := p.echoed(); err != nil {
		t.Fatalf("after unban: %v", err)
	}
	if n := strings.Count(g2.log.String(), `"msg":"operator write"`); n != 1 {
		t.Fatalf("%d audit lines for one write", n)
	}
}
