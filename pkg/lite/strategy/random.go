package strategy

// random tries backends in a uniformly random order drawn from the route's
// own seeded source, so concurrent connections never share a locked global.
type random struct {
	rng *lockedRand
}

func newRandom(e Env) *random {
	return &random{rng: newLockedRand(e.Seed)}
}

func (*random) Inputs() Inputs { return 0 }

func (s *random) Order(cands []Candidate, _ Intent, order []int) {
	identity(order)
	s.rng.Shuffle(order)
}
