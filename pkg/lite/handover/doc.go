// Package handover moves a running proxy's listeners and live sessions to a new
// process of itself over a Unix socket (SCM_RIGHTS), so that an upgrade drops no one.
//
// The old process starts the new one (Start) with one end of a socket pair as an
// inherited descriptor named by an environment variable (EnvFD; not GATE_, which names config keys), sends it the
// listeners, and waits a bounded time for its readiness (ReadyTimeout). A new process
// that exits, fails or stays silent meanwhile is killed, and the old one keeps
// everything. Once ready, the old process sends each established session (Send): the
// player's and the backend's sockets, and a Session of metadata (route, backend,
// player, start, byte counts, the bytes its relay held). It closes its own copies only
// after the new process acknowledged that session. The new process (Inherit) takes the
// listeners, says it is ready, and adopts each session until the old one hangs up.
//
// # Wire format
//
// A frame is a 6-byte header (type, descriptor count, payload length, big endian) and
// its payload; the descriptors ride on the header's first byte. Every payload starts
// with Version, and every length is bounded (maxFrame, maxFDs, maxText, MaxHeld), so a
// peer that is not this version of this program is refused, never trusted.
//
// It owns the socket, the frames and the metadata encoding. It does not know how a
// session is relayed (package relay), what the proxy does with a session (package
// lite), or when to upgrade (cmd/gate).
package handover
