package discovery_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"go.minekube.com/gate/internal/enginetest"
	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/edition/java/lite/route"
	"go.minekube.com/gate/pkg/lite/discovery"
	"go.minekube.com/gate/pkg/lite/discovery/kubernetes"
)

// Against a real kube-apiserver: a Service created later in a namespace that
// sorts first (the hijack of issue 30) must not take the host of the older
// Service, whatever order the watch lists them in.
func TestKubeFirstClaimantKeepsHostAgainstNewerNamespace(t *testing.T) {
	k := enginetest.NeedKube(t)
	uniq := fmt.Sprint(time.Now().UnixNano() % 1e9)
	games, tenant := "games-"+uniq, "aaa-tenant-"+uniq // the newcomer's namespace sorts first
	host := "play-" + uniq + ".claims.test"
	older := createClaim(t, k, games, host, uniq)
	// Creation times have one-second steps: the newcomer must be later.
	mctest.WaitFor(t, "a later creation second", 3*time.Second, func() bool { return time.Now().Truncate(time.Second).After(older) })
	createClaim(t, k, tenant, host, uniq)

	cfg, _, err := config.Parse([]byte("config:\n  lite:\n    enabled: true\n    discovery:\n      kubernetes: {enabled: true}\n"), "config.yml")
	if err != nil {
		t.Fatal(err)
	}
	logs := &mctest.Logs{}
	m := discovery.NewMerger(discovery.MergerOptions{Apply: func(*config.Config) error { return nil }, Log: logs.Logger(0)})
	if err := m.SetFile(cfg); err != nil {
		t.Fatal(err)
	}
	src := kubernetes.New(config.KubernetesDiscovery{Enabled: true, Kubeconfig: k.Kubeconfig, LabelSelector: "gate-claims-test=" + uniq},
		logr.Discard(), kubernetes.Options{})
	mctest.Run(t, "kubernetes source", func(ctx context.Context) error { return src.Run(ctx, m) })
	mctest.WaitFor(t, "the newcomer refused", 5*time.Second, func() bool { return logs.Count("host claim refused") == 1 })

	table, err := route.Compile(m.Merged().Lite.Specs())
	if err != nil {
		t.Fatal(err)
	}
	match, ok := table.Match(host)
	if want := "kubernetes " + games + "/lobby"; !ok || m.Merged().Lite.Routes[match.Route].Origin != want {
		t.Fatalf("%s routes to %+v, want %s", host, match, want)
	}
	line := logs.Find("host claim refused")[0]
	if !strings.Contains(line, tenant+"/lobby") || !strings.Contains(line, "claimed first by kubernetes "+games+"/lobby") {
		t.Fatalf("refusal line = %s", line)
	}
}

// createClaim creates namespace ns and in it a Service "lobby" claiming host,
// and returns the Service's creation time.
func createClaim(t *testing.T, k *enginetest.Kube, ns, host, uniq string) time.Time {
	t.Helper()
	if _, err := k.Admin.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace %s: %v", ns, err)
	}
	svc, err := k.Admin.CoreV1().Services(ns).Create(t.Context(), &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "lobby", Labels: map[string]string{"gate-claims-test": uniq},
			Annotations: map[string]string{kubernetes.AnnotationHosts: host}},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "minecraft", Port: 25565, Protocol: corev1.ProtocolTCP}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create service %s/lobby: %v", ns, err)
	}
	return svc.CreationTimestamp.Time
}
