package route

import (
	"slices"
	"strings"
	"sync"
	"testing"
)

// catchAllSpec sends every host to one backend.
var catchAllSpec = Spec{Hosts: []string{"*"}, Backends: []string{"10.0.0.10:25565"}}

// matchCases pin Match results for one compiled table each.
var matchCases = []struct {
	name        string
	specs       []Spec
	host        string
	wantOK      bool
	wantRoute   int
	wantPattern string
	wantBackend []string
}{
	{
		name:  "exact host",
		specs: []Spec{{Hosts: []string{"play.example.com"}, Backends: []string{"127.0.0.1:25566"}}},
		host:  "play.example.com", wantOK: true, wantRoute: 0,
		wantPattern: "play.example.com", wantBackend: []string{"127.0.0.1:25566"},
	},
	{
		name:  "exact pattern is lower-cased at compile",
		specs: []Spec{{Hosts: []string{"Play.Example.COM"}, Backends: []string{"b:1"}}},
		host:  "play.example.com", wantOK: true, wantPattern: "play.example.com", wantBackend: []string{"b:1"},
	},
	{
		name:  "upper-case host still matches",
		specs: []Spec{{Hosts: []string{"play.example.com"}, Backends: []string{"b:1"}}},
		host:  "PLAY.example.com", wantOK: true, wantPattern: "play.example.com", wantBackend: []string{"b:1"},
	},
	{
		name:  "unknown host",
		specs: []Spec{{Hosts: []string{"play.example.com"}, Backends: []string{"b:1"}}},
		host:  "other.example.com",
	},
	{
		name:  "subdomain wildcard",
		specs: []Spec{{Hosts: []string{"*.example.com"}, Backends: []string{"b:1"}}},
		host:  "abc.example.com", wantOK: true, wantPattern: "*.example.com", wantBackend: []string{"b:1"},
	},
	{
		name:  "subdomain wildcard spans dots",
		specs: []Spec{{Hosts: []string{"*.example.com"}, Backends: []string{"b:1"}}},
		host:  "a.b.example.com", wantOK: true, wantPattern: "*.example.com", wantBackend: []string{"b:1"},
	},
	{
		name:  "subdomain wildcard needs the dot",
		specs: []Spec{{Hosts: []string{"*.example.com"}, Backends: []string{"b:1"}}},
		host:  "example.com",
	},
	{
		name:  "catch-all",
		specs: []Spec{catchAllSpec},
		host:  "anything.at.all", wantOK: true, wantPattern: "*", wantBackend: []string{"10.0.0.10:25565"},
	},
	{
		name:  "catch-all without templates takes any byte",
		specs: []Spec{catchAllSpec},
		host:  "odd host:with/bytes@", wantOK: true, wantPattern: "*", wantBackend: []string{"10.0.0.10:25565"},
	},
	{
		name:  "catch-all matches the empty host",
		specs: []Spec{catchAllSpec},
		host:  "", wantOK: true, wantPattern: "*", wantBackend: []string{"10.0.0.10:25565"},
	},
	{
		name:  "question mark is one character",
		specs: []Spec{{Hosts: []string{"mc?.example.com"}, Backends: []string{"b:1"}}},
		host:  "mc1.example.com", wantOK: true, wantPattern: "mc?.example.com", wantBackend: []string{"b:1"},
	},
	{
		name:  "question mark is not two characters",
		specs: []Spec{{Hosts: []string{"mc?.example.com"}, Backends: []string{"b:1"}}},
		host:  "mc10.example.com",
	},
	{
		name:  "question mark is not zero characters",
		specs: []Spec{{Hosts: []string{"mc?.example.com"}, Backends: []string{"b:1"}}},
		host:  "mc.example.com",
	},
	{
		name:  "$1 filled from the star",
		specs: []Spec{{Hosts: []string{"*.domain.com"}, Backends: []string{"$1.servers.svc:25565"}}},
		host:  "abc.domain.com", wantOK: true, wantPattern: "*.domain.com",
		wantBackend: []string{"abc.servers.svc:25565"},
	},
	{
		name:  "$1 filled from a question mark",
		specs: []Spec{{Hosts: []string{"mc?.example.com"}, Backends: []string{"mc-$1:25565"}}},
		host:  "mc7.example.com", wantOK: true, wantPattern: "mc?.example.com", wantBackend: []string{"mc-7:25565"},
	},
	{
		name:  "$2 and $1 in a list of backends",
		specs: []Spec{{Hosts: []string{"*.*.example.com"}, Backends: []string{"$2.$1.svc:25565", "static:25565"}}},
		host:  "lobby.eu.example.com", wantOK: true, wantPattern: "*.*.example.com",
		wantBackend: []string{"eu.lobby.svc:25565", "static:25565"},
	},
	{
		name:  "greedy captures: the first star takes the longest run",
		specs: []Spec{{Hosts: []string{"*.*"}, Backends: []string{"[$1][$2]"}}},
		host:  "a.b.c", wantOK: true, wantPattern: "*.*", wantBackend: []string{"[a.b][c]"},
	},
	{
		name:  "greedy captures: adjacent stars leave the second empty",
		specs: []Spec{{Hosts: []string{"**"}, Backends: []string{"<$1><$2>"}}},
		host:  "abc", wantOK: true, wantPattern: "**", wantBackend: []string{"<abc><>"},
	},
	{
		name:  "greedy captures with a middle literal",
		specs: []Spec{{Hosts: []string{"*-*-*"}, Backends: []string{"$1|$2|$3"}}},
		host:  "a-b-c-d-e", wantOK: true, wantPattern: "*-*-*", wantBackend: []string{"a-b-c|d|e"},
	},
	{
		name:  "empty capture fills nothing",
		specs: []Spec{{Hosts: []string{"*example.com"}, Backends: []string{"x$1.svc:25565"}}},
		host:  "example.com", wantOK: true, wantPattern: "*example.com", wantBackend: []string{"x.svc:25565"},
	},
	{
		name:  "reference beyond the captures stays literal",
		specs: []Spec{{Hosts: []string{"exact.example.com"}, Backends: []string{"a$1b:25565"}}},
		host:  "exact.example.com", wantOK: true, wantPattern: "exact.example.com", wantBackend: []string{"a$1b:25565"},
	},
	{
		name: "config order: earlier wildcard beats later exact",
		specs: []Spec{
			{Hosts: []string{"*.example.com"}, Backends: []string{"wild:1"}},
			{Hosts: []string{"play.example.com"}, Backends: []string{"exact:1"}},
		},
		host: "play.example.com", wantOK: true, wantRoute: 0, wantPattern: "*.example.com", wantBackend: []string{"wild:1"},
	},
	{
		name: "config order: earlier exact beats later wildcard",
		specs: []Spec{
			{Hosts: []string{"play.example.com"}, Backends: []string{"exact:1"}},
			{Hosts: []string{"*.example.com"}, Backends: []string{"wild:1"}},
		},
		host: "play.example.com", wantOK: true, wantRoute: 0, wantPattern: "play.example.com", wantBackend: []string{"exact:1"},
	},
	{
		name:  "config order: hosts of a route in order",
		specs: []Spec{{Hosts: []string{"*.net", "*.example.net"}, Backends: []string{"$1:1"}}},
		host:  "a.example.net", wantOK: true, wantPattern: "*.net", wantBackend: []string{"a.example:1"},
	},
	{
		name: "config order: later route when earlier does not match",
		specs: []Spec{
			{Hosts: []string{"a.example.com"}, Backends: []string{"a:1"}},
			{Hosts: []string{"b.example.com", "c.example.com"}, Backends: []string{"bc:1"}},
		},
		host: "c.example.com", wantOK: true, wantRoute: 1, wantPattern: "c.example.com", wantBackend: []string{"bc:1"},
	},
	{
		name: "duplicate exact host: first occurrence wins",
		specs: []Spec{
			{Hosts: []string{"dup.example.com"}, Backends: []string{"first:1"}},
			{Hosts: []string{"dup.example.com"}, Backends: []string{"second:1"}},
		},
		host: "dup.example.com", wantOK: true, wantRoute: 0, wantPattern: "dup.example.com", wantBackend: []string{"first:1"},
	},
}

func TestMatch(t *testing.T) {
	for _, tc := range matchCases {
		t.Run(tc.name, func(t *testing.T) {
			table, err := Compile(tc.specs)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			m, ok := table.Match(tc.host)
			if ok != tc.wantOK {
				t.Fatalf("Match(%q) ok = %v, want %v (match %+v)", tc.host, ok, tc.wantOK, m)
			}
			if !ok {
				return
			}
			if m.Route != tc.wantRoute || m.Pattern != tc.wantPattern || !slices.Equal(m.Backends, tc.wantBackend) {
				t.Fatalf("Match(%q) = %+v, want route %d pattern %q backends %q",
					tc.host, m, tc.wantRoute, tc.wantPattern, tc.wantBackend)
			}
		})
	}
}

// A capture that could steer a templated dial target elsewhere must not
// match; the host then falls through to the next route.
func TestMatchUncleanCaptureFallsThrough(t *testing.T) {
	specs := []Spec{
		{Hosts: []string{"*.example.com"}, Backends: []string{"$1.servers.svc:25565"}},
		{Hosts: []string{"mc?.example.com"}, Backends: []string{"mc$1:25565"}},
		{Hosts: []string{"*"}, Backends: []string{"fallback:25565"}},
	}
	table, err := Compile(specs)
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{
		"evil.com:1234/x.example.com",
		"a:b.example.com",
		"a/b.example.com",
		"user@h.example.com",
		"a b.example.com",
		"a_b.example.com",
		"mc:.example.com",
		"tab\t.example.com",
	} {
		t.Run(host, func(t *testing.T) {
			m, ok := table.Match(host)
			if !ok || m.Route != 2 || !slices.Equal(m.Backends, []string{"fallback:25565"}) {
				t.Fatalf("Match(%q) = %+v, %v; want the catch-all route 2", host, m, ok)
			}
		})
	}
}

// Gate accepts `host: ”` and matches it against an empty host only.
func TestEmptyPatternMatchesOnlyEmptyHost(t *testing.T) {
	table, err := Compile([]Spec{
		{Hosts: []string{"a"}, Backends: []string{"b:1"}},
		{Hosts: []string{"c", ""}, Backends: []string{"d:1"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := table.Match(""); !ok || m.Route != 1 || m.Pattern != "" {
		t.Fatalf("Match(\"\") = %+v, %v; want route 1", m, ok)
	}
	for _, host := range []string{"x", "a.", "."} {
		if m, ok := table.Match(host); ok {
			t.Fatalf("Match(%q) = %+v; want no match", host, m)
		}
	}
	if f := Lint([]Spec{{Hosts: []string{""}, Backends: []string{"d:1"}}}); len(f) != 0 {
		t.Fatalf("Lint = %v; want no findings for an empty pattern", f)
	}
}

func TestTableLen(t *testing.T) {
	table, err := Compile([]Spec{{Hosts: []string{"a"}}, {Hosts: []string{"b"}}})
	if err != nil {
		t.Fatal(err)
	}
	if table.Len() != 2 {
		t.Fatalf("Len = %d, want 2", table.Len())
	}
	empty, err := Compile(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := empty.Match("a"); ok || empty.Len() != 0 {
		t.Fatal("empty table matched")
	}
	var nilTable *Table
	if _, ok := nilTable.Match("a"); ok {
		t.Fatal("nil table matched")
	}
}

// Compile copies the backends so that a caller reusing its slices cannot
// change a table other goroutines read.
func TestCompileCopiesBackends(t *testing.T) {
	backends := []string{"a:1"}
	table, err := Compile([]Spec{{Hosts: []string{"h"}, Backends: backends}})
	if err != nil {
		t.Fatal(err)
	}
	backends[0] = "changed:1"
	m, _ := table.Match("h")
	if m.Backends[0] != "a:1" {
		t.Fatalf("backend = %q, want a:1", m.Backends[0])
	}
}

// Hostile patterns and 8000-byte hosts must finish in bounded time: the
// matcher places segments without backtracking.
func TestMatchHostileInputIsBounded(t *testing.T) {
	pat := strings.Repeat("*a", 100) + "*b"
	table, err := Compile([]Spec{
		{Hosts: []string{pat, strings.Repeat("?*", 120) + "c"}, Backends: []string{"$1:1"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	host := strings.Repeat("a", 8000)
	if _, ok := table.Match(host); ok {
		t.Fatal("hostile host matched")
	}
	if _, ok := table.Match(host + "b"); !ok {
		t.Fatal("host ending in b did not match")
	}
}

func TestMatchConcurrent(t *testing.T) {
	table, err := Compile([]Spec{
		{Hosts: []string{"*.example.com"}, Backends: []string{"$1.svc:25565"}},
		{Hosts: []string{"exact.net"}, Backends: []string{"e:1"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for range 200 {
				m, ok := table.Match("s" + string(rune('a'+g)) + ".example.com")
				if !ok || m.Backends[0] != "s"+string(rune('a'+g))+".svc:25565" {
					t.Errorf("goroutine %d: bad match %+v", g, m)
					return
				}
				if _, ok := table.Match("exact.net"); !ok {
					t.Errorf("goroutine %d: exact did not match", g)
					return
				}
			}
		})
	}
	wg.Wait()
}
