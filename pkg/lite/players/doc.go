// Package players owns who a player says they are and whether they may join: the
// Player a Login Start names (package wire reads it), the access lists of names and
// UUIDs a config or a file gives, mc-router's allow/deny file format and its
// precedence rules, and the live reload of those files.
//
// A player's name and UUID are the client's claim: a Lite proxy never sees the
// authentication that follows (it happens between the client, Mojang and the
// backend, encrypted). A deny list is always sound (an impostor can only lock
// itself out); an allow list is sound only when the backends run in online mode,
// where an impostor fails the backend's own check.
//
// It does not read sockets, parse protocol bytes (package wire), decode YAML
// (package config), tell the player anything or count refusals (package lite).
package players
