package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	engine "go.minekube.com/gate/pkg/lite/engine/docker"
)

// Check reports whether cfg's daemon address (or the one $DOCKER_HOST gives
// when cfg names none) is well formed. It touches no network.
func Check(cfg config.DockerDiscovery) error {
	_, err := engine.Resolve(cfg.Host)
	return err
}

// list lists running containers and those that do not run (paused, created
// or exited: a wake label keeps their route), and the IDs of the running ones
// whose health check says they are not ready.
func list(ctx context.Context, c *engine.Client) ([]engine.Container, map[string]bool, error) {
	all, err := c.List(ctx, true, engine.Filters{"status": {"running", "paused", "created", "exited"}})
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

// pauses are the pause and unpause events whose state the container list may
// not show yet: the daemon (20.10 at least) announces either before it
// updates the state its list reads, so a list right after the event can show
// the old one, and no later event corrects it. Safe for concurrent use.
type pauses struct {
	mu sync.Mutex
	m  map[string]bool // container ID -> paused, as the last event said
}

// note records a pause or unpause event.
func (p *pauses) note(ev engine.Event) {
	if ev.Type != "container" || (ev.Action != "pause" && ev.Action != "unpause") {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.m[ev.Actor.ID] = ev.Action == "pause"
}

// apply gives each listed container that runs the pause state its last
// event said, and forgets events the list has caught up with (or that a
// stop, or a removal, made moot).
func (p *pauses) apply(cs []engine.Container) {
	p.mu.Lock()
	defer p.mu.Unlock()
	seen := make(map[string]bool, len(p.m))
	for i := range cs {
		paused, ok := p.m[cs[i].ID]
		if !ok {
			continue
		}
		seen[cs[i].ID] = true
		want := "running"
		if paused {
			want = "paused"
		}
		switch cs[i].State {
		case "running", "paused":
			if cs[i].State == want {
				delete(p.m, cs[i].ID)
			}
			cs[i].State = want
		default:
			delete(p.m, cs[i].ID)
		}
	}
	for id := range p.m {
		if !seen[id] {
			delete(p.m, id)
		}
	}
}
