// Package kubewake wakes and puts to sleep Kubernetes workloads, and lets
// replicas of the proxy agree about a target's sessions through Leases.
//
// A Target scales one apps/v1 Deployment or StatefulSet through its scale
// subresource: Wake writes replicas 1 only when it reads 0, Sleep writes 0
// only when it reads 1 (more than one replica was set by someone else and is
// left alone: ErrScaledUp), and every write is conditional on the
// resourceVersion read. Concurrent wakes from any number of replicas
// therefore make one write; the losers get a Conflict, read again and find
// the object running. Running reports the desired replicas (the scale's
// spec): readiness is the caller's status exchange to judge.
//
// LeaseHolders keeps one coordination.k8s.io/v1 Lease per target in the
// proxy's namespace, named by LeaseName (gate-wake-<slug of the key>-<hash>)
// and labelled app.kubernetes.io/name=gate, app.kubernetes.io/component=wake.
// A Lease has a single holder and a target has one per replica, so the state
// lives in annotations:
//
//	wake.gate.minekube.com/target       the target's key (for people)
//	wake.gate.minekube.com/holders      {"<identity>": {"renewTime": "<RFC 3339>", "sessions": n}, ...}
//	wake.gate.minekube.com/period       number of Woke calls; each opens a period
//	wake.gate.minekube.com/sleep-claim  "<period> <identity> <RFC 3339>": the period whose sleep is claimed
//
// spec.holderIdentity and spec.renewTime mirror the newest renewal and
// spec.leaseDurationSeconds the Duration, so `kubectl get leases` reads
// naturally. Hold(n > 0) writes this replica's renewal, Hold(0) removes it;
// a renewal older than Duration (default 3 × RenewEvery) no longer counts,
// which covers a replica that died holding sessions. ClaimSleep succeeds
// only when no other identity's renewal counts and the current period has no
// claim yet, and writes the claim conditionally: exactly one replica wins a
// period. Periods are counters, not times, so deciding "claimed since the
// last wake" needs no agreement between clocks; only the expiry of a silent
// holder compares one replica's clock with another's, and Duration absorbs
// skew below it.
//
// Client is a REST client whose scheme holds only Scale and Lease, to keep
// the binary small. The package does not decide when to wake or sleep (the
// wake package's Coordinator does), nor does it read Services (discovery
// does).
package kubewake
