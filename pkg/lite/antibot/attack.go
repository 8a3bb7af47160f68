package antibot

import (
	"net/netip"
	"time"

	"github.com/go-logr/logr"
)

// attackState is attack mode's state: the global login bucket, until when attack
// mode lasts, and the addresses seen (refused and waiting for their reconnect, or
// verified). Guarded by Guard.mu.
type attackState struct {
	logins  bucket
	until   time.Time
	on      bool
	refused int // refused since attack mode started, for the line that ends it
	addrs   *table[netip.Addr, addrState]
}

// addrState is one address: when it was first refused (waiting for its
// reconnect), or until when it is verified.
type addrState struct {
	refusedAt, verifiedUntil time.Time
}

// attackChange is a start or end of attack mode, logged after the lock.
type attackChange struct {
	started, ended bool
	refused        int
}

// admit counts a login against a's rate and, while attack mode lasts, lets addr
// through only if it is verified or reconnects within the window of its refusal.
// Outside attack mode every address let through is verified, so a player who was
// on before an attack is not asked to reconnect during it.
func (s *attackState) admit(addr netip.Addr, a *AttackMode, now time.Time) (bool, attackChange) {
	var ch attackChange
	r := Rate{Ops: a.Above, Burst: max(1, int(a.Above))}
	if !s.logins.take(r, now) {
		s.until = now.Add(a.Calm)
		if !s.on {
			s.on, s.refused, ch.started = true, 0, true
		}
	}
	if s.on && !now.Before(s.until) {
		s.on, ch.ended, ch.refused = false, true, s.refused
	}
	st := s.addrs.get(addr)
	if st == nil {
		st = s.addrs.add(addr, func(st *addrState) bool { return st.idle(a, now) }, true)
	}
	switch {
	case now.Before(st.verifiedUntil):
	case !s.on, !st.refusedAt.IsZero() && now.Sub(st.refusedAt) <= a.Window:
		st.refusedAt = time.Time{}
	default:
		st.refusedAt = now
		s.refused++
		return false, ch
	}
	st.verifiedUntil = now.Add(VerifiedFor)
	return true, ch
}

// idle reports whether st carries nothing: not verified and not waiting for a
// reconnect. Such an address is replaced first when the table is full.
func (st *addrState) idle(a *AttackMode, now time.Time) bool {
	return !now.Before(st.verifiedUntil) && (st.refusedAt.IsZero() || now.Sub(st.refusedAt) > a.Window)
}

func (ch attackChange) log(log logr.Logger, a *AttackMode) {
	switch {
	case ch.started:
		log.Info("attack mode on: logins over the rate; new addresses must reconnect to join",
			"above", a.Above, "window", a.Window)
	case ch.ended:
		log.Info("attack mode off", "refused", ch.refused)
	}
}
