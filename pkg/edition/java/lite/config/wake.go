package config

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
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
}

func defaultWake() WakeDefaults {
	return WakeDefaults{HoldFor: DefaultHoldFor, IdleAfter: DefaultIdleAfter, AsleepMOTD: legacyText(DefaultAsleepMOTD)}
}

// scope is where a discovered route lives: the defaults of a `wake` that
// names no namespace or container.
type scope struct {
	namespace, container string
}

// wakeHandlers are the route keys of a sleeping server; tuned records the
// first of holdFor, idleAfter and asleepMotd written, which mean nothing
// without wake (lintWake).
func (d *decoder) wakeHandlers(r *Route, tuned *entry) map[string]handler {
	tune := func(f entry) {
		if tuned.key == nil {
			*tuned = f
		}
	}
	return map[string]handler{
		"wake":       func(f entry) { r.Wake = d.wakeSpec(f) },
		"holdFor":    func(f entry) { tune(f); d.holdFor(f, &r.WakeSettings.HoldFor) },
		"idleAfter":  func(f entry) { tune(f); d.idleAfter(f, &r.WakeSettings.IdleAfter) },
		"asleepMotd": func(f entry) { tune(f); d.asleepMOTD(f, &r.WakeSettings.AsleepMOTD) },
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
		"holdFor":    func(f entry) { d.holdFor(f, &w.HoldFor) },
		"idleAfter":  func(f entry) { d.idleAfter(f, &w.IdleAfter) },
		"asleepMotd": func(f entry) { d.asleepMOTD(f, &w.AsleepMOTD) },
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

func (d *decoder) asleepMOTD(e entry, dst *json.RawMessage) {
	if v, ok := d.textComponent(e); ok && v != nil {
		*dst = v
	}
}

// wakeSpec decodes `wake`: a string in wake.ParseSpec's syntax, or a mapping
// that names exactly one engine with its options. Null is no wake.
func (d *decoder) wakeSpec(e entry) *wake.Spec {
	n := resolve(e.val)
	switch {
	case isNull(n):
		return nil
	case n.Kind == yaml.ScalarNode:
		sn, ok := d.scalar(e, "a wake target")
		if !ok {
			return nil
		}
		spec, err := wake.ParseSpec(sn.Value, d.scope.namespace, d.scope.container)
		if err != nil {
			d.invalid(e, "%v", err)
			return nil
		}
		return &spec
	case n.Kind == yaml.MappingNode:
		return d.wakeMapping(e)
	}
	d.invalid(e, "want a wake target (deployment/<name>, statefulset/<name>, container, a URL) or a mapping, got %s", describe(n))
	return nil
}

// wakeEngines are the keys of the mapping form that name an engine.
var wakeEngines = []string{"kubernetes", "docker", "webhook", "exec"}

// wakeMapping decodes the mapping form of `wake`:
//
//	{kubernetes: deployment/<name>, namespace: <ns>, timeout: 30s}
//	{docker: <container>, timeout: 30s}
//	{webhook: https://..., secret: <key>, timeout: 10s}
//	{exec: [argv...], sleep: [argv...], timeout: 30s}
func (d *decoder) wakeMapping(e entry) *wake.Spec {
	var (
		spec                                  wake.Spec
		engine                                []string
		kube, namespace, docker, hook, secret string
		hasNS, hasSecret, hasSleep            bool
	)
	ok := d.mapping(e, map[string]handler{
		"kubernetes": func(f entry) { engine = append(engine, "kubernetes"); d.str(f, &kube) },
		"docker":     func(f entry) { engine = append(engine, "docker"); d.str(f, &docker) },
		"webhook":    func(f entry) { engine = append(engine, "webhook"); d.str(f, &hook) },
		"exec":       func(f entry) { engine = append(engine, "exec"); spec.Command = d.argv(f) },
		"sleep":      func(f entry) { hasSleep = true; spec.SleepCommand = d.argv(f) },
		"namespace":  func(f entry) { hasNS = true; d.str(f, &namespace) },
		"secret":     func(f entry) { hasSecret = true; d.str(f, &secret) },
		"timeout":    func(f entry) { d.positive(f, &spec.Timeout) },
	}, nil)
	if !ok {
		return nil
	}
	line := resolve(e.val).Line
	if len(engine) != 1 {
		d.errorf(line, e.path, ErrInvalid, "want exactly one of %s, got %d", strings.Join(wakeEngines, ", "), len(engine))
		return nil
	}
	misplaced := func(key string, set bool, want string) bool {
		if set {
			d.errorf(line, child(e.path, key), ErrInvalid, "only valid with %s", want)
		}
		return set
	}
	bad := len(d.errs)
	switch engine[0] {
	case "kubernetes":
		misplaced("secret", hasSecret, "webhook")
		misplaced("sleep", hasSleep, "exec")
		if !hasNS {
			namespace = d.scope.namespace
		}
		s, err := wake.ParseSpec(kube, namespace, d.scope.container)
		if err != nil || s.Kind != wake.KindKubernetes {
			d.errorf(line, child(e.path, "kubernetes"), ErrInvalid, "want deployment/<name> or statefulset/<name>, got %q", truncate(kube))
			return nil
		}
		s.Timeout = spec.Timeout
		spec = s
	case "docker":
		misplaced("secret", hasSecret, "webhook")
		misplaced("sleep", hasSleep, "exec")
		misplaced("namespace", hasNS, "kubernetes")
		if docker == "" {
			docker = d.scope.container
		}
		if docker == "" {
			d.errorf(line, child(e.path, "docker"), ErrInvalid, "want a container name")
			return nil
		}
		spec.Kind, spec.Name = wake.KindDocker, docker
	case "webhook":
		misplaced("sleep", hasSleep, "exec")
		misplaced("namespace", hasNS, "kubernetes")
		if err := checkWebhook(hook); err != nil {
			d.errorf(line, child(e.path, "webhook"), ErrInvalid, "%v", err)
			return nil
		}
		spec.Kind, spec.URL, spec.Secret = wake.KindWebhook, hook, secret
	case "exec":
		misplaced("secret", hasSecret, "webhook")
		misplaced("namespace", hasNS, "kubernetes")
		if len(spec.Command) == 0 {
			return nil // reported by argv
		}
		spec.Kind = wake.KindExec
	}
	if len(d.errs) > bad {
		return nil
	}
	return &spec
}

// checkWebhook accepts an absolute http or https URL with a host.
func checkWebhook(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("invalid webhook URL %q: %w", truncate(s), err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("invalid webhook URL %q: want an http:// or https:// URL with a host", truncate(s))
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
