package admin

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"go.minekube.com/gate/pkg/lite/discovery"
)

// PathSources lists the route sources besides the file (discovery).
const PathSources = "/api/v1/sources"

// RouteSource is one discovery source in /api/v1/sources.
type RouteSource struct {
	Name   string `json:"name"`
	Routes int    `json:"routes"`
	// Updated is when the source last published its routes; absent before.
	Updated *time.Time `json:"updated,omitempty"`
	// Stale is true while the source cannot reach its engine; its last known
	// routes keep serving. StaleSince and Cause say since when and why.
	Stale      bool       `json:"stale"`
	StaleSince *time.Time `json:"staleSince,omitempty"`
	Cause      string     `json:"cause,omitempty"`
	// Rejected are the routes left out because a setting did not parse.
	Rejected []RejectedRoute `json:"rejected,omitempty"`
	// RefusedClaims are hosts the source's objects asked for and did not
	// get: another owner claimed them first, or the file grants them no
	// such host.
	RefusedClaims []RefusedClaim `json:"refusedClaims,omitempty"`
}

// RefusedClaim is one host a discovered object was refused.
type RefusedClaim struct {
	Origin string `json:"origin"`
	Host   string `json:"host"`
	Reason string `json:"reason"`
}

// RejectedRoute is a discovered route whose settings did not parse.
type RejectedRoute struct {
	Origin string `json:"origin"`
	Error  string `json:"error"`
}

func sourcesView(in []discovery.SourceStatus) []RouteSource {
	out := make([]RouteSource, 0, len(in))
	for _, s := range in {
		rs := RouteSource{Name: s.Name, Routes: s.Routes, Stale: !s.StaleSince.IsZero(), Cause: s.Cause}
		if !s.Updated.IsZero() {
			u := s.Updated.UTC()
			rs.Updated = &u
		}
		if rs.Stale {
			since := s.StaleSince.UTC()
			rs.StaleSince = &since
		}
		for _, r := range s.Rejected {
			rs.Rejected = append(rs.Rejected, RejectedRoute{Origin: r.Origin, Error: r.Err})
		}
		for _, c := range s.RefusedClaims {
			rs.RefusedClaims = append(rs.RefusedClaims, RefusedClaim(c))
		}
		out = append(out, rs)
	}
	return out
}

// Sources fetches /api/v1/sources.
func (c *Client) Sources(ctx context.Context) ([]RouteSource, error) {
	var out []RouteSource
	err := c.get(ctx, PathSources, &out)
	return out, err
}

// WriteSources prints one line per discovery source: its routes, when it last
// published and whether it is stale (since when, why), then one line per
// rejected route and per refused host claim.
func WriteSources(w io.Writer, ss []RouteSource, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SOURCE\tROUTES\tUPDATED\tSTATE")
	for _, s := range ss {
		updated, state := "never", "fresh"
		if s.Updated != nil {
			updated = now.Sub(*s.Updated).Round(time.Second).String() + " ago"
		}
		if s.Stale {
			state = fmt.Sprintf("stale since %s (%s ago): %s", s.StaleSince.Format(time.RFC3339),
				now.Sub(*s.StaleSince).Round(time.Second), s.Cause)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", s.Name, s.Routes, updated, state)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range ss {
		for _, r := range s.Rejected {
			if _, err := fmt.Fprintf(w, "rejected %s: %s\n", r.Origin, r.Error); err != nil {
				return err
			}
		}
		for _, c := range s.RefusedClaims {
			if _, err := fmt.Fprintf(w, "refused %s host %s: %s\n", c.Origin, c.Host, c.Reason); err != nil {
				return err
			}
		}
	}
	return nil
}
