package kube

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

// A REST client of a Conn speaks protobuf, names its caller, and Close
// closes the connection it dialed even when it is not idle.
func TestConnectSpeaksProtobufAndCloseLeavesNoConnection(t *testing.T) {
	var mu sync.Mutex
	var accept, agent string
	states := make(chan http.ConnState, 8)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		accept, agent = r.Header.Get("Accept"), r.Header.Get("User-Agent")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"games"}}`))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) { states <- s }
	srv.Start()
	defer srv.Close()

	conn, err := Connect(&rest.Config{Host: srv.URL}, Options{UserAgent: "gate-test", Scheme: NewScheme(corev1.AddToScheme)})
	if err != nil {
		t.Fatal(err)
	}
	core, err := conn.REST("/api", corev1.SchemeGroupVersion)
	if err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{}
	if err := core.Get().Resource("namespaces").Name("games").Do(t.Context()).Into(ns); err != nil || ns.Name != "games" {
		t.Fatalf("get: %v %+v", err, ns)
	}
	mu.Lock()
	if !strings.HasPrefix(accept, "application/vnd.kubernetes.protobuf") || agent != "gate-test" {
		t.Errorf("Accept %q, User-Agent %q", accept, agent)
	}
	mu.Unlock()
	conn.Close()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case s := <-states:
			if s == http.StateClosed {
				return
			}
		case <-deadline:
			t.Fatal("the connection is still open after Close")
		}
	}
}

func TestConnectNeedsAScheme(t *testing.T) {
	if _, err := Connect(&rest.Config{Host: "http://127.0.0.1:1"}, Options{}); err == nil {
		t.Fatal("a Conn without a scheme")
	}
}

func TestRESTConfigWithoutAnyServerIsErrNoKubeconfig(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBECONFIG", "")
	if _, err := RESTConfig(config.KubernetesDiscovery{}); err != ErrNoKubeconfig {
		t.Fatalf("RESTConfig: %v, want ErrNoKubeconfig", err)
	}
}
