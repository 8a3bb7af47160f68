// Package strategy decides which backend each player lands on.
//
// It owns the Strategy seam and the eight built-in strategies (sequential,
// random, round-robin, least-connections, lowest-latency, p2c,
// least-loaded, weighted-random), the
// per-backend state they read (active sessions, smoothed latency, the last
// status report and the placements since it, capacity overrides, drain
// verdicts, slow-start ramps, health), passive ejection and active health
// checks with their probe loop, and the Manager that ties these together
// for one Lite instance.
//
// It does not own sockets, configuration files or the proxy: it never dials
// anything itself (probes go through a Prober the proxy supplies), it never
// reads YAML, and it never imports the proxy. Every piece of state lives in a
// Manager, so two Lite instances in one process do not share anything, and
// neither do replicas: p2c sees other replicas only through the players the
// backends report.
//
// The proxy's contract is small: Order (or AppendOrder, which does not
// allocate) gives the try order for one connection; Reserve starts one
// attempt on the backend it is dialing, the Lease's Settle says when the
// backend's first byte arrived (the player joins) or the attempt failed
// (ErrFull: the backend turned the player away as full, which is load as
// well as a failure), and Release gives it back; after a failed attempt, Failover re-orders the
// login's untried backends so that those that answered recently come first;
// ObserveDial/ObserveStatus feed dial and status outcomes back; Players sums the reported players for a route's
// status; Patience says how long a login waits for a backend's first answer,
// judged against the rest of the fleet; Refused learns backends full that
// turned away a player another one took; Leaving lists removed backends that
// still hold players. Known-bad backends are demoted to the end of the order, never
// dropped, so stale health can slow failover but can never cause an outage.
package strategy
