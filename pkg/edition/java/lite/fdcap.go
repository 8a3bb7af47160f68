package lite

import (
	"context"
	"runtime"

	"go.minekube.com/gate/pkg/edition/java/lite/admission"
	"go.minekube.com/gate/pkg/edition/java/lite/relay"
	"go.minekube.com/gate/pkg/lite/logging"
)

// AdminConns is how many connections the admin API holds open at once
// (admission.AdminConns: the open-files budget keeps their descriptors).
const AdminConns = admission.AdminConns

// applyFDBudget reads the open-files limit as Serve starts (after the process may
// have raised it) and sets the connection cap and the proxy-full reply slots from it
// (admission.BudgetFor splits the limit).
func (l *Lite) applyFDBudget() {
	limit, err := admission.FDLimit()
	if err != nil {
		l.fdCap = 0 // unknown: admission's maxConnections alone
		return
	}
	b := admission.BudgetFor(limit, runtime.GOMAXPROCS(0), relay.PipeFDs(limit))
	l.fdCap = int64(b.Conns)
	l.telling = make(chan struct{}, b.FullReplies)
	configured := l.snap.Load().cfg.Quota.MaxConnections
	kv := []any{"limit", limit, "connections", b.Conns, "proxyFullReplies", b.FullReplies, "reserved", b.Reserve}
	if configured > 0 && configured <= b.Conns {
		l.log.V(1).Info("open-files budget", kv...)
		return
	}
	logging.Warn(l.log, "the open-files limit caps the connections handled at once below config.quota.maxConnections; "+
		"players past it get the proxy-full text (raise the hard limit: LimitNOFILE= in systemd, --ulimit nofile= in docker)",
		append(kv, "maxConnections", configured)...)
}

// awaitRoom is the accept loop's gate, run before each Accept: it returns at once
// while the connections handled are under the cap; at the cap it waits for a
// proxy-full reply slot (full: the next connection is told the proxy is full) or for
// a connection to end. Meanwhile new players wait in the listen backlog, not in the
// process's descriptors, so accept never fails for want of one. ok is false once ctx
// ended.
func (l *Lite) awaitRoom(ctx context.Context) (full, ok bool) {
	for {
		if !l.atCap() {
			return false, true
		}
		select {
		case l.telling <- struct{}{}:
			return true, true
		case <-l.freed:
		case <-ctx.Done():
			return false, false
		}
	}
}

// atCap reports the connections being handled (those past the cap being told why
// are not handled) at the open-files cap.
func (l *Lite) atCap() bool {
	return l.fdCap > 0 && l.live.Load()-int64(len(l.telling)) >= l.fdCap
}
