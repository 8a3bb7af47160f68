package lite

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/status"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// legacyQuiet is how long a legacy (0xFE) pinger may pause before we take what it sent
// as complete: pre-1.4 clients send one byte and 1.4-1.5 two, with no terminator.
const legacyQuiet = 300 * time.Millisecond

// maxLegacyPing caps what a legacy pinger may send before it is answered.
const maxLegacyPing = 512

// serveLegacy answers a pre-1.7 server-list ping (first byte 0xFE) with a legacy kick
// built from the route's status, then closes: legacy clients cannot log in to modern
// servers, but scanners and old clients get an answer instead of a hang. 1.6 pings carry
// a host and are routed by it; older ones go to the catch-all route.
func (s *session) serveLegacy(ctx context.Context) error {
	ping, err := s.readLegacy()
	if err != nil {
		return err
	}
	rt, m, err := s.routeHost(ping.Host, ping.Protocol, wire.IntentStatus) // the status quota, as for any ping
	if err != nil {
		return err
	}
	port := wire.DefaultPort
	if ping.Port > 0 && ping.Port <= 0xFFFF {
		port = uint16(ping.Port)
	}
	// Backends are asked with a modern handshake; -1 is the protocol pingers send when
	// they do not speak a particular version, and servers answer it with their own.
	hs := wire.Handshake{Protocol: -1, Address: s.forwardAddress(rt, ping.Host), Port: port, Intent: wire.IntentStatus}
	body, src := s.statusBody(ctx, s.statusQuery(rt, m, hs))
	body = s.snap.cfg.Lite.Operator.Layer.Status(rt.key, rt.cfg.Host).Apply(body)
	if body == nil {
		return reject(ReasonUnavailable, "no status available for legacy ping")
	}
	rep, err := status.ParseReport(body)
	if err != nil {
		return fmt.Errorf("legacy ping: backend status: %w", err)
	}
	st := wire.LegacyStatus{Protocol: rep.Protocol, Version: rep.VersionName, MOTD: rep.MOTD, Online: rep.Online, Max: rep.Max}
	if _, err := s.client.Write(wire.AppendLegacyKick(nil, ping.Kind, st)); err != nil {
		return err
	}
	s.ev.Source = src
	s.emit(EventStatus)
	return nil
}

// readLegacy reads until the legacy ping parses, treating a short pause as its end.
func (s *session) readLegacy() (wire.LegacyPing, error) {
	hardDeadline := time.Now().Add(s.snap.cfg.ReadTimeout)
	for {
		p, _, err := wire.ParseLegacyPing(s.buf, false)
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, wire.ErrIncomplete) {
			return p, reject(ReasonMalformed, "legacy ping: %w", err)
		}
		if len(s.buf) >= maxLegacyPing {
			return p, reject(ReasonMalformed, "legacy ping too large")
		}
		_ = s.client.SetReadDeadline(earliest(time.Now().Add(legacyQuiet), hardDeadline))
		var tmp [maxLegacyPing]byte
		n, rerr := s.client.Read(tmp[:maxLegacyPing-len(s.buf)])
		s.buf = append(s.buf, tmp[:n]...)
		if rerr != nil {
			// The client went quiet or hung up: answer what it sent.
			p, _, err := wire.ParseLegacyPing(s.buf, true)
			if err != nil {
				return p, reject(ReasonMalformed, "legacy ping: %w", err)
			}
			_ = s.client.SetReadDeadline(hardDeadline)
			return p, nil
		}
	}
}
