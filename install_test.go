package gate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// releasePlatforms are the platforms .github/workflows/release.yml builds.
var releasePlatforms = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64"}

// releaseServer serves a release tree laid out as GitHub's: download/<v>/<asset>,
// latest redirecting to tag/<v>. It records the paths asked, in order.
type releaseServer struct {
	*httptest.Server
	files  map[string][]byte // "v9.9.9/gate_v9.9.9_linux_amd64" -> content
	latest string            // "" = no release yet: latest is a 404

	mu    sync.Mutex
	asked []string
}

func (s *releaseServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.asked = append(s.asked, r.URL.Path)
	s.mu.Unlock()
	p := r.URL.Path
	switch {
	case p == "/releases/latest" && s.latest != "":
		http.Redirect(w, r, "/releases/tag/"+s.latest, http.StatusFound)
	case strings.HasPrefix(p, "/releases/tag/"):
		fmt.Fprintln(w, "<html>release page</html>")
	case strings.HasPrefix(p, "/releases/download/"):
		b, ok := s.files[strings.TrimPrefix(p, "/releases/download/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(b)
	default:
		http.NotFound(w, r)
	}
}

func (s *releaseServer) base() string { return s.URL + "/releases" }

// asset is the release's name for a platform's binary.
func asset(version, platform string) string {
	os, arch, _ := strings.Cut(platform, "/")
	name := "gate_" + version + "_" + os + "_" + arch
	if os == "windows" {
		name += ".exe"
	}
	return name
}

// binary is the fake binary of a release: a script that names its platform, so an
// install of the wrong one shows.
func binary(version, platform string) []byte {
	return []byte("#!/bin/sh\necho gate " + version + " " + platform + "\n")
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// newReleaseServer serves v9.9.9 with correct checksums and v6.6.6 whose .sha256 files
// are of other bytes, for every release platform; latest is v9.9.9 unless noLatest.
func newReleaseServer(t *testing.T, noLatest bool) *releaseServer {
	t.Helper()
	s := &releaseServer{files: map[string][]byte{}, latest: "v9.9.9"}
	if noLatest {
		s.latest = ""
	}
	for _, v := range []string{"v9.9.9", "v6.6.6"} {
		for _, p := range releasePlatforms {
			name := asset(v, p)
			bin := binary(v, p)
			digest := sum(bin)
			if v == "v6.6.6" {
				digest = sum([]byte("tampered"))
			}
			s.files[v+"/"+name] = bin
			s.files[v+"/"+name+".sha256"] = []byte(digest + "  " + name + "\n")
		}
	}
	s.Server = httptest.NewServer(s) // 127.0.0.1
	t.Cleanup(s.Close)
	return s
}

// runInstall runs `sh install.sh args...` with the fetcher chosen and the extra
// environment, and returns its stdout, stderr and exit code.
func runInstall(t *testing.T, fetcher string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", append([]string{"install.sh"}, args...)...)
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		// The server is on loopback; a proxy from the environment must not sit between.
		if strings.HasSuffix(strings.ToLower(k), "_proxy") || strings.HasPrefix(k, "GATE_INSTALL_") || k == "HOME" {
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, "HOME="+t.TempDir(), "GATE_INSTALL_FETCHER="+fetcher)
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("sh install.sh: %v", err)
	}
	return out.String(), errb.String(), code
}

// entries lists what a directory holds, hidden files included.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

func TestInstallScript(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("install.sh needs a POSIX sh on PATH")
	}
	var fetchers []string
	for _, f := range []string{"curl", "wget"} {
		if _, err := exec.LookPath(f); err == nil {
			fetchers = append(fetchers, f)
		}
	}
	if len(fetchers) == 0 {
		t.Fatal("install.sh downloads with curl or wget and neither is on PATH: apt-get install curl wget")
	}
	for _, fetcher := range fetchers {
		t.Run(fetcher, func(t *testing.T) {
			r := &installRun{fetcher: fetcher, srv: newReleaseServer(t, false), here: runtime.GOOS + "/" + runtime.GOARCH}
			r.base = r.srv.base()
			testInstalls(t, r)
			testRefusals(t, r)
		})
	}
}

// installRun is one fetcher's runs of install.sh against one release server.
type installRun struct {
	fetcher string
	srv     *releaseServer
	base    string // the server's releases URL
	here    string // this machine's platform, GOOS/GOARCH
}

// supported says whether releases have a binary for this machine.
func (r *installRun) supported() bool {
	return strings.Contains(" "+strings.Join(releasePlatforms, " ")+" ", " "+r.here+" ")
}

// install runs a case that must succeed and checks what landed in dir.
func (r *installRun) install(t *testing.T, platform, version string, env []string, args ...string) {
	t.Helper()
	dir := t.TempDir()
	stdout, stderr, code := runInstall(t, r.fetcher, env, append(args, "--base-url", r.base, "--dir", dir)...)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	name := "gate"
	if strings.HasPrefix(platform, "windows/") {
		name = "gate.exe"
	}
	path := filepath.Join(dir, name)
	want := "installed gate " + version + " (" + platform + ") as " + path + "\n" +
		"note: " + dir + " is not on your PATH\n"
	if stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
	checkInstalled(t, dir, name, version, platform)
	if platform == r.here {
		out, err := exec.Command(path).Output()
		if want := "gate " + version + " " + platform + "\n"; err != nil || string(out) != want {
			t.Errorf("running %s: %q, %v; want %q", path, out, err, want)
		}
	}
}

// checkInstalled checks that dir holds only name, the release's executable binary.
func checkInstalled(t *testing.T, dir, name, version, platform string) {
	t.Helper()
	path := filepath.Join(dir, name)
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, binary(version, platform)) {
		t.Errorf("installed %q, want the release's %s binary %q", got, platform, binary(version, platform))
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm()&0o111 == 0 {
		t.Errorf("%s is %v: not executable", path, fi.Mode())
	}
	if e := entries(t, dir); len(e) != 1 {
		t.Errorf("%s holds %v, want only %s", dir, e, name)
	}
}

// refuse runs a case that must fail with exactly one line and install nothing.
func (r *installRun) refuse(t *testing.T, wantErr string, env []string, args ...string) {
	t.Helper()
	dir := t.TempDir()
	stdout, stderr, code := runInstall(t, r.fetcher, env, append(args, "--dir", dir)...)
	if code != 1 || stderr != wantErr+"\n" || stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr:\n%q\nwant exit 1, stderr:\n%q", code, stdout, stderr, wantErr+"\n")
	}
	if e := entries(t, dir); len(e) != 0 {
		t.Errorf("%s holds %v after a refusal, want nothing", dir, e)
	}
}

// testInstalls runs the cases that must install a binary.
func testInstalls(t *testing.T, r *installRun) {
	t.Run("this platform, pinned version", func(t *testing.T) {
		if !r.supported() {
			t.Skipf("releases have no %s binary", r.here)
		}
		r.install(t, r.here, "v9.9.9", nil, "--version", "v9.9.9")
	})
	t.Run("latest follows the redirect to its tag", func(t *testing.T) {
		if !r.supported() {
			t.Skipf("releases have no %s binary", r.here)
		}
		r.srv.mu.Lock()
		r.srv.asked = nil
		r.srv.mu.Unlock()
		r.install(t, r.here, "v9.9.9", nil)
		r.srv.mu.Lock()
		defer r.srv.mu.Unlock()
		if len(r.srv.asked) == 0 || r.srv.asked[0] != "/releases/latest" {
			t.Errorf("asked %v, want /releases/latest first", r.srv.asked)
		}
	})
	t.Run("version without v", func(t *testing.T) {
		r.install(t, "linux/arm64", "v9.9.9", nil, "--version", "9.9.9", "--os", "linux", "--arch", "arm64")
	})
	t.Run("windows gets gate.exe", func(t *testing.T) {
		r.install(t, "windows/amd64", "v9.9.9", []string{"GATE_INSTALL_OS=windows", "GATE_INSTALL_ARCH=amd64"}, "--version", "v9.9.9")
	})
}

// testRefusals runs the cases that must fail and install nothing.
func testRefusals(t *testing.T, r *installRun) {
	base := r.base
	t.Run("corrupted checksum", func(t *testing.T) {
		name := asset("v6.6.6", "darwin/arm64")
		r.refuse(t, "install.sh: checksum mismatch for "+name+": its sha256 is "+sum(binary("v6.6.6", "darwin/arm64"))+
			", "+name+".sha256 says "+sum([]byte("tampered")),
			nil, "--base-url", base, "--version", "v6.6.6", "--os", "darwin", "--arch", "arm64")
	})
	t.Run("unknown platform from the environment", func(t *testing.T) {
		r.refuse(t, "install.sh: unsupported platform plan9/mips: releases have "+strings.Join(releasePlatforms, " "),
			[]string{"GATE_INSTALL_OS=plan9", "GATE_INSTALL_ARCH=mips"}, "--base-url", base, "--version", "v9.9.9")
	})
	t.Run("unknown platform from flags", func(t *testing.T) {
		r.refuse(t, "install.sh: unsupported platform windows/arm64: releases have "+strings.Join(releasePlatforms, " "),
			nil, "--base-url", base, "--version", "v9.9.9", "--os", "windows", "--arch", "arm64")
	})
	t.Run("no such release", func(t *testing.T) {
		r.refuse(t, "install.sh: cannot download "+base+"/download/v0.0.1/gate_v0.0.1_linux_amd64: HTTP 404",
			nil, "--base-url", base, "--version", "v0.0.1", "--os", "linux", "--arch", "amd64")
	})
	t.Run("no latest release", func(t *testing.T) {
		empty := newReleaseServer(t, true).base()
		r.refuse(t, "install.sh: cannot find the latest release: "+empty+"/latest does not redirect to "+empty+"/tag/<version>",
			nil, "--base-url", empty, "--os", "linux", "--arch", "amd64")
	})
}
