package main

import (
	"context"
	"encoding/json"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/admin"
	"go.minekube.com/gate/pkg/lite/wake"
)

// These tests wake a Deployment through the whole proxy against the real
// kube-apiserver. Nothing there starts pods, so the test plays the controller:
// when the scale goes to 1 it starts a real Minecraft server (npm's
// minecraft-protocol) after a delay and writes the EndpointSlice; at 0 it
// stops the server and empties the slice. Players are real-client bots.
// Figures issue 21 asks for are logged as "figure:" lines.

// controller plays the Deployment controller and kubelet for one Deployment.
type controller struct {
	t       *testing.T
	w       *kubeWorld
	name    string
	modules string
	addr    string // the server's address on lo
	port    int
	fav     string
	hide    bool

	mu       sync.Mutex
	delay    time.Duration // from the scale write to the server listening
	never    bool          // the server never starts
	replicas int32
	ups      []time.Time // scale writes 0 -> n, as the watch saw them
	downs    []time.Time // n -> 0
	srv      *mctest.NodeServer
	gen      int // bumps on every change, so a late start of an old one is dropped
}

func newController(t *testing.T, w *kubeWorld, name string, replicas int32, hide bool) *controller {
	t.Helper()
	c := &controller{t: t, w: w, name: name, modules: mctest.NodeModules(t), addr: w.addrs[len(w.addrs)-1],
		fav: mctest.Favicon(21), hide: hide, replicas: replicas}
	c.port = freePortOn(t, c.addr)
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: w.ns},
		Spec: appsv1.DeploymentSpec{Replicas: ptr(replicas), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "minecraft", Image: "minecraft"}}}}},
	}
	ctx := context.Background()
	if _, err := w.cs.AppsV1().Deployments(w.ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.writeSlice(false)
	wctx, cancel := context.WithCancel(ctx)
	wi, err := w.cs.AppsV1().Deployments(w.ns).Watch(wctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range wi.ResultChan() {
			if d, ok := ev.Object.(*appsv1.Deployment); ok && (ev.Type == watch.Added || ev.Type == watch.Modified) {
				c.observe(*d.Spec.Replicas)
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		wi.Stop()
		<-done
		c.mu.Lock()
		defer c.mu.Unlock()
		c.gen++
		if c.srv != nil {
			c.srv.Stop()
		}
	})
	return c
}

func freePortOn(t *testing.T, ip string) int {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// observe is the controller's reaction to the Deployment's replicas.
func (c *controller) observe(replicas int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	prev := c.replicas
	c.replicas = replicas
	switch {
	case prev == 0 && replicas > 0:
		c.ups = append(c.ups, time.Now())
		c.gen++
		if c.never {
			return
		}
		gen, delay := c.gen, c.delay
		time.AfterFunc(delay, func() { c.start(gen) })
	case prev > 0 && replicas == 0:
		c.downs = append(c.downs, time.Now())
		c.gen++
		if c.srv != nil {
			c.srv.Stop()
			c.srv = nil
		}
		c.writeSlice(false)
	}
}

// start starts the server and publishes it, unless the scale moved since.
func (c *controller) start(gen int) {
	srv, err := mctest.LaunchNodeServer(c.modules, mctest.NodeServerOptions{Host: c.addr, Port: c.port,
		MOTD: "the real lobby", Favicon: c.fav, HidePlayers: c.hide})
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.t.Errorf("controller: %v", err)
		return
	}
	if gen != c.gen {
		srv.Stop()
		return
	}
	c.srv = srv
	c.writeSlice(true)
}

// writeSlice publishes the server as the Service's one endpoint, or none.
func (c *controller) writeSlice(up bool) {
	es := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: c.name + "-1", Namespace: c.w.ns,
			Labels: map[string]string{discoveryv1.LabelServiceName: c.name}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr("minecraft"), Port: ptr(int32(c.port))}},
	}
	if up {
		es.Endpoints = []discoveryv1.Endpoint{{Addresses: []string{c.addr},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr(true)}}}
	}
	ctx := context.Background()
	api := c.w.cs.DiscoveryV1().EndpointSlices(c.w.ns)
	_, err := api.Update(ctx, es, metav1.UpdateOptions{})
	if err != nil {
		_, err = api.Create(ctx, es, metav1.CreateOptions{})
	}
	if err != nil {
		c.t.Errorf("controller: endpoint slice: %v", err)
	}
}

func (c *controller) set(delay time.Duration, never bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.delay, c.never = delay, never
}

// counts returns how many scale-ups and scale-downs the API server saw.
func (c *controller) counts() (ups, downs int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.ups), len(c.downs)
}

func (c *controller) lastDown() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.downs) == 0 {
		return time.Time{}
	}
	return c.downs[len(c.downs)-1]
}

func (c *controller) joins() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.srv == nil {
		return 0
	}
	return len(c.srv.Joins())
}

// wakeGate starts one replica for the wake tests, whose log the test prints
// if it fails.
func (w *kubeWorld) wakeGate(extra string) *running {
	w.t.Helper()
	var g *running
	w.t.Cleanup(func() {
		if w.t.Failed() && g != nil {
			w.t.Logf("gate's log:\n%s", g.log.String())
		}
	})
	g = w.gateWith(w.kubeconfig, extra)
	return g
}

func wakeStates(t *testing.T, g *running) []wake.State {
	t.Helper()
	_, body := g.get(admin.PathWake)
	var ss []wake.State
	if err := json.Unmarshal([]byte(body), &ss); err != nil {
		t.Fatalf("wake states: %v\n%s", err, body)
	}
	return ss
}

func phase(t *testing.T, g *running) string {
	t.Helper()
	for _, s := range wakeStates(t, g) {
		return s.Phase
	}
	return ""
}

// bots logs count real clients in at once through g and tallies outcomes.
func bots(t *testing.T, g *running, host string, count int, stay time.Duration, prefix string) (joined int, kicked []mctest.BotResult, slowest time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second+stay)
	defer cancel()
	res, err := mctest.Bots{Addr: g.proxy, Host: host, Count: count, Stay: stay, NamePrefix: prefix}.Run(ctx, mctest.NodeModules(t))
	if err != nil {
		t.Fatalf("bots: %v (%d outcomes)", err, len(res))
	}
	for _, r := range res {
		slowest = max(slowest, r.After)
		switch r.Outcome {
		case "joined":
			joined++
		default:
			kicked = append(kicked, r)
		}
	}
	return joined, kicked, slowest
}

// service publishes the controller's Deployment as a Service of host that
// wakes it and puts it to sleep after idleAfter; extra are more annotations,
// key and value.
func (c *controller) service(host, idleAfter string, extra ...string) {
	ann := map[string]string{
		"gate.minekube.com/hosts":     host,
		"gate.minekube.com/port":      strconv.Itoa(c.port),
		"gate.minekube.com/wake":      "deployment/" + c.name,
		"gate.minekube.com/idleAfter": idleAfter,
	}
	for i := 0; i+1 < len(extra); i += 2 {
		ann[extra[i]] = extra[i+1]
	}
	c.w.service(c.name, ann)
}
