package mctest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"
)

// NodeVersion is the Minecraft version the node server and bots speak: one
// that npm's minecraft-protocol and the proxy's release table both know.
const NodeVersion = "1.20.4"

// NodeModules returns the node_modules directory holding npm's
// minecraft-protocol (GATETEST_NODE_MODULES, set by scripts/test.sh), or
// skips the test, which then needs a real Minecraft server or client.
func NodeModules(t interface {
	TB
	Skip(args ...any)
}) string {
	t.Helper()
	dir := os.Getenv("GATETEST_NODE_MODULES")
	if dir == "" {
		t.Skip("needs npm's minecraft-protocol (GATETEST_NODE_MODULES): run scripts/test.sh")
	}
	return dir
}

// nodeScript is the path of one of this package's node programs.
func nodeScript(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "node", name)
}

// NodeServer is a real Minecraft server (node/server.js) run as a process.
type NodeServer struct {
	Addr string
	cmd  *exec.Cmd
	done chan struct{}

	mu    sync.Mutex
	joins []string
	err   error
}

// NodeServerOptions configure StartNodeServer.
type NodeServerOptions struct {
	Host       string // IP literal to listen on
	Port       int
	MOTD       string
	MaxPlayers int
	Favicon    string // data:image/png;base64,... or ""
	// HidePlayers makes its status report 0 players online whatever the
	// truth, as a server behind another proxy does.
	HidePlayers bool
	// Version is the Minecraft version it speaks; default NodeVersion.
	Version string
}

// StartNodeServer starts node/server.js with the modules in modules and waits
// up to 30 s until it listens. The test's cleanup stops it by its pid.
func StartNodeServer(t TB, modules string, o NodeServerOptions) *NodeServer {
	t.Helper()
	s, err := LaunchNodeServer(modules, o)
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

// LaunchNodeServer is StartNodeServer for a goroutine that plays an engine
// (and may not fail the test itself): the caller stops the server.
func LaunchNodeServer(modules string, o NodeServerOptions) (*NodeServer, error) {
	if o.MaxPlayers == 0 {
		o.MaxPlayers = 100
	}
	if o.Version == "" {
		o.Version = NodeVersion
	}
	args := []string{nodeScript("server.js"), o.Host, strconv.Itoa(o.Port), o.Version, o.MOTD, strconv.Itoa(o.MaxPlayers)}
	if o.Favicon != "" {
		args = append(args, o.Favicon)
	}
	cmd := exec.Command("node", args...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	if o.HidePlayers {
		cmd.Env = append(cmd.Env, "NODE_SERVER_HIDE_PLAYERS=1")
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("node server: %w", err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("node server: %w", err)
	}
	s := &NodeServer{Addr: net.JoinHostPort(o.Host, strconv.Itoa(o.Port)), cmd: cmd, done: make(chan struct{})}
	listening := make(chan struct{})
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var ev struct{ Event, Username, Error string }
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				continue
			}
			s.mu.Lock()
			switch ev.Event {
			case "listening":
				close(listening)
			case "join":
				s.joins = append(s.joins, ev.Username)
			case "error":
				s.err = fmt.Errorf("node server: %s", ev.Error)
			}
			s.mu.Unlock()
		}
		_ = cmd.Wait()
	}()
	select {
	case <-listening:
		return s, nil
	case <-s.done:
		return nil, fmt.Errorf("node server on %s exited before listening", s.Addr)
	case <-time.After(30 * time.Second):
		s.Stop()
		return nil, fmt.Errorf("node server on %s not listening within 30s", s.Addr)
	}
}

// Joins returns the names of the players who joined so far.
func (s *NodeServer) Joins() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.joins...)
}

// Stop ends the server (by its pid) and waits for it; calling it twice is fine.
func (s *NodeServer) Stop() {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
	}
	<-s.done
}

// BotResult is one bot's outcome: "joined", "kicked" (Reason holds the
// Disconnect's text), "closed" or "error".
type BotResult struct {
	Bot     string        `json:"bot"`
	Outcome string        `json:"outcome"`
	Reason  string        `json:"reason"`
	Error   string        `json:"error"`
	After   time.Duration `json:"-"`
	MS      int64         `json:"ms"`
}

// Bots is a run of node/bots.js: count real clients logging in at once.
type Bots struct {
	Addr, Host string // where to connect, and the handshake's host
	Count      int
	Stay       time.Duration // how long a joined bot stays
	NamePrefix string
	Version    string // the Minecraft version the bots speak; default NodeVersion
}

// Run runs the bots with the modules in modules until every one has an
// outcome (and the joined ones have stayed), or ctx ends.
func (b Bots) Run(ctx context.Context, modules string) ([]BotResult, error) {
	host, port, err := net.SplitHostPort(b.Addr)
	if err != nil {
		return nil, err
	}
	prefix := b.NamePrefix
	if prefix == "" {
		prefix = "bot"
	}
	version := b.Version
	if version == "" {
		version = NodeVersion
	}
	res, err := runNode(ctx, modules, "bots.js", func(r BotResult) bool { return r.Bot != "" },
		host, port, b.Host, version, strconv.Itoa(b.Count), strconv.FormatInt(b.Stay.Milliseconds(), 10), prefix)
	for i := range res {
		res[i].After = time.Duration(res[i].MS) * time.Millisecond
	}
	if err != nil {
		return res, fmt.Errorf("bots: %w", err)
	}
	return res, nil
}

// runNode runs a script of node/ with the modules in modules and decodes each line
// it prints as a T, keeping those keep accepts (the scripts print one JSON object
// per outcome or step; anything else on stdout is ignored).
func runNode[T any](ctx context.Context, modules, script string, keep func(T) bool, args ...string) ([]T, error) {
	cmd := exec.CommandContext(ctx, "node", append([]string{nodeScript(script)}, args...)...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	var res []T
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var v T
		if json.Unmarshal(sc.Bytes(), &v) == nil && keep(v) {
			res = append(res, v)
		}
	}
	return res, err
}
