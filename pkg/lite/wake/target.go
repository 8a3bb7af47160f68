package wake

import (
	"context"
	"time"
)

// Target is one server that can be started and stopped by an engine.
// Implementations are safe for concurrent use; the Coordinator calls Wake and
// Sleep of one key one at a time.
type Target interface {
	// Key is the target's identity across reloads and replicas (Spec.Key).
	Key() string
	// Wake asks the engine to start the target and returns once the engine
	// accepted the request, not once the server is ready. It is idempotent:
	// a target that runs already is left alone and Wake returns nil.
	Wake(ctx context.Context, req Request) (Result, error)
	// Sleep asks the engine to stop the target; stopping a stopped target
	// is not an error.
	Sleep(ctx context.Context, req Request) error
}

// Observer is implemented by targets whose engine can say whether they run
// (a scale's replicas, a container's state): the Coordinator then starts in
// the engine's state instead of guessing from failed dials.
type Observer interface {
	Running(ctx context.Context) (bool, error)
}

// Request is what a wake or sleep call knows of the route.
type Request struct {
	// ServerAddress is the host the player asked for (or the route's first
	// host pattern for a sleep).
	ServerAddress string
	// Backend is the route's first backend address, "" when it has none.
	Backend string
}

// Result is what a wake call learned.
type Result struct {
	// Backend is a backend address the engine named (a webhook's reply);
	// "" means the route's own backends.
	Backend string
}

// Holders is how replicas of the proxy agree about a target's sessions
// before one of them puts it to sleep. On one host it is local state; on
// Kubernetes a Lease per target.
type Holders interface {
	// Hold says this replica now holds n sessions to the target: n > 0
	// renews its claim (called on the first session and then periodically
	// while any remains), n == 0 drops it.
	Hold(ctx context.Context, key string, sessions int) error
	// Woke records that the target was woken, which opens a new period in
	// which one sleep may be claimed.
	Woke(ctx context.Context, key string) error
	// ClaimSleep is called right before a sleep call. It returns true only
	// when no other replica holds sessions to the target, none released its
	// last one less than quiet ago (the target's idleAfter: a replica whose
	// players left a moment ago has its own countdown running, and the
	// target must stay up that long after the last player anywhere), and no
	// replica has already claimed the sleep of this period; false means do
	// not call Sleep. Claims are atomic across replicas.
	ClaimSleep(ctx context.Context, key string, quiet time.Duration) (bool, error)
}

// Kind names a target's engine.
type Kind string

// The engines a route can wake through.
const (
	KindKubernetes Kind = "kubernetes"
	KindDocker     Kind = "docker"
	KindWebhook    Kind = "webhook"
	KindExec       Kind = "exec"
)

// Spec is a route's `wake` key, parsed; the config package fills it and a
// Factory turns it into a Target.
type Spec struct {
	Kind Kind
	// Kubernetes: Resource is "deployment" or "statefulset"; Namespace is
	// the object's (a discovered Service's own when not written).
	// Docker: Name is the container.
	Resource, Namespace, Name string
	// Webhook: URL receives the POST; Secret, when set, signs the body
	// (HMAC-SHA256, hex, header X-Gate-Signature: sha256=<hex>).
	URL, Secret string
	// Exec: Command wakes, SleepCommand (optional) puts to sleep; argv, no
	// shell.
	Command, SleepCommand []string
	// Timeout bounds one call (all retries of a webhook together); 0 means
	// the kind's default.
	Timeout time.Duration
}

// Key is the target's identity: the same object gives the same key whatever
// route or replica names it.
func (s Spec) Key() string {
	switch s.Kind {
	case KindKubernetes:
		return "kubernetes " + s.Namespace + "/" + s.Resource + "/" + s.Name
	case KindDocker:
		return "docker " + s.Name
	case KindWebhook:
		return "webhook " + s.URL
	case KindExec:
		k := "exec"
		for _, a := range s.Command {
			k += " " + a
		}
		return k
	}
	return string(s.Kind)
}

// State is one target's state as the admin API and `gate lite status` show it.
type State struct {
	// Key names the target as Name does (no secret of its key), with " #2"
	// and on when two targets name alike; Coordinator calls take the key.
	Key string `json:"key"`
	// Phase is "asleep", "waking", "awake" or "idle".
	Phase string `json:"phase"`
	// Since is when the target entered Phase.
	Since time.Time `json:"since"`
	// Sessions is this replica's sessions to the target.
	Sessions int `json:"sessions"`
	// PlayersOnline is the newest players.online its backends reported,
	// -1 when none reported yet.
	PlayersOnline int `json:"playersOnline"`
	// SleepAt is when the idle countdown ends (zero unless idle).
	SleepAt time.Time `json:"sleepAt,omitzero"`
	// RetryAt is, after a failed wake call, when a login may call again;
	// logins before it are turned away (zero unless backing off).
	RetryAt time.Time `json:"retryAt,omitzero"`
	// LastWake is how long the latest wake took from call to ready.
	LastWake time.Duration `json:"lastWakeNanos,omitempty"`
	// Wakes and Sleeps count calls made by this replica.
	Wakes  uint64 `json:"wakes"`
	Sleeps uint64 `json:"sleeps"`
	// Error is the latest failed call's cause, "" when it succeeded.
	Error string `json:"error,omitempty"`
}
