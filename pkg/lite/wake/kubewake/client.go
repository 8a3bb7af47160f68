package kubewake

import (
	"context"
	"fmt"
	"net/http"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/rest"

	"go.minekube.com/gate/internal/conntrack"
)

// Client talks to the two API groups waking uses: apps/v1 (the scale
// subresource of Deployments and StatefulSets) and coordination.k8s.io/v1
// (Leases). Its scheme holds autoscaling/v1 Scale and coordination/v1 Lease
// and nothing else: client-go's clientset registers every API group's types,
// which would more than double the proxy's binary. Safe for concurrent use.
type Client struct {
	apps  *rest.RESTClient
	coord *rest.RESTClient
	hc    *http.Client
	conns *conntrack.Tracker
}

// wakeScheme knows the types waking reads and writes, and nothing else. The
// scale subresource of an apps/v1 object speaks autoscaling/v1 Scale.
var wakeScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(autoscalingv1.AddToScheme(s))
	utilruntime.Must(coordinationv1.AddToScheme(s))
	return s
}()

// NewClient builds a client on rc (for example from the discovery
// package's RESTConfig). Nothing is contacted before the first call.
func NewClient(rc *rest.Config) (*Client, error) {
	rc = rest.CopyConfig(rc)
	if rc.UserAgent == "" {
		rc.UserAgent = "gate-lite-wake"
	}
	// client-go's default pace (5 requests a second) would queue the Hold
	// renewals of many targets behind each other.
	if rc.QPS == 0 {
		rc.QPS, rc.Burst = 50, 100
	}
	rc.ContentType = "application/vnd.kubernetes.protobuf"
	rc.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	conns := &conntrack.Tracker{}
	if rc.Dial == nil {
		rc.Dial = conns.DialContext
	}
	hc, err := rest.HTTPClientFor(rc)
	if err != nil {
		return nil, fmt.Errorf("kubernetes wake client: %w", err)
	}
	apps, err := restClient(rc, hc, schema.GroupVersion{Group: "apps", Version: "v1"})
	if err != nil {
		return nil, err
	}
	coord, err := restClient(rc, hc, coordinationv1.SchemeGroupVersion)
	if err != nil {
		return nil, err
	}
	return &Client{apps: apps, coord: coord, hc: hc, conns: conns}, nil
}

// Close drops the client's connections to the API server. Calls made after
// Close dial again.
func (c *Client) Close() {
	utilnet.CloseIdleConnectionsFor(c.hc.Transport)
	c.conns.CloseAll()
}

func restClient(base *rest.Config, hc *http.Client, gv schema.GroupVersion) (*rest.RESTClient, error) {
	rc := rest.CopyConfig(base)
	rc.APIPath, rc.GroupVersion = "/apis", &gv
	rc.NegotiatedSerializer = serializer.NewCodecFactory(wakeScheme).WithoutConversion()
	c, err := rest.RESTClientForConfigAndClient(rc, hc)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client for %s: %w", gv, err)
	}
	return c, nil
}

// getScale reads the scale subresource of resource ("deployments" or
// "statefulsets").
func (c *Client) getScale(ctx context.Context, resource, ns, name string) (*autoscalingv1.Scale, error) {
	s := &autoscalingv1.Scale{}
	err := c.apps.Get().Namespace(ns).Resource(resource).Name(name).SubResource("scale").Do(ctx).Into(s)
	return s, err
}

// updateScale writes s back; s.ResourceVersion makes it conditional.
func (c *Client) updateScale(ctx context.Context, resource string, s *autoscalingv1.Scale) (*autoscalingv1.Scale, error) {
	out := &autoscalingv1.Scale{}
	err := c.apps.Put().Namespace(s.Namespace).Resource(resource).Name(s.Name).SubResource("scale").Body(s).Do(ctx).Into(out)
	return out, err
}

func (c *Client) getLease(ctx context.Context, ns, name string) (*coordinationv1.Lease, error) {
	l := &coordinationv1.Lease{}
	err := c.coord.Get().Namespace(ns).Resource("leases").Name(name).Do(ctx).Into(l)
	return l, err
}

func (c *Client) createLease(ctx context.Context, l *coordinationv1.Lease) error {
	return c.coord.Post().Namespace(l.Namespace).Resource("leases").Body(l).Do(ctx).Error()
}

// updateLease writes l back; l.ResourceVersion makes it conditional.
func (c *Client) updateLease(ctx context.Context, l *coordinationv1.Lease) error {
	return c.coord.Put().Namespace(l.Namespace).Resource("leases").Name(l.Name).Body(l).Do(ctx).Error()
}
