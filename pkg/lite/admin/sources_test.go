package admin

import (
	"errors"
	"io"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/lite/discovery"
)

func TestSourcesSayWhichIsStaleSinceWhenAndWhy(t *testing.T) {
	since := reportAt.Add(-90 * time.Second)
	s, _ := newTestServer(t, Options{Token: "s3cret", Sources: func() []discovery.SourceStatus {
		return []discovery.SourceStatus{
			{Name: "docker", Routes: 2, Updated: reportAt.Add(-5 * time.Second)},
			{Name: "kubernetes", Routes: 3, Updated: since, StaleSince: since,
				Cause:    errors.New("dial tcp 127.0.0.1:6443: connect: connection refused").Error(),
				Rejected: []discovery.Rejected{{Origin: "kubernetes games/bad", Err: `gate.minekube.com/strategy: unknown "fastest"`}}},
		}
	}})
	got := fetchTable(t, s, PathSources, "s3cret", (*Client).Sources, func(w io.Writer, ss []RouteSource) error {
		return WriteSources(w, ss, reportAt)
	})
	wantTable(t, got,
		"SOURCE      ROUTES  UPDATED    STATE",
		"docker      2       5s ago     fresh",
		"kubernetes  3       1m30s ago  stale since 2024-05-01T11:58:30Z (1m30s ago): dial tcp 127.0.0.1:6443: connect: connection refused",
		`rejected kubernetes games/bad: gate.minekube.com/strategy: unknown "fastest"`)
}

func TestSourcesListRefusedHostClaims(t *testing.T) {
	s, _ := newTestServer(t, Options{Token: "s3cret", Sources: func() []discovery.SourceStatus {
		return []discovery.SourceStatus{{Name: "kubernetes", Routes: 1, Updated: reportAt.Add(-time.Second),
			RefusedClaims: []discovery.RefusedClaim{{Origin: "kubernetes aaa-tenant/lobby", Host: "play.example.com",
				Reason: "claimed first by kubernetes games/lobby"}}}}
	}})
	got := fetchTable(t, s, PathSources, "s3cret", (*Client).Sources, func(w io.Writer, ss []RouteSource) error {
		return WriteSources(w, ss, reportAt)
	})
	wantTable(t, got,
		"SOURCE      ROUTES  UPDATED  STATE",
		"kubernetes  1       1s ago   fresh",
		"refused kubernetes aaa-tenant/lobby host play.example.com: claimed first by kubernetes games/lobby")
}
