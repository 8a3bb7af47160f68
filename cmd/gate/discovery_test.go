package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateChecksDiscoverySources(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yml")
	writeFile(t, path, `config:
  lite:
    enabled: true
    discovery:
      kubernetes: {enabled: true, kubeconfig: missing-kubeconfig.yaml}
      docker: {enabled: true, host: 'ftp://docker.invalid'}
`)
	var out, errOut bytes.Buffer
	if code := run([]string{"validate", "--config", path}, &out, &errOut); code != 1 {
		t.Fatalf("validate = %d, want 1:\n%s%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{
		path + ": config.lite.discovery.kubernetes: ",
		"missing-kubeconfig.yaml",
		path + ": config.lite.discovery.docker: ",
		"ftp://docker.invalid",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("validate output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestValidateAcceptsDiscoveryWithoutFileRoutes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yml")
	writeFile(t, filepath.Join(dir, "kubeconfig"), `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`)
	writeFile(t, path, `config:
  lite:
    enabled: true
    discovery:
      kubernetes: {enabled: true, kubeconfig: kubeconfig, labelSelector: "app=minecraft"}
`)
	var out, errOut bytes.Buffer
	if code := run([]string{"validate", "--config", path}, &out, &errOut); code != 0 {
		t.Fatalf("validate = %d:\n%s%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "ok (0 routes") {
		t.Fatalf("validate output:\n%s", out.String())
	}
}
