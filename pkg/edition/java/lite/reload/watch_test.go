package reload

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// watchLayout is one way a config file lies on disk and is changed there.
type watchLayout struct {
	name string
	// setup writes content in the layout and returns the path the proxy is given.
	setup func(t *testing.T, dir, content string) string
	// change rewrites the config to content the way the case's tool does.
	change func(t *testing.T, dir, path, content string)
}

var watchLayouts = []watchLayout{
	{"file rewritten in place", plainFile, func(t *testing.T, _, path, content string) { write(t, path, content) }},
	{"editor writes a new file and renames it over the old one", plainFile, renameOver},
	{"kubernetes configmap swaps its ..data symlink", configMapVolume, kubeletSwap},
	{"config path is a symlink into another directory", symlinkedFile, func(t *testing.T, dir, _, content string) {
		write(t, filepath.Join(dir, "real", "gate.yml"), content)
	}},
}

func TestWatch(t *testing.T) {
	for _, tt := range watchLayouts {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			h := newHarness(t, tt.setup(t, dir, cfgYAML("localhost:25565", "a.example.com", "127.0.0.1:1")))
			h.run()
			tt.change(t, dir, h.path, cfgYAML("localhost:25565", "b.example.com", "127.0.0.1:2"))
			h.waitApplied("b.example.com")
			tt.change(t, dir, h.path, cfgYAML("localhost:25565", "c.example.com", "127.0.0.1:3"))
			h.waitApplied("b.example.com", "c.example.com")
			if got := h.r.Current().Lite.Routes[0].Host[0]; got != "c.example.com" {
				t.Fatalf("Current() route = %s, want c.example.com", got)
			}
		})
	}
}

func plainFile(t *testing.T, dir, content string) string {
	p := filepath.Join(dir, "config.yml")
	write(t, p, content)
	return p
}

func renameOver(t *testing.T, dir, path, content string) {
	tmp := filepath.Join(dir, ".config.yml.swp")
	write(t, tmp, content)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// configMapVolume lays the file out as the kubelet mounts a ConfigMap:
// config.yml -> ..data/config.yml, ..data -> a timestamped directory.
func configMapVolume(t *testing.T, dir, content string) string {
	ts := filepath.Join(dir, "..2024_01_01_00_00_00.1")
	mkdir(t, ts)
	write(t, filepath.Join(ts, "config.yml"), content)
	symlink(t, filepath.Base(ts), filepath.Join(dir, "..data"))
	symlink(t, "..data/config.yml", filepath.Join(dir, "config.yml"))
	return filepath.Join(dir, "config.yml")
}

// kubeletSwap does what the kubelet does on a ConfigMap update: a new
// timestamped directory, a temporary symlink to it renamed over ..data, then
// the old directory removed.
func kubeletSwap(t *testing.T, dir, _, content string) {
	old, err := os.Readlink(filepath.Join(dir, "..data"))
	if err != nil {
		t.Fatal(err)
	}
	ts, err := os.MkdirTemp(dir, "..2024_01_01_00_01_00.")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ts, "config.yml"), content)
	symlink(t, filepath.Base(ts), filepath.Join(dir, "..data_tmp"))
	if err := os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, old)); err != nil {
		t.Fatal(err)
	}
}

// symlinkedFile gives the proxy etc/config.yml, a link to real/gate.yml.
func symlinkedFile(t *testing.T, dir, content string) string {
	real := filepath.Join(dir, "real")
	mkdir(t, real)
	write(t, filepath.Join(real, "gate.yml"), content)
	link := filepath.Join(dir, "etc")
	mkdir(t, link)
	symlink(t, filepath.Join(real, "gate.yml"), filepath.Join(link, "config.yml"))
	return filepath.Join(link, "config.yml")
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestSIGHUP(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yml")
	write(t, path, cfgYAML("localhost:25565", "a.example.com", "127.0.0.1:1"))
	h := newHarness(t, path)
	h.run()
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	h.waitApplied("a.example.com")
}
