package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// DefaultURL is the API's address with the default api.bind.
const DefaultURL = "http://localhost:8080"

// ErrUnauthorized is returned when the API wants a (different) token.
var ErrUnauthorized = errors.New("admin API: unauthorized (pass the token with --token or --token-file)")

// ErrNotAdminAPI is returned when something answers at the URL but it is not
// this proxy's admin API (another program on the port).
var ErrNotAdminAPI = errors.New("admin API: the answer is not from gate's admin API")

// maxResponse caps what the client reads: a proxy with thousands of backends
// answers well under this.
const maxResponse = 16 << 20

// Client reads the admin API of a running proxy.
type Client struct {
	// URL is the API's base URL. Empty means DefaultURL.
	URL string
	// Token is the bearer token; empty sends none.
	Token string
	// HTTP is the client used. Nil means one with a 10s timeout.
	HTTP *http.Client
	// By names the operator behind writes (HeaderBy, the audit line). Optional.
	By string
}

// Backends fetches /api/v1/backends.
func (c *Client) Backends(ctx context.Context) ([]Backend, error) {
	var out []Backend
	return out, c.get(ctx, PathBackends, &out)
}

// Routes fetches /api/v1/routes.
func (c *Client) Routes(ctx context.Context) ([]Route, error) {
	var out []Route
	return out, c.get(ctx, PathRoutes, &out)
}

// Check fetches path (PathHealthz or PathReadyz) and returns nil on 200 OK.
func (c *Client) Check(ctx context.Context, path string) error {
	return c.get(ctx, path, nil)
}

func (c *Client) get(ctx context.Context, path string, into any) error {
	return c.do(ctx, http.MethodGet, path, nil, into)
}

// do sends one request (body, when not nil, as JSON) and decodes a 200 answer
// into into (when not nil).
func (c *Client) do(ctx context.Context, method, path string, body any, into any) error {
	base := c.URL
	if base == "" {
		base = DefaultURL
	}
	url := strings.TrimSuffix(base, "/") + path
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("admin API request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return fmt.Errorf("admin API request: %w", err)
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.By != "" {
		req.Header.Set(HeaderBy, c.By)
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("admin API: %w", err)
	}
	defer resp.Body.Close()
	if resp.Header.Get(HeaderAPI) == "" {
		return fmt.Errorf("%w: %s %s answered %s without the %s header", ErrNotAdminAPI, method, url, resp.Status, HeaderAPI)
	}
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return fmt.Errorf("admin API: read %s: %w", url, err)
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return ErrUnauthorized
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("admin API: %s %s: %s: %s", method, url, resp.Status, strings.TrimSpace(string(answer)))
	case into == nil:
		return nil
	}
	if err := json.Unmarshal(answer, into); err != nil {
		return fmt.Errorf("admin API: decode %s: %w", url, err)
	}
	return nil
}

// WriteTable prints one line per backend: route, backend, where it came from, state, active
// sessions, latency, load, score and whether (and why) new players can land on it.
func WriteTable(w io.Writer, bs []Backend) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ROUTE\tBACKEND\tORIGIN\tSTATE\tACTIVE\tLATENCY\tLOAD\tSCORE\tELIGIBLE\tWHY")
	for _, b := range bs {
		origin := b.Origin
		if origin == "" {
			origin = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n",
			b.Route, b.Backend, origin, b.State, b.Active, latencyCell(b.LatencyMs), loadCell(b.Load),
			scoreCell(b.Score), yesNo(b.Eligible), b.Why)
	}
	return tw.Flush()
}

func latencyCell(ms *float64) string {
	if ms == nil {
		return "-"
	}
	return strconv.FormatFloat(*ms, 'f', 1, 64) + "ms"
}

func loadCell(l *Load) string {
	if l == nil {
		return "-"
	}
	return strconv.Itoa(l.Online) + "/" + strconv.Itoa(l.Max)
}

func scoreCell(s *float64) string {
	if s == nil {
		return "-"
	}
	return strconv.FormatFloat(*s, 'g', 4, 64)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
