package docker

import (
	"cmp"
	"context"
	"encoding/json"
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

// Options tune a Client; the zero value suits a caller whose contexts bound
// every call.
type Options struct {
	// HeaderTimeout bounds the wait for a reply's header. Default 0: none,
	// for calls such as a stop whose reply waits for the container.
	HeaderTimeout time.Duration
	// Timeout bounds a whole request, body included (a test's own client).
	// Default 0: none, so that an event stream can stay open.
	Timeout time.Duration
}

// Client speaks the Engine API to one daemon. It is safe for concurrent use;
// the caller's context bounds each call.
type Client struct {
	ep   Endpoint
	http *http.Client
	tr   *http.Transport
}

// NewClient returns a client of ep; it does not connect.
func NewClient(ep Endpoint, o Options) *Client {
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return d.DialContext(ctx, ep.Network, ep.Addr)
		},
		MaxIdleConns:          2,
		IdleConnTimeout:       30 * time.Second,
		ResponseHeaderTimeout: o.HeaderTimeout,
	}
	return &Client{ep: ep, http: &http.Client{Transport: tr, Timeout: o.Timeout}, tr: tr}
}

// Dial resolves host as Resolve does and returns a client of it; it does not
// connect.
func Dial(host string, o Options) (*Client, error) {
	ep, err := Resolve(host)
	if err != nil {
		return nil, err
	}
	return NewClient(ep, o), nil
}

// Endpoint is the daemon the client talks to.
func (c *Client) Endpoint() Endpoint { return c.ep }

// Close drops idle connections so that no transport goroutine outlives the
// client's user. Calls made after Close dial again.
func (c *Client) Close() { c.tr.CloseIdleConnections() }

// Filters is the Engine API's filter argument: key -> accepted values.
type Filters map[string][]string

// GetJSON sends GET path with the filters and decodes a 200 answer into v.
func (c *Client) GetJSON(ctx context.Context, path string, f Filters, v any) error {
	resp, err := c.Get(ctx, path, f)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("docker GET %s: decode: %w", path, err)
	}
	return nil
}

// Get sends GET path (which may carry a query) with the filters and returns a
// 200 response; any other status is an *APIError.
func (c *Client) Get(ctx context.Context, path string, f Filters) (*http.Response, error) {
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
	return c.Send(ctx, Request{Method: http.MethodGet, Path: path, Query: q}, http.StatusOK)
}

// Request is one Engine API call. Body, when set, is sent with ContentType
// (default application/json).
type Request struct {
	Method      string
	Path        string
	Query       url.Values
	Body        io.Reader
	ContentType string
}

// Send sends req and returns the response when its status is one of ok; any
// other status is an *APIError carrying the daemon's message.
func (c *Client) Send(ctx context.Context, req Request, ok ...int) (*http.Response, error) {
	// The host part is a placeholder: the transport dials the endpoint itself.
	u := url.URL{Scheme: "http", Host: "docker", Path: req.Path, RawQuery: req.Query.Encode()}
	hreq, err := http.NewRequestWithContext(ctx, req.Method, u.String(), req.Body)
	if err != nil {
		return nil, err
	}
	if req.Body != nil {
		hreq.Header.Set("Content-Type", cmp.Or(req.ContentType, "application/json"))
	}
	resp, err := c.http.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("docker %s %s: %w", req.Method, req.Path, err)
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
	return nil, fmt.Errorf("docker %s %s: %w", req.Method, req.Path, err)
}

// APIError is a reply of the daemon with an unexpected status.
type APIError struct {
	Status  int    // HTTP status, e.g. 404 for a missing container
	Message string // the daemon's message
}

func (e *APIError) Error() string {
	return strconv.Itoa(e.Status) + " " + http.StatusText(e.Status) + ": " + e.Message
}
