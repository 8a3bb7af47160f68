package discovery_test

import (
	"fmt"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/lite/discovery"
)

// A problem of a set is logged once while it lasts and remembered only while
// it lasts: when it comes back it is logged again, and a tenant cycling
// through bad values leaves nothing behind (the merger once kept every
// message it had ever logged).
func TestProblemsAreLoggedOnceWhileTheyLast(t *testing.T) {
	c := newCoalesced(t)
	bad := func(value string) []discovery.Route {
		set := lobby(1)
		set[0].Settings = map[string]string{"strategy": value}
		return set
	}
	publish := func(set []discovery.Route) {
		c.clk.Advance(time.Second)
		c.m.Replace("docker", set)
	}
	publish(bad("fastest"))
	publish(append(bad("fastest"), lobby(2)[0])) // the problem stays
	if n := c.logs.Count("discovered route rejected"); n != 1 {
		t.Fatalf("%d rejection lines for one lasting problem, want 1", n)
	}
	publish(lobby(1)) // fixed
	publish(bad("fastest"))
	if n := c.logs.Count("discovered route rejected"); n != 2 {
		t.Fatalf("%d rejection lines after the problem came back, want 2", n)
	}
	for i := range 50 {
		publish(bad(fmt.Sprint("v", i)))
	}
	if n := c.logs.Count("discovered route rejected"); n != 52 {
		t.Fatalf("%d rejection lines for 50 more distinct values, want 52", n)
	}
	if ss := c.m.Sources(); len(ss[0].Rejected) != 1 {
		t.Fatalf("sources = %+v", ss)
	}
}
