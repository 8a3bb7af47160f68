package engines

import (
	"context"
	"time"

	"go.minekube.com/gate/pkg/lite/wake"
	"go.minekube.com/gate/pkg/lite/wake/kubewake"
)

// Holders is how replicas agree before a sleep: a Lease per target for
// Kubernetes targets, whose replicas all reach the API server; local state
// for the others, which one host owns. The kind is the one of the spec the
// key's target was built from.
func (e *Engines) Holders() wake.Holders {
	return byKind{e: e, local: wake.Local()}
}

type byKind struct {
	e     *Engines
	local wake.Holders
}

func (h byKind) pick(key string) (wake.Holders, error) {
	h.e.mu.Lock()
	kind := h.e.kinds[key]
	h.e.mu.Unlock()
	if kind != wake.KindKubernetes {
		return h.local, nil
	}
	return h.e.leaseHolders()
}

// leaseHolders makes the Lease holders on first use, on the Kubernetes client.
func (e *Engines) leaseHolders() (wake.Holders, error) {
	c, err := e.kubeClient()
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.leases == nil {
		if e.leases, err = kubewake.NewLeaseHolders(c, e.leaseNamespace(), e.identity, kubewake.LeaseOptions{}); err != nil {
			return nil, err
		}
	}
	return e.leases, nil
}

// leaseNamespace is where this replica's Leases live: its own pod's
// namespace, else (outside a cluster) the namespace discovery watches, else
// "default".
func (e *Engines) leaseNamespace() string {
	if ns := kubewake.DefaultNamespace(); ns != "" {
		return ns
	}
	if e.kubeCfg.Namespace != "" {
		return e.kubeCfg.Namespace
	}
	return "default"
}

func (h byKind) Hold(ctx context.Context, key string, sessions int) error {
	x, err := h.pick(key)
	if err != nil {
		return err
	}
	return x.Hold(ctx, key, sessions)
}

func (h byKind) Woke(ctx context.Context, key string) error {
	x, err := h.pick(key)
	if err != nil {
		return err
	}
	return x.Woke(ctx, key)
}

func (h byKind) ClaimSleep(ctx context.Context, key string, quiet time.Duration) (bool, error) {
	x, err := h.pick(key)
	if err != nil {
		return false, err
	}
	return x.ClaimSleep(ctx, key, quiet)
}
