package main

import (
	"context"
	"fmt"
	"net"
	"sync"

	"github.com/go-logr/logr"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/discovery"
	"go.minekube.com/gate/pkg/lite/engine/kube"
	"go.minekube.com/gate/pkg/lite/operator"
	"go.minekube.com/gate/pkg/lite/operator/kubestore"
)

// operatorLayer puts the operator layer above the file's config: every config the
// file gives (start, reload) and every layer the store holds (this replica's
// writes, other replicas') go through one path, the merger's SetFile, with the
// latest of the other attached. So a reload keeps the layer and a write keeps
// the file.
type operatorLayer struct {
	hub    *operator.Hub
	where  string // the store, for the API
	routes *discovery.Merger
	close  func()

	mu    sync.Mutex
	file  *config.Config // nil until the first setFile
	layer *operator.Layer
}

// newOperatorLayer builds the layer's store (the ConfigMap with Kubernetes
// discovery on, else the state file) and loads what it holds. A store that
// cannot be read at start leaves the layer empty until its watch catches up
// (ConfigMap) or fails the start (a broken state file: starting without the
// bans in it would admit the banned).
func newOperatorLayer(ctx context.Context, cfg *config.Config, routes *discovery.Merger, log logr.Logger) (*operatorLayer, error) {
	o := &operatorLayer{routes: routes, close: func() {}}
	var store operator.Store
	oc, kc := cfg.Lite.Operator, cfg.Lite.Discovery.Kubernetes
	if kc.Enabled {
		rc, err := kube.RESTConfig(kc)
		if err != nil {
			return nil, fmt.Errorf("operator layer: %w", err)
		}
		ks, err := kubestore.New(kubestore.Options{REST: rc, Namespace: kubestore.Namespace(oc.Namespace, kc.Namespace),
			Name: oc.ConfigMap, Log: log})
		if err != nil {
			return nil, fmt.Errorf("operator layer: %w", err)
		}
		store, o.where, o.close = ks, ks.Where(), ks.Close
	} else {
		fs := operator.NewFileStore(oc.StateFile, nil)
		store, o.where = fs, "file "+fs.Path()
	}
	o.hub = operator.NewHub(operator.HubOptions{Store: store, Apply: o.setLayer, Log: log})
	if err := o.hub.Start(ctx); err != nil {
		if !kc.Enabled {
			o.close()
			return nil, fmt.Errorf("operator layer: %w", err)
		}
		log.Error(err, "operator layer not loaded; starting without it until the ConfigMap is read", "store", o.where)
	}
	return o, nil
}

// setFile puts a config from the file in force with the layer above it.
func (o *operatorLayer) setFile(cfg *config.Config) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.file = cfg
	return o.routes.SetFile(o.withLayer())
}

// setLayer puts a layer in force above the file's config (before the first
// file it is only kept).
func (o *operatorLayer) setLayer(l *operator.Layer) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.layer = l
	if o.file == nil {
		return nil
	}
	return o.routes.SetFile(o.withLayer())
}

// withLayer is a copy of the file's config carrying the layer (the file's own
// config is never changed: the reloader keeps it). Called with o.mu held.
func (o *operatorLayer) withLayer() *config.Config {
	c := *o.file
	c.Lite.Operator.Layer = o.layer
	return &c
}

// apiHosts are the host names the page and writes answer to besides IP
// addresses and localhost: the API bind's own host name.
func apiHosts(bind string) []string {
	host, _, err := net.SplitHostPort(bind)
	if err != nil || host == "" || net.ParseIP(host) != nil {
		return nil
	}
	return []string{host}
}
