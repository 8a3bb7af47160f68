package route

import (
	"fmt"
	"testing"
)

// benchTable has 50 exact routes followed by a wildcard route, a templated
// wildcard route and a catch-all, the shape of a large real config.
func benchTable(b *testing.B) *Table {
	b.Helper()
	specs := make([]Spec, 0, 53)
	for i := range 50 {
		specs = append(specs, Spec{
			Hosts:    []string{fmt.Sprintf("server%d.example.com", i), fmt.Sprintf("alias%d.example.net", i)},
			Backends: []string{fmt.Sprintf("10.0.0.%d:25565", i)},
		})
	}
	specs = append(specs,
		Spec{Hosts: []string{"*.example.com"}, Backends: []string{"10.0.1.1:25565", "10.0.1.2:25565"}},
		Spec{Hosts: []string{"*.domain.com"}, Backends: []string{"$1.servers.svc:25565"}},
		Spec{Hosts: []string{"*"}, Backends: []string{"10.0.2.1:25565"}},
	)
	table, err := Compile(specs)
	if err != nil {
		b.Fatal(err)
	}
	return table
}

func benchmarkMatch(b *testing.B, host string, wantRoute int) {
	table := benchTable(b)
	if m, ok := table.Match(host); !ok || m.Route != wantRoute {
		b.Fatalf("Match(%q) = %+v, %v; want route %d", host, m, ok, wantRoute)
	}
	b.ReportAllocs()
	for b.Loop() {
		table.Match(host)
	}
}

func BenchmarkMatchExactAmong50Routes(b *testing.B) {
	benchmarkMatch(b, "alias42.example.net", 42)
}

func BenchmarkMatchWildcard(b *testing.B) {
	benchmarkMatch(b, "lobby.eu.example.com", 50)
}

func BenchmarkMatchCatchAll(b *testing.B) {
	benchmarkMatch(b, "unknown.host.org", 52)
}

func BenchmarkMatchTemplated(b *testing.B) {
	benchmarkMatch(b, "lobby.domain.com", 51)
}
