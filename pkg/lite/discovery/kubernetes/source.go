package kubernetes

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/discovery"
	"go.minekube.com/gate/pkg/lite/engine/kube"
)

// Name is the source's name in logs, the Sink and the admin API.
const Name = "kubernetes"

// Options tune a Source; the zero value is what production uses.
type Options struct {
	// Debounce is how long the source gathers changes after the first one
	// before it publishes, so that a burst (a Deployment scaled by five) is
	// one Replace. Default 50ms.
	Debounce time.Duration
	// Backoff paces retries while the API server cannot be reached. Default
	// 250ms doubling to 2s.
	Backoff Backoff
	// Now is the clock outages are timed with. Default time.Now.
	Now func() time.Time
	// ListWatch replaces the lists and watches built from the config (tests
	// with a fake clientset). Outages are then only seen through the
	// informers' watch error handler.
	ListWatch ListWatchFunc
}

// ListWatchFunc opens the list and watch of one resource ("services" or
// "endpointslices") in namespace ("" for all), with tweak applied to every
// request's options.
type ListWatchFunc func(resource, namespace string, tweak func(*metav1.ListOptions)) cache.ListerWatcher

// Source finds routes on annotated Services and their EndpointSlices. It
// implements discovery.Source.
type Source struct {
	cfg   config.KubernetesDiscovery
	log   logr.Logger
	opt   Options
	fails atomic.Int64 // failed lists and watches, retries included
}

var _ discovery.Source = (*Source)(nil)

// New returns a source watching what cfg names. Nothing is contacted before Run.
func New(cfg config.KubernetesDiscovery, log logr.Logger, opt Options) *Source {
	if opt.Debounce <= 0 {
		opt.Debounce = 50 * time.Millisecond
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	opt.Backoff = opt.Backoff.withDefaults()
	return &Source{cfg: cfg, log: log, opt: opt}
}

// Name implements discovery.Source.
func (s *Source) Name() string { return Name }

// Run implements discovery.Source. It returns an error only when the
// kubeconfig or the label selector is unusable; everything after that is
// retried and reported through sink.Stale.
func (s *Source) Run(ctx context.Context, sink discovery.Sink) error {
	sel, err := parseSelector(s.cfg.LabelSelector)
	if err != nil {
		return err
	}
	// Informer goroutines live under runCtx, so that every exit path stops
	// them before Shutdown waits for them.
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()

	kicks := make(chan struct{}, 1)
	kick := func() {
		select {
		case kicks <- struct{}{}:
		default:
		}
	}
	var refresh atomic.Bool // publish even an unchanged set: it marks the source fresh
	h := &health{
		log:     s.log,
		now:     s.opt.Now,
		onStale: func(err error) { sink.Stale(Name, err) },
		onFresh: func() { refresh.Store(true); kick() },
		fails:   &s.fails,
	}
	client, closeIdle, err := s.client(h)
	if err != nil {
		return err
	}
	defer closeIdle()

	w, err := s.startInformers(runCtx, client, sel, h, kick)
	if err != nil {
		return err
	}
	defer w.shutdown(cancel)

	if !w.waitSynced(runCtx) {
		return nil
	}
	p := &publisher{log: s.log, sink: sink}
	p.publish(w.routes(), true)
	s.debounce(runCtx, kicks, func() { p.publish(w.routes(), refresh.Swap(false)) })
	return nil
}

// debounce calls publish once per burst of kicks, Debounce after the burst's
// first, until ctx ends.
func (s *Source) debounce(ctx context.Context, kicks <-chan struct{}, publish func()) {
	var timer *time.Timer
	var fire <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return
		case <-kicks:
			if fire == nil {
				timer = time.NewTimer(s.opt.Debounce)
				fire = timer.C
			}
		case <-fire:
			fire = nil
			publish()
		}
	}
}

// client builds the lists and watches, their transport watched by h, on REST
// clients whose scheme holds only Services and EndpointSlices.
func (s *Source) client(h *health) (ListWatchFunc, func(), error) {
	if s.opt.ListWatch != nil {
		return s.opt.ListWatch, func() {}, nil
	}
	rc, err := kube.RESTConfig(s.cfg)
	if err != nil {
		return nil, nil, err
	}
	rc = rest.CopyConfig(rc)
	rc.UserAgent = "gate-lite"
	conn, err := kube.Connect(rc, kube.Options{Scheme: watchedScheme, Wrap: func(rt http.RoundTripper) http.RoundTripper {
		return &transport{next: rt, health: h, backoff: s.opt.Backoff}
	}})
	if err != nil {
		return nil, nil, err
	}
	core, err := conn.REST("/api", corev1.SchemeGroupVersion)
	if err != nil {
		return nil, nil, err
	}
	disc, err := conn.REST("/apis", discoveryv1.SchemeGroupVersion)
	if err != nil {
		return nil, nil, err
	}
	lw := func(resource, namespace string, tweak func(*metav1.ListOptions)) cache.ListerWatcher {
		c := core
		if resource == "endpointslices" {
			c = disc
		}
		return cache.NewFilteredListWatchFromClient(c, resource, namespace, tweak)
	}
	// Keep-alive connections hold goroutines; a stopped source leaves none.
	return lw, conn.Close, nil
}

// watchedScheme knows the types the source lists and watches, and nothing else.
var watchedScheme = kube.NewScheme(corev1.AddToScheme, discoveryv1.AddToScheme)

// watchers are the two informers and what the source needs of them.
type watchers struct {
	services cache.SharedIndexInformer
	slices   cache.SharedIndexInformer
	running  sync.WaitGroup
}

func (s *Source) startInformers(ctx context.Context, lw ListWatchFunc, sel labels.Selector, h *health, kick func()) (*watchers, error) {
	// The label selector is the Services' alone: a Service's slices carry the
	// controller's labels, not the Service's.
	w := &watchers{
		services: cache.NewSharedIndexInformer(lw("services", s.cfg.Namespace,
			func(o *metav1.ListOptions) { o.LabelSelector = sel.String() }), &corev1.Service{}, 0, cache.Indexers{}),
		slices: cache.NewSharedIndexInformer(lw("endpointslices", s.cfg.Namespace,
			func(o *metav1.ListOptions) { o.LabelSelector = discoveryv1.LabelServiceName }), &discoveryv1.EndpointSlice{}, 0, cache.Indexers{}),
	}
	onChange := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { kick() },
		UpdateFunc: func(any, any) { kick() },
		DeleteFunc: func(any) { kick() },
	}
	for res, inf := range map[resource]cache.SharedIndexInformer{resServices: w.services, resEndpointSlices: w.slices} {
		if _, err := inf.AddEventHandler(onChange); err != nil {
			return nil, fmt.Errorf("watch %s: %w", res, err)
		}
		if err := inf.SetWatchErrorHandlerWithContext(h.watchErrorHandler(res)); err != nil {
			return nil, fmt.Errorf("watch %s: %w", res, err)
		}
		if err := inf.SetTransform(stripManagedFields); err != nil {
			return nil, fmt.Errorf("watch %s: %w", res, err)
		}
	}
	// client-go logs through the context's logger; its chatter is debug here.
	logCtx := klog.NewContext(ctx, s.log.WithName("client-go").V(1))
	for _, inf := range []cache.SharedIndexInformer{w.services, w.slices} {
		w.running.Go(func() { inf.RunWithContext(logCtx) })
	}
	return w, nil
}

// stripManagedFields drops what the source never reads and what costs the most
// memory in a cache of every Service.
func stripManagedFields(obj any) (any, error) {
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

func (w *watchers) shutdown(cancel context.CancelFunc) {
	cancel()
	w.running.Wait()
}

// waitSynced waits for both caches to hold a full list, so that the first set
// published is the whole one. It reports false if ctx ended first.
func (w *watchers) waitSynced(ctx context.Context) bool {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !w.services.HasSynced() || !w.slices.HasSynced() {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
	return true
}

// routes computes the whole route set from the caches, sorted by origin.
func (w *watchers) routes() []serviceRouteOf {
	byService := make(map[string][]*discoveryv1.EndpointSlice)
	for _, obj := range w.slices.GetStore().List() {
		es, ok := obj.(*discoveryv1.EndpointSlice)
		if !ok {
			continue
		}
		key := es.Namespace + "/" + es.Labels[discoveryv1.LabelServiceName]
		byService[key] = append(byService[key], es)
	}
	var out []serviceRouteOf
	for _, obj := range w.services.GetStore().List() {
		svc, ok := obj.(*corev1.Service)
		if !ok {
			continue
		}
		key := svc.Namespace + "/" + svc.Name
		sr := buildRoute(svc, byService[key])
		if sr.route != nil {
			sr.route.Created = svc.CreationTimestamp.Time
		}
		if sr.route == nil && sr.warning == "" {
			continue
		}
		out = append(out, serviceRouteOf{service: key, serviceRoute: sr})
	}
	slices.SortFunc(out, func(a, b serviceRouteOf) int { return strings.Compare(a.service, b.service) })
	return out
}

// serviceRouteOf is a serviceRoute with the Service it came from.
type serviceRouteOf struct {
	service string
	serviceRoute
}

// publisher hands sets to the sink, skipping sets equal to the last one, and
// logs each Service's warning once per change of it.
type publisher struct {
	log    logr.Logger
	sink   discovery.Sink
	last   []discovery.Route
	warned map[string]string
}

func (p *publisher) publish(srs []serviceRouteOf, force bool) {
	routes := make([]discovery.Route, 0, len(srs))
	warned := make(map[string]string)
	for _, sr := range srs {
		if sr.route != nil {
			routes = append(routes, *sr.route)
		}
		if sr.warning == "" {
			continue
		}
		warned[sr.service] = sr.warning
		if p.warned[sr.service] != sr.warning {
			p.log.Info("kubernetes service route incomplete", "service", sr.service, "reason", sr.warning)
		}
	}
	p.warned = warned
	if !force && p.last != nil && reflect.DeepEqual(routes, p.last) {
		return
	}
	p.last = routes
	p.sink.Replace(Name, slices.Clone(routes))
}

// isExpired reports a watch whose resource version the API server no longer
// has: the reflector relists, which is routine.
func isExpired(err error) bool {
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
}
