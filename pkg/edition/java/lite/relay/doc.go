// Package relay moves a proxied session's bytes between the player's and the
// backend's connections, and owns everything that takes: the splicer, the poller that
// parked directions wait in, and the pipe pool.
//
// # Directions
//
// A pipe has two directions: up (client to backend) and down (backend to client).
// Between two TCP sockets on Linux each direction moves bytes with splice(2), socket to
// pipe to socket, borrowing a pipe from the pool only while bytes flow, so an idle
// direction holds no pipe. Any other pair of connections is copied with io.Copy.
//
// # Parking
//
// Players send little and backends send in bursts, so both directions idle nearly all
// the time. Rather than a goroutine blocked in a read, each parks: its source socket
// sits in one of the relay's epoll instances (edge-triggered, one per GOMAXPROCS), and
// each edge is served on the poller's goroutine (a packet) or by a short-lived worker
// (a longer burst, a destination that cannot take it, or several sockets ready at
// once), after which the direction parks again. An idle session is its two sockets,
// its link (both directions' state, within 512 bytes), a bound callback per direction
// and a raw conn per socket; no goroutine. When one direction ends with an error (or
// Abort runs) the other stops parking and a worker waits like any reader, so the
// deadline reaches it. After a clean end the other keeps parking for the linger: the
// peer's FIN wakes it, and a timer stops it at the deadline.
//
// The states (state.go) and what each event does to them, as next state / action:
//
//	state \ event     wake (edge)            idle (nothing read)    stop (see above)         end
//	serving           servingPending / -     parked / rest          blocking / -             done
//	servingPending    servingPending / -     serving / look again   blocking / -             done
//	parked            serving / serve        parked / -             blocking / start worker  done
//	blocking          blocking / -           blocking / block       blocking / -             done
//	done              done / -               done / -               done / -                 done
//
// Exactly one goroutine serves a direction outside parked: the one that got "serve" or
// "start worker", until it gets "rest" or the direction ends. A wake while serving is
// only remembered (the socket is edge-triggered, so losing it would strand bytes); the
// server looks once more before it parks. A direction starts parked when its socket
// joins the poller, else blocking with a worker.
//
// # Stalls
//
// While the up direction parks, a backend that accepts no byte of the player's for
// StallTimeout (30 s, the vanilla server's own read timeout) ends the pipe
// (ErrBackendStalled): a pause of a few seconds (GC, a world save) costs the player
// nothing, as TCP flow control holds it back meanwhile. A player who leaves while the
// backend is not reading is released sooner: the player's socket stays in the poller
// while its bytes wait, and the poller sees a reset or hang-up there even with unread
// bytes queued, which cuts the wait to LeftGrace (ErrClientGone). A FIN queued behind
// the player's own unsent bytes never arrives, so that departure waits for
// StallTimeout.
//
// # Process-wide state
//
// Everything lives in a Relay value except the pipe pool, the package's one
// deliberate global: the kernel's pipe budget (fs.pipe-user-pages-soft) is per user,
// not per instance, so two relays with pools of their own would together overrun what
// one pool is sized to stay within.
package relay
