//go:build unix

package execwake

import (
	"os/exec"
	"syscall"
)

// ownGroup makes the command the leader of a new process group and has the
// context's end kill that whole group, so that children it started die with
// it instead of living on as orphans.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
