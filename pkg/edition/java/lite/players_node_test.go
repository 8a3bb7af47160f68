package lite_test

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// nodeVersions are the releases npm's minecraft-protocol logs in with here: every
// Login Start layout, from 1.7 to the newest it supports.
var nodeVersions = []string{"1.7", "1.8.8", "1.12.2", "1.16.5", "1.18.2", "1.19", "1.19.2", "1.20.1", "1.20.4", "1.21.4", "26.1"}

// offlineUUID is the UUID an offline-mode client claims: Java's nameUUIDFromBytes.
func offlineUUID(name string) uuid.UUID {
	h := md5.Sum([]byte("OfflinePlayer:" + name))
	h[6] = h[6]&0x0f | 0x30
	h[8] = h[8]&0x3f | 0x80
	return uuid.UUID(h)
}

// loginRecorder is a backend that keeps the bytes of each login up to its whole Login
// Start, then refuses it with a Login Disconnect ("recorded").
func loginRecorder(t *testing.T) (addr string, got <-chan []byte) {
	t.Helper()
	ch := make(chan []byte, 16)
	b := mctest.NewScriptBackend(t, 0, func(c *net.TCPConn) {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		var buf []byte
		tmp := make([]byte, 4096)
		for {
			n, err := c.Read(tmp)
			buf = append(buf, tmp[:n]...)
			if hs, k, herr := wire.ParseHandshake(buf); herr == nil {
				if _, m, lerr := wire.ParseLoginStart(buf[k:], hs.Protocol); lerr == nil {
					ch <- buf[:k+m]
					_, _ = c.Write(wire.AppendLoginDisconnect(nil, []byte(`{"text":"recorded"}`)))
					return
				}
			}
			if err != nil {
				ch <- buf
				return
			}
		}
	})
	return b.Addr(), ch
}

// tap listens in front of target and keeps what each client sent.
func tap(t *testing.T, target string) (addr string, sent <-chan []byte) {
	t.Helper()
	ln := mctest.Listen(t)
	ch := make(chan []byte, 16)
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				up, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer up.Close()
				var rec tapRecord
				go func() { _, _ = io.Copy(c, up); _ = c.Close() }()
				_, _ = io.Copy(io.MultiWriter(up, &rec), c)
				ch <- rec.bytes()
			})
		}
	})
	return ln.Addr().String(), ch
}

type tapRecord struct {
	mu sync.Mutex
	b  []byte
}

func (r *tapRecord) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.b = append(r.b, p...)
	return len(p), nil
}

func (r *tapRecord) bytes() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.b
}

// npm's minecraft-protocol client, on every Login Start layout from 1.7 to the newest
// it speaks: the proxy reads the name and UUID right (the connection's log line: the
// backend's kick is a refusal now, logged at V(1), issue 32 item 4) and the
// backend gets exactly the client's bytes (checksum); a denied bot gets the text with
// no backend connection.
func TestNodeClientIdentityOnEveryLayout(t *testing.T) {
	modules := mctest.NodeModules(t)
	backend, received := loginRecorder(t)
	var logs mctest.Logs
	p := startProxy(t, oneRoute("node.example.com", backend).
		withLite(`players: {deny: [denied0], text: "Banned here."}`).quotasOff().String(), proxyOpts{log: logs.Logger(1)})
	front, sent := tap(t, p.addr)
	for _, v := range nodeVersions {
		t.Run(v, func(t *testing.T) {
			prefix := "p" + strings.ReplaceAll(v, ".", "_") + "x"
			res := runBots(t, mctest.Bots{Addr: front, Host: "node.example.com", Count: 1, NamePrefix: prefix, Version: v}, modules)
			if res.Outcome != "kicked" || res.Reason != "recorded" {
				t.Fatalf("bot %+v, want kicked by the backend", res)
			}
			got, clientSent := <-received, <-sent
			if sha256.Sum256(got) != sha256.Sum256(clientSent[:min(len(got), len(clientSent))]) || len(got) != len(clientSent) {
				t.Fatalf("backend got %x\nclient sent %x", got, clientSent)
			}
			hs, n, _ := wire.ParseHandshake(got)
			ls, _, err := wire.ParseLoginStart(got[n:], hs.Protocol)
			if err != nil {
				t.Fatal(err)
			}
			name := prefix + "0"
			line := `"player"="` + name + `"`
			mctest.WaitFor(t, "the session's log line", 5*time.Second, func() bool { return logs.Count(line) > 0 })
			wantUUID := hs.Protocol >= wire.ProtocolSignedUUID
			hasUUID := strings.Contains(logs.Find(line)[0], `"uuid"="`+offlineUUID(name).String()+`"`)
			t.Logf("%s: protocol %d, name %q, UUID %v in the log line, %d bytes identical", v, hs.Protocol, ls.Name, hasUUID, len(got))
			if ls.Name != name || hasUUID != wantUUID {
				t.Fatalf("line %q: want player %s and uuid %v", logs.Find(line)[0], name, wantUUID)
			}
		})
	}
	t.Run("denied", func(t *testing.T) {
		res := runBots(t, mctest.Bots{Addr: p.addr, Host: "node.example.com", Count: 1, NamePrefix: "denied", Version: "1.20.4"}, modules)
		t.Logf("denied bot told %q %s after connecting", res.Reason, res.After)
		if res.Outcome != "kicked" || res.Reason != "Banned here." {
			t.Fatalf("bot %+v, want kicked with the deny text", res)
		}
		select {
		case b := <-received:
			t.Fatalf("the backend got a connection: %x", b)
		default:
		}
	})
}

func runBots(t *testing.T, b mctest.Bots, modules string) mctest.BotResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := b.Run(ctx, modules)
	if err != nil && !errors.Is(err, context.Canceled) || len(res) != 1 {
		t.Fatalf("bots: %v %+v", err, res)
	}
	return res[0]
}
