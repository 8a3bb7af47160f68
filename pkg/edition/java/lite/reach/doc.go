// Package reach owns how the proxy reaches a backend: turning a configured or
// expanded backend address into the one address to dial (SRV records, the default
// port), the guard for addresses a player's captures chose, the record of the
// proxy's own live backend dials that detects a connection looping back into the
// proxy, and the bytes a backend sees first (PROXY header, rewritten handshake,
// TCPShield RealIP block), built once per route for the login and the status path.
//
// # The guard's contract
//
// A backend written without `$n` is the operator's: it is dialled as written.
// A backend expanded from a template is the player's choice, so before it is
// dialled it is resolved here (within TemplateResolveTimeout; a failed lookup is
// remembered for ResolveFailTTL) and dialled by IP, and it is refused when:
//
//   - it is one of the proxy's own listening addresses (the players' port and the
//     admin API's). With an unspecified bind (0.0.0.0, [::], no host) that is every
//     local address on that port: loopback, unspecified and every address of the
//     host's interfaces (net.InterfaceAddrs, re-read at most every
//     LocalAddrsTTL). This holds for every template, whatever its shape;
//   - or its IP is loopback, unspecified, link-local or multicast, unless the same
//     template writes that host out literally ('10.0.0.5:$1' or '127.0.0.1:$1':
//     the operator named the host, the player picks only the port). A host that
//     another route or another backend names exempts nothing here.
//
// Because a guard only sees addresses, loops it cannot foresee (NAT, a DNS name
// or a dialer that leads back) are caught directly: Dials holds the local address
// of every live backend connection, and an accepted connection whose peer is one
// of them is the proxy talking to itself; the caller refuses it without a reply.
// (A local client that the kernel gave the same local address for another
// destination is told apart when that dial went to one of the host's own
// addresses; see Dials.)
//
// The package does not choose backends (package strategy), match hosts (package
// route), encode protocol frames (package wire) or relay bytes.
package reach
