package mctest

// Fault is how a backend misbehaves. The zero value is a healthy backend.
type Fault int

const (
	FaultNone Fault = iota
	// FaultRefused: nothing listens on Addr, so a dial is refused at once.
	FaultRefused
	// FaultBlackhole: Addr drops SYNs, so a dial times out (see BlackholeAddr).
	FaultBlackhole
	// FaultAcceptClose accepts and closes before reading or writing a byte.
	FaultAcceptClose
	// FaultResetAfterHandshake reads the handshake, then resets the connection
	// (SO_LINGER 0), as a server that crashes on its first packet.
	FaultResetAfterHandshake
	// FaultHang accepts and reads everything, but never answers.
	FaultHang
	// FaultStall accepts and then neither reads nor writes: a slow reader that lets TCP
	// flow control stall whoever writes to it.
	FaultStall
	// FaultHangStatus answers logins normally but never answers a status request.
	FaultHangStatus
	// FaultCrashMidSession echoes the login preamble (handshake and what came with it),
	// then resets the connection when the next bytes arrive: a crash during play.
	FaultCrashMidSession
	// FaultFlood accepts and writes to the connection as fast as the kernel takes bytes,
	// reading nothing; BytesOut counts what was taken (a player that stops reading).
	FaultFlood
)

var faultNames = [...]string{
	"healthy", "refused", "black-holed", "accept-then-close", "reset-after-handshake",
	"accept-then-hang", "accept-then-stall", "hang-status", "crash-mid-session", "flood",
}

func (f Fault) String() string {
	if f < 0 || int(f) >= len(faultNames) {
		return "unknown"
	}
	return faultNames[f]
}
