package mctest_test

import (
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
)

// The fixtures themselves: five real clients join the real server directly.
func TestNodeServerAndBots(t *testing.T) {
	modules := mctest.NodeModules(t)
	port := freePort(t)
	srv := mctest.StartNodeServer(t, modules, mctest.NodeServerOptions{Host: "127.0.0.1", Port: port, MOTD: "fixture"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := mctest.Bots{Addr: srv.Addr, Host: "fixture.test", Count: 5, Stay: 100 * time.Millisecond}.Run(ctx, modules)
	if err != nil {
		t.Fatal(err)
	}
	joined := 0
	for _, r := range res {
		if r.Outcome == "joined" {
			joined++
		} else {
			t.Errorf("bot %s: %s %s%s", r.Bot, r.Outcome, r.Reason, r.Error)
		}
	}
	if joined != 5 || len(srv.Joins()) != 5 {
		t.Fatalf("joined %d by the bots' count, %d by the server's; want 5", joined, len(srv.Joins()))
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Its status carries the favicon and, with HidePlayers, 0 players online.
func TestNodeServerStatus(t *testing.T) {
	modules := mctest.NodeModules(t)
	fav := mctest.Favicon(3)
	srv := mctest.StartNodeServer(t, modules, mctest.NodeServerOptions{Host: "127.0.0.1", Port: freePort(t),
		MOTD: "fixture", Favicon: fav, HidePlayers: true})
	body, err := mctest.Ping(srv.Addr, 765, "fixture.test")
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Favicon string
		Players struct{ Online, Max int }
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	if st.Favicon != fav || st.Players.Online != 0 || st.Players.Max != 100 {
		t.Fatalf("status %s", body)
	}
}
