package admin

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"go.minekube.com/gate/pkg/lite/wake"
)

// PathWake lists the targets routes wake and put to sleep.
const PathWake = "/api/v1/wake"

// Wake fetches /api/v1/wake.
func (c *Client) Wake(ctx context.Context) ([]wake.State, error) {
	var out []wake.State
	err := c.get(ctx, PathWake, &out)
	return out, err
}

// WriteWake prints one line per wake target: its phase and since when, this
// replica's sessions, the players its backends report, when an idle target
// sleeps, the latest wake's duration and the calls made; then the latest
// failed call's cause under the line.
func WriteWake(w io.Writer, ss []wake.State, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TARGET\tPHASE\tSINCE\tSESSIONS\tONLINE\tSLEEPS IN\tLAST WAKE\tWAKES/SLEEPS")
	for _, s := range ss {
		since, online, sleepsIn, last := "-", "?", "-", "-"
		if !s.Since.IsZero() {
			since = now.Sub(s.Since).Round(time.Second).String() + " ago"
		}
		if s.PlayersOnline >= 0 {
			online = fmt.Sprint(s.PlayersOnline)
		}
		if !s.SleepAt.IsZero() {
			sleepsIn = s.SleepAt.Sub(now).Round(time.Second).String()
		}
		if s.LastWake > 0 {
			last = s.LastWake.Round(100 * time.Millisecond).String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%d/%d\n", s.Key, s.Phase, since, s.Sessions, online,
			sleepsIn, last, s.Wakes, s.Sleeps)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range ss {
		if s.Error != "" {
			if _, err := fmt.Fprintf(w, "failed %s: %s\n", s.Key, s.Error); err != nil {
				return err
			}
		}
	}
	return nil
}
