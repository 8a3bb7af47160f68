package relay

// parkState is where a parking direction is in its life. The table in doc.go is the
// whole machine; on implements it and state_test.go checks every cell.
type parkState uint8

const (
	// serving: a goroutine (the poller itself or a worker) is moving the direction's
	// bytes without blocking.
	serving parkState = iota
	// servingPending: serving, and the poller reported the socket again meanwhile. The
	// socket is edge-triggered, so the server must look once more before it parks.
	servingPending
	// parked: idle in the poller with no goroutine; the next edge wakes it.
	parked
	// blocking: parking is over; a worker waits for data in the runtime's poller, where
	// deadlines and Close reach it.
	blocking
	// done: the direction ended.
	done
)

// parkEvent is what happens to a parking direction.
type parkEvent uint8

const (
	evWake parkEvent = iota // the poller reports the socket readable, closed or failed
	evIdle                  // the server found nothing to read and would park
	evStop                  // parking ends for good: the other direction ended
	evEnd                   // the direction ended (EOF or error)
)

// parkAction is what the caller of on must do after the transition.
type parkAction uint8

const (
	actNone   parkAction = iota
	actServe             // the poller's caller serves the burst (inline or by a worker)
	actAgain             // the server looks again: bytes may have come
	actRest              // the server stops: the direction is parked
	actBlock             // the server goes on waiting in the runtime poller
	actWorker            // nobody serves the direction: start a blocking worker
)

// on is the transition function: the next state and the action for event ev.
func (s parkState) on(ev parkEvent) (parkState, parkAction) {
	if ev == evEnd || s == done {
		return done, actNone
	}
	switch s {
	case serving, servingPending:
		switch ev {
		case evWake:
			return servingPending, actNone
		case evIdle:
			if s == servingPending {
				return serving, actAgain
			}
			return parked, actRest
		}
		return blocking, actNone // evStop: the server's next step waits
	case parked:
		switch ev {
		case evWake:
			return serving, actServe
		case evStop:
			return blocking, actWorker
		}
		return parked, actNone // evIdle: nobody serves a parked direction
	}
	// blocking
	if ev == evIdle {
		return blocking, actBlock
	}
	return blocking, actNone
}

func (s parkState) String() string {
	return [...]string{"serving", "servingPending", "parked", "blocking", "done"}[s]
}
