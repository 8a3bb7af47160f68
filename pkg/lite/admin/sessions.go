package admin

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"

	"go.minekube.com/gate/pkg/lite/logging"
)

// Sessions fetches /api/v1/sessions.
func (c *Client) Sessions(ctx context.Context) ([]Session, error) {
	var out []Session
	err := c.get(ctx, PathSessions, &out)
	return out, err
}

// WriteSessions prints one line per live session, oldest first: the player (name
// and UUID, as the client claims them), the route and backend, the client's
// address and how long it has been on. At most limit lines (0: all), then how many
// more there are. Names are clipped and quoted like in the logs: a name is the
// client's bytes, and this goes to a terminal.
func WriteSessions(w io.Writer, ss []Session, now time.Time, limit int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PLAYER\tUUID\tROUTE\tBACKEND\tCLIENT\tFOR")
	shown := ss
	if limit > 0 && len(ss) > limit {
		shown = ss[:limit]
	}
	for _, s := range shown {
		name, id := "-", "-"
		if s.Player != nil {
			name = logging.Clip(s.Player.Name)
			if s.Player.UUID != uuid.Nil {
				id = s.Player.UUID.String()
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", name, id, s.Route, s.Backend, s.Client,
			now.Sub(s.Since).Round(time.Second))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if more := len(ss) - len(shown); more > 0 {
		_, err := fmt.Fprintf(w, "... and %d more (gate lite status --sessions lists all)\n", more)
		return err
	}
	return nil
}
