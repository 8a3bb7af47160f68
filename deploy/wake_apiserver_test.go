package deploy

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// applyRBAC creates o's RBAC objects for a proxy in ns. Cluster-wide names
// are shared by every run against the server, so they get ns appended, and
// the subjects of ClusterRoleBindings move to ns.
func applyRBAC(ctx context.Context, t *testing.T, admin *kubernetes.Clientset, o objects, ns string) {
	t.Helper()
	for _, r := range o.roles {
		if _, err := admin.RbacV1().Roles(ns).Create(ctx, r, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create role %s: %v", r.Name, err)
		}
	}
	for _, b := range o.roleBindings {
		if _, err := admin.RbacV1().RoleBindings(ns).Create(ctx, b, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create role binding %s: %v", b.Name, err)
		}
	}
	for _, r := range o.clusterRoles {
		r = r.DeepCopy()
		r.Name += "-" + ns
		if _, err := admin.RbacV1().ClusterRoles().Create(ctx, r, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create cluster role %s: %v", r.Name, err)
		}
		t.Cleanup(func() { _ = admin.RbacV1().ClusterRoles().Delete(context.Background(), r.Name, metav1.DeleteOptions{}) })
	}
	for _, b := range o.clusterRoleBindings {
		b = b.DeepCopy()
		b.Name += "-" + ns
		b.RoleRef.Name += "-" + ns
		for i := range b.Subjects {
			b.Subjects[i].Namespace = ns
		}
		if _, err := admin.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create cluster role binding %s: %v", b.Name, err)
		}
		t.Cleanup(func() {
			_ = admin.RbacV1().ClusterRoleBindings().Delete(context.Background(), b.Name, metav1.DeleteOptions{})
		})
	}
}

// sleepingWorkloads creates a Deployment and a StatefulSet "mc" at replicas
// 0 in ns. No controller runs: the objects just sit there, and their scale
// subresource works.
func sleepingWorkloads(ctx context.Context, t *testing.T, admin *kubernetes.Clientset, ns string) {
	t.Helper()
	labels := map[string]string{"app": "mc"}
	pod := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "mc", Image: "minecraft-server"}}},
	}
	sel := &metav1.LabelSelector{MatchLabels: labels}
	meta := metav1.ObjectMeta{Name: "mc"}
	if _, err := admin.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{ObjectMeta: meta,
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](0), Selector: sel, Template: pod}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create deployment: %v", err)
	}
	if _, err := admin.AppsV1().StatefulSets(ns).Create(ctx, &appsv1.StatefulSet{ObjectMeta: meta,
		Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](0), Selector: sel, Template: pod, ServiceName: "mc"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create statefulset: %v", err)
	}
}

// wakeAccess is what a wake shape must allow and refuse: the scale
// subresource where targets may be (everywhere for "cluster"), Leases in
// the proxy's namespace only, and nothing of the objects themselves.
func wakeAccess(scope, ns, other string) []access {
	var want []access
	for _, res := range []string{"deployments/scale", "statefulsets/scale"} {
		want = append(want,
			access{"get", "apps", res, ns, true},
			access{"update", "apps", res, ns, true},
			access{"get", "apps", res, other, scope == "cluster"},
			access{"update", "apps", res, other, scope == "cluster"},
			access{"patch", "apps", res, ns, false})
	}
	for _, res := range []string{"deployments", "statefulsets"} {
		for _, verb := range []string{"get", "list", "update", "patch", "delete"} {
			want = append(want, access{verb, "apps", res, ns, false})
		}
	}
	for _, verb := range []string{"get", "create", "update"} {
		want = append(want,
			access{verb, "coordination.k8s.io", "leases", ns, true},
			access{verb, "coordination.k8s.io", "leases", other, false})
	}
	for _, verb := range []string{"list", "watch", "delete", "patch"} {
		want = append(want, access{verb, "coordination.k8s.io", "leases", ns, false})
	}
	return append(want,
		access{"get", "", "secrets", ns, false},
		access{"list", "", "pods", ns, false},
		access{"create", "", "pods", ns, false})
}

// scaler is the scale subresource of a kind of workload.
type scaler interface {
	GetScale(ctx context.Context, name string, opts metav1.GetOptions) (*autoscalingv1.Scale, error)
	UpdateScale(ctx context.Context, name string, scale *autoscalingv1.Scale, opts metav1.UpdateOptions) (*autoscalingv1.Scale, error)
}

// scaleUp wakes workload "mc" of kind through its scale: read it, set 1 replica.
func scaleUp(ctx context.Context, t *testing.T, kind string, s scaler) {
	t.Helper()
	sc, err := s.GetScale(ctx, "mc", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get %s scale: %v", kind, err)
	}
	sc.Spec.Replicas = 1
	if _, err := s.UpdateScale(ctx, "mc", sc, metav1.UpdateOptions{}); err != nil {
		t.Errorf("update %s scale: %v", kind, err)
	}
}

// wakes does what waking does (scale 0 -> 1 of both kinds in ns, a Lease
// written and renewed in ns) and what it must not be able to do (patch a
// Deployment's replicas, read the Deployment, write a Lease elsewhere).
func wakes(ctx context.Context, t *testing.T, c *kubernetes.Clientset, ns, other string, scaleElsewhere bool) {
	t.Helper()
	scaleUp(ctx, t, "deployment", c.AppsV1().Deployments(ns))
	scaleUp(ctx, t, "statefulset", c.AppsV1().StatefulSets(ns))
	_, err := c.AppsV1().StatefulSets(other).UpdateScale(ctx, "mc", &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Namespace: other, Name: "mc"}, Spec: autoscalingv1.ScaleSpec{Replicas: 1}}, metav1.UpdateOptions{})
	if scaleElsewhere {
		if err != nil {
			t.Errorf("update statefulset scale in another namespace: %v", err)
		}
	} else {
		refused(t, "update statefulset scale in another namespace", err)
	}

	patch, _ := json.Marshal(map[string]any{"spec": map[string]any{"replicas": 3}})
	_, err = c.AppsV1().Deployments(ns).Patch(ctx, "mc", types.MergePatchType, patch, metav1.PatchOptions{})
	refused(t, "patch a deployment's replicas", err)
	_, err = c.AppsV1().Deployments(ns).Patch(ctx, "mc", types.MergePatchType, patch, metav1.PatchOptions{}, "scale")
	refused(t, "patch the scale subresource", err)
	_, err = c.AppsV1().Deployments(ns).Get(ctx, "mc", metav1.GetOptions{})
	refused(t, "get a deployment", err)

	leases := c.CoordinationV1().Leases(ns)
	l, err := leases.Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "gate-wake-test"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("gate-0")}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create lease: %v", err)
	}
	if l, err = leases.Get(ctx, l.Name, metav1.GetOptions{}); err != nil {
		t.Fatalf("get lease: %v", err)
	}
	l.Spec.RenewTime = ptr.To(metav1.NewMicroTime(time.Now()))
	if _, err := leases.Update(ctx, l, metav1.UpdateOptions{}); err != nil {
		t.Errorf("update lease: %v", err)
	}
	refused(t, "delete a lease", leases.Delete(ctx, l.Name, metav1.DeleteOptions{}))
	_, err = c.CoordinationV1().Leases(other).Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "gate-wake-test"}}, metav1.CreateOptions{})
	refused(t, "create a lease in another namespace", err)
}

// TestWakeRBACOnAPIServer applies each wake RBAC shape (the files and the
// chart's) to a real API server and acts as the proxy's ServiceAccount:
// waking's calls work, and patching a Deployment, reading it, or writing a
// Lease outside the proxy's namespace is refused.
func TestWakeRBACOnAPIServer(t *testing.T) {
	a := onAPIServer(t)
	ctx, admin, account := a.ctx, a.admin, a.account

	for _, tt := range []struct {
		name, scope string
		objects     func(ns string) (objects, *corev1.ServiceAccount)
	}{
		{"cluster file", "cluster", func(string) (objects, *corev1.ServiceAccount) {
			return loadManifests(t, "kubernetes/rbac/wake-cluster.yaml"), account.DeepCopy()
		}},
		{"namespace file", "namespace", func(string) (objects, *corev1.ServiceAccount) {
			return loadManifests(t, "kubernetes/rbac/wake-namespace.yaml"), account.DeepCopy()
		}},
		{"chart cluster", "cluster", func(ns string) (objects, *corev1.ServiceAccount) {
			o := renderChart(t, wakeValues("cluster"), ns)
			return o, o.serviceAccounts[0]
		}},
		{"chart namespace", "namespace", func(ns string) (objects, *corev1.ServiceAccount) {
			o := renderChart(t, wakeValues("namespace"), ns)
			return o, o.serviceAccounts[0]
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ns, other := a.namespaces(t)
			o, sa := tt.objects(ns)
			c := a.as(t, ns, sa)
			applyRBAC(ctx, t, admin, o.named("-wake-"), ns)
			sleepingWorkloads(ctx, t, admin, ns)
			sleepingWorkloads(ctx, t, admin, other)
			expectAccess(ctx, t, c, wakeAccess(tt.scope, ns, other))
			wakes(ctx, t, c, ns, other, tt.scope == "cluster")
			d, err := admin.AppsV1().Deployments(ns).Get(ctx, "mc", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := ptr.Deref(d.Spec.Replicas, -1); got != 1 {
				t.Errorf("deployment %s/mc has replicas %d after the wake, want 1 (the refused patch to 3 must not land)", ns, got)
			}
		})
	}
}
