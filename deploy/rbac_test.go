package deploy

import (
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

// discoveryAccess is everything Kubernetes discovery may do: read Services
// and EndpointSlices. Each entry is "group/resource verb".
var discoveryAccess = []string{
	"/services get", "/services list", "/services watch",
	"discovery.k8s.io/endpointslices get", "discovery.k8s.io/endpointslices list", "discovery.k8s.io/endpointslices watch",
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
}

// checkDiscoveryRBAC checks that o holds exactly the shape's role and binding,
// that the role grants exactly discoveryAccess and that the binding gives it to
// the proxy's service account.
func checkDiscoveryRBAC(t *testing.T, o objects, want rbacShape) {
	t.Helper()
	counts := [4]int{len(o.clusterRoles), len(o.clusterRoleBindings), len(o.roles), len(o.roleBindings)}
	var wantCounts [4]int
	switch want.scope {
	case "cluster":
		wantCounts = [4]int{1, 1, 0, 0}
	case "namespace":
		wantCounts = [4]int{0, 0, 1, 1}
	}
	if counts != wantCounts {
		t.Fatalf("ClusterRoles, ClusterRoleBindings, Roles, RoleBindings = %v, want %v for scope %q", counts, wantCounts, want.scope)
	}
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
	if ref != (rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: refKind, Name: roleName}) {
		t.Errorf("binding's roleRef = %+v, want %s %s", ref, refKind, roleName)
	}
	wantSubject := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: want.account, Namespace: want.namespace}
	if len(subjects) != 1 || subjects[0] != wantSubject {
		t.Errorf("binding's subjects = %+v, want only %+v", subjects, wantSubject)
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
