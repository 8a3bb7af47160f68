package kubernetes

import (
	"net/url"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/discovery"
)

// forwardedKubeconfig writes a copy of the env's kubeconfig whose server is
// the forwarder, still verifying the API server's certificate under its own
// name.
func forwardedKubeconfig(t *testing.T, kubeconfig string) (string, *mctest.Forwarder) {
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	ctx := cfg.Contexts[cfg.CurrentContext]
	if ctx == nil {
		t.Fatalf("kubeconfig %s has no current context", kubeconfig)
	}
	cluster := cfg.Clusters[ctx.Cluster]
	u, err := url.Parse(cluster.Server)
	if err != nil {
		t.Fatal(err)
	}
	f := mctest.NewForwarder(t, "tcp", u.Host)
	if cluster.TLSServerName == "" {
		cluster.TLSServerName = u.Hostname()
	}
	u.Host = f.Addr()
	cluster.Server = u.String()
	file := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, file); err != nil {
		t.Fatal(err)
	}
	return file, f
}

func TestKubeOutageKeepsLastSetAndConvergesAfter(t *testing.T) {
	e := newKubeEnv(t)
	ns := e.namespace(t)
	kc, f := forwardedKubeconfig(t, e.kubeconfig)

	e.createService(t, ns, "mc", map[string]string{AnnotationHosts: "mc.example.com"}, nil, false)
	e.applySlice(t, e.readySlice(ns, "mc", "mc-1", mcPorts, 3))

	var logs mctest.Logs
	sink := &recordingSink{}
	src := New(config.KubernetesDiscovery{Enabled: true, Kubeconfig: kc, Namespace: ns}, logs.Logger(0),
		Options{Backoff: Backoff{Initial: 20 * time.Millisecond, Max: 200 * time.Millisecond}})
	runSource(t, src, sink)
	origin := "kubernetes " + ns + "/mc"
	sink.waitRoute(t, "3 backends through the forwarder", 2*time.Second, origin, hasAddrs(e.wantAddrs(3, 25565)))
	before := sink.replaceCount()

	f.Cut()
	mctest.WaitFor(t, "Stale", 5*time.Second, func() bool { return sink.staleCount() > 0 })
	// Let the source retry a few times against the refusing port.
	failsAtStale := src.fails.Load()
	mctest.WaitFor(t, "retries", 5*time.Second, func() bool { return src.fails.Load() >= failsAtStale+4 })

	// Meanwhile the cluster changes: one pod gone, a second Service.
	e.applySlice(t, e.readySlice(ns, "mc", "mc-1", mcPorts, 2))
	e.createService(t, ns, "other", map[string]string{AnnotationHosts: "other.example.com"}, nil, false)
	e.applySlice(t, e.readySlice(ns, "other", "other-1", mcPorts, 1))

	if n := sink.replaceCount(); n != before {
		t.Errorf("%d Replaces while the API server was unreachable: %+v", n-before, sink.all()[before:])
	}
	f.Restore()
	restored := time.Now()
	sink.waitRoute(t, "the converged set", 5*time.Second, origin, func(r discovery.Route, ok bool) bool {
		other, found := sink.route("kubernetes " + ns + "/other")
		return ok && slices.Equal(addrs(r), e.wantAddrs(2, 25565)) && found && slices.Equal(addrs(other), e.wantAddrs(1, 25565))
	})
	t.Logf("converged %v after the API server was reachable again; %d failed attempts during the outage", time.Since(restored), src.fails.Load()-failsAtStale+1)

	if n := sink.staleCount(); n != 1 {
		t.Errorf("%d Stale calls for one outage, want 1", n)
	}
	for i, set := range sink.all() {
		r, ok := findRoute(set, origin)
		if !ok || len(r.Backends) == 0 {
			t.Errorf("set %d lost the route or its backends: %+v", i, set)
		}
	}
	if n := logs.Count("kubernetes source stale"); n != 1 {
		t.Errorf(`%d "kubernetes source stale" lines, want 1: %q`, n, logs.Find("stale"))
	}
	mctest.WaitFor(t, "the fresh log line", 2*time.Second, func() bool { return logs.Count("kubernetes source fresh again") == 1 })
	if got := logs.Find("kubernetes source fresh again"); !contains(got[0], "outage") {
		t.Errorf("fresh line without the outage's length: %s", got[0])
	}
}

func findRoute(set []discovery.Route, origin string) (discovery.Route, bool) {
	for _, r := range set {
		if r.Origin == origin {
			return r, true
		}
	}
	return discovery.Route{}, false
}
