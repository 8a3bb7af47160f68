package config

import (
	"encoding/json"
	"errors"
	"time"

	"go.yaml.in/yaml/v3"

	"go.minekube.com/gate/pkg/lite/wake"
)

// Defaults of the sleeping-server keys (`config.lite.wake` and a route's own).
const (
	// DefaultHoldFor keeps a login of a sleeping route held below the
	// client's own 30s read timeout, so the player is told why before the
	// client gives up on its own.
	DefaultHoldFor = 25 * time.Second
	// MaxHoldFor is the client's read timeout: a login held that long is
	// dropped by the client with a generic "timed out", never our text.
	MaxHoldFor = 30 * time.Second
	// DefaultIdleAfter is how long a woken target stays up with nobody on it.
	DefaultIdleAfter = 10 * time.Minute
	// DefaultAsleepMOTD is the description a sleeping route's ping shows.
	DefaultAsleepMOTD = "This server is asleep. Join to wake it up."
	// DefaultLoadingMOTD is the description a route's ping shows while its
	// target starts: the asleep text would tell a player who just joined to
	// join again to wake what is already waking.
	DefaultLoadingMOTD = "This server is starting. Join again in a moment."
)

// WakeDefaults are the sleeping-server settings every route with a `wake`
// inherits (`config.lite.wake`), resolved.
type WakeDefaults struct {
	// HoldFor is how long a login to a sleeping route is held while its
	// target starts. Default 25s; must be positive and less than 30s.
	HoldFor time.Duration
	// IdleAfter is how long the target's backends must report no players
	// (and no replica hold a session) before it is put to sleep. Default
	// 10m; 0 (or "never") never puts it to sleep.
	IdleAfter time.Duration
	// AsleepMOTD replaces the description of the route's last known status
	// while the target sleeps. Default DefaultAsleepMOTD.
	AsleepMOTD json.RawMessage
	// LoadingMOTD replaces it while the target wakes (a wake call or the
	// wait for a ready backend is under way). Default DefaultLoadingMOTD.
	LoadingMOTD json.RawMessage
	// Hooks are the wake targets the file defines by name (`hooks`), which
	// routes name as `wake: hook/<name>`. Default none.
	Hooks map[string]WakeHook
}

func defaultWake() WakeDefaults {
	return WakeDefaults{HoldFor: DefaultHoldFor, IdleAfter: DefaultIdleAfter,
		AsleepMOTD: legacyText(DefaultAsleepMOTD), LoadingMOTD: legacyText(DefaultLoadingMOTD)}
}

// scope is where a discovered route lives: the defaults of a `wake` that
// names no namespace or container, and the bounds of what it may name.
type scope struct {
	namespace, container string
	// discovered holds a route to its object's own server (wake.Spec.Own)
	// and to the hooks granted to it; a file route names anything.
	discovered bool
}

// wakeHandlers are the route keys of a sleeping server; tuned records the
// first of holdFor, idleAfter, asleepMotd and loadingMotd written, which
// mean nothing without wake (lintWake).
func (d *decoder) wakeHandlers(r *Route, tuned *entry) map[string]handler {
	tune := func(f entry) {
		if tuned.key == nil {
			*tuned = f
		}
	}
	return map[string]handler{
		"wake":        func(f entry) { r.Wake = d.wakeSpec(f) },
		"holdFor":     func(f entry) { tune(f); d.holdFor(f, &r.WakeSettings.HoldFor) },
		"idleAfter":   func(f entry) { tune(f); d.idleAfter(f, &r.WakeSettings.IdleAfter) },
		"asleepMotd":  func(f entry) { tune(f); d.motd(f, &r.WakeSettings.AsleepMOTD) },
		"loadingMotd": func(f entry) { tune(f); d.motd(f, &r.WakeSettings.LoadingMOTD) },
	}
}

// lintWake warns about sleeping-server keys on a route that names no target.
func (d *decoder) lintWake(r *Route, tuned entry) {
	if r.Wake == nil && tuned.key != nil {
		d.warnf(tuned.key.Line, tuned.path, "has no effect: the route has no wake target")
	}
}

// decodeWakeDefaults decodes `config.lite.wake`.
func (d *decoder) decodeWakeDefaults(e entry, w *WakeDefaults) {
	d.mapping(e, map[string]handler{
		"holdFor":     func(f entry) { d.holdFor(f, &w.HoldFor) },
		"idleAfter":   func(f entry) { d.idleAfter(f, &w.IdleAfter) },
		"asleepMotd":  func(f entry) { d.motd(f, &w.AsleepMOTD) },
		"loadingMotd": func(f entry) { d.motd(f, &w.LoadingMOTD) },
		"hooks":       func(f entry) { d.decodeWakeHooks(f, &w.Hooks) },
	}, nil)
}

func (d *decoder) holdFor(e entry, dst *time.Duration) {
	var v time.Duration
	if !d.positive(e, &v) {
		return
	}
	if v >= MaxHoldFor {
		d.invalid(e, "%s is not less than %s, the client's own read timeout: the player would see the client's timeout, not why (want e.g. 25s)", v, MaxHoldFor)
		return
	}
	*dst = v
}

func (d *decoder) idleAfter(e entry, dst *time.Duration) {
	if n := resolve(e.val); n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" && n.Value == "never" {
		*dst = 0
		return
	}
	var v time.Duration
	if !d.duration(e, &v) {
		return
	}
	if v < 0 {
		d.invalid(e, `must not be negative, got %s (0 or "never" never puts the target to sleep)`, v)
		return
	}
	*dst = v
}

// motd decodes a description (asleepMotd, loadingMotd) in the forms of a
// disconnect text; null keeps the default.
func (d *decoder) motd(e entry, dst *json.RawMessage) {
	if v, ok := d.textComponent(e); ok && v != nil {
		*dst = v
	}
}

// wakeSpec decodes `wake`: a string in wake.ParseSpec's syntax, a hook of
// the file (`hook/<name>`), or a mapping that names exactly one engine with
// its options. Null is no wake. A discovered route's target must be its own
// object's, or a hook granted to it.
func (d *decoder) wakeSpec(e entry) *wake.Spec {
	n := resolve(e.val)
	var spec *wake.Spec
	switch {
	case isNull(n):
		return nil
	case n.Kind == yaml.ScalarNode:
		sn, ok := d.scalar(e, "a wake target")
		if !ok {
			return nil
		}
		if name, ok := wake.HookName(sn.Value); ok {
			return d.hook(e, name)
		}
		s, err := wake.ParseSpec(sn.Value, d.scope.namespace, d.scope.container)
		if err != nil {
			d.invalid(e, "%v", err)
			return nil
		}
		spec = &s
	case n.Kind == yaml.MappingNode:
		if spec = d.wakeMapping(e); spec == nil {
			return nil
		}
	default:
		d.invalid(e, "want a wake target (deployment/<name>, statefulset/<name>, container, a URL, hook/<name>) or a mapping, got %s", describe(n))
		return nil
	}
	if d.scope.discovered {
		if err := spec.Own(d.scope.namespace, d.scope.container); err != nil {
			d.errorf(n.Line, e.path, ErrNotGranted, "%v", err)
			return nil
		}
	}
	return spec
}

// wakeMapping decodes the mapping form of `wake` (wake.Mapping lists its
// keys) and leaves its meaning to wake.ParseMapping. A key whose value did
// not decode is reported once, by its decoder.
func (d *decoder) wakeMapping(e entry) *wake.Spec {
	var m wake.Mapping
	lines := map[string]int{}   // key -> its line
	failed := map[string]bool{} // keys whose value did not decode
	on := func(key string, decode func(f entry)) handler {
		return func(f entry) {
			m.Keys, lines[key] = append(m.Keys, key), f.key.Line
			before := len(d.errs)
			decode(f)
			failed[key] = len(d.errs) > before
		}
	}
	ok := d.mapping(e, map[string]handler{
		"kubernetes": on("kubernetes", func(f entry) { d.str(f, &m.Kubernetes) }),
		"docker":     on("docker", func(f entry) { d.str(f, &m.Docker) }),
		"webhook":    on("webhook", func(f entry) { d.str(f, &m.Webhook) }),
		"exec":       on("exec", func(f entry) { m.Exec = d.argv(f) }),
		"sleep":      on("sleep", func(f entry) { m.Sleep = d.argv(f) }),
		"namespace":  on("namespace", func(f entry) { d.str(f, &m.Namespace) }),
		"secret":     on("secret", func(f entry) { d.str(f, &m.Secret) }),
		"timeout":    on("timeout", func(f entry) { d.positive(f, &m.Timeout) }),
	}, nil)
	if !ok {
		return nil
	}
	spec, err := wake.ParseMapping(m, d.scope.namespace, d.scope.container)
	if err == nil {
		return &spec
	}
	for _, err := range err.(interface{ Unwrap() []error }).Unwrap() {
		var ke *wake.KeyError
		if !errors.As(err, &ke) || failed[ke.Key] {
			continue
		}
		line, path := resolve(e.val).Line, e.path
		if ke.Key != "" {
			line, path = lines[ke.Key], child(e.path, ke.Key)
		}
		d.errorf(line, path, ErrInvalid, "%v", ke.Err)
	}
	return nil
}

// argv decodes a command as a non-empty list of strings (no shell).
func (d *decoder) argv(e entry) []string {
	n := resolve(e.val)
	if n == nil || n.Kind != yaml.SequenceNode {
		d.invalid(e, "want a command as a list of arguments (no shell), got %s", describe(n))
		return nil
	}
	items, ok := d.stringList(e)
	if !ok {
		return nil
	}
	if len(items) == 0 || items[0].s == "" {
		d.invalid(e, "want a command as a non-empty list of arguments")
		return nil
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.s
	}
	return out
}
