package docker

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Containers starts, stops and inspects containers by name, over the same
// small Engine API client the source lists with. The wake target uses it;
// the source itself never changes anything on the daemon.
//
// Calls carry no timeout of their own: the caller's context bounds them (a
// stop's reply comes only once the container has stopped).
type Containers struct {
	c *client
}

// NewContainers checks the daemon address (host, else $DOCKER_HOST, else
// DefaultHost) and returns a client for it; it does not connect. Close drops
// its idle connections.
func NewContainers(host string) (*Containers, error) {
	ep, err := resolveHost(host)
	if err != nil {
		return nil, err
	}
	return &Containers{c: newClient(ep, 0)}, nil
}

// Close drops idle connections so that no transport goroutine outlives the
// client's user.
func (c *Containers) Close() { c.c.close() }

// Start starts the container; started is false when it was running already
// (the daemon's 304), which is not an error.
func (c *Containers) Start(ctx context.Context, name string) (started bool, err error) {
	resp, err := c.c.send(ctx, http.MethodPost, "/containers/"+name+"/start", nil, http.StatusNoContent, http.StatusNotModified)
	if err != nil {
		return false, err
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusNoContent, nil
}

// Stop stops the container: its stop signal (SIGTERM unless the image says
// otherwise), then SIGKILL after grace, rounded up to whole seconds. stopped
// is false when it was stopped already (the daemon's 304).
func (c *Containers) Stop(ctx context.Context, name string, grace time.Duration) (stopped bool, err error) {
	secs := int((grace + time.Second - 1) / time.Second)
	q := url.Values{"t": {strconv.Itoa(secs)}}
	resp, err := c.c.send(ctx, http.MethodPost, "/containers/"+name+"/stop", q, http.StatusNoContent, http.StatusNotModified)
	if err != nil {
		return false, err
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusNoContent, nil
}

// ContainerState is the part of a container's inspection the wake target reads.
type ContainerState struct {
	Running   bool
	Paused    bool
	StartedAt time.Time
}

// Inspect reads the container's state.
func (c *Containers) Inspect(ctx context.Context, name string) (ContainerState, error) {
	var out struct {
		State struct {
			Running   bool      `json:"Running"`
			Paused    bool      `json:"Paused"`
			StartedAt time.Time `json:"StartedAt"`
		} `json:"State"`
	}
	if err := c.c.getJSON(ctx, "/containers/"+name+"/json", nil, &out); err != nil {
		return ContainerState{}, err
	}
	return ContainerState{Running: out.State.Running, Paused: out.State.Paused, StartedAt: out.State.StartedAt}, nil
}

// IsNotFound reports whether err is the daemon saying that no such container
// exists.
func IsNotFound(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.Status == http.StatusNotFound
}
