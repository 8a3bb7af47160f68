package enginetest

import (
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"go.minekube.com/gate/internal/conntrack"
)

// Kube is a test's view of the real API server. No controllers run there: a
// Deployment's scale changes and nothing starts pods, and tests write
// EndpointSlices themselves. Namespaces are never fully deleted, so each test
// makes its own.
type Kube struct {
	// Kubeconfig is the admin kubeconfig's path.
	Kubeconfig string
	// Config is its REST config, paced for tests (500 requests a second).
	Config *rest.Config
	// Admin is a full clientset on Config (tests only: the proxy's binary
	// has none).
	Admin kubernetes.Interface
}

// NeedKube returns the API server of GATETEST_KUBECONFIG, or skips.
func NeedKube(t testing.TB) *Kube {
	t.Helper()
	kc := os.Getenv("GATETEST_KUBECONFIG")
	if kc == "" {
		t.Skip("needs a kube-apiserver: run scripts/test.sh (or eval \"$(scripts/engines/kube.sh start)\" for GATETEST_KUBECONFIG)")
	}
	rc := LoadKubeconfig(t, kc)
	return &Kube{Kubeconfig: kc, Config: rc, Admin: Clientset(t, rc)}
}

// Limited is the kubeconfig of a user with the proxy's shipped RBAC
// (GATETEST_KUBECONFIG_LIMITED), which kube.sh writes with the admin one.
func (k *Kube) Limited(t testing.TB) *rest.Config {
	t.Helper()
	kc := os.Getenv("GATETEST_KUBECONFIG_LIMITED")
	if kc == "" {
		t.Fatal("GATETEST_KUBECONFIG is set but GATETEST_KUBECONFIG_LIMITED is not: start the engine with scripts/engines/kube.sh")
	}
	return LoadKubeconfig(t, kc)
}

// LoadKubeconfig loads a kubeconfig file, paced for tests.
func LoadKubeconfig(t testing.TB, path string) *rest.Config {
	t.Helper()
	rc, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatalf("load kubeconfig %s: %v", path, err)
	}
	rc.QPS, rc.Burst = 500, 1000
	return rc
}

// Clientset is a full clientset on rc whose connections all close when the
// test ends: it dials through a tracker, as the proxy's clients do.
func Clientset(t testing.TB, rc *rest.Config) kubernetes.Interface {
	t.Helper()
	conns := &conntrack.Tracker{}
	rc = rest.CopyConfig(rc)
	rc.Dial = conns.DialContext
	hc, err := rest.HTTPClientFor(rc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		hc.CloseIdleConnections()
		conns.CloseAll()
	})
	cs, err := kubernetes.NewForConfigAndClient(rc, hc)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// Namespace creates a fresh namespace for one test.
func (k *Kube) Namespace(t testing.TB) string {
	t.Helper()
	ns, err := k.Admin.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "gate-test-"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	return ns.Name
}
