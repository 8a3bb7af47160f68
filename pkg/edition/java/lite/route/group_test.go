package route

import "testing"

// groupCases pin how routes of different groups (the file and each
// discovered route) rank: exact over wildcard over catch-all, then group.
var groupCases = []struct {
	name      string
	specs     []Spec
	host      string
	wantRoute int
}{
	{
		name: "later group's exact host beats an earlier group's wildcard",
		specs: []Spec{
			{Hosts: []string{"*.example.com"}, Backends: []string{"wild:1"}},
			{Hosts: []string{"lobby.example.com"}, Backends: []string{"exact:1"}, Group: 1},
		},
		host: "lobby.example.com", wantRoute: 1,
	},
	{
		name: "earlier group keeps an exact host both claim",
		specs: []Spec{
			{Hosts: []string{"lobby.example.com"}, Backends: []string{"file:1"}},
			{Hosts: []string{"lobby.example.com"}, Backends: []string{"found:1"}, Group: 1},
		},
		host: "lobby.example.com", wantRoute: 0,
	},
	{
		name: "catch-all of an earlier group comes after a later group's wildcard",
		specs: []Spec{
			{Hosts: []string{"*"}, Backends: []string{"file:1"}},
			{Hosts: []string{"*.example.com"}, Backends: []string{"found:1"}, Group: 1},
		},
		host: "lobby.example.com", wantRoute: 1,
	},
	{
		name: "catch-all still takes hosts nobody else claims",
		specs: []Spec{
			{Hosts: []string{"*"}, Backends: []string{"file:1"}},
			{Hosts: []string{"*.example.com"}, Backends: []string{"found:1"}, Group: 1},
		},
		host: "other.net", wantRoute: 0,
	},
	{
		name: "within a group config order still decides",
		specs: []Spec{
			{Hosts: []string{"*.example.com"}, Backends: []string{"wild:1"}},
			{Hosts: []string{"lobby.example.com"}, Backends: []string{"exact:1"}},
			{Hosts: []string{"*.net"}, Backends: []string{"other:1"}, Group: 1},
		},
		host: "lobby.example.com", wantRoute: 0,
	},
	{
		name: "a group whose first match is its catch-all ranks as a catch-all",
		specs: []Spec{
			{Hosts: []string{"*"}, Backends: []string{"file:1"}},
			{Hosts: []string{"lobby.example.com"}, Backends: []string{"file2:1"}},
			{Hosts: []string{"*.example.com"}, Backends: []string{"found:1"}, Group: 1},
		},
		host: "lobby.example.com", wantRoute: 2,
	},
	{
		name: "wildcards of two groups: the earlier group wins",
		specs: []Spec{
			{Hosts: []string{"*.example.com"}, Backends: []string{"a:1"}, Group: 1},
			{Hosts: []string{"*.games.example.com"}, Backends: []string{"b:1"}, Group: 2},
		},
		host: "x.games.example.com", wantRoute: 0,
	},
	{
		name: "discovered catch-all routes rank by group",
		specs: []Spec{
			{Hosts: []string{"*"}, Backends: []string{"a:1"}, Group: 1},
			{Hosts: []string{"*"}, Backends: []string{"b:1"}, Group: 2},
		},
		host: "x.net", wantRoute: 0,
	},
}

func TestMatchAcrossGroups(t *testing.T) {
	for _, tc := range groupCases {
		t.Run(tc.name, func(t *testing.T) {
			table, err := Compile(tc.specs)
			if err != nil {
				t.Fatal(err)
			}
			m, ok := table.Match(tc.host)
			if !ok || m.Route != tc.wantRoute {
				t.Fatalf("Match(%q) = %+v, %v; want route %d", tc.host, m, ok, tc.wantRoute)
			}
		})
	}
}

func TestCompileRefusesDecreasingGroups(t *testing.T) {
	_, err := Compile([]Spec{{Hosts: []string{"a"}, Group: 2}, {Hosts: []string{"b"}, Group: 1}})
	if err == nil {
		t.Fatal("Compile accepted a group lower than the one before it")
	}
}
