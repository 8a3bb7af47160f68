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
	"time"

	"go.uber.org/goleak"

	"go.minekube.com/gate/pkg/lite/engine/docker"
)

// Docker is a test's view of the real dockerd (scripts/engines/docker.sh,
// started by scripts/test.sh in a network namespace of its own, so container
// addresses are reachable from the test and from nowhere else). Its client
// is the test's own: it creates and removes what the tests need.
type Docker struct {
	// Host is the daemon's address, as a config names it.
	Host string
	c    *docker.Client
}

const dockerEnv = "GATETEST_DOCKER_HOST"

// NeedDocker returns the daemon of GATETEST_DOCKER_HOST, or skips.
func NeedDocker(t testing.TB) *Docker {
	t.Helper()
	host := os.Getenv(dockerEnv)
	if host == "" {
		t.Skip("needs dockerd: run scripts/test.sh (or set " + dockerEnv + ")")
	}
	d, err := newDocker(host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.c.Close)
	return d
}

func newDocker(host string) (*Docker, error) {
	ep, err := docker.ParseHost(host)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dockerEnv, err)
	}
	return &Docker{Host: host, c: docker.NewClient(ep, docker.Options{Timeout: 2 * time.Minute})}, nil
}

// Endpoint is the daemon's parsed address.
func (d *Docker) Endpoint() docker.Endpoint { return d.c.Endpoint() }

// Uniq makes a name no other run on the same daemon uses.
func Uniq(s string) string { return fmt.Sprintf("gt%d-%s", os.Getpid(), s) }

// call sends one request; body is JSON-encoded unless it is an io.Reader (a
// tar archive), out (if not nil) receives the JSON answer.
func (d *Docker) call(method, path string, q url.Values, body, out any) error {
	req := docker.Request{Method: method, Path: path, Query: q}
	switch b := body.(type) {
	case nil:
	case io.Reader:
		req.Body, req.ContentType = b, "application/x-tar"
	default:
		js, err := json.Marshal(b)
		if err != nil {
			return err
		}
		req.Body = bytes.NewReader(js)
	}
	resp, err := d.c.Send(context.Background(), req, http.StatusOK, http.StatusCreated, http.StatusNoContent)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// Container is a container a test wants.
type Container struct {
	Name     string
	Labels   map[string]string
	Listen   string   // mcload's listen address; default 0.0.0.0:25565
	Networks []string // extra networks (IDs) besides the default bridge
	Health   []string // a health check command (the exec form), run every 200ms
}

// Run creates and starts a container and removes it when the test ends.
func (d *Docker) Run(t testing.TB, c Container) string {
	t.Helper()
	id := d.Create(t, c)
	d.Start(t, id)
	return id
}

// Create creates a container of the test image (mcload's backend on 25565)
// without starting it, and removes it when the test ends.
func (d *Docker) Create(t testing.TB, c Container) string {
	t.Helper()
	body := map[string]any{"Image": d.image(t), "Labels": c.Labels}
	if c.Listen != "" {
		body["Cmd"] = []string{"-listen", c.Listen}
	}
	if c.Health != nil {
		ms := int64(time.Millisecond)
		body["Healthcheck"] = map[string]any{"Test": append([]string{"CMD"}, c.Health...), "Interval": 200 * ms, "Timeout": 2000 * ms, "Retries": 1}
	}
	var out struct {
		ID string `json:"Id"`
	}
	if err := d.call(http.MethodPost, "/containers/create", url.Values{"name": {c.Name}}, body, &out); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.call(http.MethodDelete, "/containers/"+out.ID, url.Values{"force": {"1"}, "v": {"1"}}, nil, nil); err != nil {
			t.Errorf("remove container %s: %v", c.Name, err)
		}
	})
	for _, n := range c.Networks {
		if err := d.call(http.MethodPost, "/networks/"+n+"/connect", nil, map[string]string{"Container": out.ID}, nil); err != nil {
			t.Fatal(err)
		}
	}
	return out.ID
}

// Start starts a container.
func (d *Docker) Start(t testing.TB, id string) {
	t.Helper()
	if err := d.call(http.MethodPost, "/containers/"+id+"/start", nil, nil, nil); err != nil {
		t.Fatal(err)
	}
}

// Stop stops a container, with 5 s of grace.
func (d *Docker) Stop(t testing.TB, id string) {
	t.Helper()
	if err := d.call(http.MethodPost, "/containers/"+id+"/stop", url.Values{"t": {"5"}}, nil, nil); err != nil {
		t.Fatal(err)
	}
}

// Network creates a bridge network and removes it when the test ends (after
// the containers on it, which were created later).
func (d *Docker) Network(t testing.TB, name string) string {
	t.Helper()
	var out struct {
		ID string `json:"Id"`
	}
	if err := d.call(http.MethodPost, "/networks/create", nil, map[string]any{"Name": name, "Driver": "bridge", "CheckDuplicate": true}, &out); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.call(http.MethodDelete, "/networks/"+out.ID, nil, nil, nil); err != nil {
			t.Errorf("remove network %s: %v", name, err)
		}
	})
	return out.ID
}

// IP is the container's address on the named network.
func (d *Docker) IP(t testing.TB, id, network string) string {
	t.Helper()
	var out struct {
		NetworkSettings struct {
			Networks map[string]struct{ IPAddress string }
		}
	}
	if err := d.call(http.MethodGet, "/containers/"+id+"/json", nil, nil, &out); err != nil {
		t.Fatal(err)
	}
	ip := out.NetworkSettings.Networks[network].IPAddress
	if ip == "" {
		t.Fatalf("container %s has no address on %s", id, network)
	}
	return ip
}

// Events counts the daemon's events of one action ("start", or "stop": a stop
// request's, not an exit of the process by itself) of container id between
// since and until (both in the past, so the event stream ends).
func (d *Docker) Events(t testing.TB, id, action string, since, until time.Time) int {
	t.Helper()
	stamp := func(ts time.Time) string { return fmt.Sprintf("%d.%09d", ts.Unix(), ts.Nanosecond()) }
	q := url.Values{"since": {stamp(since)}, "until": {stamp(until)}}
	s, err := d.c.Events(t.Context(), q.Encode(), docker.Filters{"container": {id}, "event": {action}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for n := 0; ; n++ {
		if _, err := s.Next(); errors.Is(err, io.EOF) {
			return n
		} else if err != nil {
			t.Fatalf("events: %v", err)
		}
	}
}

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
	// The label makes each test binary's image its own: the same content
	// would give the packages testing at once one image ID, and the first to
	// finish would remove it under the others.
	dockerfile := fmt.Sprintf("FROM scratch\nCOPY mcload /mcload\nLABEL gatetest.binary=%d\nENTRYPOINT [\"/mcload\", \"backend\"]\nCMD [\"-listen\", \"0.0.0.0:25565\"]\n", os.Getpid())
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
