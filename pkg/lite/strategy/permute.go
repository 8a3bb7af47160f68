package strategy

// sortOrder sorts order in place with an insertion sort that is stable, so
// an earlier shuffle survives as the tie-break. Candidate lists are short
// (a route has a handful of backends), where this beats sort.Slice and
// does not allocate.
func sortOrder(order []int, less func(a, b int) bool) {
	for i := 1; i < len(order); i++ {
		v := order[i]
		j := i
		for j > 0 && less(v, order[j-1]) {
			order[j] = order[j-1]
			j--
		}
		order[j] = v
	}
}
