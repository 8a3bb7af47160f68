package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests below run against a real dockerd (scripts/engines/docker.sh, started
// by scripts/test.sh in a network namespace of its own, so container addresses
// are reachable from the test and from nowhere else).

const engineEnv = "GATETEST_DOCKER_HOST"

// engine is the test's own Engine API client: it creates and removes what the
// tests need. The source under test never shares it.
type engine struct {
	host string
	http *http.Client
}

func needEngine(t *testing.T) *engine {
	t.Helper()
	host := os.Getenv(engineEnv)
	if host == "" {
		t.Skip("needs dockerd: run scripts/test.sh (or set " + engineEnv + ")")
	}
	e, err := newEngine(host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.http.CloseIdleConnections)
	return e
}

func newEngine(host string) (*engine, error) {
	ep, err := parseHost(host)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", engineEnv, err)
	}
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, ep.network, ep.addr)
	}}
	return &engine{host: host, http: &http.Client{Transport: tr, Timeout: 2 * time.Minute}}, nil
}

// call sends one request; body is JSON-encoded unless it is an io.Reader, out
// (if not nil) receives the JSON answer.
func (e *engine) call(method, path string, q url.Values, body, out any) error {
	var r io.Reader
	ctype := "application/json"
	switch b := body.(type) {
	case nil:
	case io.Reader:
		r, ctype = b, "application/x-tar"
	default:
		js, err := json.Marshal(b)
		if err != nil {
			return err
		}
		r = bytes.NewReader(js)
	}
	u := url.URL{Scheme: "http", Host: "docker", Path: path, RawQuery: q.Encode()}
	req, err := http.NewRequest(method, u.String(), r)
	if err != nil {
		return err
	}
	if r != nil {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := e.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(b))
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// buildImage builds a FROM scratch image holding a static mcload (the repo's
// load tool, whose backend mode answers status pings and logins) and returns
// its ID. The image runs `mcload backend -listen 0.0.0.0:25565` unless a
// container gives other arguments.
func (e *engine) buildImage(dir string) (string, error) {
	bin := filepath.Join(dir, "mcload")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "go.minekube.com/gate/tools/mcload")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build mcload: %w\n%s", err, out)
	}
	exe, err := os.ReadFile(bin)
	if err != nil {
		return "", err
	}
	dockerfile := "FROM scratch\nCOPY mcload /mcload\nENTRYPOINT [\"/mcload\", \"backend\"]\nCMD [\"-listen\", \"0.0.0.0:25565\"]\n"
	var ctx bytes.Buffer
	tw := tar.NewWriter(&ctx)
	for _, f := range []struct {
		name string
		mode int64
		data []byte
	}{{"Dockerfile", 0o644, []byte(dockerfile)}, {"mcload", 0o755, exe}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data))}); err != nil {
			return "", err
		}
		if _, err := tw.Write(f.data); err != nil {
			return "", err
		}
	}
	if err := tw.Close(); err != nil {
		return "", err
	}
	// The build answers with a stream of JSON messages; the image ID comes in
	// an "aux" one, a failure in an "error" one.
	u := url.URL{Scheme: "http", Host: "docker", Path: "/build", RawQuery: url.Values{"rm": {"1"}, "forcerm": {"1"}, "q": {"1"}}.Encode()}
	req, err := http.NewRequest(http.MethodPost, u.String(), &ctx)
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-tar")
	resp, err := e.http.Do(req)
	if err != nil {
		return "", fmt.Errorf("build: %w", err)
	}
	defer resp.Body.Close()
	var id string
	dec := json.NewDecoder(resp.Body)
	for {
		var m struct {
			Stream string `json:"stream"`
			Error  string `json:"error"`
			Aux    struct {
				ID string `json:"ID"`
			} `json:"aux"`
		}
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			return "", fmt.Errorf("build: %s: %w", resp.Status, err)
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
		return "", fmt.Errorf("build: %s: no image ID in the answer", resp.Status)
	}
	return id, nil
}

// The image is built once per test binary and removed by TestMain.
var image struct {
	once sync.Once
	id   string
	err  error
	dir  string
}

func testImage(t *testing.T, e *engine) string {
	t.Helper()
	image.once.Do(func() {
		image.dir, image.err = os.MkdirTemp("", "gate-docker-test")
		if image.err == nil {
			image.id, image.err = e.buildImage(image.dir)
		}
	})
	if image.err != nil {
		t.Fatalf("test image: %v", image.err)
	}
	return image.id
}

func removeTestImage() {
	if image.dir != "" {
		_ = os.RemoveAll(image.dir)
	}
	if image.id == "" {
		return
	}
	e, err := newEngine(os.Getenv(engineEnv))
	if err == nil {
		err = e.call(http.MethodDelete, "/images/"+image.id, url.Values{"force": {"1"}}, nil, nil)
		e.http.CloseIdleConnections()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "remove test image %s: %v\n", image.id, err)
	}
}

// spec is a container the test wants.
type spec struct {
	name     string
	labels   map[string]string
	listen   string   // mcload's listen address; default 0.0.0.0:25565
	networks []string // extra networks (IDs) besides the default bridge
	health   []string // a health check command (the exec form), run every 200ms
}

// run creates and starts a container and removes it when the test ends.
func (e *engine) run(t *testing.T, s spec) string {
	t.Helper()
	id := e.create(t, s)
	e.start(t, id)
	return id
}

func (e *engine) create(t *testing.T, s spec) string {
	t.Helper()
	img := testImage(t, e)
	body := map[string]any{"Image": img, "Labels": s.labels}
	if s.listen != "" {
		body["Cmd"] = []string{"-listen", s.listen}
	}
	if s.health != nil {
		ms := int64(time.Millisecond)
		body["Healthcheck"] = map[string]any{"Test": append([]string{"CMD"}, s.health...), "Interval": 200 * ms, "Timeout": 2000 * ms, "Retries": 1}
	}
	var out struct {
		ID string `json:"Id"`
	}
	if err := e.call(http.MethodPost, "/containers/create", url.Values{"name": {s.name}}, body, &out); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.call(http.MethodDelete, "/containers/"+out.ID, url.Values{"force": {"1"}, "v": {"1"}}, nil, nil); err != nil {
			t.Errorf("remove container %s: %v", s.name, err)
		}
	})
	for _, n := range s.networks {
		if err := e.call(http.MethodPost, "/networks/"+n+"/connect", nil, map[string]string{"Container": out.ID}, nil); err != nil {
			t.Fatal(err)
		}
	}
	return out.ID
}

func (e *engine) start(t *testing.T, id string) {
	t.Helper()
	if err := e.call(http.MethodPost, "/containers/"+id+"/start", nil, nil, nil); err != nil {
		t.Fatal(err)
	}
}

func (e *engine) stop(t *testing.T, id string) {
	t.Helper()
	if err := e.call(http.MethodPost, "/containers/"+id+"/stop", url.Values{"t": {"5"}}, nil, nil); err != nil {
		t.Fatal(err)
	}
}

// network creates a bridge network and removes it when the test ends (after
// the containers on it, which were created later).
func (e *engine) network(t *testing.T, name string) string {
	t.Helper()
	var out struct {
		ID string `json:"Id"`
	}
	if err := e.call(http.MethodPost, "/networks/create", nil, map[string]any{"Name": name, "Driver": "bridge", "CheckDuplicate": true}, &out); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.call(http.MethodDelete, "/networks/"+out.ID, nil, nil, nil); err != nil {
			t.Errorf("remove network %s: %v", name, err)
		}
	})
	return out.ID
}

// ip is the container's address on the named network.
func (e *engine) ip(t *testing.T, id, network string) string {
	t.Helper()
	var out struct {
		NetworkSettings struct {
			Networks map[string]struct{ IPAddress string }
		}
	}
	if err := e.call(http.MethodGet, "/containers/"+id+"/json", nil, nil, &out); err != nil {
		t.Fatal(err)
	}
	ip := out.NetworkSettings.Networks[network].IPAddress
	if ip == "" {
		t.Fatalf("container %s has no address on %s", id, network)
	}
	return ip
}
