package deploy

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// kubeconfig loads the kubeconfig an env var names, or skips.
func kubeconfig(t *testing.T, env string) *rest.Config {
	t.Helper()
	path := os.Getenv(env)
	if path == "" {
		t.Skipf("needs a kube-apiserver: set %s (scripts/engines/kube.sh build && eval \"$(scripts/engines/kube.sh start)\")", env)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatalf("%s: %v", env, err)
	}
	return cfg
}

func client(t *testing.T, cfg *rest.Config) *kubernetes.Clientset {
	t.Helper()
	cfg = rest.CopyConfig(cfg)
	// client-go's default limit (5 requests a second) would pace the access
	// reviews; the test's own server can take them all at once.
	cfg.QPS, cfg.Burst = 500, 1000
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// freshNamespace creates a namespace of its own for a test: deleted ones stay
// Terminating on an API server without controllers.
func freshNamespace(ctx context.Context, t *testing.T, admin *kubernetes.Clientset) string {
	t.Helper()
	ns, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "gate-rbac-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() {
		_ = admin.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})
	return ns.Name
}

// access is one request a subject makes; "" namespace means every namespace.
type access struct {
	verb, group, resource, namespace string
	allowed                          bool
}

func (a access) String() string {
	where := "in every namespace"
	if a.namespace != "" {
		where = "in " + a.namespace
	}
	return fmt.Sprintf("%s %s/%s %s", a.verb, a.group, a.resource, where)
}

// expectAccess asks the API server's authorizer, as the client's subject,
// about each access until every answer is the expected one: bindings reach
// the authorizer's cache a little after their create returns.
func expectAccess(ctx context.Context, t *testing.T, c *kubernetes.Clientset, want []access) {
	t.Helper()
	var wrong []string
	ask := func() error {
		wrong = wrong[:0]
		for _, a := range want {
			r, err := c.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
				Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
					Verb: a.verb, Group: a.group, Resource: a.resource, Namespace: a.namespace,
				}},
			}, metav1.CreateOptions{})
			if err != nil {
				return fmt.Errorf("access review for %s: %w", a, err)
			}
			if r.Status.Allowed != a.allowed {
				wrong = append(wrong, fmt.Sprintf("%s: allowed=%v, want %v", a, r.Status.Allowed, a.allowed))
			}
		}
		return nil
	}
	waitFor(t, 10*time.Second, func() bool {
		if err := ask(); err != nil {
			t.Fatal(err)
		}
		return len(wrong) == 0
	}, func() string { return strings.Join(wrong, "; ") })
}

func waitFor(t *testing.T, d time.Duration, cond func() bool, why func() string) {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			t.Fatalf("after %v: %s", d, why())
		case <-tick.C:
		}
	}
}

// readsDiscovery makes the calls discovery makes (list and watch Services and
// EndpointSlices) in namespace ns ("" = every namespace), and fails on any error.
func readsDiscovery(ctx context.Context, t *testing.T, c *kubernetes.Clientset, ns string) {
	t.Helper()
	if _, err := c.CoreV1().Services(ns).List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("list services in %q: %v", ns, err)
	}
	if _, err := c.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("list endpointslices in %q: %v", ns, err)
	}
	for what, watch := range map[string]func() (interface{ Stop() }, error){
		"services": func() (interface{ Stop() }, error) {
			return c.CoreV1().Services(ns).Watch(ctx, metav1.ListOptions{})
		},
		"endpointslices": func() (interface{ Stop() }, error) {
			return c.DiscoveryV1().EndpointSlices(ns).Watch(ctx, metav1.ListOptions{})
		},
	} {
		w, err := watch()
		if err != nil {
			t.Errorf("watch %s in %q: %v", what, ns, err)
			continue
		}
		w.Stop()
	}
}

// refused fails unless err is the API server's Forbidden.
func refused(t *testing.T, what string, err error) {
	t.Helper()
	if !apierrors.IsForbidden(err) {
		t.Errorf("%s: err = %v, want Forbidden", what, err)
	}
}

// apiServer is the test API server as its admin, for one test.
type apiServer struct {
	ctx     context.Context // at most a minute of requests
	cfg     *rest.Config
	admin   *kubernetes.Clientset
	account *corev1.ServiceAccount // the proxy's, from kubernetes/serviceaccount.yaml
}

// onAPIServer connects as the admin, or skips without an API server.
func onAPIServer(t *testing.T) *apiServer {
	t.Helper()
	cfg := kubeconfig(t, "GATETEST_KUBECONFIG")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return &apiServer{ctx: ctx, cfg: cfg, admin: client(t, cfg),
		account: loadManifests(t, "kubernetes/serviceaccount.yaml").serviceAccounts[0]}
}

// namespaces makes two fresh namespaces: the proxy's and another one.
func (a *apiServer) namespaces(t *testing.T) (ns, other string) {
	t.Helper()
	return freshNamespace(a.ctx, t, a.admin), freshNamespace(a.ctx, t, a.admin)
}

// as creates the ServiceAccount sa in ns and returns a client acting as it
// (the API server adds its groups).
func (a *apiServer) as(t *testing.T, ns string, sa *corev1.ServiceAccount) *kubernetes.Clientset {
	t.Helper()
	if _, err := a.admin.CoreV1().ServiceAccounts(ns).Create(a.ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create service account: %v", err)
	}
	imp := rest.CopyConfig(a.cfg)
	imp.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":" + sa.Name}
	return client(t, imp)
}

// TestRBACShapesOnAPIServer applies each RBAC shape from deploy/kubernetes/rbac
// to a real API server and acts as the proxy's ServiceAccount: discovery's
// reads work where the shape says, and nothing else does.
func TestRBACShapesOnAPIServer(t *testing.T) {
	a := onAPIServer(t)
	t.Run("namespace", a.namespaceShape)
	// The chart's namespaced shape, rendered for the namespace it lands in.
	t.Run("chart namespace", a.chartNamespaceShape)
	t.Run("cluster", a.clusterShape)
}

func (a *apiServer) namespaceShape(t *testing.T) {
	ns, other := a.namespaces(t)
	applyRBAC(a.ctx, t, a.admin, loadManifests(t, "kubernetes/rbac/namespace.yaml"), ns)
	c := a.as(t, ns, a.account.DeepCopy())
	expectAccess(a.ctx, t, c, namespacedAccess(ns, other))
	readsDiscovery(a.ctx, t, c, ns)
	_, err := c.CoreV1().Services(other).List(a.ctx, metav1.ListOptions{})
	refused(t, "list services in another namespace", err)
	_, err = c.CoreV1().Services("").Watch(a.ctx, metav1.ListOptions{})
	refused(t, "watch services in every namespace", err)
	_, err = c.CoreV1().Secrets(ns).Get(a.ctx, "gate-api", metav1.GetOptions{})
	refused(t, "get a secret", err)
}

func (a *apiServer) chartNamespaceShape(t *testing.T) {
	ns, other := a.namespaces(t)
	o := renderChart(t, discoveryValues("namespace"), ns)
	c := a.as(t, ns, o.serviceAccounts[0])
	applyRBAC(a.ctx, t, a.admin, o.named("-discovery"), ns)
	expectAccess(a.ctx, t, c, namespacedAccess(ns, other))
	readsDiscovery(a.ctx, t, c, ns)
}

func (a *apiServer) clusterShape(t *testing.T) {
	ns, other := a.namespaces(t)
	applyRBAC(a.ctx, t, a.admin, loadManifests(t, "kubernetes/rbac/cluster.yaml"), ns)
	c := a.as(t, ns, a.account.DeepCopy())
	expectAccess(a.ctx, t, c, clusterAccess(ns, other))
	readsDiscovery(a.ctx, t, c, "")
	readsDiscovery(a.ctx, t, c, other)
	_, err := c.CoreV1().Secrets(ns).List(a.ctx, metav1.ListOptions{})
	refused(t, "list secrets", err)
}

// discoveryReads is discovery's reads (get, list, watch of Services and
// EndpointSlices) in ns, other and every namespace (""), allowed as allowed
// says in that order, and the writes in writeNS that every shape refuses.
func discoveryReads(ns, other string, allowed [3]bool, writeNS string) []access {
	var want []access
	for _, r := range []struct{ group, resource string }{{"", "services"}, {"discovery.k8s.io", "endpointslices"}} {
		for _, verb := range []string{"get", "list", "watch"} {
			want = append(want,
				access{verb, r.group, r.resource, ns, allowed[0]},
				access{verb, r.group, r.resource, other, allowed[1]},
				access{verb, r.group, r.resource, "", allowed[2]})
		}
		for _, verb := range []string{"create", "update", "patch", "delete"} {
			want = append(want, access{verb, r.group, r.resource, writeNS, false})
		}
	}
	return want
}

// namespacedAccess is what the namespaced shape must allow in ns and refuse
// everywhere else.
func namespacedAccess(ns, other string) []access {
	return append(discoveryReads(ns, other, [3]bool{true, false, false}, ns),
		access{"get", "", "secrets", ns, false},
		access{"list", "", "pods", ns, false},
		access{"get", "", "configmaps", ns, false})
}

// clusterAccess is what the cluster-wide shape must allow in every namespace,
// and what it must still refuse.
func clusterAccess(ns, other string) []access {
	return append(discoveryReads(ns, other, [3]bool{true, true, true}, other),
		access{"get", "", "secrets", ns, false},
		access{"list", "", "secrets", "", false},
		access{"list", "", "pods", "", false})
}

// TestLimitedKubeconfigBoundByRole uses the engine's second kubeconfig (user
// gate-tester, no bindings of its own): the namespaced Role bound to that user
// gives it discovery's reads in that namespace only.
func TestLimitedKubeconfigBoundByRole(t *testing.T) {
	a := onAPIServer(t)
	c := client(t, kubeconfig(t, "GATETEST_KUBECONFIG_LIMITED"))
	ns, other := a.namespaces(t)

	_, err := c.CoreV1().Services(ns).List(a.ctx, metav1.ListOptions{})
	refused(t, "list services before any binding", err)

	o := loadManifests(t, "kubernetes/rbac/namespace.yaml")
	o.roleBindings[0].Subjects = []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "gate-tester"}}
	applyRBAC(a.ctx, t, a.admin, o, ns)
	expectAccess(a.ctx, t, c, namespacedAccess(ns, other))
	readsDiscovery(a.ctx, t, c, ns)
}
