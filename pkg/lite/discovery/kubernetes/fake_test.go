package kubernetes

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/discovery"
)

// fakeListWatch lists and watches through a fake clientset.
func fakeListWatch(client *fake.Clientset) ListWatchFunc {
	return func(resource, ns string, tweak func(*metav1.ListOptions)) cache.ListerWatcher {
		list := func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			tweak(&o)
			if resource == "services" {
				return client.CoreV1().Services(ns).List(ctx, o)
			}
			return client.DiscoveryV1().EndpointSlices(ns).List(ctx, o)
		}
		watchFn := func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			tweak(&o)
			if resource == "services" {
				return client.CoreV1().Services(ns).Watch(ctx, o)
			}
			return client.DiscoveryV1().EndpointSlices(ns).Watch(ctx, o)
		}
		// The fake clientset cannot stream a list (WatchList); it says so.
		return cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{ListWithContextFunc: list, WatchFuncWithContext: watchFn}, client)
	}
}

// These tests drive the source's own logic (sync, debounce, dedupe of equal
// sets, warnings) through client-go's fake clientset; the API server's
// behaviour is tested against a real one in kube_test.go.

func TestFakeFirstSetAfterSyncAndBurstIsOneReplace(t *testing.T) {
	v4 := discoveryv1.AddressTypeIPv4
	mc := []discoveryv1.EndpointPort{port("minecraft", 25565)}
	client := fake.NewClientset(
		service("ns", "mc", map[string]string{AnnotationHosts: "mc.example.com"}),
		slice("ns", "mc", "mc-1", v4, mc, ready("10.0.0.1")),
	)
	sink := &recordingSink{}
	// A long window, so that the burst fits in it however slow the machine.
	src := New(config.KubernetesDiscovery{}, testLogger(t), Options{ListWatch: fakeListWatch(client), Debounce: time.Second})
	runSource(t, src, sink)

	sink.waitRoute(t, "the first set", 2*time.Second, "kubernetes ns/mc", func(r discovery.Route, ok bool) bool { return ok })
	first, _, n := sink.last()
	want := []discovery.Route{{Origin: "kubernetes ns/mc", Namespace: "ns", Hosts: []string{"mc.example.com"}, Backends: backends("10.0.0.1:25565"), KeyPrefix: KeyPrefix}}
	if n != 1 || !reflect.DeepEqual(first, want) {
		t.Fatalf("first set (of %d):\n got %+v\nwant %+v", n, first, want)
	}

	// Five endpoints arrive one write after another: one Replace.
	ctx := context.Background()
	es := slice("ns", "mc", "mc-1", v4, mc, ready("10.0.0.1"))
	for _, a := range []string{"10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5", "10.0.0.6"} {
		es.Endpoints = append(es.Endpoints, discoveryv1.Endpoint{Addresses: []string{a}})
		if _, err := client.DiscoveryV1().EndpointSlices("ns").Update(ctx, es.DeepCopy(), metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	sink.waitRoute(t, "6 backends", 2*time.Second, "kubernetes ns/mc", func(r discovery.Route, ok bool) bool { return len(r.Backends) == 6 })
	if got := sink.replaceCount(); got != 2 {
		t.Errorf("%d Replaces for the first set and one burst, want 2: %+v", got, sink.all())
	}

	// A change that does not alter the set publishes nothing.
	svc := service("ns", "mc", map[string]string{AnnotationHosts: "mc.example.com"})
	svc.Labels = map[string]string{"touched": "yes"}
	if _, err := client.CoreV1().Services("ns").Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Then a change that does, so that the test knows the first one was seen.
	other := service("ns", "other", map[string]string{annotationMCRouterHosts: "other.example.com"})
	if _, err := client.CoreV1().Services("ns").Create(ctx, other, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sink.waitRoute(t, "the second route", 2*time.Second, "kubernetes ns/other", func(r discovery.Route, ok bool) bool { return ok })
	if got := sink.replaceCount(); got != 3 {
		t.Errorf("%d Replaces, want 3 (an unchanged set is not published): %+v", got, sink.all())
	}
	if got := sink.staleCount(); got != 0 {
		t.Errorf("%d Stale calls without any outage", got)
	}
}

func TestFakeAmbiguousPortWarnsOncePerChange(t *testing.T) {
	v4 := discoveryv1.AddressTypeIPv4
	two := []discoveryv1.EndpointPort{port("a", 1), port("b", 2)}
	client := fake.NewClientset(
		service("ns", "mc", map[string]string{AnnotationHosts: "mc.example.com"}),
		slice("ns", "mc", "mc-1", v4, two, ready("10.0.0.1")),
	)
	var logs mctest.Logs
	sink := &recordingSink{}
	runSource(t, New(config.KubernetesDiscovery{}, logs.Logger(0), Options{ListWatch: fakeListWatch(client)}), sink)
	sink.waitRoute(t, "the route", 2*time.Second, "kubernetes ns/mc", func(r discovery.Route, ok bool) bool { return ok && len(r.Backends) == 0 })

	// More events on the same ambiguous slice: still one warning.
	ctx := context.Background()
	for _, a := range []string{"10.0.0.2", "10.0.0.3"} {
		es := slice("ns", "mc", "mc-1", v4, two, ready("10.0.0.1"), ready(a))
		if _, err := client.DiscoveryV1().EndpointSlices("ns").Update(ctx, es, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// Fixing it publishes backends, and a new warning-free set.
	fixed := service("ns", "mc", map[string]string{AnnotationHosts: "mc.example.com", AnnotationPort: "b"})
	if _, err := client.CoreV1().Services("ns").Update(ctx, fixed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	sink.waitRoute(t, "backends on port b", 2*time.Second, "kubernetes ns/mc", func(r discovery.Route, ok bool) bool {
		return slices.Equal(addrs(r), []string{"10.0.0.1:2", "10.0.0.3:2"})
	})
	if got := logs.Count("kubernetes service route incomplete"); got != 1 {
		t.Errorf("%d warnings, want 1: %q", got, logs.Find("route incomplete"))
	}
	if got := logs.Find("route incomplete"); len(got) == 1 && !contains(got[0], "ns/mc") {
		t.Errorf("warning does not name the Service: %s", got[0])
	}
}

func TestFakeDeletedServiceLeavesEmptySet(t *testing.T) {
	client := fake.NewClientset(service("ns", "mc", map[string]string{AnnotationHosts: "mc.example.com"}))
	sink := &recordingSink{}
	runSource(t, New(config.KubernetesDiscovery{}, testLogger(t), Options{ListWatch: fakeListWatch(client)}), sink)
	sink.waitRoute(t, "the route", 2*time.Second, "kubernetes ns/mc", func(r discovery.Route, ok bool) bool { return ok })
	if err := client.CoreV1().Services("ns").Delete(context.Background(), "mc", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	sink.waitRoute(t, "the route gone", 2*time.Second, "kubernetes ns/mc", func(r discovery.Route, ok bool) bool { return !ok })
}

func TestRunReturnsNilWhenContextEndsBeforeSync(t *testing.T) {
	client := fake.NewClientset()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := New(config.KubernetesDiscovery{}, testLogger(t), Options{ListWatch: fakeListWatch(client)}).Run(ctx, &recordingSink{}); err != nil {
		t.Fatalf("Run: %v", err)
	}
}
