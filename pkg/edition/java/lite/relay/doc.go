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
// Players send little, so the up direction idles nearly all the time. Rather than a
// goroutine blocked in a read, it parks: the client socket sits in the relay's epoll
// instance (edge-triggered), and each edge is served on the poller's goroutine (a
// packet) or by a short-lived worker (a longer burst, a backend that cannot take it, or
// several sockets ready at once), after which the direction parks again. When the down
// direction ends, parking ends and a worker waits like any reader, so the half-close
// linger deadline and a Close reach it.
//
// The states (state.go) and what each event does to them, as next state / action:
//
//	state \ event     wake (edge)            idle (nothing read)    stop (other side ended)  end
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
// # Process-wide state
//
// Everything lives in a Relay value except the pipe pool, the package's one
// deliberate global: the kernel's pipe budget (fs.pipe-user-pages-soft) is per user,
// not per instance, so two relays with pools of their own would together overrun what
// one pool is sized to stay within.
package relay
