package config

import (
	"strconv"
	"time"
)

// timeoutSanity is what a proxy-wide timeout is expected to look like, for
// warnings about values that load but were almost surely not meant.
type timeoutSanity struct {
	def time.Duration // the default, suggested when nothing closer fits
	max time.Duration // above this the value is suspicious
}

var (
	connectionTimeoutSanity = timeoutSanity{def: 5 * time.Second, max: 2 * time.Minute}
	readTimeoutSanity       = timeoutSanity{def: 30 * time.Second, max: 10 * time.Minute}
)

// smallBareNumber is below which a bare number (milliseconds) was probably
// meant as seconds: no backend dial or handshake read completes that fast
// over a real network.
const smallBareNumber = 100 * time.Millisecond

// timeout decodes a positive duration and warns when it was probably meant
// otherwise: `5` is 5ms (bare numbers are milliseconds, as in Gate), and an
// hour lets a silent client hold a connection for an hour.
func (d *decoder) timeout(e entry, dst *time.Duration, s timeoutSanity) {
	if !d.positive(e, dst) {
		return
	}
	v := *dst
	n := resolve(e.val)
	switch {
	case n.ShortTag() == "!!int" && v < smallBareNumber:
		d.warnf(n.Line, e.path, "%s means %v: bare numbers are milliseconds; did you mean \"%ss\"?", n.Value, v, n.Value)
	case v > s.max:
		d.warnf(n.Line, e.path, "%v is far longer than needed (default %v); did you mean %s?", v, s.def, shorter(v, s.def))
	}
}

// shorter guesses what an over-long timeout was meant to be: the same number
// one unit down (1h -> 1m, 10m -> 10s), else the default.
func shorter(v, def time.Duration) string {
	switch {
	case v%time.Hour == 0:
		return strconv.FormatInt(int64(v/time.Hour), 10) + "m"
	case v%time.Minute == 0:
		return strconv.FormatInt(int64(v/time.Minute), 10) + "s"
	}
	return def.String()
}
