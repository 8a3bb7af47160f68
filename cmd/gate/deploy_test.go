package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/admin"
)

// TestShippedConfigs loads the configs that ship outside config.yml (the
// container image's default and the Kubernetes ConfigMap) with the real parser,
// and checks that the admin API in each would start.
func TestShippedConfigs(t *testing.T) {
	cm, err := os.ReadFile("../../deploy/kubernetes/configmap.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Data map[string]string `yaml:"data"`
	}
	if err := yaml.Unmarshal(cm, &m); err != nil {
		t.Fatal(err)
	}
	image, err := os.ReadFile("../../deploy/docker/config.yml")
	if err != nil {
		t.Fatal(err)
	}
	// The Secret is mounted in the cluster; stand in for it.
	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, src string
	}{
		{"container image default", string(image)},
		{"kubernetes configmap", strings.ReplaceAll(m.Data["config.yml"], "/var/run/secrets/gate/token", token)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, warns, err := config.Parse([]byte(tt.src), tt.name)
			if err != nil {
				t.Fatal(err)
			}
			if len(warns) > 0 {
				t.Fatalf("warnings: %v", warns)
			}
			if !cfg.API.Enabled {
				t.Fatal("the API is off: the health checks need it")
			}
			tok, err := apiToken(cfg.API)
			if err != nil {
				t.Fatal(err)
			}
			if err := admin.CheckBind(cfg.API.Bind, tok); err != nil {
				t.Fatal(err)
			}
		})
	}
}
