package relay

// Moved is a live session the relay let go of without ending it (Detach): the
// sockets, open and untouched, and the bytes it had read but not yet written. Whoever
// receives it owns both descriptors and must close them; a relay that adopts it
// (Start with Options.Pending) writes Up to the backend and Down to the player before
// it reads another byte.
type Moved struct {
	// ClientFD and BackendFD are the player's and the backend's sockets
	// (close-on-exec, non-blocking).
	ClientFD, BackendFD int
	// Up is what the player sent that the backend has not had; Down the reverse.
	Up, Down []byte
}

// Detach lets go of every parked pipe whose directions both still run: each one's
// owner gets its done callback with Result.Moved set, on the caller's goroutine, one
// pipe after another (so each session pauses only for its own turn), and the sockets
// stay open. Pipes that start from now until Resume are let go of as soon as they
// have started, on the goroutine that started them. A pipe that does not park, or
// whose session is already ending (one direction ended), is left to end here. It
// returns how many pipes it let go of.
func (r *Relay) Detach() int {
	r.mu.Lock()
	r.moving = true
	var links []*link
	for l := r.live; l != nil; l = l.next {
		if l.started { // the others detach themselves at the end of Start
			links = append(links, l)
		}
	}
	r.mu.Unlock()
	n := 0
	for _, l := range links {
		if l.detach() {
			n++
		}
	}
	return n
}

// Resume ends what Detach began: pipes that start from now on run here again (the
// new owner of the sessions went away, and the relay adopts them back).
func (r *Relay) Resume() {
	r.mu.Lock()
	r.moving = false
	r.mu.Unlock()
}
