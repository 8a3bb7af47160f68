package kubewake

import (
	"context"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"go.minekube.com/gate/pkg/lite/engine/kube"
)

// Client talks to the two API groups waking uses: apps/v1 (the scale
// subresource of Deployments and StatefulSets) and coordination.k8s.io/v1
// (Leases). Safe for concurrent use.
type Client struct {
	apps  *rest.RESTClient
	coord *rest.RESTClient
	conn  *kube.Conn
}

// wakeScheme knows the types waking reads and writes, and nothing else. The
// scale subresource of an apps/v1 object speaks autoscaling/v1 Scale.
var wakeScheme = kube.NewScheme(autoscalingv1.AddToScheme, coordinationv1.AddToScheme)

// NewClient builds a client on rc (for example kube.RESTConfig's). Nothing
// is contacted before the first call.
func NewClient(rc *rest.Config) (*Client, error) {
	// client-go's default pace (5 requests a second) would queue the Hold
	// renewals of many targets behind each other.
	conn, err := kube.Connect(rc, kube.Options{UserAgent: "gate-lite-wake", Scheme: wakeScheme, QPS: 50, Burst: 100})
	if err != nil {
		return nil, err
	}
	apps, err := conn.REST("/apis", schema.GroupVersion{Group: "apps", Version: "v1"})
	if err != nil {
		return nil, err
	}
	coord, err := conn.REST("/apis", coordinationv1.SchemeGroupVersion)
	if err != nil {
		return nil, err
	}
	return &Client{apps: apps, coord: coord, conn: conn}, nil
}

// Close drops the client's connections to the API server. Calls made after
// Close dial again.
func (c *Client) Close() { c.conn.Close() }

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
