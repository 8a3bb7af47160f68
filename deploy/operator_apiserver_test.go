package deploy

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// TestOperatorRBACOnAPIServer applies kubernetes/rbac/operator.yaml (its
// ConfigMap as the admin would, its Role and binding) and acts as the proxy's
// ServiceAccount: it reads, watches and patches the operator layer's ConfigMap
// the way the proxy's store does (a get, a list and watch narrowed to the name,
// a merge patch of one key, and one conditional on the resourceVersion), and
// can neither read another ConfigMap nor create one.
func TestOperatorRBACOnAPIServer(t *testing.T) {
	a := onAPIServer(t)
	ns, _ := a.namespaces(t)
	o := loadManifests(t, "kubernetes/rbac/operator.yaml")
	cm := o.configMaps[0]
	for _, c := range []*corev1.ConfigMap{cm, {ObjectMeta: metav1.ObjectMeta{Name: "someone-elses"}}} {
		if _, err := a.admin.CoreV1().ConfigMaps(ns).Create(a.ctx, c, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create ConfigMap %s: %v", c.Name, err)
		}
	}
	applyRBAC(a.ctx, t, a.admin, o, ns)
	c := a.as(t, ns, a.account.DeepCopy())
	cms := c.CoreV1().ConfigMaps(ns)
	byName := metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", cm.Name).String()}

	waitFor(t, 10*time.Second, func() bool { // the binding reaches the authorizer a little later
		_, err := cms.Get(a.ctx, cm.Name, metav1.GetOptions{})
		return err == nil
	}, func() string { return "the proxy's account cannot get " + cm.Name })
	patched, err := cms.Patch(a.ctx, cm.Name, types.MergePatchType,
		[]byte(`{"data":{"maintenance.play.example.com":"{\"text\":\"back soon\"}"}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("patch %s: %v", cm.Name, err)
	}
	pruning := fmt.Sprintf(`{"metadata":{"resourceVersion":%q},"data":{"maintenance.play.example.com":null}}`, patched.ResourceVersion)
	if _, err := cms.Patch(a.ctx, cm.Name, types.MergePatchType, []byte(pruning), metav1.PatchOptions{}); err != nil {
		t.Errorf("conditional patch %s: %v", cm.Name, err)
	}
	if l, err := cms.List(a.ctx, byName); err != nil || len(l.Items) != 1 {
		t.Errorf("list %s by name: %v (%d items)", cm.Name, err, len(l.Items))
	}
	if w, err := cms.Watch(a.ctx, byName); err != nil {
		t.Errorf("watch %s by name: %v", cm.Name, err)
	} else {
		w.Stop()
	}
	refusedElsewhere(t, a, c, ns)
}

// refusedElsewhere: the operator layer's Role reaches no other ConfigMap, and
// cannot make one.
func refusedElsewhere(t *testing.T, a *apiServer, c *kubernetes.Clientset, ns string) {
	t.Helper()
	cms := c.CoreV1().ConfigMaps(ns)
	_, err := cms.Get(a.ctx, "someone-elses", metav1.GetOptions{})
	refused(t, "get another ConfigMap", err)
	_, err = cms.List(a.ctx, metav1.ListOptions{})
	refused(t, "list every ConfigMap", err)
	_, err = cms.Create(a.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "made-up"}}, metav1.CreateOptions{})
	refused(t, "create a ConfigMap", err)
	_, err = c.CoreV1().Secrets(ns).List(a.ctx, metav1.ListOptions{})
	refused(t, "list secrets", err)
}
