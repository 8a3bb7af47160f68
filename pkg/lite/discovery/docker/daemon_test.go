package docker

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"go.minekube.com/gate/internal/enginetest"
	engine "go.minekube.com/gate/pkg/lite/engine/docker"
)

// daemon makes what enginetest does not: containers with a network mode,
// dual-stack networks, aliases, pauses. Everything it creates is removed when
// the test ends.
type daemon struct {
	e *enginetest.Docker
	c *engine.Client
}

func newDaemon(t *testing.T, e *enginetest.Docker) *daemon {
	c := engine.NewClient(e.Endpoint(), engine.Options{Timeout: time.Minute})
	t.Cleanup(c.Close)
	return &daemon{e: e, c: c}
}

// call sends one request with a JSON body (if not nil) and decodes the JSON
// answer into out (if not nil).
func (d *daemon) call(t *testing.T, method, path string, q url.Values, body, out any) {
	t.Helper()
	req := engine.Request{Method: method, Path: path, Query: q}
	if body != nil {
		js, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		req.Body = bytes.NewReader(js)
	}
	resp, err := d.c.Send(t.Context(), req, http.StatusOK, http.StatusCreated, http.StatusNoContent)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
}

// inNetworkMode creates a container like c whose only network is mode
// ("none", or a network's name), without starting it.
func (d *daemon) inNetworkMode(t *testing.T, c enginetest.Container, mode string) string {
	t.Helper()
	// The test image is enginetest's: take it from a container made by it.
	var img struct{ Image string }
	d.call(t, http.MethodGet, "/containers/"+d.e.Create(t, enginetest.Container{Name: c.Name + "-image"})+"/json", nil, nil, &img)
	var out struct{ ID string }
	d.call(t, http.MethodPost, "/containers/create", url.Values{"name": {c.Name}},
		map[string]any{"Image": img.Image, "Labels": c.Labels, "HostConfig": map[string]any{"NetworkMode": mode}}, &out)
	t.Cleanup(func() {
		_, err := d.c.Send(context.Background(), engine.Request{Method: http.MethodDelete, Path: "/containers/" + out.ID, Query: url.Values{"force": {"1"}}}, http.StatusNoContent)
		if err != nil {
			t.Errorf("remove %s: %v", c.Name, err)
		}
	})
	return out.ID
}

// dualStack creates a bridge network with an IPv4 subnet (v4, e.g.
// 10.9.200.0/24) and an IPv6 one, and removes it when the test ends.
func (d *daemon) dualStack(t *testing.T, name, v4, v6 string) string {
	t.Helper()
	var out struct{ ID string }
	d.call(t, http.MethodPost, "/networks/create", nil, map[string]any{"Name": name, "Driver": "bridge", "CheckDuplicate": true,
		"EnableIPv6": true, "IPAM": map[string]any{"Config": []map[string]string{{"Subnet": v4}, {"Subnet": v6}}}}, &out)
	t.Cleanup(func() {
		if _, err := d.c.Send(context.Background(), engine.Request{Method: http.MethodDelete, Path: "/networks/" + out.ID}, http.StatusNoContent); err != nil {
			t.Errorf("remove network %s: %v", name, err)
		}
	})
	return out.ID
}

// connect puts container id on network net with the given aliases.
func (d *daemon) connect(t *testing.T, net, id string, aliases ...string) {
	t.Helper()
	d.call(t, http.MethodPost, "/networks/"+net+"/connect", nil,
		map[string]any{"Container": id, "EndpointConfig": map[string]any{"Aliases": aliases}}, nil)
}

// disconnect takes container id off network net.
func (d *daemon) disconnect(t *testing.T, net, id string) {
	t.Helper()
	d.call(t, http.MethodPost, "/networks/"+net+"/disconnect", nil, map[string]any{"Container": id}, nil)
}

// pause freezes a running container.
func (d *daemon) pause(t *testing.T, id string) {
	t.Helper()
	d.call(t, http.MethodPost, "/containers/"+id+"/pause", nil, nil, nil)
}
