package engines

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"sync"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/engine/docker"
	"go.minekube.com/gate/pkg/lite/engine/kube"
	"go.minekube.com/gate/pkg/lite/wake"
	"go.minekube.com/gate/pkg/lite/wake/dockerwake"
	"go.minekube.com/gate/pkg/lite/wake/execwake"
	"go.minekube.com/gate/pkg/lite/wake/kubewake"
	"go.minekube.com/gate/pkg/lite/wake/webhook"
)

// Engines builds targets on shared engine clients. It is safe for concurrent
// use.
type Engines struct {
	kubeCfg   config.KubernetesDiscovery
	dockerCfg config.DockerDiscovery
	// identity names this replica in Leases: the pod's name and a random
	// suffix, so that two processes on one host (or one test) never pass for
	// one replica.
	identity string

	mu      sync.Mutex
	kinds   map[string]wake.Kind // target key -> kind, of every target built
	kube    *kubewake.Client
	leases  *kubewake.LeaseHolders
	docker  *docker.Client
	http    *http.Client
	closers []func()
}

// New returns the engines of cfg's discovery settings; nothing is contacted
// before the first target of an engine is built.
func New(cfg *config.Config) *Engines {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return &Engines{kubeCfg: cfg.Lite.Discovery.Kubernetes, dockerCfg: cfg.Lite.Discovery.Docker,
		identity: kubewake.DefaultIdentity() + "-" + hex.EncodeToString(b[:]), kinds: map[string]wake.Kind{}}
}

// Target builds the target of spec (a lite.TargetFactory).
func (e *Engines) Target(spec wake.Spec) (wake.Target, error) {
	t, err := e.build(spec)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.kinds[t.Key()] = spec.Kind
	e.mu.Unlock()
	return t, nil
}

func (e *Engines) build(spec wake.Spec) (wake.Target, error) {
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

// Check reports what would make spec's target fail to build, without any
// engine connection: what its engine's Check says.
func Check(spec wake.Spec) error {
	switch spec.Kind {
	case wake.KindKubernetes:
		return kubewake.Check(spec)
	case wake.KindDocker:
		return dockerwake.Check(spec)
	case wake.KindWebhook:
		return webhook.Check(spec)
	case wake.KindExec:
		return execwake.Check(spec)
	}
	return fmt.Errorf("wake: no engine for %q targets", spec.Kind)
}

func (e *Engines) kubeClient() (*kubewake.Client, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.kube != nil {
		return e.kube, nil
	}
	rc, err := kube.RESTConfig(e.kubeCfg)
	if err != nil {
		return nil, fmt.Errorf("wake through Kubernetes (config.lite.discovery.kubernetes.kubeconfig): %w", err)
	}
	if e.kube, err = kubewake.NewClient(rc); err != nil {
		return nil, err
	}
	e.closers = append(e.closers, e.kube.Close)
	return e.kube, nil
}

func (e *Engines) dockerClient() (*docker.Client, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.docker != nil {
		return e.docker, nil
	}
	c, err := docker.Dial(e.dockerCfg.Host, docker.Options{})
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
func (e *Engines) httpClient() *http.Client {
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

// Close drops the engines' connections.
func (e *Engines) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, c := range e.closers {
		c()
	}
	e.closers = nil
}
