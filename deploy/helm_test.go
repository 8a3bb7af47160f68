package deploy

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	"sigs.k8s.io/yaml"
)

const chartDir = "helm/gate"

// renderChart renders the chart as `helm template` would for a release named
// "gate" in namespace, and decodes the result strictly.
func renderChart(t *testing.T, values map[string]any, namespace string) objects {
	t.Helper()
	out, err := tryRender(values, namespace)
	if err != nil {
		t.Fatal(err)
	}
	var o objects
	names := make([]string, 0, len(out))
	for name := range out {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if strings.HasSuffix(name, "NOTES.txt") {
			continue
		}
		o.decodeAll(t, name, []byte(out[name]))
	}
	return o
}

func tryRender(values map[string]any, namespace string) (map[string]string, error) {
	ch, err := loader.Load(chartDir)
	if err != nil {
		return nil, err
	}
	opts := chartutil.ReleaseOptions{Name: "gate", Namespace: namespace, Revision: 1, IsInstall: true}
	vals, err := chartutil.ToRenderValues(ch, values, opts, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	// Strict: a template that reads a value the chart does not define fails.
	return engine.Engine{Strict: true}.Render(ch, vals)
}

func discoveryValues(scope string) map[string]any {
	return map[string]any{"discovery": map[string]any{"kubernetes": map[string]any{"enabled": true, "scope": scope}}}
}

func wakeValues(scope string) map[string]any {
	return map[string]any{"wake": map[string]any{"kubernetes": map[string]any{"enabled": true, "scope": scope}}}
}

// configOf parses the config.yml a ConfigMap carries.
func configOf(t *testing.T, o objects) map[string]any {
	t.Helper()
	if o = o.withoutOperatorLayer(); len(o.configMaps) != 1 {
		t.Fatalf("want one ConfigMap, got %d", len(o.configMaps))
	}
	var cfg map[string]any
	if err := yaml.Unmarshal([]byte(o.configMaps[0].Data["config.yml"]), &cfg); err != nil {
		t.Fatalf("config.yml: %v", err)
	}
	return cfg
}

// The chart's defaults install what the plain manifests do, without any
// RBAC; the config is the plain ConfigMap's (which cmd/gate parses with the
// real parser), so the chart's default config is checked by that test too.
func TestChartDefaultsMatchPlainManifests(t *testing.T) {
	o := renderChart(t, nil, "games")
	checkBase(t, o)
	checkDiscoveryRBAC(t, o, rbacShape{})
	checkWakeRBAC(t, o, rbacShape{})
	checkOperatorRBAC(t, o, "", rbacShape{})
	plain := loadManifests(t, "kubernetes/configmap.yaml")
	if got, want := configOf(t, o), configOf(t, plain); !reflect.DeepEqual(got, want) {
		t.Errorf("chart config.yml = %v\nwant the plain ConfigMap's %v", got, want)
	}
	if sa := o.serviceAccounts[0]; sa.AutomountServiceAccountToken == nil || *sa.AutomountServiceAccountToken {
		t.Errorf("without discovery the pods need no API token; automountServiceAccountToken = %v", sa.AutomountServiceAccountToken)
	}
}

// With discovery on, values choose the RBAC shape, and the config watches
// either every namespace or only the release's.
func TestChartDiscoveryShapes(t *testing.T) {
	for _, scope := range []string{"cluster", "namespace"} {
		t.Run(scope, func(t *testing.T) {
			o := renderChart(t, discoveryValues(scope), "games")
			checkBase(t, o)
			checkDiscoveryRBAC(t, o, rbacShape{scope: scope, account: o.serviceAccounts[0].Name, namespace: "games"})
			checkOperatorRBAC(t, o, "gate-operator", rbacShape{account: o.serviceAccounts[0].Name, namespace: "games"})
			kube := map[string]any{"enabled": true}
			if scope == "namespace" {
				kube["namespace"] = "games"
			}
			cfg := configOf(t, o)
			lite, _ := cfg["config"].(map[string]any)["lite"].(map[string]any)
			disc, _ := lite["discovery"].(map[string]any)
			if !reflect.DeepEqual(disc["kubernetes"], kube) {
				t.Errorf("lite.discovery.kubernetes = %v, want %v", disc["kubernetes"], kube)
			}
			if op, _ := lite["operator"].(map[string]any); op["configMap"] != "gate-operator" {
				t.Errorf("lite.operator = %v, want the chart's ConfigMap gate-operator", lite["operator"])
			}
			if len(lite["routes"].([]any)) != 2 {
				t.Errorf("the file's routes were lost: %v", lite["routes"])
			}
			if sa := o.serviceAccounts[0]; sa.AutomountServiceAccountToken == nil || !*sa.AutomountServiceAccountToken {
				t.Errorf("discovery needs the token; automountServiceAccountToken = %v", sa.AutomountServiceAccountToken)
			}
		})
	}
}

func TestChartRBACOffLeavesDiscoveryOn(t *testing.T) {
	vals := discoveryValues("cluster")
	vals["rbac"] = map[string]any{"create": false}
	vals["wake"] = wakeValues("cluster")["wake"]
	o := renderChart(t, vals, "games")
	checkDiscoveryRBAC(t, o, rbacShape{})
	checkWakeRBAC(t, o, rbacShape{})
}

// With waking on, values choose where targets may be; the Leases are in the
// release's namespace either way. Waking needs the token even without
// discovery (routes from the file may name targets).
func TestChartWakeShapes(t *testing.T) {
	for _, scope := range []string{"cluster", "namespace"} {
		t.Run(scope, func(t *testing.T) {
			o := renderChart(t, wakeValues(scope), "games")
			checkBase(t, o)
			account := o.serviceAccounts[0].Name
			checkDiscoveryRBAC(t, o, rbacShape{})
			checkWakeRBAC(t, o, rbacShape{scope: scope, account: account, namespace: "games"})
			if sa := o.serviceAccounts[0]; sa.AutomountServiceAccountToken == nil || !*sa.AutomountServiceAccountToken {
				t.Errorf("waking needs the token; automountServiceAccountToken = %v", sa.AutomountServiceAccountToken)
			}

			vals := discoveryValues("namespace")
			vals["wake"] = wakeValues(scope)["wake"]
			o = renderChart(t, vals, "games")
			checkDiscoveryRBAC(t, o, rbacShape{scope: "namespace", account: account, namespace: "games"})
			checkWakeRBAC(t, o, rbacShape{scope: scope, account: account, namespace: "games"})
		})
	}
	_, err := tryRender(wakeValues("everywhere"), "games")
	if err == nil || !strings.Contains(err.Error(), `wake.kubernetes.scope: unknown "everywhere"`) {
		t.Fatalf("render error = %v, want one naming the value and the allowed ones", err)
	}
}

func TestChartRejectsUnknownScope(t *testing.T) {
	_, err := tryRender(discoveryValues("everywhere"), "games")
	if err == nil || !strings.Contains(err.Error(), `discovery.kubernetes.scope: unknown "everywhere"`) {
		t.Fatalf("render error = %v, want one naming the value and the allowed ones", err)
	}
}

// TestChartLint runs `helm lint --strict` through Helm's library, so CI needs
// no helm binary.
func TestChartLint(t *testing.T) {
	for _, tt := range []struct {
		name   string
		values map[string]any
	}{
		{"defaults", nil},
		{"cluster discovery", discoveryValues("cluster")},
		{"namespace discovery", discoveryValues("namespace")},
		{"cluster wake", wakeValues("cluster")},
		{"namespace wake", wakeValues("namespace")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := lint.All(chartDir, tt.values, "games", true)
			for _, m := range l.Messages {
				if m.Severity >= support.WarningSev {
					t.Errorf("%s", m)
				} else {
					t.Logf("%s", m)
				}
			}
		})
	}
}
