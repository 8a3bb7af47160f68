// Package admission decides whether a new client connection may proceed, before the
// proxy spends more than an accept on it. It owns the per-address token buckets
// (IPv4 /24 and IPv6 /64 blocks, split by intent: connections, status pings, logins),
// the bounded table that holds them (a block that finds it full shares an overflow
// bucket with its IPv4 /16 or IPv6 /48, from a second bounded table, and only beyond
// that one last bucket with everyone, so a spray from one network cannot drain the
// burst of newcomers from others), the global and per-address caps on concurrent
// connections, and the allow/deny CIDR lists. Its state survives config reloads. Its Config
// (with Limit and Gate's defaults, DefaultConfig) is what the config's quota section decodes
// into.
//
// It does not own sockets, deadlines, PROXY headers or the messages a refused client
// sees: package lite reads those and asks this package yes or no. It never blocks,
// never does I/O and starts no goroutines.
package admission
