package plan

import (
	"errors"
	"runtime"
	"sync"
)

// eachParallel returns f of every element of in, in the order of in, running up to
// one f per CPU at a time. The simulations it runs share nothing (each has its own
// managers, clock and random sources), so their results do not depend on how they
// interleave: a parallel table is the same bytes as a sequential one.
func eachParallel[T, R any](in []T, f func(T) (R, error)) ([]R, error) {
	out := make([]R, len(in))
	errs := make([]error, len(in))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(in)) {
		wg.Go(func() {
			for i := range next {
				out[i], errs[i] = f(in[i])
			}
		})
	}
	for i := range in {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}
