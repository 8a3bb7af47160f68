package engines_test

import (
	"fmt"
	"path/filepath"
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

const kubeTrustYAML = `
config:
  lite:
    enabled: true
    shutdownGrace: 0s
    discovery:
      kubernetes: {enabled: true, kubeconfig: %q}
    wake:
      hooks:
        tenant-hook:
          wake: {exec: [touch, %q]}
          namespaces: [%s]
`

// Regression (issue 30): a Service annotated in a tenant's namespace made
// the proxy run a command, call a webhook, and scale another namespace's
// Deployment. Now each is refused like a bad value, while the tenant's own
// Deployment still wakes and a hook the file grants the namespace runs.
func TestTenantServiceAnnotationsWakeOnlyTheirOwnWorkload(t *testing.T) {
	k := enginetest.NeedKube(t)
	tenant, games, other := k.Namespace(t), k.Namespace(t), k.Namespace(t)
	dir := t.TempDir()
	hookFile, execFiles := filepath.Join(dir, "hook"), []string{filepath.Join(dir, "exec-wake"), filepath.Join(dir, "exec-sleep"), filepath.Join(dir, "exec-text")}
	url, requests := hits(t)
	victim := deployment(t, k, games, "victim", 0)
	deployment(t, k, tenant, "own", 0)
	p := startTrustProxy(t, fmt.Sprintf(kubeTrustYAML, k.Kubeconfig, hookFile, tenant),
		func(cfg *config.Config, log logr.Logger) (discovery.Source, error) {
			return kubernetes.New(cfg.Lite.Discovery.Kubernetes, log, kubernetes.Options{}), nil
		})

	refused := map[string]string{ // Service -> its wake
		tenant + "/exec":      fmt.Sprintf("{exec: [touch, %q], sleep: [touch, %q]}", execFiles[0], execFiles[1]),
		tenant + "/exec-text": "exec:touch " + execFiles[2],
		tenant + "/webhook":   url,
		tenant + "/foreign":   games + "/deployment/victim",
		other + "/stolen":     "hook/tenant-hook",
	}
	for name, w := range refused {
		service(t, k, name, w)
	}
	service(t, k, tenant+"/own", "deployment/own")
	service(t, k, tenant+"/hooked", "hook/tenant-hook")
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
	mctest.WaitFor(t, "the hook granted to the tenant's namespace run", 10*time.Second, func() bool { return touched(hookFile) == 1 })

	cur, err := k.Admin.AppsV1().Deployments(games).Get(t.Context(), "victim", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	commands, scales := touched(execFiles...), cur.Generation-victim.Generation
	if commands != 0 || requests.Load() != 0 || scales != 0 || *cur.Spec.Replicas != 0 {
		t.Fatalf("a tenant's annotations caused %d commands, %d webhook requests, %d scale writes (victim replicas %d)",
			commands, requests.Load(), scales, *cur.Spec.Replicas)
	}
	t.Logf("figure: tenant Service annotations (exec mapping, exec text, webhook, foreign namespace, a hook not granted), each with a login: %d commands, %d requests, %d scale calls; own Deployment woken, granted hook run",
		commands, requests.Load(), scales)
}

// host is the host of the test's Service ns/name.
func host(name string) string { return strings.ReplaceAll(name, "/", "-") + ".trust.example.com" }

// service creates the Service ns/name routed for host(ns/name), with wake w,
// no endpoints (so a login asks for a wake), and the short timers.
func service(t *testing.T, k *enginetest.Kube, name, w string) {
	t.Helper()
	ns, n := filepath.Dir(name), filepath.Base(name)
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
