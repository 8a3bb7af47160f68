package kubewake

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"go.minekube.com/gate/internal/enginetest"
	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/wake"
)

// wakeRBACFile is the namespaced wake RBAC the project ships.
var wakeRBACFile = filepath.Join("..", "..", "..", "..", "deploy", "kubernetes", "rbac", "wake-namespace.yaml")

// loadWakeRBAC decodes the shipped file's Roles and RoleBindings.
func loadWakeRBAC(t *testing.T) ([]*rbacv1.Role, []*rbacv1.RoleBinding) {
	t.Helper()
	f, err := os.Open(wakeRBACFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var roles []*rbacv1.Role
	var bindings []*rbacv1.RoleBinding
	dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("%s: %v", wakeRBACFile, err)
		}
		var meta metav1.TypeMeta
		if err := json.Unmarshal(raw, &meta); err != nil {
			t.Fatal(err)
		}
		switch meta.Kind {
		case "Role":
			r := &rbacv1.Role{}
			if err := json.Unmarshal(raw, r); err != nil {
				t.Fatal(err)
			}
			roles = append(roles, r)
		case "RoleBinding":
			b := &rbacv1.RoleBinding{}
			if err := json.Unmarshal(raw, b); err != nil {
				t.Fatal(err)
			}
			bindings = append(bindings, b)
		default:
			t.Fatalf("%s: unexpected kind %q", wakeRBACFile, meta.Kind)
		}
	}
	return roles, bindings
}

// bindWakeRBAC creates the shipped wake Roles in ns and binds them to user.
func (e *kubeEnv) bindWakeRBAC(t *testing.T, ns, user string) {
	t.Helper()
	roles, bindings := loadWakeRBAC(t)
	for _, r := range roles {
		if _, err := e.admin.RbacV1().Roles(ns).Create(t.Context(), r, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create role %s: %v", r.Name, err)
		}
	}
	for _, b := range bindings {
		b.Subjects = []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}
		if _, err := e.admin.RbacV1().RoleBindings(ns).Create(t.Context(), b, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create role binding %s: %v", b.Name, err)
		}
	}
}

// The engine's second kubeconfig (user gate-tester, no bindings of its own)
// bound by the shipped wake Roles is enough for everything this package
// does, and not for changing a workload any other way.
func TestLimitedKubeconfigWakesWithShippedRBAC(t *testing.T) {
	e := newKubeEnv(t)
	limitedCfg := e.kube.Limited(t)
	ns := e.namespace(t)
	spec := e.workload(t, ns, "statefulset", "survival", 0)

	c := e.client(t, limitedCfg)
	tg := newTarget(t, c, spec)
	if _, err := tg.Running(t.Context()); !apierrors.IsForbidden(err) {
		t.Fatalf("before any binding: err = %v, want Forbidden", err)
	}
	e.bindWakeRBAC(t, ns, "gate-tester")
	// Bindings reach the authorizer a little after their create returns.
	mctest.WaitFor(t, "the bindings to take effect", 10*time.Second, func() bool {
		_, err := tg.Running(t.Context())
		return err == nil
	})

	if _, err := tg.Wake(t.Context(), wake.Request{}); err != nil {
		t.Fatalf("wake: %v", err)
	}
	if !running(t, tg) || e.observe(t, spec).replicas != 1 {
		t.Fatal("not running after the wake")
	}
	clock := mctest.NewClock(time.Now())
	a, b := newHolders(t, c, ns, "gate-a", clock), newHolders(t, c, ns, "gate-b", clock)
	must(t, a.Woke(t.Context(), testKey))
	must(t, b.Hold(t.Context(), testKey, 1))
	if claim(t, a) {
		t.Fatal("A claimed while B holds")
	}
	must(t, b.Hold(t.Context(), testKey, 0))
	if !claim(t, a) {
		t.Fatal("A could not claim after B let go")
	}
	if err := tg.Sleep(t.Context(), wake.Request{}); err != nil {
		t.Fatalf("sleep: %v", err)
	}
	if got := e.observe(t, spec).replicas; got != 0 {
		t.Fatalf("replicas %d after sleep, want 0", got)
	}

	limited := enginetest.Clientset(t, limitedCfg)
	_, err := limited.AppsV1().StatefulSets(ns).Patch(t.Context(), "survival", types.MergePatchType,
		[]byte(`{"spec":{"replicas":5}}`), metav1.PatchOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("patch the statefulset's replicas: err = %v, want Forbidden", err)
	}
	if err := limited.CoordinationV1().Leases(ns).Delete(t.Context(), LeaseName(testKey), metav1.DeleteOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("delete the lease: err = %v, want Forbidden", err)
	}
	other := e.namespace(t)
	otherSpec := e.workload(t, other, "deployment", "mc", 0)
	if _, err := newTarget(t, c, otherSpec).Wake(t.Context(), wake.Request{}); !apierrors.IsForbidden(err) {
		t.Errorf("wake in a namespace without the Roles: err = %v, want Forbidden", err)
	}
	if got := e.observe(t, otherSpec).replicas; got != 0 {
		t.Errorf("replicas %d in the other namespace, want 0", got)
	}
}
