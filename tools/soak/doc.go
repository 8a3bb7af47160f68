// Command soak holds a Lite proxy under a mixed load of abusive and legitimate
// connections for a bounded time, then checks that the proxy is back where it started:
// goroutines, file descriptors and heap at their baseline, nothing left counted, and
// every legitimate player served throughout.
//
// By default it starts everything in one process (a fake backend, the proxy on
// loopback, the clients), so it needs nothing but Go:
//
//	go run ./tools/soak -duration 3m
//
// The abusive clients reach the proxy through a trusted front (127.0.0.1 sends PROXY
// headers naming made-up players) so that one machine can play thousands of addresses,
// and from 127.0.0.2 as an untrusted peer. With -target it aims at a proxy that is
// already running (configured with proxyProtocol: true and
// proxyProtocolTrustedProxies: [127.0.0.1]) and, given -pid, samples that process's
// descriptors and memory from /proc.
//
// go test ./tools/soak runs a short soak (a few seconds); -soak.duration makes it longer.
package main
