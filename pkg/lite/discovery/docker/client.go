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
	"slices"
	"strconv"
	"strings"
	"time"
)

// client speaks the few Engine API calls the source needs. Paths carry no API
// version, so any daemon answers in its own current version; the fields read
// here have been stable since API 1.21.
type client struct {
	http *http.Client
	tr   *http.Transport
}

// newClient dials ep. headerTimeout bounds the wait for a reply's header (0:
// none, for calls such as a stop whose reply waits for the container).
func newClient(ep endpoint, headerTimeout time.Duration) *client {
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return d.DialContext(ctx, ep.network, ep.addr)
		},
		MaxIdleConns:          2,
		IdleConnTimeout:       30 * time.Second,
		ResponseHeaderTimeout: headerTimeout,
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

// list lists running containers (paused ones are not running) and stopped
// ones (created or exited: a wake label keeps their route), and the IDs of the
// running ones whose health check says they are not ready.
func (c *client) list(ctx context.Context) ([]apiContainer, map[string]bool, error) {
	var all, unready []apiContainer
	if err := c.getJSON(ctx, "/containers/json?all=1", filters{"status": {"running", "created", "exited"}}, &all); err != nil {
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
	"create", "start", "die", "stop", "kill", "destroy", "pause", "unpause", "rename", "update",
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

// do sends GET path (which may carry a query) and returns a 200 response;
// any other status is an error carrying the daemon's message.
func (c *client) do(ctx context.Context, path string, f filters) (*http.Response, error) {
	path, query, _ := strings.Cut(path, "?")
	q, err := url.ParseQuery(query)
	if err != nil {
		return nil, err
	}
	if len(f) > 0 {
		b, err := json.Marshal(f)
		if err != nil {
			return nil, err
		}
		q.Set("filters", string(b))
	}
	return c.send(ctx, http.MethodGet, path, q, http.StatusOK)
}

// send sends a bodiless request and returns the response when its status is
// one of ok; any other status is an error carrying the daemon's message.
func (c *client) send(ctx context.Context, method, path string, q url.Values, ok ...int) (*http.Response, error) {
	// The host part is a placeholder: the transport dials the endpoint itself.
	u := url.URL{Scheme: "http", Host: "docker", Path: path, RawQuery: q.Encode()}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("docker %s %s: %w", method, path, err)
	}
	if slices.Contains(ok, resp.StatusCode) {
		return resp, nil
	}
	defer resp.Body.Close()
	var m struct {
		Message string `json:"message"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if json.Unmarshal(b, &m) != nil || m.Message == "" {
		m.Message = string(b)
	}
	err = &APIError{Status: resp.StatusCode, Message: strings.TrimSpace(m.Message)}
	return nil, fmt.Errorf("docker %s %s: %w", method, path, err)
}

// APIError is a reply of the daemon with an unexpected status.
type APIError struct {
	Status  int    // HTTP status, e.g. 404 for a missing container
	Message string // the daemon's message
}

func (e *APIError) Error() string {
	return strconv.Itoa(e.Status) + " " + http.StatusText(e.Status) + ": " + e.Message
}
