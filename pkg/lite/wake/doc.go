// Package wake owns servers that sleep: the targets a route can wake and put
// to sleep (a Kubernetes Deployment or StatefulSet through its scale
// subresource, a Docker container, a webhook, a command), the per-target state
// (asleep, waking, awake, idle) that survives config reloads, one shared wake
// for concurrent logins, the idle countdown, and how replicas of the proxy agree
// that nobody holds a session before a target is put to sleep (Holders).
//
// It does not own the player's connection (package lite holds a login while
// its target wakes and answers pings of a sleeping route), nor any engine's
// discovery (package discovery finds the routes that name a target).
package wake
