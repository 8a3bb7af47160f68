// Package relay moves a proxied session's bytes between the player's and the
// backend's connections, and owns everything that takes: the pollers that serve
// parked pipes, the splicer, and the pipe pool.
//
// # Directions
//
// A pipe has two directions: up (client to backend) and down (backend to client).
//
// # Parked pipes
//
// Between two TCP sockets on Linux the relay takes the sockets over: it duplicates
// each descriptor, closes the connections (which takes their descriptors out of the
// Go runtime's poller) and registers its own in one of its pollers, one epoll set per
// GOMAXPROCS, edge-triggered, each socket once for reading and writing. A poller is
// an event loop like nginx's: one goroutine that, for every socket an edge reports,
// moves what can move with non-blocking system calls and goes back to sleep. An idle
// session is its link and two sockets: no goroutine, no buffer, no pipe, no timer.
//
// What a direction does when its source has bytes:
//
//   - A packet: one read into the poller's buffer (smallRead) and one write of what
//     it got. A read shorter than the buffer emptied the socket, and the next bytes raise a
//     new edge, so the read that would only learn that it is dry is skipped (unless
//     the edge also reported the peer's FIN, which is still to be read).
//   - A burst (a read filled the buffer): splice, socket to a pooled pipe to socket,
//     so the bytes stay in the kernel, until the source is dry; the pipe then goes
//     back to the pool. A burst whose splices moved a buffer's worth at once starts the
//     next one with splice too: a download stays on the splice path. Without a pipe
//     to be had it reads through the buffer instead.
//   - A destination that takes no more: its bytes wait in the pipe, or in a pooled
//     buffer of the relay's, the direction is held and stops reading (TCP holds the
//     source back), and the destination's next writable edge flushes them.
//
// A direction moves at most burstChunks chunks per turn; then the pipe waits for the
// poller's next look at its epoll set, so one download cannot hold up the other players'
// packets. Everything about a pipe happens under its lock, on the poller, or on its
// timer or Abort, which only end it; when both directions ended the relay closes the
// sockets and runs the owner's callback on a goroutine of its own.
//
// Any other pair of connections (and NoPark) gets a goroutine per direction that
// splices through a pipe borrowed only while bytes flow, or copies with io.Copy when
// either is not a TCP socket.
//
// # Ends
//
// How a parked pipe ends is stated once, as two transition tables (ends_linux.go) that
// the poller, the timer and Abort step through and that a test walks row by row:
// dirRules, where a direction stands (open, draining, held, ended) and what each event
// does there, and timerRules, what the link's one timer is for (none, stall, linger).
// In short: a direction whose source ended cleanly delivers what it holds, half-closes
// its destination (the peer reads EOF), and the other direction gets
// LingerAfterHalfClose to end by itself. An error ends both directions at once. A
// direction that did not end cleanly (an error, the linger, Abort) closes its
// destination with a reset (SO_LINGER 0): a FIN always means a whole stream, so a
// backend's reset reaches the player as one. A direction on a goroutine of its own
// keeps the same rules through deadlines and SetLinger.
//
// # Stalls
//
// While the player's bytes wait for a backend that accepts none of them (the up
// direction held, the timer's stall bound), the session lasts StallTimeout (30 s, the
// vanilla server's own read timeout), counted afresh each time the backend takes some:
// a pause of a few seconds (GC, a world save) costs the player nothing, as TCP flow
// control holds it back meanwhile (ErrBackendStalled past it). A player who leaves
// meanwhile is released sooner: the poller sees its socket reset or hang up even with
// unread bytes queued, which cuts the wait to LeftGrace (ErrClientGone). A FIN queued
// behind the player's own unsent bytes never arrives, so that departure waits for
// StallTimeout.
//
// # Process-wide state
//
// Everything lives in a Relay value except the pipe pool, the package's one
// deliberate global: the kernel's pipe budget (fs.pipe-user-pages-soft) is per user,
// not per instance, so two relays with pools of their own would together overrun what
// one pool is sized to stay within.
package relay
