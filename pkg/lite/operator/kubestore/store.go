package kubestore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"

	"go.minekube.com/gate/pkg/lite/engine/kube"
	"go.minekube.com/gate/pkg/lite/operator"
)

// serviceAccountNamespace is where a pod finds its own namespace.
const serviceAccountNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// Options configure a Store.
type Options struct {
	// REST is where the API server is (kube.RESTConfig). Required.
	REST *rest.Config
	// Namespace and Name name the ConfigMap. Required.
	Namespace, Name string
	// Now is the clock expired bans are pruned by on each write. nil: time.Now.
	Now func() time.Time
	Log logr.Logger
}

// Namespace picks the ConfigMap's namespace: the configured one, else the
// discovery's, else the pod's own, else "default".
func Namespace(configured, discovery string) string {
	for _, ns := range []string{configured, discovery} {
		if ns != "" {
			return ns
		}
	}
	if b, err := os.ReadFile(serviceAccountNamespace); err == nil && strings.TrimSpace(string(b)) != "" {
		return strings.TrimSpace(string(b))
	}
	return "default"
}

// Store is the layer in one ConfigMap. It implements operator.Store.
type Store struct {
	o    Options
	core *rest.RESTClient
	conn *kube.Conn
	mu   sync.Mutex // one write of this replica at a time: fewer conflicts
}

var _ operator.Store = (*Store)(nil)

// scheme holds the one type the store reads and writes.
var scheme = kube.NewScheme(corev1.AddToScheme)

// New builds the store's client; nothing is contacted before the first call.
func New(o Options) (*Store, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	conn, err := kube.Connect(o.REST, kube.Options{UserAgent: "gate-lite-operator", Scheme: scheme})
	if err != nil {
		return nil, err
	}
	core, err := conn.REST("/api", corev1.SchemeGroupVersion)
	if err != nil {
		return nil, err
	}
	return &Store{o: o, core: core, conn: conn}, nil
}

// Where names the ConfigMap for the API and logs.
func (s *Store) Where() string { return "configmap " + s.o.Namespace + "/" + s.o.Name }

// Close drops the client's connections.
func (s *Store) Close() { s.conn.Close() }

// Load implements operator.Store; a missing ConfigMap is the empty state.
func (s *Store) Load(ctx context.Context) (operator.State, []error, error) {
	cm, err := s.get(ctx)
	if apierrors.IsNotFound(err) {
		return operator.State{}, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", s.Where(), err)
	}
	st, bad := operator.FromData(cm.Data)
	return st, bad, nil
}

func (s *Store) get(ctx context.Context) (*corev1.ConfigMap, error) {
	cm := &corev1.ConfigMap{}
	err := s.core.Get().Namespace(s.o.Namespace).Resource("configmaps").Name(s.o.Name).Do(ctx).Into(cm)
	return cm, err
}

// conflictBackoff paces the re-reads after a Conflict: replicas writing at once
// would collide again in lockstep, so each wait is jittered, and there are
// enough of them for a burst of writes through every replica to land.
var conflictBackoff = wait.Backoff{Steps: 20, Duration: 5 * time.Millisecond, Factor: 1.5, Jitter: 1, Cap: 500 * time.Millisecond}

// Write implements operator.Store: read, apply c to that version, write it back
// conditional on its resourceVersion; on a conflict (another replica wrote in
// between) read again and re-apply, so the other replica's keys stay.
func (s *Store) Write(ctx context.Context, c operator.Change) (operator.State, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out operator.State
	err := retry.OnError(conflictBackoff, func(err error) bool {
		return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err)
	}, func() error {
		cm, err := s.get(ctx)
		missing := apierrors.IsNotFound(err)
		if err != nil && !missing {
			return err
		}
		cur, bad := operator.FromData(cm.Data)
		for _, e := range bad {
			s.o.Log.Error(e, "operator entry in the ConfigMap skipped (kept as it is)", "configMap", s.Where())
		}
		next := cur.Pruned(s.o.Now()).Apply(c)
		if err := operator.Check(next); err != nil {
			return err
		}
		data := keepBad(cm.Data, cur, next)
		if missing {
			cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: s.o.Name, Namespace: s.o.Namespace,
				Labels: map[string]string{"app.kubernetes.io/managed-by": "gate-lite"}}, Data: data}
			err = s.core.Post().Namespace(s.o.Namespace).Resource("configmaps").Body(cm).Do(ctx).Error()
		} else {
			cm.Data = data
			err = s.core.Put().Namespace(s.o.Namespace).Resource("configmaps").Name(s.o.Name).Body(cm).Do(ctx).Error()
		}
		out = next
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", s.Where(), err)
	}
	return out, nil
}

// keepBad is next's data plus the keys of old that did not decode: the store
// never deletes what it cannot read (someone else's key, a newer format).
func keepBad(old map[string]string, cur, next operator.State) map[string]string {
	data := next.Data()
	for k, v := range old {
		if _, ok := cur[k]; !ok {
			data[k] = v
		}
	}
	return data
}

// Watch implements operator.Store: an informer on the one ConfigMap calls
// changed with its state on every change (its deletion is the empty state),
// until ctx ends.
func (s *Store) Watch(ctx context.Context, changed func(operator.State)) error {
	sel := fields.OneTermEqualSelector("metadata.name", s.o.Name).String()
	lw := cache.NewFilteredListWatchFromClient(s.core, "configmaps", s.o.Namespace,
		func(o *metav1.ListOptions) { o.FieldSelector = sel })
	inf := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
	deliver := func(obj any) {
		cm, ok := obj.(*corev1.ConfigMap)
		if !ok {
			changed(operator.State{})
			return
		}
		st, bad := operator.FromData(cm.Data)
		for _, e := range bad {
			s.o.Log.Error(e, "operator entry in the ConfigMap skipped", "configMap", s.Where())
		}
		changed(st)
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    deliver,
		UpdateFunc: func(_, obj any) { deliver(obj) },
		DeleteFunc: func(any) { changed(operator.State{}) },
	}); err != nil {
		return fmt.Errorf("watch %s: %w", s.Where(), err)
	}
	if err := inf.SetWatchErrorHandlerWithContext(s.watchError()); err != nil {
		return fmt.Errorf("watch %s: %w", s.Where(), err)
	}
	logCtx := klog.NewContext(ctx, s.o.Log.WithName("client-go").V(1))
	inf.RunWithContext(logCtx) // returns when ctx ends
	if err := ctx.Err(); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// watchError logs a failing list or watch of the ConfigMap once per distinct
// error (a missing RBAC grant would otherwise leave the layer silently stale;
// client-go retries with its own backoff), and the end of a watch at debug.
func (s *Store) watchError() cache.WatchErrorHandlerWithContext {
	var last string
	return func(ctx context.Context, _ *cache.Reflector, err error) {
		if ctx.Err() != nil {
			return
		}
		if errors.Is(err, io.EOF) || apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
			s.o.Log.V(1).Info("operator ConfigMap watch ended; resuming", "configMap", s.Where(), "err", err.Error())
			return
		}
		if msg := err.Error(); msg != last {
			last = msg
			s.o.Log.Error(err, "operator ConfigMap cannot be read; the layer in force stays until it can (the proxy needs get, list and watch on it)", "configMap", s.Where())
		}
	}
}
