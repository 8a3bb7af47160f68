package strategy

// sequential keeps config order: the first usable backend takes every
// player and the rest are failover, as in Gate Lite's default.
type sequential struct{}

func (sequential) Inputs() Inputs { return 0 }

func (sequential) Order(cands []Candidate, _ Intent, order []int) {
	identity(order)
}

// identity fills order with 0..len(order)-1.
func identity(order []int) {
	for i := range order {
		order[i] = i
	}
}
