package lite_test

import (
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"

	"github.com/Tnze/go-mc/bot"
	"github.com/Tnze/go-mc/data/packetid"
	mcnet "github.com/Tnze/go-mc/net"
	pk "github.com/Tnze/go-mc/net/packet"
	"github.com/google/uuid"
)

// These tests use github.com/Tnze/go-mc (protocol 764, 1.20.2) as an independent client,
// and its packet codec for an independent backend, to prove the proxy interoperates with
// code we did not write.

// proxyDialer makes go-mc dial the proxy while it writes the virtual host of addr into
// the handshake, as a player's client would after resolving the name.
type proxyDialer struct{ proxy string }

func (d proxyDialer) DialMCContext(ctx context.Context, _ string) (*mcnet.Conn, error) {
	var nd net.Dialer
	c, err := nd.DialContext(ctx, "tcp", d.proxy)
	if err != nil {
		return nil, err
	}
	return mcnet.WrapConn(c), nil
}

// mcBackend is a minimal offline-mode 1.20.2 server built on go-mc's codec: it accepts
// one login, answers Login Success and finishes configuration.
func mcBackend(t *testing.T) (addr string, players <-chan string) {
	t.Helper()
	ln, err := mcnet.ListenMC("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	names := make(chan string, 4)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			serveMCLogin(&conn, names)
			_ = conn.Close()
		}
	}()
	t.Cleanup(func() { _ = ln.Close(); <-done })
	return ln.Addr().String(), names
}

func serveMCLogin(conn *mcnet.Conn, names chan<- string) {
	if intent, ok := readMCHandshake(conn); ok && intent == 2 {
		finishMCLogin(conn, names)
	}
}

// readMCHandshake reads a handshake and returns its intent.
func readMCHandshake(conn *mcnet.Conn) (intent pk.VarInt, ok bool) {
	var p pk.Packet
	var (
		protocol pk.VarInt
		host     pk.String
		port     pk.UnsignedShort
	)
	ok = conn.ReadPacket(&p) == nil && p.Scan(&protocol, &host, &port, &intent) == nil
	return intent, ok
}

// finishMCLogin answers a Login Start with Login Success and finishes configuration,
// then sends the player's name to names.
func finishMCLogin(conn *mcnet.Conn, names chan<- string) {
	var p pk.Packet
	var name pk.String
	var id pk.UUID
	if conn.ReadPacket(&p) != nil || p.ID != int32(packetid.ServerboundLoginStart) || p.Scan(&name, &id) != nil {
		return
	}
	if conn.WritePacket(pk.Marshal(packetid.ClientboundLoginSuccess, id, name, pk.VarInt(0))) != nil {
		return
	}
	if conn.ReadPacket(&p) != nil || p.ID != int32(packetid.ServerboundLoginAcknowledged) {
		return
	}
	if conn.WritePacket(pk.Marshal(packetid.ClientboundConfigFinishConfiguration)) != nil {
		return
	}
	if conn.ReadPacket(&p) != nil || p.ID != int32(packetid.ServerboundConfigFinishConfiguration) {
		return
	}
	names <- string(name)
}

func TestGoMCOfflineLoginThroughProxy(t *testing.T) {
	addr, players := mcBackend(t)
	p := startProxy(t, oneRoute("survival.example.com", refusedAddr(t), addr).String())
	goMCJoin(t, p.addr, "survival.example.com", 10*time.Second, players)
}

// goMCJoin logs go-mc's client in to host through the proxy at proxy, offline as
// Alex, and waits within timeout for the backend to report Alex on players.
func goMCJoin(t *testing.T, proxy, host string, timeout time.Duration, players <-chan string) {
	t.Helper()
	c := bot.NewClient()
	c.Auth.Name = "Alex"
	c.Auth.UUID = uuid.NewSHA1(uuid.NameSpaceOID, []byte("OfflinePlayer:Alex")).String()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := c.JoinServerWithOptions(host+":25565", bot.JoinOptions{MCDialer: proxyDialer{proxy: proxy}, Context: ctx})
	if err != nil {
		t.Fatalf("go-mc join of %s through the proxy: %v", host, err)
	}
	defer c.Close()
	select {
	case name := <-players:
		if name != "Alex" {
			t.Fatalf("backend saw player %q", name)
		}
	case <-ctx.Done():
		t.Fatal("backend never finished the login")
	}
}

func TestGoMCStatusPingThroughProxy(t *testing.T) {
	b := newBackend(t, statusJSON("Interop MOTD", 12, 200))
	p := startProxy(t, oneRoute("hub.example.com", b.addr).String())

	conn, err := mcnet.DialMC(p.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.Socket.SetDeadline(time.Now().Add(10 * time.Second))
	if err := conn.WritePacket(pk.Marshal(0x00, pk.VarInt(764), pk.String("hub.example.com"), pk.UnsignedShort(25565), pk.VarInt(1))); err != nil {
		t.Fatal(err)
	}
	if err := conn.WritePacket(pk.Marshal(0x00)); err != nil {
		t.Fatal(err)
	}
	var resp pk.Packet
	var body pk.String
	if err := conn.ReadPacket(&resp); err != nil || resp.ID != 0 || resp.Scan(&body) != nil {
		t.Fatalf("status response: id=%d err=%v", resp.ID, err)
	}
	var st struct {
		Players struct{ Online, Max int } `json:"players"`
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil || st.Players.Online != 12 || st.Players.Max != 200 {
		t.Fatalf("status %s (err %v)", body, err)
	}
	start := time.Now().UnixMilli()
	if err := conn.WritePacket(pk.Marshal(0x01, pk.Long(start))); err != nil {
		t.Fatal(err)
	}
	var pong pk.Packet
	var v pk.Long
	if err := conn.ReadPacket(&pong); err != nil || pong.ID != 1 || pong.Scan(&v) != nil || int64(v) != start {
		t.Fatalf("pong: id=%d v=%d err=%v", pong.ID, v, err)
	}
}
