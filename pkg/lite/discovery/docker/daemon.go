package docker

import (
	"context"
	"errors"
	"fmt"
	"io"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	engine "go.minekube.com/gate/pkg/lite/engine/docker"
)

// Check reports whether cfg's daemon address (or the one $DOCKER_HOST gives
// when cfg names none) is well formed. It touches no network.
func Check(cfg config.DockerDiscovery) error {
	_, err := engine.Resolve(cfg.Host)
	return err
}

// list lists running containers (paused ones are not running) and stopped
// ones (created or exited: a wake label keeps their route), and the IDs of the
// running ones whose health check says they are not ready.
func list(ctx context.Context, c *engine.Client) ([]engine.Container, map[string]bool, error) {
	all, err := c.List(ctx, true, engine.Filters{"status": {"running", "created", "exited"}})
	if err != nil {
		return nil, nil, err
	}
	unready, err := c.List(ctx, false, engine.Filters{"status": {"running"}, "health": {"starting", "unhealthy"}})
	if err != nil {
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

// events opens the stream of the events that can change the routes.
func events(ctx context.Context, c *engine.Client) (*engine.EventStream, error) {
	return c.Events(ctx, "", engine.Filters{"type": {"container", "network"}, "event": watchedEvents})
}

// next reads the stream's next event; the daemon never ends the stream on its
// own, so its end is unexpected.
func next(s *engine.EventStream) (engine.Event, error) {
	ev, err := s.Next()
	if errors.Is(err, io.EOF) {
		err = fmt.Errorf("read docker events: %w", io.ErrUnexpectedEOF)
	}
	return ev, err
}
