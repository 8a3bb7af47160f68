package docker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// client speaks the few Engine API calls the source needs. Paths carry no API
// version, so any daemon answers in its own current version; the fields read
// here have been stable since API 1.21.
type client struct {
	http *http.Client
	tr   *http.Transport
}

func newClient(ep endpoint) *client {
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return d.DialContext(ctx, ep.network, ep.addr)
		},
		MaxIdleConns:          2,
		IdleConnTimeout:       30 * time.Second,
		ResponseHeaderTimeout: 10 * time.Second,
	}
	return &client{http: &http.Client{Transport: tr}, tr: tr}
}

// close drops idle connections so that no transport goroutine outlives Run.
func (c *client) close() { c.tr.CloseIdleConnections() }

// apiContainer is one entry of GET /containers/json.
type apiContainer struct {
	ID              string            `json:"Id"`
	Names           []string          `json:"Names"`
	Labels          map[string]string `json:"Labels"`
	State           string            `json:"State"`
	NetworkSettings struct {
		Networks map[string]apiNetwork `json:"Networks"`
	} `json:"NetworkSettings"`
}

type apiNetwork struct {
	IPAddress         string `json:"IPAddress"`
	GlobalIPv6Address string `json:"GlobalIPv6Address"`
}

// apiEvent is one message of GET /events.
type apiEvent struct {
	Type   string `json:"Type"`
	Action string `json:"Action"`
	Actor  struct {
		ID         string            `json:"ID"`
		Attributes map[string]string `json:"Attributes"`
	} `json:"Actor"`
}

// listRunning lists running containers (paused ones are not running) and
// the IDs of those among them whose health check says they are not ready.
func (c *client) listRunning(ctx context.Context) ([]apiContainer, map[string]bool, error) {
	var all, unready []apiContainer
	if err := c.getJSON(ctx, "/containers/json", filters{"status": {"running"}}, &all); err != nil {
		return nil, nil, err
	}
	if err := c.getJSON(ctx, "/containers/json", filters{"status": {"running"}, "health": {"starting", "unhealthy"}}, &unready); err != nil {
		return nil, nil, err
	}
	notReady := make(map[string]bool, len(unready))
	for _, u := range unready {
		notReady[u.ID] = true
	}
	return all, notReady, nil
}

// watchedEvents are the event actions after which the container list may give
// different routes. exec_* (which every health check run emits) is not among them.
var watchedEvents = []string{
	"start", "die", "stop", "kill", "destroy", "pause", "unpause", "rename", "update",
	"health_status", "connect", "disconnect",
}

// events opens the event stream. It returns once the daemon has answered, so
// an event that happens after events returns is never missed; the caller reads
// with next and closes the stream.
func (c *client) events(ctx context.Context) (*eventStream, error) {
	resp, err := c.do(ctx, "/events", filters{"type": {"container", "network"}, "event": watchedEvents})
	if err != nil {
		return nil, err
	}
	return &eventStream{body: resp.Body, dec: json.NewDecoder(resp.Body)}, nil
}

type eventStream struct {
	body io.ReadCloser
	dec  *json.Decoder
}

// next blocks for the next event; it fails with the stream.
func (s *eventStream) next() (apiEvent, error) {
	var ev apiEvent
	if err := s.dec.Decode(&ev); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF // the daemon never ends the stream on its own
		}
		return ev, fmt.Errorf("read docker events: %w", err)
	}
	return ev, nil
}

func (s *eventStream) close() { _ = s.body.Close() }

// filters is the Engine API's filter argument: key -> accepted values.
type filters map[string][]string

func (c *client) getJSON(ctx context.Context, path string, f filters, v any) error {
	resp, err := c.do(ctx, path, f)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("docker GET %s: decode: %w", path, err)
	}
	return nil
}

// do sends GET path and returns a 200 response; any other status is an error
// carrying the daemon's message.
func (c *client) do(ctx context.Context, path string, f filters) (*http.Response, error) {
	q := url.Values{}
	if len(f) > 0 {
		b, err := json.Marshal(f)
		if err != nil {
			return nil, err
		}
		q.Set("filters", string(b))
	}
	// The host part is a placeholder: the transport dials the endpoint itself.
	u := url.URL{Scheme: "http", Host: "docker", Path: path, RawQuery: q.Encode()}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("docker GET %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		var m struct {
			Message string `json:"message"`
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		if json.Unmarshal(b, &m) != nil || m.Message == "" {
			m.Message = string(b)
		}
		return nil, fmt.Errorf("docker GET %s: %s: %s", path, resp.Status, m.Message)
	}
	return resp, nil
}
