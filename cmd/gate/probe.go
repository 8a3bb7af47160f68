package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/edition/java/lite/route"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// probeHost picks a virtual host the config routes, for a status exchange with
// the proxy's own listener. Routes with a fallback come first, because they
// answer even while their backends are down; within each group, literal hosts
// in config order, then patterns with their wildcards filled in.
func probeHost(cfg *config.Config) (string, error) {
	table, err := route.Compile(cfg.Lite.Specs())
	if err != nil {
		return "", err
	}
	var groups [4][]string // fallback literal, fallback pattern, literal, pattern
	fill := strings.NewReplacer("*", "healthcheck", "?", "h")
	for ri, r := range cfg.Lite.Routes {
		for _, h := range r.Host {
			g := 0
			if r.Fallback == nil {
				g = 2
			}
			if strings.ContainsAny(h, "*?") {
				g, h = g+1, fill.Replace(h)
			}
			if m, ok := table.Match(wire.CleanHost(h)); ok && m.Route == ri {
				groups[g] = append(groups[g], h)
			}
		}
	}
	for _, g := range groups {
		if len(g) > 0 {
			return g[0], nil
		}
	}
	return "", errors.New("no route host to ask for a status")
}

// statusExchange does what a client's server-list ping does: handshake, Status
// Request, Status Response (valid JSON), Ping, Pong.
func statusExchange(ctx context.Context, addr, host string) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	out := wire.AppendHandshake(nil, wire.Handshake{Protocol: -1, Address: host, Port: wire.DefaultPort, Intent: wire.IntentStatus})
	out = wire.AppendStatusRequest(out)
	if _, err := c.Write(out); err != nil {
		return fmt.Errorf("send status request: %w", err)
	}
	var buf []byte
	readFrame := func() (int32, []byte, error) {
		for {
			id, payload, n, err := wire.ParseFrame(buf, wire.MaxStatusResponseLen)
			if err == nil {
				buf = buf[n:]
				return id, payload, nil
			}
			if !errors.Is(err, wire.ErrIncomplete) {
				return 0, nil, err
			}
			chunk := make([]byte, 4096)
			k, rerr := c.Read(chunk)
			buf = append(buf, chunk[:k]...)
			if rerr != nil && k == 0 {
				return 0, nil, rerr
			}
		}
	}
	id, payload, err := readFrame()
	if err != nil {
		return fmt.Errorf("no status response for host %q (every backend down and no fallback, or not a Minecraft proxy): %w", host, err)
	}
	body, err := wire.ParseStatusResponse(payload)
	if err != nil || id != wire.IDStatusRequest || !json.Valid(body) {
		return fmt.Errorf("answer to the status request for host %q is not a status response", host)
	}
	const token = 0x6761746568630a // any value; the pong must echo it
	if _, err := c.Write(wire.AppendPing(nil, token)); err != nil {
		return fmt.Errorf("send ping: %w", err)
	}
	id, payload, err = readFrame()
	if v, perr := wire.ParsePing(payload); err != nil || id != wire.IDPing || perr != nil || v != token {
		return fmt.Errorf("no pong after the status response: %v", errors.Join(err, perr))
	}
	return nil
}
