package admission

// The open-files budget. A proxy out of descriptors cannot accept, so a player past
// it would wait in the listen backlog for its whole timeout with no answer, and the
// admin API could not answer a liveness probe either. As HAProxy derives maxconn from
// the limit, the proxy derives how many connections it handles at once from the soft
// RLIMIT_NOFILE, keeps the rest for everything else, and tells every player past the
// cap that the proxy is full. The cap in force is the lower of it and
// Config.MaxConnections (the Controller enforces that one).

// AdminConns is how many connections the admin API holds open at once (package admin
// enforces it): the budget keeps their descriptors out of the players' share, so
// /healthz answers however full the proxy is.
const AdminConns = 16

// MaxFullReplies bounds the connections past a cap that are held for a moment to be
// told why with a Login Disconnect: under a flood, refusing must stay cheaper than
// serving, so past it a refusal is a bare close.
const MaxFullReplies = 64

const (
	// fdFixed: stdio, the runtime's poller, the listeners, log files, the config
	// watcher. The relay's epoll descriptors (one per GOMAXPROCS) come on top.
	fdFixed = 32
	// fdProbes: health probes and status fetches not tied to one connection.
	fdProbes = 16
	// FDsPerConn: the player's socket and one backend socket (a login's dial, a status
	// fetch, the joined session's backend).
	FDsPerConn = 2
	// maxDialExtra bounds the budget's room for a dial's short-lived extra sockets
	// (DNS lookups, the second address family of a dual-stack host).
	maxDialExtra = 64
)

// FDBudget is how an open-files limit is split.
type FDBudget struct {
	Limit uint64
	// Conns is how many connections are handled at once: the cap.
	Conns int
	// FullReplies is how many connections past the cap may be held at once while they
	// are told the proxy is full (each one descriptor for a moment).
	FullReplies int
	// Reserve is what the rest keeps: fixed, admin, probes, pipes, dial extras.
	Reserve int
}

// BudgetFor splits limit for a process with pollers relay event loops whose pipes may
// hold pipeFDs descriptors. A tiny limit still gets one connection and one reply slot;
// the reserve then is what is left.
func BudgetFor(limit uint64, pollers, pipeFDs int) FDBudget {
	reserve := fdFixed + pollers + AdminConns + fdProbes + pipeFDs
	rest := max(0, int(min(limit, 1<<30))-reserve)
	replies := min(max(rest/16, 1), MaxFullReplies)
	dialExtra := min(max(rest/16, 1), maxDialExtra)
	b := FDBudget{Limit: limit, FullReplies: replies, Reserve: reserve + dialExtra}
	b.Conns = max(1, (rest-replies-dialExtra)/FDsPerConn)
	return b
}
