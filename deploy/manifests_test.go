// Package deploy checks the Kubernetes manifests and the Helm chart: every
// document decodes strictly (no unknown or misspelled field) into its
// k8s.io/api type, and the pieces fit together (labels, ports, probes, the
// config mount, the discovery and wake RBAC). Against a real API server it
// also proves that the RBAC shapes grant what discovery and waking need and
// nothing more. It is a
// module of its own so that the proxy's module depends neither on k8s.io/api
// nor on Helm.
package deploy

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// objects holds every decoded manifest by kind.
type objects struct {
	deployments []*appsv1.Deployment
	services    []*corev1.Service
	configMaps  []*corev1.ConfigMap
	pdbs        []*policyv1.PodDisruptionBudget
	netpols     []*networkingv1.NetworkPolicy

	serviceAccounts     []*corev1.ServiceAccount
	roles               []*rbacv1.Role
	roleBindings        []*rbacv1.RoleBinding
	clusterRoles        []*rbacv1.ClusterRole
	clusterRoleBindings []*rbacv1.ClusterRoleBinding
}

// loadManifests decodes the files a glob matches, all into one set.
func loadManifests(t *testing.T, glob string) objects {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests match %s: %v", glob, err)
	}
	var o objects
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		o.decodeAll(t, f, data)
	}
	return o
}

// decodeAll decodes every document of one file (or rendered template).
func (o *objects) decodeAll(t *testing.T, name string, data []byte) {
	t.Helper()
	for i, doc := range splitDocuments(data) {
		if err := o.decode(doc); err != nil {
			t.Errorf("%s document %d: %v", name, i+1, err)
		}
	}
}

// splitDocuments splits a multi-document YAML file on "---" lines.
func splitDocuments(data []byte) [][]byte {
	var docs [][]byte
	for _, d := range bytes.Split(append([]byte("\n"), data...), []byte("\n---")) {
		if len(bytes.TrimSpace(stripComments(d))) > 0 {
			docs = append(docs, d)
		}
	}
	return docs
}

func stripComments(d []byte) []byte {
	var out [][]byte
	for _, l := range bytes.Split(d, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(l), []byte("#")) {
			out = append(out, l)
		}
	}
	return bytes.Join(out, []byte("\n"))
}

type unknownKindError string

func (e unknownKindError) Error() string { return "no check for kind " + string(e) }

// decoders make, per "apiVersion kind", a new object of that type in its list.
var decoders = map[string]func(o *objects) any{
	"apps/v1 Deployment":                              func(o *objects) any { return add(&o.deployments) },
	"v1 Service":                                      func(o *objects) any { return add(&o.services) },
	"v1 ConfigMap":                                    func(o *objects) any { return add(&o.configMaps) },
	"policy/v1 PodDisruptionBudget":                   func(o *objects) any { return add(&o.pdbs) },
	"networking.k8s.io/v1 NetworkPolicy":              func(o *objects) any { return add(&o.netpols) },
	"v1 ServiceAccount":                               func(o *objects) any { return add(&o.serviceAccounts) },
	"rbac.authorization.k8s.io/v1 Role":               func(o *objects) any { return add(&o.roles) },
	"rbac.authorization.k8s.io/v1 RoleBinding":        func(o *objects) any { return add(&o.roleBindings) },
	"rbac.authorization.k8s.io/v1 ClusterRole":        func(o *objects) any { return add(&o.clusterRoles) },
	"rbac.authorization.k8s.io/v1 ClusterRoleBinding": func(o *objects) any { return add(&o.clusterRoleBindings) },
}

// add appends a new zero object to list and returns it.
func add[T any](list *[]*T) *T {
	v := new(T)
	*list = append(*list, v)
	return v
}

// decode reads the kind and decodes the document strictly into its type.
func (o *objects) decode(doc []byte) error {
	var meta struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(doc, &meta); err != nil {
		return err
	}
	kind := meta.APIVersion + " " + meta.Kind
	mk, ok := decoders[kind]
	if !ok {
		return unknownKindError(kind)
	}
	return yaml.UnmarshalStrict(doc, mk(o))
}

func TestStrictDecodeRejectsTypos(t *testing.T) {
	var o objects
	doc := []byte("apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec:\n  tpye: LoadBalancer\n")
	if err := o.decode(doc); err == nil || !strings.Contains(err.Error(), "tpye") {
		t.Fatalf("a misspelled field decoded: %v", err)
	}
}

func TestManifests(t *testing.T) {
	o := loadManifests(t, "kubernetes/*.yaml")
	// The RBAC lives in rbac/, one file per shape, so that
	// `kubectl apply -f deploy/kubernetes/` never applies both.
	if n := len(o.roles) + len(o.roleBindings) + len(o.clusterRoles) + len(o.clusterRoleBindings); n != 0 {
		t.Errorf("%d RBAC objects among the base manifests; they belong in rbac/", n)
	}
	checkBase(t, o)
}

// withoutOperatorLayer is o without the operator layer's ConfigMap, which comes
// with its RBAC (checkOperatorRBAC), not with every install.
func (o objects) withoutOperatorLayer() objects {
	o.configMaps = slices.DeleteFunc(slices.Clone(o.configMaps), func(cm *corev1.ConfigMap) bool {
		return strings.HasSuffix(cm.Name, "-operator")
	})
	return o
}

// checkBase checks the objects every install has, from the plain manifests
// or from the chart.
func checkBase(t *testing.T, o objects) {
	t.Helper()
	o = o.withoutOperatorLayer()
	if len(o.deployments) != 1 || len(o.services) != 1 || len(o.configMaps) != 1 || len(o.pdbs) != 1 || len(o.serviceAccounts) != 1 {
		t.Fatalf("want one Deployment, Service, ConfigMap, PodDisruptionBudget and ServiceAccount; got %d, %d, %d, %d, %d",
			len(o.deployments), len(o.services), len(o.configMaps), len(o.pdbs), len(o.serviceAccounts))
	}
	d, svc, cm, pdb := o.deployments[0], o.services[0], o.configMaps[0], o.pdbs[0]
	checkDeployment(t, d, cm)
	if got, want := d.Spec.Template.Spec.ServiceAccountName, o.serviceAccounts[0].Name; got != want {
		t.Errorf("Deployment runs as service account %q, want %q", got, want)
	}
	labels := d.Spec.Template.Labels
	if !selects(svc.Spec.Selector, labels) {
		t.Errorf("Service selector %v does not select the pods %v", svc.Spec.Selector, labels)
	}
	if pdb.Spec.Selector == nil || !selects(pdb.Spec.Selector.MatchLabels, labels) {
		t.Errorf("PodDisruptionBudget selector does not select the pods %v", labels)
	}
	if pdb.Spec.MinAvailable == nil || pdb.Spec.MinAvailable.IntValue() < 1 {
		t.Errorf("PodDisruptionBudget minAvailable = %v, want >= 1", pdb.Spec.MinAvailable)
	}
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer || len(svc.Spec.Ports) != 1 ||
		svc.Spec.Ports[0].Port != 25565 || svc.Spec.Ports[0].TargetPort != intstr.FromString("minecraft") {
		t.Errorf("Service: want LoadBalancer on 25565 to the minecraft port, got %+v", svc.Spec)
	}
	if _, ok := cm.Data["config.yml"]; !ok {
		t.Errorf("ConfigMap has no config.yml")
	}
	checkNetworkPolicy(t, o.netpols, labels)
}

func checkDeployment(t *testing.T, d *appsv1.Deployment, cm *corev1.ConfigMap) {
	t.Helper()
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
		t.Errorf("replicas = %v, want 2", d.Spec.Replicas)
	}
	if !selects(d.Spec.Selector.MatchLabels, d.Spec.Template.Labels) {
		t.Errorf("Deployment selector does not select its own pods")
	}
	ann := d.Spec.Template.Annotations
	if ann["prometheus.io/scrape"] != "true" || ann["prometheus.io/port"] != "8080" || ann["prometheus.io/path"] != "/metrics" {
		t.Errorf("Prometheus scrape annotations = %v", ann)
	}
	if len(d.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("want one container")
	}
	c := d.Spec.Template.Spec.Containers[0]
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if ports["minecraft"] != 25565 || ports["api"] != 8080 || ports["probes"] != 8081 {
		t.Errorf("container ports = %v, want minecraft 25565, api 8080 and probes 8081", ports)
	}
	checkAPIListeners(t, ports, cm)
	// A locally loaded image (kind, minikube) only works when the kubelet does
	// not insist on pulling it.
	if c.ImagePullPolicy != corev1.PullIfNotPresent {
		t.Errorf("imagePullPolicy = %q, want IfNotPresent", c.ImagePullPolicy)
	}
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Sleep == nil || c.Lifecycle.PreStop.Sleep.Seconds < 1 {
		t.Errorf("preStop = %+v, want a sleep of at least 1s", c.Lifecycle)
	}
	checkProbe(t, "readiness", c.ReadinessProbe, "/readyz")
	checkProbe(t, "liveness", c.LivenessProbe, "/healthz")
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
		t.Errorf("resource requests = %v, want cpu and memory", c.Resources.Requests)
	}
	checkConfigMount(t, d, c, cm)
}

// checkProbe requires the probe on the probes port: on the API's, any client of the
// API (idle connections, slow requests) competes with the kubelet for its slots.
func checkProbe(t *testing.T, name string, p *corev1.Probe, path string) {
	t.Helper()
	if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != path || p.HTTPGet.Port != intstr.FromString("probes") {
		t.Errorf("%s probe = %+v, want GET %s on the probes port", name, p, path)
	}
}

// checkAPIListeners ties the container's api and probes ports to the listeners the
// config binds (api.bind, api.probeBind): a probe aimed at a port nothing serves
// would restart every pod.
func checkAPIListeners(t *testing.T, ports map[string]int32, cm *corev1.ConfigMap) {
	t.Helper()
	var cfg struct {
		API struct{ Bind, ProbeBind string } `json:"api"`
	}
	if err := yaml.Unmarshal([]byte(cm.Data["config.yml"]), &cfg); err != nil {
		t.Fatalf("config.yml: %v", err)
	}
	for _, l := range []struct{ key, bind, port string }{
		{"api.bind", cfg.API.Bind, "api"},
		{"api.probeBind", cfg.API.ProbeBind, "probes"},
	} {
		if want := fmt.Sprintf("0.0.0.0:%d", ports[l.port]); l.bind != want {
			t.Errorf("%s = %q, want %s (the pod IP, the container's %s port)", l.key, l.bind, want, l.port)
		}
	}
}

// checkConfigMount requires the ConfigMap mounted as a directory: a subPath
// mount is a copy that never sees updates, so reload would never fire.
func checkConfigMount(t *testing.T, d *appsv1.Deployment, c corev1.Container, cm *corev1.ConfigMap) {
	t.Helper()
	vol := ""
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.ConfigMap != nil && v.ConfigMap.Name == cm.Name {
			vol = v.Name
		}
	}
	if vol == "" {
		t.Fatalf("no volume from ConfigMap %s", cm.Name)
	}
	for _, m := range c.VolumeMounts {
		if m.Name != vol {
			continue
		}
		if m.SubPath != "" {
			t.Errorf("ConfigMap mounted with subPath %q: updates would never reach the proxy", m.SubPath)
		}
		want := filepath.Join(m.MountPath, "config.yml")
		if !strings.Contains(strings.Join(c.Args, " "), "--config "+want) {
			t.Errorf("args %v do not point --config at %s", c.Args, want)
		}
		return
	}
	t.Errorf("ConfigMap volume %s is not mounted", vol)
}

func selects(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}
