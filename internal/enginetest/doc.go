// Package enginetest is the one kit of the engine tests: what scripts/test.sh
// starts (a kube-apiserver, a dockerd, test addresses on lo inside a network
// namespace) as the environment tells it, a skip that says how to get an
// engine that is absent, and the tests' own clients, which create and remove
// what a test needs and leave no connection behind (goleak).
//
//	GATETEST_KUBECONFIG          the API server, with cluster-admin
//	GATETEST_KUBECONFIG_LIMITED  the same server as the proxy's shipped RBAC allows
//	GATETEST_DOCKER_HOST         the daemon
//	GATETEST_LO_ADDRS            the addresses on lo (10.9.0.1-10.9.0.40)
//
// It does not test anything itself, and the code under test never shares its
// clients.
package enginetest
