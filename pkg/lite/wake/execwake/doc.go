// Package execwake is the wake target that runs a command, for servers on
// bare metal: Spec.Command wakes, Spec.SleepCommand (optional; without it a
// sleep does nothing) puts to sleep. Each is an argv run without a shell, with
// its own timeout, and with a minimal environment: the proxy's PATH and
// GATE_WAKE_ACTION ("wake" or "sleep"), GATE_WAKE_SERVER_ADDRESS and
// GATE_WAKE_BACKEND, nothing else of the proxy's (its tokens stay its own).
//
// Exit status 0 succeeds. A wake command may name the backend on its last
// non-empty line of standard output, written `backend=<host:port>`; other
// output is ignored. Standard error's tail (4 KiB) goes into the error of a
// failed run. On Unix each run is its own process group, and the whole group
// is killed (SIGKILL) when the timeout passes, so no child outlives a timed-out
// command; a command that succeeds is never killed, so it may leave a server
// running in the background.
//
// It does not decide when to wake or sleep (the wake Coordinator does) and
// does not check that the server is ready (the proxy's status exchange does).
package execwake
