// Package kube is the Kubernetes client set-up that discovery and wake share:
// where the API server is (RESTConfig: the configured kubeconfig, else the
// in-cluster service account, else $KUBECONFIG), REST clients over one HTTP
// client whose scheme holds only the types the caller names (client-go's
// clientset registers every API group's types, which would more than double
// the proxy's binary), and connections that all close with the client
// (internal/conntrack: client-go's HTTP/2 connections hold goroutines that
// CloseIdleConnections does not reach).
//
// It does not own what is watched or written (the discovery source's
// informers, the wake target's scale and Lease calls), nor retries, backoff
// or health: a caller that wants them wraps the transport (Options.Wrap).
package kube
