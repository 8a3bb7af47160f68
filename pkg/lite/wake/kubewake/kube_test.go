package kubewake

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"go.minekube.com/gate/pkg/lite/wake"

	"go.minekube.com/gate/internal/enginetest"
)

// The tests in this file run against a real kube-apiserver. No controllers
// run there: a Deployment's scale changes and nothing starts pods, which is
// all waking needs. Namespaces are never fully deleted, so each test makes
// its own.

type kubeEnv struct {
	kube  *enginetest.Kube
	cfg   *rest.Config
	admin kubernetes.Interface
}

func newKubeEnv(t *testing.T) *kubeEnv {
	t.Helper()
	k := enginetest.NeedKube(t)
	return &kubeEnv{kube: k, cfg: k.Config, admin: k.Admin}
}

// client is a wake Client on cfg, closed when the test ends.
func (e *kubeEnv) client(t *testing.T, cfg *rest.Config) *Client {
	t.Helper()
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func (e *kubeEnv) namespace(t *testing.T) string { return e.kube.Namespace(t) }

// workload creates a Deployment or StatefulSet with replicas and returns
// the Spec that names it.
func (e *kubeEnv) workload(t *testing.T, ns, resource, name string, replicas int32) wake.Spec {
	t.Helper()
	labels := map[string]string{"app": name}
	pod := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "mc", Image: "minecraft-server"}}},
	}
	meta := metav1.ObjectMeta{Namespace: ns, Name: name}
	sel := &metav1.LabelSelector{MatchLabels: labels}
	var err error
	switch resource {
	case "deployment":
		_, err = e.admin.AppsV1().Deployments(ns).Create(t.Context(), &appsv1.Deployment{ObjectMeta: meta,
			Spec: appsv1.DeploymentSpec{Replicas: ptr.To(replicas), Selector: sel, Template: pod}}, metav1.CreateOptions{})
	case "statefulset":
		_, err = e.admin.AppsV1().StatefulSets(ns).Create(t.Context(), &appsv1.StatefulSet{ObjectMeta: meta,
			Spec: appsv1.StatefulSetSpec{Replicas: ptr.To(replicas), Selector: sel, Template: pod, ServiceName: name}}, metav1.CreateOptions{})
	default:
		t.Fatalf("resource %q", resource)
	}
	if err != nil {
		t.Fatalf("create %s %s/%s: %v", resource, ns, name, err)
	}
	return wake.Spec{Kind: wake.KindKubernetes, Resource: resource, Namespace: ns, Name: name}
}

// observed is what the API server holds of a workload: its desired replicas
// and its generation, which every write of the spec (scale included) bumps.
type observed struct {
	replicas   int32
	generation int64
}

func (e *kubeEnv) observe(t *testing.T, s wake.Spec) observed {
	t.Helper()
	var meta metav1.ObjectMeta
	var replicas *int32
	switch s.Resource {
	case "deployment":
		d, err := e.admin.AppsV1().Deployments(s.Namespace).Get(t.Context(), s.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		meta, replicas = d.ObjectMeta, d.Spec.Replicas
	case "statefulset":
		st, err := e.admin.AppsV1().StatefulSets(s.Namespace).Get(t.Context(), s.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		meta, replicas = st.ObjectMeta, st.Spec.Replicas
	}
	return observed{replicas: ptr.Deref(replicas, -1), generation: meta.Generation}
}
