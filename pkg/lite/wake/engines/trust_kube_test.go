package engines_test

import (
	"fmt"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"go.minekube.com/gate/internal/enginetest"
	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/discovery"
	"go.minekube.com/gate/pkg/lite/discovery/kubernetes"
)

// Regression (issue 30): a Service annotated in a tenant's namespace made
// the proxy run a command, call a webhook, and scale another namespace's
// Deployment. Now each is refused like a bad value, while the tenant's own
// Deployment still wakes and a hook the file grants the namespace runs.
func TestTenantServiceAnnotationsWakeOnlyTheirOwnWorkload(t *testing.T) {
	k := enginetest.NeedKube(t)
	tenant, games, other := k.Namespace(t), k.Namespace(t), k.Namespace(t)
	b := newBait(t)
	victim := deployment(t, k, games, "victim", 0)
	deployment(t, k, tenant, "own", 0)
	p := startTrustProxy(t, fmt.Sprintf(trustYAML, fmt.Sprintf("kubernetes: {enabled: true, kubeconfig: %q}", k.Kubeconfig),
		b.hookFile, "namespaces: ["+tenant+"]"),
		func(cfg *config.Config, log logr.Logger) (discovery.Source, error) {
			return kubernetes.New(cfg.Lite.Discovery.Kubernetes, log, kubernetes.Options{}), nil
		})

	refused := map[string]string{} // Service -> its wake
	for kind, w := range b.wakes(games + "/deployment/victim") {
		ns := tenant
		if kind == "stolen" {
			ns = other
		}
		refused[ns+"/"+kind] = w
	}
	for name, w := range refused {
		service(t, k, name, w)
	}
	service(t, k, tenant+"/own", "deployment/own")
	service(t, k, tenant+"/hooked", "hook/granted")
	mctest.WaitFor(t, "the tenant's own routes served, the others refused", 15*time.Second, func() bool {
		for name := range refused {
			if p.rejected("kubernetes "+name) == "" {
				return false
			}
		}
		return p.serves(host(tenant+"/own")) && p.serves(host(tenant+"/hooked"))
	})
	for name := range refused {
		p.refusal(t, "kubernetes "+name, "gate.minekube.com/wake")
		p.login(t, host(name))
	}

	p.send(t, host(tenant+"/own"))
	mctest.WaitFor(t, "the tenant's own Deployment woken", 10*time.Second, func() bool { return replicas(t, k, tenant, "own") == 1 })
	p.send(t, host(tenant+"/hooked"))
	mctest.WaitFor(t, "the hook granted to the tenant's namespace run", 10*time.Second, func() bool { return touched(b.hookFile) == 1 })

	cur, err := k.Admin.AppsV1().Deployments(games).Get(t.Context(), "victim", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	scales := cur.Generation - victim.Generation
	if b.commands() != 0 || b.requests.Load() != 0 || scales != 0 || *cur.Spec.Replicas != 0 {
		t.Fatalf("a tenant's annotations caused %d commands, %d webhook requests, %d scale writes (victim replicas %d)",
			b.commands(), b.requests.Load(), scales, *cur.Spec.Replicas)
	}
	t.Logf("figure: %d tenant Services (exec mapping, exec text, webhook, foreign namespace, a hook not granted), each with a login: %d commands, %d requests, %d scale calls; own Deployment woken, granted hook run",
		len(refused), b.commands(), b.requests.Load(), scales)
}

// host is the host of the test's object ns/name (or a container's name).
func host(name string) string { return strings.ReplaceAll(name, "/", "-") + ".trust.example.com" }

// service creates the Service ns/name routed for host(ns/name), with wake w,
// no endpoints (so a login asks for a wake), and the short timers.
func service(t *testing.T, k *enginetest.Kube, name, w string) {
	t.Helper()
	ns, n := path.Split(name)
	ns = strings.TrimSuffix(ns, "/")
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: n, Annotations: map[string]string{
			kubernetes.AnnotationHosts: host(name), kubernetes.KeyPrefix + "wake": w,
			kubernetes.KeyPrefix + "idleAfter": "2s", kubernetes.KeyPrefix + "holdFor": "1s"}},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "minecraft", Port: 25565, Protocol: corev1.ProtocolTCP}}},
	}
	if _, err := k.Admin.CoreV1().Services(ns).Create(t.Context(), svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// deployment creates a Deployment of n replicas (no controller runs: only
// its spec changes).
func deployment(t *testing.T, k *enginetest.Kube, ns, name string, n int32) *appsv1.Deployment {
	t.Helper()
	labels := map[string]string{"app": name}
	d, err := k.Admin.AppsV1().Deployments(ns).Create(t.Context(), &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{Replicas: &n, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "minecraft", Image: "minecraft"}}}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func replicas(t *testing.T, k *enginetest.Kube, ns, name string) int32 {
	t.Helper()
	d, err := k.Admin.AppsV1().Deployments(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return *d.Spec.Replicas
}
