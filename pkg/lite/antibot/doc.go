// Package antibot owns the checks a passthrough proxy can make against login floods
// once it knows the name a Login Start claims: that the name is a valid Java
// Edition name, a login rate and a cap on concurrent sessions per name, and attack
// mode, in which (while logins over all routes exceed a rate) an address the proxy
// has not seen before must reconnect within a window before it is let through.
//
// Its state is bounded: names and addresses live in tables with a size cap, and a
// flood of unique names or addresses replaces old entries instead of growing them.
// Live sessions are counted per name only while they last (the caller's
// connection cap bounds them). Time comes from an injected clock.
//
// It does not read sockets, decode config, tell the player anything or count
// refusals (package lite does, with the reasons and texts a Verdict carries).
package antibot
