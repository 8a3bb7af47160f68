package status

import "fmt"

// flight is one fetch shared by every caller that asked for the same key while it ran.
// json and err are written once, before done is closed, and only read after it is closed.
type flight struct {
	done chan struct{}
	json []byte
	err  error
}

// call runs fetch, turning a panic into ErrFetchPanic: the fetch runs on a goroutine owned by
// the cache, where a panic could not be recovered by the caller that supplied fetch.
func (f *flight) call(fetch func() ([]byte, error)) (b []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, fmt.Errorf("%w: %v", ErrFetchPanic, r)
		}
	}()
	b, err = fetch()
	if err != nil {
		return nil, err
	}
	return cloneResponse(b)
}

// finish publishes the result to every waiter.
func (f *flight) finish(b []byte, err error) {
	f.json, f.err = b, err
	close(f.done)
}
