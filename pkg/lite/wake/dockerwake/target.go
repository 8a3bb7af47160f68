package dockerwake

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"go.minekube.com/gate/pkg/lite/engine/docker"
	"go.minekube.com/gate/pkg/lite/wake"
)

// DefaultStopGrace is how long a stopping server has between SIGTERM (on
// which a Minecraft server saves its worlds) and SIGKILL, unless the spec's
// Timeout says otherwise. Docker's own default of 10 s is too short for a big
// world.
const DefaultStopGrace = 30 * time.Second

// callTimeout bounds a start or an inspect, and what a stop may take beyond
// its grace (the daemon answers a stop only once the container is gone).
const callTimeout = 30 * time.Second

// Target starts and stops one named container. It is safe for concurrent
// use: every call is one stateless Engine API request, and the daemon makes a
// start of a running container a no-op (304), so concurrent wakes start it
// once.
type Target struct {
	c     *docker.Client
	key   string
	name  string
	grace time.Duration
}

var (
	_ wake.Target   = (*Target)(nil)
	_ wake.Observer = (*Target)(nil)
)

// Check reports what makes s no target of this engine, without a daemon: the
// kind, and a name the daemon would accept (anything else could not name a
// container and must not reach a URL path).
func Check(s wake.Spec) error {
	if s.Kind != wake.KindDocker {
		return fmt.Errorf("docker wake target: spec of kind %q", s.Kind)
	}
	return s.Validate()
}

// New returns the target of s (Kind docker, Name the container), calling
// through c, which the caller owns and closes. s.Timeout is the stop grace
// (default DefaultStopGrace).
func New(c *docker.Client, s wake.Spec) (*Target, error) {
	if err := Check(s); err != nil {
		return nil, err
	}
	grace := s.Timeout
	if grace == 0 {
		grace = DefaultStopGrace
	}
	return &Target{c: c, key: s.Key(), name: s.Name, grace: grace}, nil
}

// Key implements wake.Target.
func (t *Target) Key() string { return t.key }

// Wake starts the container, or unpauses a paused one (whose start the daemon
// refuses with 409); one that runs already is left alone. It returns once the
// daemon has started or thawed the process, not once the server listens.
func (t *Target) Wake(ctx context.Context, _ wake.Request) (wake.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	_, err := t.c.Start(ctx, t.name)
	if isConflict(err) {
		err = t.unpause(ctx)
	}
	if err != nil {
		return wake.Result{}, t.wrap("wake", err)
	}
	return wake.Result{}, nil
}

// unpause thaws the container. The daemon refuses to unpause one that is not
// paused (409; 20.10 says 500): another wake thawed it first (it runs: done),
// or it stopped meanwhile (a start is what it needs now).
func (t *Target) unpause(ctx context.Context) error {
	resp, err := t.c.Send(ctx, docker.Request{Method: http.MethodPost, Path: "/containers/" + t.name + "/unpause"}, http.StatusNoContent)
	if err == nil {
		return resp.Body.Close()
	}
	st, ierr := t.c.Inspect(ctx, t.name)
	switch {
	case ierr != nil:
		return err
	case st.Running && !st.Paused:
		return nil
	case !st.Running:
		_, err = t.c.Start(ctx, t.name)
	}
	return err
}

func isConflict(err error) bool {
	var e *docker.APIError
	return errors.As(err, &e) && e.Status == http.StatusConflict
}

// Sleep stops the container with the target's grace; a stopped container is
// left alone.
func (t *Target) Sleep(ctx context.Context, _ wake.Request) error {
	ctx, cancel := context.WithTimeout(ctx, t.grace+callTimeout)
	defer cancel()
	if _, err := t.c.Stop(ctx, t.name, t.grace); err != nil {
		return t.wrap("sleep", err)
	}
	return nil
}

// Running implements wake.Observer: a paused container does not run.
func (t *Target) Running(ctx context.Context) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	st, err := t.c.Inspect(ctx, t.name)
	if err != nil {
		return false, t.wrap("inspect", err)
	}
	return st.Running && !st.Paused, nil
}

// StopGrace is the grace a sleep gives the server.
func (t *Target) StopGrace() time.Duration { return t.grace }

func (t *Target) wrap(op string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("no answer from the docker daemon in time: %w", err)
	}
	return fmt.Errorf("%s: %s: %w", t.key, op, err)
}
