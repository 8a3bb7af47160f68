package route

import (
	"slices"
	"testing"
)

// lintCases are route tables and every finding Lint must report, in order.
var lintCases = []struct {
	name  string
	specs []Spec
	want  []Finding
}{
	{
		name: "clean table",
		specs: []Spec{
			{Hosts: []string{"play.example.com"}, Backends: []string{"a:1"}},
			{Hosts: []string{"*.example.com"}, Backends: []string{"$1.svc:1"}},
			{Hosts: []string{"*"}, Backends: []string{"c:1"}},
		},
	},
	{
		name: "template host made only of captures",
		specs: []Spec{
			{Hosts: []string{"*.*.dyn.example.com"}, Backends: []string{"$1.$2:25565", "$1-$2.svc:25565", "$2", "[$1]:25565"}},
		},
		want: []Finding{
			{Route: 0, Host: -1, Backend: 0, Msg: capturesOnly("$1.$2:25565")},
			{Route: 0, Host: -1, Backend: 2, Msg: capturesOnly("$2")},
		},
	},
	{
		name: "host after a catch-all",
		specs: []Spec{
			{Hosts: []string{"*"}, Backends: []string{"a:1"}},
			{Hosts: []string{"*.example.com", "play.example.com"}, Backends: []string{"b:1"}},
		},
		want: []Finding{
			{Route: 1, Host: 0, Backend: -1, Msg: `host "*.example.com" never matches: route 0 host 0 ("*") matches every host first`},
			{Route: 1, Host: 1, Backend: -1, Msg: `host "play.example.com" never matches: route 0 host 0 ("*") matches every host first`},
		},
	},
	{
		name: "templated catch-all lets unclean hosts through",
		specs: []Spec{
			{Hosts: []string{"*"}, Backends: []string{"$1:1"}},
			{Hosts: []string{"*"}, Backends: []string{"b:1"}},
		},
		want: []Finding{
			{Route: 0, Host: -1, Backend: 0, Msg: capturesOnly("$1:1")},
			{Route: 1, Host: 0, Backend: -1, Msg: `duplicate host "*": route 0 host 0 has it already`},
		},
	},
	{
		name: "exact host matched by an earlier wildcard route",
		specs: []Spec{
			{Hosts: []string{"*.example.com"}, Backends: []string{"a:1"}},
			{Hosts: []string{"play.example.com"}, Backends: []string{"b:1"}},
		},
		want: []Finding{
			{Route: 1, Host: 0, Backend: -1, Msg: `host "play.example.com" never matches: route 0 host 0 ("*.example.com") matches it first`},
		},
	},
	{
		name: "exact host matched earlier in the same route",
		specs: []Spec{
			{Hosts: []string{"mc?.example.com", "mc1.example.com"}, Backends: []string{"a:1"}},
		},
		want: []Finding{
			{Route: 0, Host: 1, Backend: -1, Msg: `host "mc1.example.com" never matches: route 0 host 0 ("mc?.example.com") matches it first`},
		},
	},
	{
		name: "duplicate hosts differing in case",
		specs: []Spec{
			{Hosts: []string{"Play.example.com"}, Backends: []string{"a:1"}},
			{Hosts: []string{"play.example.com"}, Backends: []string{"b:1"}},
		},
		want: []Finding{
			{Route: 1, Host: 0, Backend: -1, Msg: `duplicate host "play.example.com": route 0 host 0 has it already`},
		},
	},
	{
		name: "reference beyond the captures of one host",
		specs: []Spec{
			{Hosts: []string{"*.*.example.com", "*.example.net"}, Backends: []string{"static:1", "$2.$1.svc:1"}},
		},
		want: []Finding{
			{Route: 0, Host: 1, Backend: 1, Msg: `backend "$2.$1.svc:1" uses $2 but host "*.example.net" has 1 capture(s); the reference stays literal, so that backend cannot be dialled`},
		},
	},
	{
		name: "zero reference",
		specs: []Spec{
			{Hosts: []string{"*.example.com"}, Backends: []string{"$0.svc:1"}},
		},
		want: []Finding{
			{Route: 0, Host: -1, Backend: 0, Msg: `backend "$0.svc:1" uses $0, which refers to nothing (captures start at $1)`},
		},
	},
	{
		name: "patterns no cleaned host can match",
		specs: []Spec{
			{Hosts: []string{"play.example.com:25565", "play.example.com.", "a b"}, Backends: []string{"a:1"}},
		},
		want: []Finding{
			{Route: 0, Host: 0, Backend: -1, Msg: `host "play.example.com:25565" never matches: hosts are matched without a port`},
			{Route: 0, Host: 1, Backend: -1, Msg: `host "play.example.com." never matches: hosts are matched with leading and trailing dots trimmed`},
			{Route: 0, Host: 2, Backend: -1, Msg: `host "a b" never matches: it contains whitespace`},
		},
	},
}

func TestLint(t *testing.T) {
	for _, tc := range lintCases {
		t.Run(tc.name, func(t *testing.T) {
			got := Lint(tc.specs)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Lint findings:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestFindingString(t *testing.T) {
	f := Finding{Route: 2, Host: -1, Backend: 1, Msg: "x"}
	if got, want := f.String(), "route 2 host -1 backend 1: x"; got != want {
		t.Fatalf("String = %q, want %q", got, want)
	}
}

func capturesOnly(b string) string {
	return "backend \"" + b + "\": its host is nothing but captures, so players choose where the proxy dials " +
		"(only loopback, link-local and the proxy's own addresses are refused when dialling); write the domain out, e.g. '$1.internal.example.com:25565'"
}
