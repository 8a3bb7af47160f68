package kubewake

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"go.minekube.com/gate/pkg/lite/wake"
)

// DefaultTimeout bounds one Wake, Sleep or Running call when the Spec sets
// none.
const DefaultTimeout = 10 * time.Second

// ErrScaledUp is returned by Sleep when the object runs more than one
// replica: the proxy only ever wakes to one, so someone else (an operator,
// an autoscaler) scaled it up, and it is not the proxy's to stop.
var ErrScaledUp = errors.New("more than one replica: scaled by someone else, not put to sleep")

// conflictRetries bounds how often a call re-reads after a Conflict. Each
// Conflict means another writer got there first, so a few are plenty.
const conflictRetries = 5

// Target wakes and puts to sleep one Deployment or StatefulSet through its
// scale subresource. It implements wake.Target and wake.Observer.
//
// Wake writes replicas 1 only when it reads 0, conditional on the
// resourceVersion it read, so any number of replicas of the proxy may wake
// the same object at once: one write wins, the others get a Conflict, re-read
// and see it running. No leader is needed.
type Target struct {
	client   *Client
	spec     wake.Spec
	resource string // "deployments" or "statefulsets"
	timeout  time.Duration
	calls    callCounts
}

var (
	_ wake.Target   = (*Target)(nil)
	_ wake.Observer = (*Target)(nil)
)

// Calls counts the API requests a Target made; tests and metrics read it.
type Calls struct {
	// Gets are reads of the scale subresource.
	Gets uint64
	// Updates are writes of the scale subresource that the API server
	// accepted.
	Updates uint64
	// Conflicts are writes refused because another writer changed the
	// object since it was read.
	Conflicts uint64
}

type callCounts struct{ gets, updates, conflicts atomic.Uint64 }

// Check reports what makes s no target of this engine, without the API
// server: the kind, the resource, and Kubernetes names.
func Check(s wake.Spec) error {
	if s.Kind != wake.KindKubernetes {
		return fmt.Errorf("kubernetes wake target: kind %q is not %q", s.Kind, wake.KindKubernetes)
	}
	return s.Validate()
}

// NewTarget returns the target spec names (Kind "kubernetes", Resource
// "deployment" or "statefulset", Namespace and Name set). Nothing is
// contacted before the first call.
func NewTarget(client *Client, spec wake.Spec) (*Target, error) {
	if err := Check(spec); err != nil {
		return nil, err
	}
	resource := spec.Resource + "s"
	timeout := spec.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Target{client: client, spec: spec, resource: resource, timeout: timeout}, nil
}

// Key implements wake.Target.
func (t *Target) Key() string { return t.spec.Key() }

// Calls reports the requests made so far.
func (t *Target) Calls() Calls {
	return Calls{Gets: t.calls.gets.Load(), Updates: t.calls.updates.Load(), Conflicts: t.calls.conflicts.Load()}
}

func (t *Target) String() string {
	return t.spec.Namespace + "/" + t.spec.Resource + "/" + t.spec.Name
}

// Wake implements wake.Target: replicas 0 becomes 1; any other count is
// left alone.
func (t *Target) Wake(ctx context.Context, _ wake.Request) (wake.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	err := t.rescale(ctx, "wake", func(replicas int32) (int32, bool, error) {
		return 1, replicas == 0, nil
	})
	return wake.Result{}, err
}

// Sleep implements wake.Target: replicas 1 becomes 0, 0 stays 0, and more
// than 1 is ErrScaledUp. The proxy only puts to sleep what it would have
// woken.
func (t *Target) Sleep(ctx context.Context, _ wake.Request) error {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	return t.rescale(ctx, "sleep", func(replicas int32) (int32, bool, error) {
		if replicas > 1 {
			return 0, false, ErrScaledUp
		}
		return 0, replicas == 1, nil
	})
}

// Running implements wake.Observer. It reports the scale's desired
// replicas (spec), not the running ones (status): status lags the request,
// and whether the server answers is for the caller's status exchange to
// tell, not for the controller's counters.
func (t *Target) Running(ctx context.Context) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	s, err := t.get(ctx, "read")
	if err != nil {
		return false, err
	}
	return s.Spec.Replicas > 0, nil
}

// rescale reads the scale and, when decide says so, writes the replicas it
// returns, conditional on the version read. After a Conflict it reads again
// and decides again: the other writer may have done the job already.
func (t *Target) rescale(ctx context.Context, op string, decide func(replicas int32) (int32, bool, error)) error {
	for range conflictRetries {
		s, err := t.get(ctx, op)
		if err != nil {
			return err
		}
		want, write, err := decide(s.Spec.Replicas)
		if err != nil {
			return fmt.Errorf("%s %s (replicas %d): %w", op, t, s.Spec.Replicas, err)
		}
		if !write {
			return nil
		}
		s.Spec.Replicas = want
		_, err = t.client.updateScale(ctx, t.resource, &autoscalingv1.Scale{ObjectMeta: s.ObjectMeta, Spec: s.Spec})
		switch {
		case err == nil:
			t.calls.updates.Add(1)
			return nil
		case apierrors.IsConflict(err):
			t.calls.conflicts.Add(1)
		default:
			return fmt.Errorf("%s %s: scale to %d: %w", op, t, want, err)
		}
	}
	return fmt.Errorf("%s %s: the scale kept changing under %d attempts", op, t, conflictRetries)
}

func (t *Target) get(ctx context.Context, op string) (*autoscalingv1.Scale, error) {
	t.calls.gets.Add(1)
	s, err := t.client.getScale(ctx, t.resource, t.spec.Namespace, t.spec.Name)
	if err != nil {
		return nil, fmt.Errorf("%s %s: read scale: %w", op, t, err)
	}
	return s, nil
}
