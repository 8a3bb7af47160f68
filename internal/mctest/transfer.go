package mctest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
)

// TransferStep is one line of node/transfer.js: "transfer" (Host, Port),
// "reconnected", or the outcome ("joined", "kicked" with Reason, "closed", "error").
type TransferStep struct {
	Event  string
	Host   string
	Port   int
	Reason string
	Error  string
}

// FollowTransfer runs node/transfer.js: a real client of version logs in as name
// through addr asking for host, and follows a Transfer as the vanilla client does.
func FollowTransfer(ctx context.Context, modules, addr, host, version, name string) ([]TransferStep, error) {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "node", nodeScript("transfer.js"), h, p, host, version, name)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	var steps []TransferStep
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var s TransferStep
		if json.Unmarshal(sc.Bytes(), &s) == nil && s.Event != "" {
			steps = append(steps, s)
		}
	}
	return steps, err
}
