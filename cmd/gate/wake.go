package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/discovery/docker"
	"go.minekube.com/gate/pkg/lite/discovery/kubernetes"
	"go.minekube.com/gate/pkg/lite/wake"
	"go.minekube.com/gate/pkg/lite/wake/dockerwake"
	"go.minekube.com/gate/pkg/lite/wake/execwake"
	"go.minekube.com/gate/pkg/lite/wake/kubewake"
	"go.minekube.com/gate/pkg/lite/wake/webhook"
)

// wakeEngines builds the targets routes name in `wake`, with one client per
// engine made on first use and shared by every target of that engine. The
// engines' addresses are the discovery settings read at start (the
// Kubernetes API server, the Docker daemon): changing them takes a restart,
// as switching a discovery source does.
type wakeEngines struct {
	kubeCfg   config.KubernetesDiscovery
	dockerCfg config.DockerDiscovery
	// identity names this replica in Leases: the pod's name and a random
	// suffix, so that two processes on one host (or one test) never pass for
	// one replica.
	identity string

	mu      sync.Mutex
	kube    *kubewake.Client
	leases  *kubewake.LeaseHolders
	docker  *docker.Containers
	http    *http.Client
	closers []func()
}

func newWakeEngines(cfg *config.Config) *wakeEngines {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return &wakeEngines{kubeCfg: cfg.Lite.Discovery.Kubernetes, dockerCfg: cfg.Lite.Discovery.Docker,
		identity: kubewake.DefaultIdentity() + "-" + hex.EncodeToString(b[:])}
}

// Target is the lite.TargetFactory.
func (e *wakeEngines) Target(spec wake.Spec) (wake.Target, error) {
	switch spec.Kind {
	case wake.KindKubernetes:
		c, err := e.kubeClient()
		if err != nil {
			return nil, err
		}
		return kubewake.NewTarget(c, spec)
	case wake.KindDocker:
		c, err := e.dockerClient()
		if err != nil {
			return nil, err
		}
		return dockerwake.New(c, spec)
	case wake.KindWebhook:
		return webhook.New(spec, webhook.Options{Client: e.httpClient()})
	case wake.KindExec:
		return execwake.New(spec, execwake.Options{})
	}
	return nil, fmt.Errorf("wake: no engine for %q targets", spec.Kind)
}

func (e *wakeEngines) kubeClient() (*kubewake.Client, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.kube != nil {
		return e.kube, nil
	}
	rc, err := kubernetes.RESTConfig(e.kubeCfg)
	if err != nil {
		return nil, fmt.Errorf("wake through Kubernetes (config.lite.discovery.kubernetes.kubeconfig): %w", err)
	}
	if e.kube, err = kubewake.NewClient(rc); err != nil {
		return nil, err
	}
	e.closers = append(e.closers, e.kube.Close)
	return e.kube, nil
}

func (e *wakeEngines) dockerClient() (*docker.Containers, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.docker != nil {
		return e.docker, nil
	}
	c, err := docker.NewContainers(e.dockerCfg.Host)
	if err != nil {
		return nil, fmt.Errorf("wake through Docker (config.lite.discovery.docker.host): %w", err)
	}
	e.docker = c
	e.closers = append(e.closers, c.Close)
	return c, nil
}

// httpClient is the webhooks' client: one connection pool for every webhook
// target however often reloads rebuild them; a redirect is an answer, not a
// place to send the signed body again.
func (e *wakeEngines) httpClient() *http.Client {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.http == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		e.http = &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}}
		e.closers = append(e.closers, tr.CloseIdleConnections)
	}
	return e.http
}

// leaseNamespace is where this replica's Leases live: its own pod's
// namespace, else (outside a cluster) the namespace discovery watches, else
// "default".
func (e *wakeEngines) leaseNamespace() string {
	if ns := kubewake.DefaultNamespace(); ns != "" {
		return ns
	}
	if e.kubeCfg.Namespace != "" {
		return e.kubeCfg.Namespace
	}
	return "default"
}

// Holders is how replicas agree before a sleep: a Lease per target for
// Kubernetes targets, whose replicas all reach the API server; local state
// for the others, which one host owns.
func (e *wakeEngines) Holders() wake.Holders {
	return holdersByEngine{e: e, local: wake.Local()}
}

type holdersByEngine struct {
	e     *wakeEngines
	local wake.Holders
}

func (h holdersByEngine) pick(key string) (wake.Holders, error) {
	if !strings.HasPrefix(key, string(wake.KindKubernetes)+" ") {
		return h.local, nil
	}
	c, err := h.e.kubeClient()
	if err != nil {
		return nil, err
	}
	h.e.mu.Lock()
	defer h.e.mu.Unlock()
	if h.e.leases == nil {
		if h.e.leases, err = kubewake.NewLeaseHolders(c, h.e.leaseNamespace(), h.e.identity, kubewake.LeaseOptions{}); err != nil {
			return nil, err
		}
	}
	return h.e.leases, nil
}

func (h holdersByEngine) Hold(ctx context.Context, key string, sessions int) error {
	x, err := h.pick(key)
	if err != nil {
		return err
	}
	return x.Hold(ctx, key, sessions)
}

func (h holdersByEngine) Woke(ctx context.Context, key string) error {
	x, err := h.pick(key)
	if err != nil {
		return err
	}
	return x.Woke(ctx, key)
}

func (h holdersByEngine) ClaimSleep(ctx context.Context, key string, quiet time.Duration) (bool, error) {
	x, err := h.pick(key)
	if err != nil {
		return false, err
	}
	return x.ClaimSleep(ctx, key, quiet)
}

// Close drops the engines' connections.
func (e *wakeEngines) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, c := range e.closers {
		c()
	}
	e.closers = nil
}
