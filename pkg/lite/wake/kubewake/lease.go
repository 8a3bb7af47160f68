package kubewake

import (
	"context"
	crand "crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"go.minekube.com/gate/pkg/lite/wake"
)

// The Lease encoding (see doc.go). Annotations rather than new fields: a
// Lease has one holder, and a target has one per replica that holds
// sessions.
const (
	annotationPrefix = "wake.gate.minekube.com/"
	// AnnotationTarget is the target's key, for people reading the Lease.
	AnnotationTarget = annotationPrefix + "target"
	// AnnotationHolders is a JSON object from identity to
	// {"renewTime": RFC 3339, "sessions": n}.
	AnnotationHolders = annotationPrefix + "holders"
	// AnnotationPeriod counts Woke calls: each opens a period.
	AnnotationPeriod = annotationPrefix + "period"
	// AnnotationSleepClaim is "<period> <identity> <RFC 3339 time>": the
	// period whose sleep was claimed, by whom and when.
	AnnotationSleepClaim = annotationPrefix + "sleep-claim"

	// LabelComponent marks the Leases waking owns (value "wake", next to
	// app.kubernetes.io/name: gate).
	LabelComponent = "app.kubernetes.io/component"
)

// leaseAttempts bounds the writes of one call. Unlike a scale, a Lease is
// written by every replica that holds sessions, so a crowd of replicas
// renewing at once needs as many rounds as there are of them.
const leaseAttempts = 64

// LeaseOptions tune LeaseHolders; the zero value is what production uses.
type LeaseOptions struct {
	// RenewEvery is how often the caller renews a Hold while it holds
	// sessions. Default 10s.
	RenewEvery time.Duration
	// Duration is how long a holder's renewal counts when the holder stops
	// renewing without Hold(0) (a crashed replica). Default 3 × RenewEvery,
	// which also absorbs clock skew between replicas below that.
	Duration time.Duration
	// Now is the clock renewals are written and judged with. Default
	// time.Now.
	Now func() time.Time
}

// LeaseHolders implements wake.Holders with one coordination.k8s.io/v1
// Lease per target in the proxy's namespace. Every write is conditional on
// the resourceVersion read, so claims are atomic across replicas.
type LeaseHolders struct {
	client    *Client
	namespace string
	identity  string
	opt       LeaseOptions
	writes    atomic.Uint64 // accepted
	conflicts atomic.Uint64 // refused because another replica wrote first
}

var _ wake.Holders = (*LeaseHolders)(nil)

// NewLeaseHolders returns the holders of this replica (identity, see
// DefaultIdentity) writing Leases in namespace.
func NewLeaseHolders(client *Client, namespace, identity string, opt LeaseOptions) (*LeaseHolders, error) {
	if namespace == "" || identity == "" {
		return nil, errors.New("kubernetes wake leases: namespace and identity are required")
	}
	if strings.ContainsAny(identity, " \t\n") {
		return nil, fmt.Errorf("kubernetes wake leases: identity %q contains whitespace", identity)
	}
	if opt.RenewEvery <= 0 {
		opt.RenewEvery = 10 * time.Second
	}
	if opt.Duration <= 0 {
		opt.Duration = 3 * opt.RenewEvery
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &LeaseHolders{client: client, namespace: namespace, identity: identity, opt: opt}, nil
}

// DefaultIdentity is this replica's name among others: the pod's name
// ($HOSTNAME in a pod), else the host name, else a random id.
func DefaultIdentity() string {
	if h := strings.TrimSpace(os.Getenv("HOSTNAME")); h != "" && !strings.ContainsAny(h, " \t\n") {
		return h
	}
	if h, err := os.Hostname(); err == nil && h != "" && !strings.ContainsAny(h, " \t\n") {
		return h
	}
	var b [8]byte
	_, _ = crand.Read(b[:])
	return "gate-" + hex.EncodeToString(b[:])
}

// serviceAccountNamespace is where a pod's service account token names its
// namespace.
const serviceAccountNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// DefaultNamespace is the namespace the proxy runs in, where its Leases go:
// $POD_NAMESPACE (the downward API), else the pod's service account
// namespace; "" outside a cluster.
func DefaultNamespace() string {
	if ns := strings.TrimSpace(os.Getenv("POD_NAMESPACE")); ns != "" {
		return ns
	}
	if b, err := os.ReadFile(serviceAccountNamespace); err == nil {
		return strings.TrimSpace(string(b))
	}
	return ""
}

// Writes reports the Lease writes this replica made: accepted, and refused
// because another replica wrote first (each followed by a fresh read).
func (h *LeaseHolders) Writes() (accepted, conflicts uint64) {
	return h.writes.Load(), h.conflicts.Load()
}

// RenewEvery is how often a caller should renew a Hold.
func (h *LeaseHolders) RenewEvery() time.Duration { return h.opt.RenewEvery }

// Hold implements wake.Holders: sessions > 0 writes this replica's renewal
// (creating the Lease if needed); 0 turns it into a release stamped now, so
// that another replica may claim the sleep once the claim's quiet period has
// passed since, instead of after Duration.
func (h *LeaseHolders) Hold(ctx context.Context, key string, sessions int) error {
	return h.modify(ctx, key, "hold", sessions > 0, func(s *leaseState) bool {
		now := h.opt.Now()
		changed := s.prune(now, h.opt.Duration, h.identity)
		if sessions > 0 {
			s.holders[h.identity] = holder{RenewTime: now.UTC(), Sessions: sessions}
			return true
		}
		if e, ok := s.holders[h.identity]; ok && e.Sessions > 0 {
			s.holders[h.identity] = holder{RenewTime: now.UTC()}
			return true
		}
		return changed
	})
}

// Woke implements wake.Holders: it opens a new period. The caller must
// report every wake it sees, including one it only observes (Running turned
// true after a sleep, say an operator scaled the workload up): a period
// whose sleep was claimed stays claimed, and no replica would put the
// target to sleep again.
func (h *LeaseHolders) Woke(ctx context.Context, key string) error {
	return h.modify(ctx, key, "record wake of", true, func(s *leaseState) bool {
		s.period++
		return true
	})
}

// ClaimSleep implements wake.Holders. It is false while another replica's
// renewal is younger than Duration, while another replica's release is
// younger than quiet, or when this period's sleep was claimed already (by
// anyone, this replica included).
func (h *LeaseHolders) ClaimSleep(ctx context.Context, key string, quiet time.Duration) (bool, error) {
	claimed := false
	err := h.modify(ctx, key, "claim sleep of", true, func(s *leaseState) bool {
		claimed = false
		now := h.opt.Now()
		s.prune(now, h.opt.Duration, h.identity)
		for id, e := range s.holders {
			if id != h.identity && (e.Sessions > 0 || now.Before(e.RenewTime.Add(quiet))) {
				return false
			}
		}
		if s.claimPeriod == s.period && s.claimed {
			return false
		}
		clear(s.holders) // the releases are settled by this claim
		s.claimed, s.claimPeriod, s.claimBy, s.claimAt = true, s.period, h.identity, now.UTC()
		claimed = true
		return true
	})
	return claimed && err == nil, err
}

// modify reads the target's Lease, lets change edit it and writes it back
// if change says so, conditional on what was read; on a Conflict it starts
// over from a fresh read. A missing Lease is created when create is set
// (else change sees an empty one and nothing is written). change runs once
// per attempt, on what that attempt read.
func (h *LeaseHolders) modify(ctx context.Context, key, op string, create bool, change func(*leaseState) bool) error {
	ctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
	defer cancel()
	name := LeaseName(key)
	for attempt := range leaseAttempts {
		if attempt > 0 {
			// Each Conflict means another replica's write landed; a short
			// random pause spreads the next round of a crowd of writers.
			pause := time.Duration(rand.Int64N(int64(attempt)*int64(2*time.Millisecond) + 1))
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s %s: lease %s/%s: %w", op, key, h.namespace, name, ctx.Err())
			case <-time.After(pause):
			}
		}
		l, err := h.client.getLease(ctx, h.namespace, name)
		missing := apierrors.IsNotFound(err)
		if err != nil && !missing {
			return fmt.Errorf("%s %s: read lease %s/%s: %w", op, key, h.namespace, name, err)
		}
		if missing {
			l = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{
				Namespace: h.namespace, Name: name,
				Labels:      map[string]string{"app.kubernetes.io/name": "gate", LabelComponent: "wake"},
				Annotations: map[string]string{AnnotationTarget: key},
			}}
		}
		s, err := decodeLease(l)
		if err != nil {
			return fmt.Errorf("%s %s: lease %s/%s: %w", op, key, h.namespace, name, err)
		}
		if !change(s) || (missing && !create) {
			return nil
		}
		s.encode(l, h.opt.Duration)
		if missing {
			err = h.client.createLease(ctx, l)
		} else {
			err = h.client.updateLease(ctx, l)
		}
		switch {
		case err == nil:
			h.writes.Add(1)
			return nil
		case apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err):
			h.conflicts.Add(1)
		default:
			return fmt.Errorf("%s %s: write lease %s/%s: %w", op, key, h.namespace, name, err)
		}
	}
	return fmt.Errorf("%s %s: lease %s/%s kept changing under %d attempts", op, key, h.namespace, name, leaseAttempts)
}

// LeaseName is the Lease of a target key: stable, a valid DNS-1123 label
// (63 characters at most), readable, and distinct per key through a hash.
func LeaseName(key string) string {
	var b strings.Builder
	dash := true // no leading dash, no runs
	for _, r := range strings.ToLower(key) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	slug := b.String()
	if len(slug) > 40 {
		slug = slug[:40]
	}
	slug = strings.TrimRight(slug, "-")
	sum := sha256.Sum256([]byte(key))
	name := "gate-wake-"
	if slug != "" {
		name += slug + "-"
	}
	return name + hex.EncodeToString(sum[:])[:12]
}

// holder is one replica's renewal.
type holder struct {
	RenewTime time.Time `json:"renewTime"`
	Sessions  int       `json:"sessions"`
}

// leaseState is a Lease's annotations, decoded.
type leaseState struct {
	holders     map[string]holder
	period      uint64
	claimed     bool
	claimPeriod uint64
	claimBy     string
	claimAt     time.Time
}

func decodeLease(l *coordinationv1.Lease) (*leaseState, error) {
	s := &leaseState{holders: map[string]holder{}}
	ann := l.Annotations
	if raw := ann[AnnotationHolders]; raw != "" {
		if err := json.Unmarshal([]byte(raw), &s.holders); err != nil {
			return nil, fmt.Errorf("annotation %s: %w", AnnotationHolders, err)
		}
	}
	if raw := ann[AnnotationPeriod]; raw != "" {
		p, err := strconv.ParseUint(raw, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("annotation %s: %w", AnnotationPeriod, err)
		}
		s.period = p
	}
	if raw := ann[AnnotationSleepClaim]; raw != "" {
		f := strings.Fields(raw)
		if len(f) != 3 {
			return nil, fmt.Errorf("annotation %s: %q is not \"<period> <identity> <time>\"", AnnotationSleepClaim, raw)
		}
		p, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("annotation %s: period: %w", AnnotationSleepClaim, err)
		}
		at, err := time.Parse(time.RFC3339Nano, f[2])
		if err != nil {
			return nil, fmt.Errorf("annotation %s: time: %w", AnnotationSleepClaim, err)
		}
		s.claimed, s.claimPeriod, s.claimBy, s.claimAt = true, p, f[1], at
	}
	return s, nil
}

// releaseKept is how long a release stays on the Lease when no claim
// settles it: longer than any sensible idleAfter.
const releaseKept = 24 * time.Hour

// prune drops other holders whose renewal is older than d (a crashed
// replica) and releases older than releaseKept, so the annotation does not
// keep every replica that ever ran. It reports whether it dropped any.
func (s *leaseState) prune(now time.Time, d time.Duration, self string) bool {
	dropped := false
	for id, e := range s.holders {
		keep := d
		if e.Sessions == 0 {
			keep = releaseKept
		}
		if id != self && !now.Before(e.RenewTime.Add(keep)) {
			delete(s.holders, id)
			dropped = true
		}
	}
	return dropped
}

// encode writes s into l's annotations, and mirrors the newest renewal into
// the Lease's own holder fields so that `kubectl get lease` shows it.
func (s *leaseState) encode(l *coordinationv1.Lease, d time.Duration) {
	if l.Annotations == nil {
		l.Annotations = map[string]string{}
	}
	if len(s.holders) == 0 {
		delete(l.Annotations, AnnotationHolders)
	} else {
		raw, _ := json.Marshal(s.holders) // a map of strings to plain structs always encodes
		l.Annotations[AnnotationHolders] = string(raw)
	}
	l.Annotations[AnnotationPeriod] = strconv.FormatUint(s.period, 10)
	if s.claimed {
		l.Annotations[AnnotationSleepClaim] = fmt.Sprintf("%d %s %s", s.claimPeriod, s.claimBy, s.claimAt.Format(time.RFC3339Nano))
	}
	var newest string
	var at time.Time
	for id, e := range s.holders {
		if e.Sessions == 0 {
			continue // released: no longer a holder
		}
		if newest == "" || e.RenewTime.After(at) || (e.RenewTime.Equal(at) && id < newest) {
			newest, at = id, e.RenewTime
		}
	}
	secs := int32((d + time.Second - 1) / time.Second)
	l.Spec.LeaseDurationSeconds = &secs
	if newest == "" {
		l.Spec.HolderIdentity, l.Spec.RenewTime = nil, nil
		return
	}
	rt := metav1.NewMicroTime(at)
	l.Spec.HolderIdentity, l.Spec.RenewTime = &newest, &rt
}
