// Package hostport owns the one rule for the port of a "host:port" address:
// decimal digits only (no sign, no space; leading zeros are read as the
// number), 1-65535 for an address to dial, 0-65535 for one to listen on,
// where 0 asks the system for a free port.
//
// It owns nothing else of an address: splitting host from port is
// net.SplitHostPort's, and what a host may be depends on who names it (a
// config template, an engine's label, a webhook's reply), so it stays with
// them. It imports only the standard library, so every package that reads
// a port (config, reach, discovery, wake) may import it.
package hostport
