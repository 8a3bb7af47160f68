package plan

import "time"

// kindScenarios are the worlds of issue 22 that the sample kinds decide:
// what a status answer and a login's first byte each say about a server.
func kindScenarios() []Scenario {
	two := []string{"a", "b"}
	pair := world()
	pair.Backends, pair.Capacity, pair.Count = two, each(two, 200), 120
	pair.World.StatusServer = 40 * time.Millisecond

	bimodal := world()
	bimodal.Backends, bimodal.Capacity, bimodal.Count = two, each(two, 1000), 600
	bimodal.World.SlowLogins = map[string]int{"b": 30}

	busy := spiky(world())
	busy.Backends, busy.Capacity = two, each(two, 400)
	busy.Count, busy.Session, busy.HealthInterval = 7200, 5*time.Minute, time.Second

	return []Scenario{
		{"identical-pair", "two identical backends whose status answers take 40ms longer than a login's first byte", pair,
			"lowest-latency MIN SHARE >= 40%"},
		{"bimodal-login", "backend b's logins are 30% at 400ms (mean 134ms against a's 20ms)", bimodal,
			"lowest-latency MIN SHARE <= 15%"},
		{"spiky-busy", "spiky-equal with a status ping and a login every second, two hours", busy,
			"lowest-latency FLAPS/H <= 0.50"},
	}
}
