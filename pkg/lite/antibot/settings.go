package antibot

import (
	"encoding/json"
	"time"
)

// Reasons a Verdict refuses with. They are fixed strings so they can be metric
// labels (package lite counts them as rejection reasons).
const (
	InvalidName     = "invalid-name"     // the name is not 3-16 of [A-Za-z0-9_]
	NameRate        = "name-rate"        // the name logged in too often
	NameSessions    = "name-sessions"    // the name already has its sessions open
	AttackReconnect = "attack-reconnect" // attack mode: a new address must reconnect first
)

// The texts a refused player gets when the config sets none.
const (
	DefaultInvalidNameText = "Your player name is not a valid Minecraft name (3 to 16 letters, digits or _)."
	DefaultNameRateText    = "You are logging in too often. Please wait a moment and try again."
	DefaultSessionsText    = "You are already connected to this server."
	DefaultAttackText      = "This server is under a bot attack. Please reconnect to verify that you are a player."
)

// Rate is a token bucket: Burst logins at once, refilled at Ops per second. The
// zero Rate is no limit.
type Rate struct {
	Ops   float64
	Burst int
}

// On reports whether the rate limits anything.
func (r Rate) On() bool { return r.Ops > 0 && r.Burst > 0 }

// Settings are one scope's checks: the global ones (every route) or a route's own
// (its logins only). A login must pass both, so a route can only add to the global
// checks, never loosen them. The zero Settings checks nothing.
type Settings struct {
	// ValidNames refuses names that are not 3-16 of [A-Za-z0-9_]. Default false.
	ValidNames bool
	// LoginRate limits logins per name (case-insensitive). Default: no limit.
	LoginRate Rate
	// MaxSessionsPerName caps the sessions one name has open at once. Default 0:
	// no cap.
	MaxSessionsPerName int
	// Texts are what a player refused by these checks is told; nil is the default.
	Texts Texts
}

// Texts are Login Disconnect texts as text component JSON; nil is the default text.
type Texts struct {
	InvalidName, NameRate, Sessions json.RawMessage
}

// AttackMode is the global reconnect check. While logins over all routes exceed
// Above per second (a burst of one second's worth allowed), and for Calm after
// they last did, a login from an address not verified is refused with Text; the
// same address reconnecting within Window is verified and let through. Above 0
// (the default) turns attack mode off.
type AttackMode struct {
	// Above is the global login rate, per second, over which attack mode starts.
	Above float64
	// Window is how long a refused address has to reconnect. Default DefaultWindow.
	Window time.Duration
	// Calm is how long attack mode stays on once logins are back under Above.
	// Default DefaultCalm.
	Calm time.Duration
	// Text is what a refused address is told; nil is DefaultAttackText.
	Text json.RawMessage
}

// Attack mode defaults, and how long a verified address stays verified.
const (
	DefaultWindow = 30 * time.Second
	DefaultCalm   = time.Minute
	VerifiedFor   = time.Hour
)

// On reports whether attack mode is configured.
func (a AttackMode) On() bool { return a.Above > 0 }
