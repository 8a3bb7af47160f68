// Package mctest holds the test fixtures every package of this module shares: a fake
// Minecraft backend on loopback, raw protocol client helpers, addresses that refuse or
// black-hole a dial, a deadline poll, a fake clock and a copy loop that never splices.
//
// The backend speaks real protocol bytes (package wire). By default it answers status
// pings with a JSON body and, for a login, echoes every byte it receives, the handshake
// included, so a client can check byte-exact replay through a proxy. Options select a
// fault instead (accept-then-close, reset after the handshake, hang, stall, flood, crash
// mid-session, black hole, refused) or a script run on every connection. Counters
// (accepted, logins, status requests, bytes) are read live; the handshakes of the logins
// it saw are recorded in a bounded queue.
//
// It owns test fixtures only: nothing in it is used by the proxy itself, and it keeps no
// package-level state. Everything binds 127.0.0.1. Constructors that take a TB register
// their cleanup with it; Start is the same backend for tools (soak) that run outside a
// test. The package does not import testing, so tools can link it.
package mctest
