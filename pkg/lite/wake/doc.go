// Package wake owns servers that sleep: the targets a route can wake and put
// to sleep (a Kubernetes Deployment or StatefulSet through its scale
// subresource, a Docker container, a webhook, a command), the per-target state
// (asleep, waking, awake, idle) that survives config reloads, one shared wake
// for concurrent logins, the idle countdown, and how replicas of the proxy agree
// that nobody holds a session before a target is put to sleep (Holders).
//
// Routes is the one seam a proxy instance uses: it owns the targets built for
// the routes across reloads (factories run outside its locks), each route's
// card (last good status, rendered asleep or, while its target wakes,
// loading) and the sessions that keep a target awake. A new target whose
// engine cannot say whether it runs (a command, a webhook) is asked through
// its routes' backends (backendobserver.go). It does not own the player's connection (package lite holds a login
// while its target wakes and answers pings of a sleeping route from the
// card), nor any engine's discovery (package discovery finds the routes that
// name a target).
//
// A target's phases run asleep -> waking -> awake -> idle -> asleep; the table
// in phase.go states every step, with the four finer phases that show as one
// of those four words: checking, sleeping and interrupted while an engine or
// Holders call is under way, and backoff, which after a failed wake call turns
// every login of the target away until its next try (backoff.go). The
// Coordinator owns them: Bind keeps a key's state across reloads, Wake shares
// one engine call and one readiness poll among concurrent logins (and one
// backoff after it fails), Session and ReportPlayers feed the idle countdown,
// and Holders decides, across replicas, whether the countdown's end may call
// Target.Sleep. A key is the identity of calls; what metrics, logs, errors and
// the admin API show is its Name, which holds no secret of the key (a
// webhook's token, a command's arguments). ParseSpec (the text form) and
// ParseMapping (the mapping form) are the one parser of the `wake` key; both
// end in Spec.Validate. Building targets on the engines' clients is package
// wake/engines'.
package wake
