// Package status owns what a Lite proxy says in the server list when it answers a status ping
// itself: a bounded cache of backend Status Response JSON with shared in-flight fetches (keyed
// by route, backend, host pattern and protocol: a release's, one learned from logins, or one
// shared key for every other number, see Protocols and IsRelease), the
// last-known-good memory used when every backend of a route is down, the rendering of a route's
// configured fallback status, and the small JSON text components used for disconnect messages.
// It also reads the few fields of a backend's Status Response that load-aware strategies and
// legacy ping replies need (ParseReport), and rewrites the player counts of a response for a
// route that shows its backends as one server (WithPlayers). It owns the Fallback type that
// the config decodes into (config.Fallback is an alias), with its fields' docs and defaults.
//
// It does not own any network I/O: the proxy passes a fetch function that dials a backend and
// performs the exchange, and it writes the bytes returned here with the wire package. It does
// not decide the TTL or which backend to ask; those come from the route's configuration and the
// strategy. Framing (packet lengths, VarInts, legacy UTF-16 replies) belongs to wire.
package status
