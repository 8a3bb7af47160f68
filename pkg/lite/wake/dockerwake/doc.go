// Package dockerwake is the wake target of a Docker container: Wake starts
// the container, Sleep stops it with a grace period for the server to save,
// and Running reads the container's state, all through the Engine API client
// of package engine/docker.
//
// It does not find containers or their addresses (the discovery source does:
// a stopped container labelled `gate.wake` keeps its route without backends,
// and gets its address back when it starts), does not decide when to wake or
// sleep (the wake Coordinator does), and does not wait for the server to be
// ready (the proxy's status exchange does).
//
// Its tests run against a real dockerd (internal/enginetest), some together
// with the discovery source and the proxy, as the gate binary runs them.
package dockerwake
