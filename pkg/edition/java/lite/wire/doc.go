// Package wire encodes and decodes the small part of the Minecraft Java
// protocol that a Lite proxy has to understand before it gets out of the way:
// VarInts, length-prefixed frames, strings, the handshake, the Login Start
// (the player's name and UUID, in every layout since 1.7), the status
// exchange (request, response, ping/pong), the login disconnect, the
// pre-1.7 "legacy" server-list ping that starts with 0xFE, and (1.20.5 on) the
// few packets of a login the proxy completes itself to send a Transfer: their
// ids per protocol version come from a table generated from minecraft-data
// (transfer_table.go, by internal/mcdata/gentransfer).
//
// It also owns the host rules every route match uses (SplitAddress,
// CleanHost), so that the proxy, the route table and the status cache agree
// on what "the virtual host" of a connection is.
//
// The package works on byte slices only. It never imports net, never logs and
// never blocks: parsers take whatever bytes the caller has read so far and
// answer ErrIncomplete until a whole message is there, so a caller can read
// into a fixed buffer and parse again after each read. Parsers never panic on
// hostile input, and their hot paths allocate as little as possible (a parsed
// handshake costs one allocation, for its address).
//
// It does not own sockets, deadlines, routing decisions, JSON handling of
// status responses (the JSON is opaque bytes here), compression or encryption
// (neither exists before login completes, which is all a Lite proxy reads).
package wire
