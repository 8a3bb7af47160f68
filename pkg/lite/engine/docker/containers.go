package docker

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Container is one entry of GET /containers/json.
type Container struct {
	ID              string            `json:"Id"`
	Names           []string          `json:"Names"`
	Labels          map[string]string `json:"Labels"`
	State           string            `json:"State"`
	Created         int64             `json:"Created"` // Unix seconds
	NetworkSettings struct {
		Networks map[string]Network `json:"Networks"`
	} `json:"NetworkSettings"`
}

// Network is a container's place on one network.
type Network struct {
	NetworkID         string `json:"NetworkID"`
	IPAddress         string `json:"IPAddress"`
	GlobalIPv6Address string `json:"GlobalIPv6Address"`
}

// List lists the containers the filters accept; all includes those that do
// not run.
func (c *Client) List(ctx context.Context, all bool, f Filters) ([]Container, error) {
	path := "/containers/json"
	if all {
		path += "?all=1"
	}
	var out []Container
	if err := c.GetJSON(ctx, path, f, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// State is the part of a container's inspection the wake target reads.
type State struct {
	Running   bool
	Paused    bool
	StartedAt time.Time
}

// Inspect reads the container's state.
func (c *Client) Inspect(ctx context.Context, name string) (State, error) {
	var out struct {
		State struct {
			Running   bool      `json:"Running"`
			Paused    bool      `json:"Paused"`
			StartedAt time.Time `json:"StartedAt"`
		} `json:"State"`
	}
	if err := c.GetJSON(ctx, "/containers/"+name+"/json", nil, &out); err != nil {
		return State{}, err
	}
	return State{Running: out.State.Running, Paused: out.State.Paused, StartedAt: out.State.StartedAt}, nil
}

// Start starts the container; started is false when it was running already
// (the daemon's 304), which is not an error.
func (c *Client) Start(ctx context.Context, name string) (started bool, err error) {
	return c.post(ctx, "/containers/"+name+"/start", nil)
}

// Stop stops the container: its stop signal (SIGTERM unless the image says
// otherwise), then SIGKILL after grace, rounded up to whole seconds. stopped
// is false when it was stopped already (the daemon's 304).
func (c *Client) Stop(ctx context.Context, name string, grace time.Duration) (stopped bool, err error) {
	secs := int((grace + time.Second - 1) / time.Second)
	return c.post(ctx, "/containers/"+name+"/stop", url.Values{"t": {strconv.Itoa(secs)}})
}

// post sends a bodiless POST that the daemon answers 204 when it acted and
// 304 when there was nothing to do.
func (c *Client) post(ctx context.Context, path string, q url.Values) (bool, error) {
	resp, err := c.Send(ctx, Request{Method: http.MethodPost, Path: path, Query: q}, http.StatusNoContent, http.StatusNotModified)
	if err != nil {
		return false, err
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusNoContent, nil
}

// IsNotFound reports whether err is the daemon saying that no such container
// exists.
func IsNotFound(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.Status == http.StatusNotFound
}
