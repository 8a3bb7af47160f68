package enginetest

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"go.minekube.com/gate/pkg/lite/engine/docker"
)

// The test image is built once per test binary, on first use, and removed by
// RemoveImage (from TestMain).
var image struct {
	once sync.Once
	id   string
	err  error
	dir  string
}

func (d *Docker) image(t testing.TB) string {
	t.Helper()
	image.once.Do(func() {
		image.dir, image.err = os.MkdirTemp("", "gate-docker-test")
		if image.err == nil {
			image.id, image.err = d.buildImage(image.dir)
		}
	})
	if image.err != nil {
		t.Fatalf("test image: %v", image.err)
	}
	return image.id
}

// RemoveImage removes the test image, if this binary built one. TestMain
// calls it after the tests.
func RemoveImage() {
	if image.dir != "" {
		_ = os.RemoveAll(image.dir)
	}
	if image.id == "" {
		return
	}
	d, err := newDocker(os.Getenv(dockerEnv))
	if err == nil {
		err = d.call(http.MethodDelete, "/images/"+image.id, url.Values{"force": {"1"}}, nil, nil)
		d.c.Close()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "remove test image %s: %v\n", image.id, err)
	}
}

// buildImage builds a FROM scratch image holding a static mcload (the repo's
// load tool, whose backend mode answers status pings and logins) and returns
// its ID. The image runs `mcload backend -listen 0.0.0.0:25565` unless a
// container gives other arguments.
func (d *Docker) buildImage(dir string) (string, error) {
	archive, err := buildContext(dir)
	if err != nil {
		return "", err
	}
	q := url.Values{"rm": {"1"}, "forcerm": {"1"}, "q": {"1"}}
	resp, err := d.c.Send(context.Background(), docker.Request{Method: http.MethodPost, Path: "/build", Query: q,
		Body: archive, ContentType: "application/x-tar"}, http.StatusOK)
	if err != nil {
		return "", fmt.Errorf("build: %w", err)
	}
	defer resp.Body.Close()
	return builtImage(resp.Body)
}

// buildContext is the build's tar archive: the Dockerfile and mcload.
func buildContext(dir string) (io.Reader, error) {
	bin := filepath.Join(dir, "mcload")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "go.minekube.com/gate/tools/mcload")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build mcload: %w\n%s", err, out)
	}
	exe, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	dockerfile := "FROM scratch\nCOPY mcload /mcload\nENTRYPOINT [\"/mcload\", \"backend\"]\nCMD [\"-listen\", \"0.0.0.0:25565\"]\n"
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range []struct {
		name string
		mode int64
		data []byte
	}{{"Dockerfile", 0o644, []byte(dockerfile)}, {"mcload", 0o755, exe}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data))}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	return &buf, tw.Close()
}

// builtImage reads the build's answer, a stream of JSON messages: the image
// ID comes in an "aux" one, a failure in an "error" one.
func builtImage(r io.Reader) (string, error) {
	var id string
	for dec := json.NewDecoder(r); ; {
		var m struct {
			Stream string `json:"stream"`
			Error  string `json:"error"`
			Aux    struct {
				ID string `json:"ID"`
			} `json:"aux"`
		}
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return "", fmt.Errorf("build: %w", err)
		}
		if m.Error != "" {
			return "", fmt.Errorf("build: %s", m.Error)
		}
		if m.Aux.ID != "" {
			id = m.Aux.ID
		} else if s := strings.TrimSpace(m.Stream); strings.HasPrefix(s, "sha256:") {
			id = s
		}
	}
	if id == "" {
		return "", errors.New("build: no image ID in the answer")
	}
	return id, nil
}

// Main runs a package's tests that build the test image: it removes the
// image afterwards and, when they passed, fails on any goroutine they left
// behind. TestMain calls it.
func Main(m *testing.M) {
	code := m.Run()
	RemoveImage()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
