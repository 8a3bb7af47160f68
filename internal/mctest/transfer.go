package mctest

import (
	"context"
	"net"
	"strconv"
	"time"
)

// TransferStep is one line of node/transfer.js: "transfer" (Host, Port, and the
// KeepAlives answered before it), "reconnected", or the outcome ("joined",
// "kicked" with Reason, "closed", "error"), with the bot's name.
type TransferStep struct {
	Bot        string
	Event      string
	Host       string
	Port       int
	KeepAlives int
	// Dialog is the notice the client was shown before the transfer, if any.
	Dialog *struct {
		Type, Title string
		Body        struct{ Type, Contents string }
	}
	Reason string
	Error  string
	MS     int64
}

// After is the time from the bot's first connect to this step.
func (s TransferStep) After() time.Duration { return time.Duration(s.MS) * time.Millisecond }

// FollowTransfer runs node/transfer.js: a real client of version logs in as name
// through addr asking for host, and follows a Transfer as the vanilla client does.
func FollowTransfer(ctx context.Context, modules, addr, host, version, name string) ([]TransferStep, error) {
	steps, err := Transfers{Addr: addr, Host: host, Version: version, Name: name, Count: 1}.Run(ctx, modules)
	return steps[name], err
}

// Transfers is a run of node/transfer.js with Count clients at once, named
// Name0, Name1, ... (just Name when Count is 1).
type Transfers struct {
	Addr, Host    string // where to connect, and the handshake's host
	Version, Name string
	Count         int
	// Limit is how long a client may take to reach an outcome; default 20s.
	Limit time.Duration
}

// Run runs the clients with the modules in modules until each has an outcome
// or ctx ends, and returns each client's steps by its name.
func (r Transfers) Run(ctx context.Context, modules string) (map[string][]TransferStep, error) {
	h, p, err := net.SplitHostPort(r.Addr)
	if err != nil {
		return nil, err
	}
	limit := r.Limit
	if limit <= 0 {
		limit = 20 * time.Second
	}
	list, err := runNode(ctx, modules, "transfer.js", func(s TransferStep) bool { return s.Event != "" },
		h, p, r.Host, r.Version, r.Name, strconv.Itoa(r.Count), strconv.FormatInt(limit.Milliseconds(), 10))
	steps := map[string][]TransferStep{}
	for _, s := range list {
		steps[s.Bot] = append(steps[s.Bot], s)
	}
	return steps, err
}
