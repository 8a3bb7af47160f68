package plan

import "time"

// kindScenarios are the worlds of issue 22 that the sample kinds decide:
// what a status answer and a login's first byte each say about a server.
func kindScenarios() []Scenario {
	return []Scenario{
		{"identical-pair", "two identical 1ms backends whose status answers take 40ms longer than a login's first byte; two logins per 50ms probe round, as the sockets' test runs it",
			socketPair(40*time.Millisecond, nil), "lowest-latency MIN SHARE >= 40%"},
		{"bimodal-login", "backend b's logins are 30% at 400ms; two logins per 50ms probe round, as the sockets' test runs it",
			socketPair(0, map[string]int{"b": 30}), "lowest-latency MIN SHARE <= 15%"},
		{"spiky-busy", "spiky-equal with a status ping and a login every second, two hours", spikyBusy(),
			"lowest-latency FLAPS/H <= 0.50"},
	}
}

// socketPair is the world of the lite package's real-socket tests of
// issue 22 (latency_kinds_test.go): two backends on loopback, probes every
// 50ms, 120 players two per probe round, every session held.
func socketPair(statusServer time.Duration, slowLogins map[string]int) Options {
	two := []string{"a", "b"}
	o := world()
	o.Backends, o.Capacity, o.Count = two, each(two, 1000), 120
	o.Latency = each(two, time.Millisecond)
	o.Arrival, o.Session, o.HealthInterval = 25*time.Millisecond, time.Hour, 50*time.Millisecond
	o.World.StatusServer, o.World.SlowLogins = statusServer, slowLogins
	return o
}

func spikyBusy() Options {
	two := []string{"a", "b"}
	o := spiky(world())
	o.Backends, o.Capacity = two, each(two, 400)
	o.Count, o.Session, o.HealthInterval = 7200, 5*time.Minute, time.Second
	return o
}
