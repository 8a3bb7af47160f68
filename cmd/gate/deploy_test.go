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

// The Dockerfile builds with podman too: every image its default build pulls
// is fully qualified (podman refuses short names without an alias), and its
// header recommends the directory mount that docker.md says keeps reload
// working. A FROM may name a global ARG (resolved to its default), an earlier
// stage, or scratch, which nothing pulls.
func TestDockerfilePortable(t *testing.T) {
	data, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]string{}
	stages := map[string]bool{"scratch": true}
	froms := 0
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) == 2 && strings.EqualFold(f[0], "ARG") && froms == 0 {
			name, def, _ := strings.Cut(f[1], "=")
			args[name] = def
		}
		if len(f) < 2 || !strings.EqualFold(f[0], "FROM") {
			continue
		}
		if strings.HasPrefix(f[1], "--platform") {
			f = f[1:]
		}
		image := os.Expand(f[1], func(k string) string { return args[k] })
		froms++
		known := stages[image]
		if len(f) == 4 && strings.EqualFold(f[2], "AS") {
			stages[f[3]] = true
		}
		if known {
			continue
		}
		registry, _, ok := strings.Cut(image, "/")
		if !ok || !strings.ContainsAny(registry, ".:") && registry != "localhost" {
			t.Errorf("FROM %s: not a fully qualified image name (want registry/name:tag)", image)
		}
	}
	if froms == 0 {
		t.Fatal("no FROM lines")
	}
	if strings.Contains(string(data), ":/etc/gate/config.yml") {
		t.Error("the Dockerfile suggests mounting a single file over /etc/gate/config.yml; docker.md says that breaks reload")
	}
	if !strings.Contains(string(data), `-v "$PWD/gate:/etc/gate:ro"`) {
		t.Error("the Dockerfile header does not show the directory mount docker.md recommends")
	}
}
