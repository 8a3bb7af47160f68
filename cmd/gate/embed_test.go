package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The module dependency docs/lite/embedding.md describes works: a module of
// its own requires go.minekube.com/gate, replaces it with this checkout and
// builds a program that embeds the proxy. Offline: the module cache and this
// module's go.sum provide everything.
func TestExternalModuleDependsOnThisOne(t *testing.T) {
	if testing.Short() {
		t.Skip("builds another module")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod": "module example.com/mylobby\n\ngo 1.26.0\n\nrequire go.minekube.com/gate v0.0.0\n\nreplace go.minekube.com/gate => " + root + "\n",
		"go.sum": string(sum),
		"main.go": `package main

import (
	"context"
	"log"

	"go.minekube.com/gate/pkg/edition/java/lite"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

func main() {
	cfg, _, err := config.Load("config.yml")
	if err != nil {
		log.Fatal(err)
	}
	p, err := lite.New(cfg, lite.Options{})
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(p.ListenAndServe(context.Background()))
}
`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"mod", "tidy"}, {"build", "-o", os.DevNull, "."}} {
		cmd := exec.Command(gobin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s", args, err, out)
		}
	}
}
