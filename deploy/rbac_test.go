package deploy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// discoveryAccess is everything Kubernetes discovery may do: read Services
// and EndpointSlices. Each entry is "group/resource verb".
var discoveryAccess = []string{
	"/services get", "/services list", "/services watch",
	"discovery.k8s.io/endpointslices get", "discovery.k8s.io/endpointslices list", "discovery.k8s.io/endpointslices watch",
}

// wakeScaleAccess is what waking may do to Deployments and StatefulSets:
// read and write their scale subresource, nothing of the objects themselves.
var wakeScaleAccess = []string{
	"apps/deployments/scale get", "apps/deployments/scale update",
	"apps/statefulsets/scale get", "apps/statefulsets/scale update",
}

// wakeLeaseAccess is what waking may do to Leases (in the proxy's namespace).
var wakeLeaseAccess = []string{
	"coordination.k8s.io/leases create", "coordination.k8s.io/leases get", "coordination.k8s.io/leases update",
}

// named keeps the RBAC objects whose name contains part (and drops every
// other kind): the discovery and wake RBAC live side by side.
func (o objects) named(part string) objects {
	return objects{
		clusterRoles:        withName(o.clusterRoles, part),
		clusterRoleBindings: withName(o.clusterRoleBindings, part),
		roles:               withName(o.roles, part),
		roleBindings:        withName(o.roleBindings, part),
	}
}

// withName keeps the objects whose name contains part.
func withName[T interface{ GetName() string }](list []T, part string) []T {
	var out []T
	for _, v := range list {
		if strings.Contains(v.GetName(), part) {
			out = append(out, v)
		}
	}
	return out
}

func (o objects) rbacCount() int {
	return len(o.clusterRoles) + len(o.clusterRoleBindings) + len(o.roles) + len(o.roleBindings)
}

// checkOnlyKnownRBAC fails on RBAC objects that are neither discovery's
// nor waking's.
func checkOnlyKnownRBAC(t *testing.T, o objects) {
	t.Helper()
	known := o.named("-discovery").rbacCount() + o.named("-wake-").rbacCount() + o.named("-operator").rbacCount()
	if n := o.rbacCount(); n != known {
		t.Errorf("%d RBAC objects, only %d of them discovery's, waking's or the operator layer's", n, known)
	}
}

// grants expands rules into sorted "group/resource verb" entries. A rule
// that names resourceNames or non-resource URLs grants something else and
// shows up as such.
func grants(rules []rbacv1.PolicyRule) []string {
	var out []string
	for _, r := range rules {
		if len(r.ResourceNames) > 0 || len(r.NonResourceURLs) > 0 {
			out = append(out, "unexpected resourceNames or nonResourceURLs")
		}
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					out = append(out, g+"/"+res+" "+v)
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// rbacShape says which RBAC a set of manifests should hold.
type rbacShape struct {
	scope     string // "cluster", "namespace" or "" (none)
	account   string // the ServiceAccount's name
	namespace string // the subject's namespace; "" = the binding's own
	// roleBindingNamespace is the subject's namespace in RoleBindings when
	// it differs from namespace (the wake files' cluster shape: the Lease
	// Role's binding needs none, the ClusterRoleBinding must name one).
	roleBindingNamespace *string
}

// checkDiscoveryRBAC checks that o holds exactly the shape's role and binding,
// that the role grants exactly discoveryAccess and that the binding gives it to
// the proxy's service account.
func checkDiscoveryRBAC(t *testing.T, o objects, want rbacShape) {
	t.Helper()
	checkOnlyKnownRBAC(t, o)
	o = o.named("-discovery")
	checkCounts(t, o, "", want.scope, [4]int{1, 1, 0, 0}, [4]int{0, 0, 1, 1})
	var (
		roleName, refKind string
		rules             []rbacv1.PolicyRule
		ref               rbacv1.RoleRef
		subjects          []rbacv1.Subject
	)
	switch want.scope {
	case "":
		return
	case "cluster":
		roleName, refKind, rules = o.clusterRoles[0].Name, "ClusterRole", o.clusterRoles[0].Rules
		ref, subjects = o.clusterRoleBindings[0].RoleRef, o.clusterRoleBindings[0].Subjects
	case "namespace":
		roleName, refKind, rules = o.roles[0].Name, "Role", o.roles[0].Rules
		ref, subjects = o.roleBindings[0].RoleRef, o.roleBindings[0].Subjects
	}
	if got := grants(rules); !slices.Equal(got, discoveryAccess) {
		t.Errorf("%s %s grants %q, want exactly %q", refKind, roleName, got, discoveryAccess)
	}
	checkBinding(t, ref, subjects, refKind, roleName, want)
}

// checkCounts checks how many ClusterRoles, ClusterRoleBindings, Roles and
// RoleBindings (in that order) o holds: cluster or namespace by scope, none
// without one. what starts the failure.
func checkCounts(t *testing.T, o objects, what, scope string, cluster, namespace [4]int) {
	t.Helper()
	counts := [4]int{len(o.clusterRoles), len(o.clusterRoleBindings), len(o.roles), len(o.roleBindings)}
	var want [4]int
	switch scope {
	case "cluster":
		want = cluster
	case "namespace":
		want = namespace
	}
	if counts != want {
		t.Fatalf("%sClusterRoles, ClusterRoleBindings, Roles, RoleBindings = %v, want %v for scope %q", what, counts, want, scope)
	}
}

func checkBinding(t *testing.T, ref rbacv1.RoleRef, subjects []rbacv1.Subject, refKind, roleName string, want rbacShape) {
	t.Helper()
	if ref != (rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: refKind, Name: roleName}) {
		t.Errorf("binding's roleRef = %+v, want %s %s", ref, refKind, roleName)
	}
	wantSubject := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: want.account, Namespace: want.namespace}
	if len(subjects) != 1 || subjects[0] != wantSubject {
		t.Errorf("binding's subjects = %+v, want only %+v", subjects, wantSubject)
	}
}

// checkWakeRBAC checks that o holds exactly the wake RBAC of the shape: the
// scale access in a ClusterRole (cluster) or a Role (namespace), the Lease
// access in a Role either way, each bound to the proxy's service account.
// Leases are namespaced to the proxy in both shapes.
func checkWakeRBAC(t *testing.T, o objects, want rbacShape) {
	t.Helper()
	checkOnlyKnownRBAC(t, o)
	o = o.named("-wake-")
	checkCounts(t, o, "wake ", want.scope, [4]int{1, 1, 1, 1}, [4]int{0, 0, 2, 2})
	if want.scope == "" {
		return
	}
	roles := map[string]rbacv1.RoleRef{} // by name: the kind a binding must refer to
	for _, r := range o.clusterRoles {
		roles[r.Name] = rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: r.Name}
		if got := grants(r.Rules); !slices.Equal(got, wakeScaleAccess) {
			t.Errorf("ClusterRole %s grants %q, want exactly %q", r.Name, got, wakeScaleAccess)
		}
	}
	for _, r := range o.roles {
		roles[r.Name] = rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: r.Name}
		wantGrants := wakeLeaseAccess
		if strings.HasSuffix(r.Name, "-wake-scale") {
			wantGrants = wakeScaleAccess
		} else if !strings.HasSuffix(r.Name, "-wake-leases") {
			t.Errorf("Role %s: want a name ending in -wake-scale or -wake-leases", r.Name)
		}
		if got := grants(r.Rules); !slices.Equal(got, wantGrants) {
			t.Errorf("Role %s grants %q, want exactly %q", r.Name, got, wantGrants)
		}
	}
	for _, b := range o.clusterRoleBindings {
		checkBinding(t, b.RoleRef, b.Subjects, "ClusterRole", b.Name, want)
		delete(roles, b.RoleRef.Name)
	}
	for _, b := range o.roleBindings {
		// A RoleBinding may name a ClusterRole, and it would then grant the
		// scale in the proxy's namespace only: the shapes never do that.
		w := want
		if want.roleBindingNamespace != nil {
			w.namespace = *want.roleBindingNamespace
		}
		checkBinding(t, b.RoleRef, b.Subjects, "Role", b.Name, w)
		delete(roles, b.RoleRef.Name)
	}
	if len(roles) != 0 {
		t.Errorf("roles without a binding: %v", roles)
	}
}

// TestRBACShapes checks the two files an operator chooses between: each
// decodes strictly, grants read access to Services and EndpointSlices and
// nothing else, and binds it to the base manifests' ServiceAccount.
func TestRBACShapes(t *testing.T) {
	base := loadManifests(t, "kubernetes/*.yaml")
	if len(base.serviceAccounts) != 1 {
		t.Fatalf("want one ServiceAccount in the base manifests, got %d", len(base.serviceAccounts))
	}
	account := base.serviceAccounts[0].Name
	tests := []struct {
		file string
		want rbacShape
	}{
		// A ClusterRoleBinding must name the account's namespace.
		{"kubernetes/rbac/cluster.yaml", rbacShape{scope: "cluster", account: account, namespace: "default"}},
		// A RoleBinding's subject without a namespace is the binding's own
		// namespace, so the file works in whichever one it is applied to.
		{"kubernetes/rbac/namespace.yaml", rbacShape{scope: "namespace", account: account}},
	}
	for _, tt := range tests {
		t.Run(tt.want.scope, func(t *testing.T) {
			o := loadManifests(t, tt.file)
			if n := len(o.deployments) + len(o.services) + len(o.configMaps) + len(o.pdbs) + len(o.serviceAccounts); n != 0 {
				t.Errorf("%d non-RBAC objects in %s", n, tt.file)
			}
			checkDiscoveryRBAC(t, o, tt.want)
			checkWakeRBAC(t, o, rbacShape{})
		})
	}
}

// TestWakeRBACShapes checks the two wake files: each grants the scale
// subresource's get and update (cluster-wide or in one namespace) and the
// Leases' get, create and update in the proxy's namespace, and nothing else.
func TestWakeRBACShapes(t *testing.T) {
	account := loadManifests(t, "kubernetes/serviceaccount.yaml").serviceAccounts[0].Name
	for _, tt := range []struct {
		file string
		want rbacShape
	}{
		{"kubernetes/rbac/wake-cluster.yaml", rbacShape{scope: "cluster", account: account, namespace: "default", roleBindingNamespace: new("")}},
		{"kubernetes/rbac/wake-namespace.yaml", rbacShape{scope: "namespace", account: account}},
	} {
		t.Run(tt.want.scope, func(t *testing.T) {
			o := loadManifests(t, tt.file)
			if n := len(o.deployments) + len(o.services) + len(o.configMaps) + len(o.pdbs) + len(o.serviceAccounts); n != 0 {
				t.Errorf("%d non-RBAC objects in %s", n, tt.file)
			}
			checkDiscoveryRBAC(t, o, rbacShape{})
			checkWakeRBAC(t, o, tt.want)
		})
	}
}

func TestGrantsSeesExtraAccess(t *testing.T) {
	rules := []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"services", "secrets"}, Verbs: []string{"get"}},
	}
	if got := grants(rules); !slices.Contains(got, "/secrets get") {
		t.Fatalf("grants(%v) = %q: the extra secret access is invisible", rules, got)
	}
}

// operatorAccess is all the operator layer's Role may do, and only to its one
// ConfigMap: read, watch and write it back; it cannot create ConfigMaps.
var operatorAccess = []string{"/configmaps get", "/configmaps list", "/configmaps patch", "/configmaps watch"}

// checkOperatorRBAC checks that o holds the operator layer's ConfigMap cm (none
// when cm is "") and a Role and RoleBinding that reach it and nothing else,
// bound to the proxy's service account.
func checkOperatorRBAC(t *testing.T, o objects, cm string, want rbacShape) {
	t.Helper()
	checkOnlyKnownRBAC(t, o)
	var cms []string
	for _, c := range o.configMaps {
		if strings.HasSuffix(c.Name, "-operator") {
			cms = append(cms, c.Name)
		}
	}
	o = o.named("-operator")
	if cm == "" {
		if len(cms)+o.rbacCount() != 0 {
			t.Errorf("operator ConfigMaps %v and %d RBAC objects, want none", cms, o.rbacCount())
		}
		return
	}
	if !slices.Equal(cms, []string{cm}) || len(o.roles) != 1 || len(o.roleBindings) != 1 || len(o.clusterRoles)+len(o.clusterRoleBindings) != 0 {
		t.Fatalf("operator ConfigMaps %v, %d Roles, %d RoleBindings, %d cluster-wide; want ConfigMap %s, one Role and its binding",
			cms, len(o.roles), len(o.roleBindings), len(o.clusterRoles)+len(o.clusterRoleBindings), cm)
	}
	r := o.roles[0]
	var got []string
	for _, rule := range r.Rules {
		if !slices.Equal(rule.ResourceNames, []string{cm}) {
			t.Errorf("Role %s: a rule reaches %v, want only %s", r.Name, rule.ResourceNames, cm)
		}
		rule.ResourceNames = nil
		got = append(got, grants([]rbacv1.PolicyRule{rule})...)
	}
	if slices.Sort(got); !slices.Equal(got, operatorAccess) {
		t.Errorf("Role %s grants %q, want exactly %q", r.Name, got, operatorAccess)
	}
	checkBinding(t, o.roleBindings[0].RoleRef, o.roleBindings[0].Subjects, "Role", r.Name, want)
}

// TestOperatorRBAC checks the plain file: the ConfigMap the shipped config
// names, and a Role on that one object bound to the ServiceAccount.
func TestOperatorRBAC(t *testing.T) {
	account := loadManifests(t, "kubernetes/serviceaccount.yaml").serviceAccounts[0].Name
	o := loadManifests(t, "kubernetes/rbac/operator.yaml")
	checkOperatorRBAC(t, o, shippedOperatorConfigMap(t), rbacShape{account: account})
	checkDiscoveryRBAC(t, o, rbacShape{})
	checkWakeRBAC(t, o, rbacShape{})
}

// shippedOperatorConfigMap is config.lite.operator.configMap in the repository's
// config.yml, which states the default.
func shippedOperatorConfigMap(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "config.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Config struct {
			Lite struct {
				Operator struct {
					ConfigMap string `json:"configMap"`
				} `json:"operator"`
			} `json:"lite"`
		} `json:"config"`
	}
	if err := yaml.Unmarshal(data, &c); err != nil || c.Config.Lite.Operator.ConfigMap == "" {
		t.Fatalf("config.yml: no config.lite.operator.configMap (%v)", err)
	}
	return c.Config.Lite.Operator.ConfigMap
}
