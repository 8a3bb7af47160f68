package kubestore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
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
	mu   sync.Mutex // one write of this replica at a time
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

// createBackoff paces the retries of a write that found no ConfigMap and lost
// the race to create it to another replica: the next try patches the new one.
var createBackoff = wait.Backoff{Steps: 5, Duration: 10 * time.Millisecond, Factor: 2, Jitter: 1}

// Write implements operator.Store. The change goes to its one key as a JSON
// merge patch, which the API server applies to the latest version itself: no
// resourceVersion is sent, so replicas writing at once never conflict (a
// conditional read-modify-write of the whole ConfigMap starved a replica whose
// peer kept writing), and every other key, one this proxy cannot read
// included, stays as it is. Of two writes to one key, the later stays. The
// state checked against the bounds is the ConfigMap as read just before.
func (s *Store) Write(ctx context.Context, c operator.Change) (operator.State, operator.Version, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out operator.State
	var ver operator.Version
	err := retry.OnError(createBackoff, apierrors.IsAlreadyExists, func() error {
		cm, err := s.get(ctx)
		if apierrors.IsNotFound(err) {
			out, ver, err = s.create(ctx, c)
			return err
		}
		if err != nil {
			return err
		}
		cur, bad := operator.FromData(cm.Data)
		for _, e := range bad {
			s.o.Log.Error(e, "operator entry in the ConfigMap skipped (kept as it is)", "configMap", s.Where())
		}
		if err := operator.Check(cur.Pruned(s.o.Now()).Apply(c)); err != nil {
			return err
		}
		cm, err = s.patch(ctx, changePatch(c), "")
		if err != nil {
			return err
		}
		cm = s.prune(ctx, cm)
		out, _ = operator.FromData(cm.Data)
		out, ver = out.Pruned(s.o.Now()), version(cm.ResourceVersion)
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("write %s: %w", s.Where(), err)
	}
	return out, ver, nil
}

// create makes the ConfigMap with c applied, where the account may (the
// shipped manifests create it, and the shipped Role grants no create).
func (s *Store) create(ctx context.Context, c operator.Change) (operator.State, operator.Version, error) {
	next := operator.State{}.Apply(c)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: s.o.Name, Namespace: s.o.Namespace,
		Labels: map[string]string{"app.kubernetes.io/managed-by": "gate-lite"}}, Data: next.Data()}
	made := &corev1.ConfigMap{}
	if err := s.core.Post().Namespace(s.o.Namespace).Resource("configmaps").Body(cm).Do(ctx).Into(made); err != nil {
		return nil, 0, err
	}
	return next, version(made.ResourceVersion), nil
}

// version reads a resourceVersion as the increasing integer the API server
// (etcd) gives, which orders the states (operator.Version). resourceVersions
// are opaque by contract: one that does not read as an integer is version
// 0, unordered.
func version(rv string) operator.Version {
	v, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return 0
	}
	return operator.Version(v)
}

// prune drops the bans that ended from cm, conditional on cm's
// resourceVersion so that a ban another replica renewed meanwhile is never
// removed; on any failure it leaves them for a later write (readers skip ended
// bans anyway) and returns cm.
func (s *Store) prune(ctx context.Context, cm *corev1.ConfigMap) *corev1.ConfigMap {
	st, _ := operator.FromData(cm.Data)
	var ended []string
	for k := range st {
		if _, ok := st.Pruned(s.o.Now())[k]; !ok {
			ended = append(ended, k)
		}
	}
	if len(ended) == 0 {
		return cm
	}
	pruned, err := s.patch(ctx, removalPatch(ended), cm.ResourceVersion)
	if err != nil {
		s.o.Log.V(1).Info("ended bans left in the ConfigMap for a later write", "configMap", s.Where(), "err", err.Error())
		return cm
	}
	return pruned
}

// patch sends a JSON merge patch of the ConfigMap's data, conditional on
// resourceVersion when it is not empty.
func (s *Store) patch(ctx context.Context, data map[string]*string, resourceVersion string) (*corev1.ConfigMap, error) {
	body := map[string]any{"data": data}
	if resourceVersion != "" {
		body["metadata"] = map[string]string{"resourceVersion": resourceVersion}
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	cm := &corev1.ConfigMap{}
	err = s.core.Patch(types.MergePatchType).Namespace(s.o.Namespace).Resource("configmaps").Name(s.o.Name).
		Body(b).Do(ctx).Into(cm)
	return cm, err
}

// changePatch is c as a merge patch of the data: its key set to the entry's
// JSON, or null to delete it.
func changePatch(c operator.Change) map[string]*string {
	k := c.Entry.Key()
	if c.Delete {
		return map[string]*string{k: nil}
	}
	v := operator.State{k: c.Entry}.Data()[k]
	return map[string]*string{k: &v}
}

// removalPatch deletes keys.
func removalPatch(keys []string) map[string]*string {
	out := make(map[string]*string, len(keys))
	for _, k := range keys {
		out[k] = nil
	}
	return out
}

// Watch implements operator.Store: an informer on the one ConfigMap calls
// changed with its state on every change (its deletion is the empty state),
// until ctx ends.
func (s *Store) Watch(ctx context.Context, changed func(operator.State, operator.Version)) error {
	sel := fields.OneTermEqualSelector("metadata.name", s.o.Name).String()
	lw := cache.NewFilteredListWatchFromClient(s.core, "configmaps", s.o.Namespace,
		func(o *metav1.ListOptions) { o.FieldSelector = sel })
	inf := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
	deliver := s.deliverer(changed)
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    deliver,
		UpdateFunc: func(_, obj any) { deliver(obj) },
		DeleteFunc: func(any) { changed(operator.State{}, 0) },
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

// deliverer turns the informer's objects into versioned states for changed
// (a deletion is the empty state, unordered).
func (s *Store) deliverer(changed func(operator.State, operator.Version)) func(obj any) {
	return func(obj any) {
		cm, ok := obj.(*corev1.ConfigMap)
		if !ok {
			changed(operator.State{}, 0)
			return
		}
		st, bad := operator.FromData(cm.Data)
		for _, e := range bad {
			s.o.Log.Error(e, "operator entry in the ConfigMap skipped", "configMap", s.Where())
		}
		changed(st, version(cm.ResourceVersion))
	}
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
