package kube

import (
	"fmt"
	"net/http"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/rest"

	"go.minekube.com/gate/internal/conntrack"
)

// Options tune a Conn; the zero value takes client-go's defaults.
type Options struct {
	// UserAgent names the caller to the API server when the REST config
	// names none. Default client-go's.
	UserAgent string
	// Scheme holds the types the caller reads and writes (NewScheme).
	// Required.
	Scheme *runtime.Scheme
	// QPS and Burst pace requests when the REST config sets no pace.
	// Default client-go's (5 a second, bursts of 10).
	QPS   float32
	Burst int
	// Wrap wraps the transport (a caller's health accounting). Default none.
	Wrap func(http.RoundTripper) http.RoundTripper
}

// NewScheme is a scheme holding the types of the given groups and nothing
// else.
func NewScheme(add ...func(*runtime.Scheme) error) *runtime.Scheme {
	s := runtime.NewScheme()
	for _, f := range add {
		utilruntime.Must(f(s))
	}
	return s
}

// Conn is one HTTP client to the API server and the REST clients made on it.
// It is safe for concurrent use.
type Conn struct {
	base   *rest.Config
	hc     *http.Client
	conns  *conntrack.Tracker
	codecs serializer.CodecFactory
}

// Connect builds the HTTP client on rc, speaking protobuf. Nothing is
// contacted before the first call. Every connection it dials is tracked
// (unless rc dials on its own), so that Close leaves none behind.
func Connect(rc *rest.Config, o Options) (*Conn, error) {
	if o.Scheme == nil {
		return nil, fmt.Errorf("kubernetes client: no scheme")
	}
	rc = rest.CopyConfig(rc)
	if rc.UserAgent == "" {
		rc.UserAgent = o.UserAgent
	}
	if rc.QPS == 0 {
		rc.QPS, rc.Burst = o.QPS, o.Burst
	}
	rc.ContentType = "application/vnd.kubernetes.protobuf"
	rc.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	if o.Wrap != nil {
		rc.Wrap(o.Wrap)
	}
	conns := &conntrack.Tracker{}
	if rc.Dial == nil {
		rc.Dial = conns.DialContext
	}
	hc, err := rest.HTTPClientFor(rc)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	return &Conn{base: rc, hc: hc, conns: conns, codecs: serializer.NewCodecFactory(o.Scheme)}, nil
}

// REST is a client of one API group version ("/api" for the core group,
// "/apis" for the others) over the Conn's HTTP client.
func (c *Conn) REST(apiPath string, gv schema.GroupVersion) (*rest.RESTClient, error) {
	rc := rest.CopyConfig(c.base)
	rc.APIPath, rc.GroupVersion = apiPath, &gv
	rc.NegotiatedSerializer = c.codecs.WithoutConversion()
	cl, err := rest.RESTClientForConfigAndClient(rc, c.hc)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client for %s: %w", gv, err)
	}
	return cl, nil
}

// Close closes every connection to the API server, idle or not: a watch's
// stream may still be closing when its owner stops. Calls made after Close
// dial again.
func (c *Conn) Close() {
	utilnet.CloseIdleConnectionsFor(c.hc.Transport)
	c.conns.CloseAll()
}
