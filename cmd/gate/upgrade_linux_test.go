//go:build linux

package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

// upgradeYAML serves play.example.com from backend, with room for every player of a
// test from loopback (no per-address quotas).
func upgradeYAML(backend string) string {
	return fmt.Sprintf(`config:
  bind: 127.0.0.1:0
  quota:
    connections: {enabled: false}
    logins: {enabled: false}
    status: {enabled: false}
  lite:
    enabled: true
    shutdownGrace: 5s
    routes:
      - host: play.example.com
        backend: %s
        strategy: least-connections
`, backend)
}

// envInt is the integer in environment variable name, else def (the scale runs
// raise them; see docs/lite/upgrade.md).
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// openFDs is what process pid holds open, by kind ("socket", "pipe", "anon_inode:[eventpoll]", ...).
func openFDs(t *testing.T, pid int) map[string]int {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, e := range ents {
		target, _ := os.Readlink(filepath.Join(dir, e.Name()))
		kind, _, _ := strings.Cut(target, ":[")
		if strings.HasPrefix(target, "anon_inode:") {
			kind = target
		}
		if inherited(target) {
			continue
		}
		kinds[kind]++
	}
	return kinds
}

// inherited says a descriptor is one the first gate only inherited from whoever ran
// the tests (a lock file a wrapper holds open, say): files outside the temporary
// directory, /dev and /sys. An upgrade hands on the descriptors gate itself holds,
// not those.
func inherited(target string) bool {
	return strings.HasPrefix(target, "/") && !strings.HasPrefix(target, os.TempDir()) &&
		!strings.HasPrefix(target, "/dev/") && !strings.HasPrefix(target, "/sys/")
}

// TestUpgradeBinaryKeepsSessionsFlowing runs the real gate binary, has players
// exchange sequence-numbered frames at game rates through it, and upgrades it with
// SIGUSR2 again and again: each old process is gone within 2 s; no frame is lost,
// doubled, reordered or altered, no session sees a reset; pings and new logins
// during each hand-over are all served; a login mid-way at the signal finishes; and
// the new process holds as many descriptors as the first did. The defaults are the
// normal suite's; GATE_UPGRADE_PLAYERS, GATE_UPGRADE_COUNT and GATE_UPGRADE_IDLE make
// it the scale run.
func TestUpgradeBinaryKeepsSessionsFlowing(t *testing.T) {
	players, upgrades, idle := envInt("GATE_UPGRADE_PLAYERS", 50), envInt("GATE_UPGRADE_COUNT", 3), envInt("GATE_UPGRADE_IDLE", 20)
	b := newFakeServer(t, 0, 100000)
	path := filepath.Join(t.TempDir(), "config.yml")
	writeFile(t, path, upgradeYAML(b.addr))
	g := startGateProc(t, buildGate(t, t.TempDir()), path)
	waitUntil(t, "the config watcher", func() bool { return openFDs(t, g.pid)["anon_inode:inotify"] == 1 })
	fdsBefore := openFDs(t, g.pid)
	load := startGameLoad(t, g.addr, players, 20)
	idlers := make([]*player, idle)
	for i := range idlers {
		idlers[i] = &player{c: login(t, g.addr, fmt.Sprintf("idle%d", i))}
	}
	for i := range upgrades {
		midway := dialTCP(t, g.addr)
		pre := mctest.LoginPreamble(764, "play.example.com", fmt.Sprintf("mid%d", i))
		if _, err := midway.Write(pre[:5]); err != nil { // the handshake is not in yet
			t.Fatal(err)
		}
		stop := make(chan struct{})
		served := visitors(t, g.addr, stop)
		from := time.Now()
		took := g.upgrade(func() { _, _ = midway.Write(pre[5:]) })
		to := time.Now()
		close(stop)
		pings, logins := served()
		if err := (&player{c: midway, sent: pre}).echoed(); err != nil {
			t.Fatalf("upgrade %d: the login mid-way at the signal: %v", i+1, err)
		}
		_ = midway.Close()
		p99, n := load.p99(from, to)
		t.Logf("upgrade %d: old process gone after %v; round-trip p99 %v over %d frames during the hand-over; %d pings and %d logins served meanwhile",
			i+1, took.Round(time.Millisecond), p99, n, pings, logins)
		if took > 2*time.Second {
			t.Errorf("upgrade %d: the old process took %v to go, want under 2s", i+1, took)
		}
	}
	for i, p := range idlers {
		if err := p.roundTrip("still here"); err != nil {
			t.Fatalf("idle player %d after the upgrades: %v", i, err)
		}
	}
	load.halt(t)
	for _, p := range idlers {
		_ = p.c.Close()
	}
	// The sessions' descriptors close as their ends are seen: wait for that, and say
	// what differs if it never comes.
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.Now().Add(10 * time.Second)
	for last := openFDs(t, g.pid); !maps.Equal(last, fdsBefore); last = openFDs(t, g.pid) {
		if time.Now().After(deadline) {
			t.Fatalf("after 10s the last process holds %v with no session, the first held %v", last, fdsBefore)
		}
		<-tick.C
	}
	t.Logf("descriptors with no session: %v in the first process and the last", fdsBefore)
}

// TestUpgradeToABrokenBinaryKeepsServing: a binary on disk that exits at once never
// becomes ready, so the running gate keeps every session and serves new players, and
// says why in one line; once a good binary is back, the next upgrade goes through.
func TestUpgradeToABrokenBinaryKeepsServing(t *testing.T) {
	b := newFakeServer(t, 0, 100)
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yml")
	writeFile(t, path, upgradeYAML(b.addr))
	bin := buildGate(t, dir)
	g := startGateProc(t, bin, path)
	p := &player{c: login(t, g.addr, "Steve")}
	// As a package manager does: the new file is renamed over the running binary.
	good := readFile(t, bin)
	replaceBinary(t, bin, []byte("#!/bin/sh\nexit 3\n"))
	if err := syscall.Kill(g.pid, syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	g.waitLog("upgrade failed; this process keeps serving everything", 1)
	logs := g.logs()
	if n := strings.Count(logs, "level=ERROR"); n != 1 || !strings.Contains(logs, "exit status 3") {
		t.Fatalf("want one error line naming the exit status; log:\n%s", logs)
	}
	if err := p.roundTrip("still flowing"); err != nil {
		t.Fatalf("session after the failed upgrade: %v", err)
	}
	if err := visit(g.addr, "Alex"); err != nil {
		t.Fatalf("new player after the failed upgrade: %v", err)
	}
	if body := ping(t, g.addr, "play.example.com"); !strings.Contains(body, "fake") {
		t.Fatalf("ping after the failed upgrade: %s", body)
	}
	replaceBinary(t, bin, good)
	// This time as systemd's ExecReload does it.
	start, pid := time.Now(), strconv.Itoa(g.pid)
	var out, errOut syncBuffer
	if code := run([]string{"lite", "upgrade", "--pid", pid, "--timeout", "20s"}, &out, &errOut); code != 0 ||
		!strings.Contains(out.String(), "process "+pid+" handed over and exited") {
		t.Fatalf("gate lite upgrade: exit %d, %s%s", code, out.String(), errOut.String())
	}
	g.succeeded(start)
	if err := p.roundTrip("moved"); err != nil {
		t.Fatalf("session after the good upgrade: %v", err)
	}
	_ = p.c.Close()
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// replaceBinary writes content to a new file and renames it over path.
func replaceBinary(t *testing.T, path string, content []byte) {
	t.Helper()
	tmp := path + ".new"
	if err := os.WriteFile(tmp, content, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
