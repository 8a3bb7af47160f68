package operator

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"go.minekube.com/gate/pkg/lite/players"
)

// ErrInvalid marks an entry refused by Validate (the API answers 400).
var ErrInvalid = errors.New("invalid operator entry")

// Validate checks every field of e against its bounds and its kind, and puts the
// target in its one spelling (Normalize). now is the moment of the write: a ban
// may not end before it or more than MaxBanFor after it. Every problem is
// reported at once.
func Validate(e *Entry, now time.Time) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	for _, f := range []struct {
		name, v string
		max     int
	}{{"target", e.Target, MaxTarget}, {"text", e.Text, MaxText}, {"motd", e.MOTD, MaxMOTD},
		{"favicon", e.Favicon, MaxFavicon}, {"version", e.Version, MaxVersion}, {"by", e.By, MaxBy}} {
		if len(f.v) > f.max {
			bad("%s: %d bytes, at most %d", f.name, len(f.v), f.max)
		} else if !printable(f.v) {
			bad("%s: not printable UTF-8 text", f.name)
		}
	}
	if len(errs) == 0 {
		if e.Target == "" {
			bad("target: empty")
		} else if e.Target == AllRoutes && (e.Kind == Ban || e.Kind == Drain) {
			bad("target: a %s names one %s, not %q", e.Kind, map[Kind]string{Ban: "player", Drain: "backend"}[e.Kind], AllRoutes)
		} else if err := e.Normalize(); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, checkKindFields(e, now)...)
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrInvalid, errors.Join(errs...))
	}
	return nil
}

// checkKindFields refuses fields the kind does not use and checks the ones it does.
func checkKindFields(e *Entry, now time.Time) []error {
	var errs []error
	unused := func(name string, set bool) {
		if set {
			errs = append(errs, fmt.Errorf("%s: not used by a %s", name, e.Kind))
		}
	}
	unused("bypass", len(e.Bypass) > 0 && e.Kind != Maintenance)
	unused("expires", e.Expires != nil && e.Kind != Ban)
	unused("text", e.Text != "" && e.Kind != Maintenance && e.Kind != Ban)
	isOverride := e.Kind == Override
	unused("motd", e.MOTD != "" && !isOverride)
	unused("favicon", e.Favicon != "" && !isOverride)
	unused("version", e.Version != "" && !isOverride)
	unused("maxPlayers", e.MaxPlayers != nil && !isOverride)
	if len(e.Bypass) > MaxBypass {
		errs = append(errs, fmt.Errorf("bypass: %d entries, at most %d", len(e.Bypass), MaxBypass))
	} else {
		for i, b := range e.Bypass {
			if _, err := players.ParseEntry(b); err != nil {
				errs = append(errs, fmt.Errorf("bypass[%d]: not a player name or UUID: %q", i, clip(b)))
			}
		}
	}
	if e.Favicon != "" && !strings.HasPrefix(e.Favicon, faviconPrefix) {
		errs = append(errs, fmt.Errorf("favicon: want a %s... data URI", faviconPrefix))
	}
	if m := e.MaxPlayers; m != nil && (*m < 0 || *m > MaxPlayersMax) {
		errs = append(errs, fmt.Errorf("maxPlayers: %d, want 0 to %d", *m, MaxPlayersMax))
	}
	if x := e.Expires; x != nil && (!x.After(now) || x.Sub(now) > MaxBanFor) {
		errs = append(errs, fmt.Errorf("expires: %s, want after now and within %s", x.UTC().Format(time.RFC3339), MaxBanFor))
	}
	return errs
}

// printable reports whether s is valid UTF-8 without control characters (a §
// code is fine; a newline in a MOTD is written as \n by the client's own rules,
// so it is allowed too).
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 && r != '\n' || r == 0x7f {
			return false
		}
	}
	return true
}
