package kubernetes

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/engine/kube"
)

// kubeconfigText is a kubeconfig naming a server nobody contacts: Check never
// talks to it.
const kubeconfigText = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:1
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
users:
- name: u
  user: {token: t}
`

func TestCheckResolvesKubeconfig(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(file, []byte(kubeconfigText), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	// Outside a cluster, whatever runs the test.
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")

	tests := []struct {
		name    string
		cfg     config.KubernetesDiscovery
		env     string
		wantErr string
	}{
		{name: "configured file", cfg: config.KubernetesDiscovery{Kubeconfig: file}},
		{name: "configured file beats $KUBECONFIG", cfg: config.KubernetesDiscovery{Kubeconfig: file}, env: missing},
		{name: "configured file missing", cfg: config.KubernetesDiscovery{Kubeconfig: missing}, wantErr: "load kubeconfig " + missing},
		{name: "$KUBECONFIG", env: file},
		{name: "$KUBECONFIG missing", env: missing, wantErr: "$KUBECONFIG"},
		{name: "nothing at all", wantErr: kube.ErrNoKubeconfig.Error()},
		{name: "bad selector", cfg: config.KubernetesDiscovery{Kubeconfig: file, LabelSelector: "a in (b"}, wantErr: "labelSelector"},
		{name: "selector", cfg: config.KubernetesDiscovery{Kubeconfig: file, LabelSelector: "app=mc,tier!=test"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", tt.env)
			err := Check(tt.cfg)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Check: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Check: %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestRunFailsAtStartWithoutKubeconfig(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBECONFIG", "")
	err := New(config.KubernetesDiscovery{}, testLogger(t), Options{}).Run(t.Context(), &recordingSink{})
	if !errors.Is(err, kube.ErrNoKubeconfig) {
		t.Fatalf("Run: %v, want %v", err, kube.ErrNoKubeconfig)
	}
}
