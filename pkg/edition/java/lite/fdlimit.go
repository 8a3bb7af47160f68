package lite

import "fmt"

// fdSpare is the descriptors a proxy needs besides its sessions: listeners, the admin
// API, probes and status fetches in flight, log files.
const fdSpare = 64

// fdAdvice checks that maxConnections sessions (two descriptors each: the player's and
// the backend's) fit in limit open files. It returns the warning to log, or "" when
// they fit or there is no cap.
func fdAdvice(maxConnections int, limit, hard uint64) string {
	if maxConnections <= 0 {
		return ""
	}
	need := uint64(maxConnections)*2 + fdSpare
	if need <= limit {
		return ""
	}
	reach := 0
	if limit > fdSpare {
		reach = int((limit - fdSpare) / 2)
	}
	return fmt.Sprintf("config.quota.maxConnections %d needs about %d file descriptors, but the limit is %d (hard limit %d): "+
		"past about %d sessions new players get the proxy-full text; lower config.quota.maxConnections to %d or raise the "+
		"hard limit (LimitNOFILE= in systemd, --ulimit nofile= in docker)", maxConnections, need, limit, hard, reach, reach)
}

// checkFDLimit warns once when config.quota.maxConnections cannot be reached with the
// descriptors the process may open.
func (l *Lite) checkFDLimit() {
	soft, hard, err := fdLimit()
	if err != nil {
		l.log.V(1).Info("open-files limit unknown", "err", err.Error())
		return
	}
	if msg := fdAdvice(l.snap.Load().cfg.Quota.MaxConnections, soft, hard); msg != "" {
		l.log.Info("warning: " + msg)
	}
}
