// Package engines builds the wake targets routes name, one engine per kind:
// it makes one client per engine on first use and shares it among every
// target of that engine across reloads, picks how replicas agree before a
// sleep by the target's kind (a Lease per Kubernetes target, local state for
// the others), checks a spec without any engine (Check, for `gate validate`
// and the config load), and closes the clients.
//
// It does not parse `wake` (package wake does), decide when to wake or sleep
// (the Coordinator), or speak to any engine itself (the engine packages and
// the targets do). The engines' addresses are the discovery settings read at
// start (the Kubernetes API server, the Docker daemon): changing them takes
// a restart, as switching a discovery source does.
package engines
