package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/admin"
)

// statusCmd prints the table of every backend from a running proxy's admin API.
// Without --api it reads the API's address and token from the config file
// (--config, else the default file), and refuses when that config has the API
// off. The address asked goes to stderr, so the table stays parseable.
func statusCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("gate lite status", stderr)
	api := fs.String("api", "", "admin API base URL (default: api.bind from the config)")
	token := fs.String("token", "", "bearer token (default: $GATE_API_TOKEN, else from the config)")
	tokenFile := fs.String("token-file", "", "file holding the bearer token")
	path := configFlag(fs, "")
	timeout := fs.Duration("timeout", 10*time.Second, "request timeout")
	sessions := fs.Bool("sessions", false, "list every live session (by default at most "+fmt.Sprint(sessionRows)+")")
	balance := fs.Bool("balance", false, "show the strategies' decisions: scores, load and its source, replica estimate, lowest-latency best and challenger")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	c := &admin.Client{URL: *api, Token: *token}
	if c.Token == "" {
		c.Token = os.Getenv("GATE_API_TOKEN")
	}
	if *tokenFile != "" {
		t, err := apiToken(config.API{TokenFile: *tokenFile})
		if err != nil {
			fmt.Fprintln(stderr, "gate lite status:", err)
			return 2
		}
		c.Token = t
	}
	from, err := fromConfig(c, *path)
	if err != nil {
		fmt.Fprintln(stderr, "gate lite status:", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	bs, err := c.Backends(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "gate lite status: %s%s: %v\n", c.URL, from, err)
		return 1
	}
	if err := writeExtras(ctx, c, stdout, *sessions); err != nil {
		fmt.Fprintln(stderr, "gate lite status:", err)
		return 1
	}
	write := func() error { return admin.WriteTable(stdout, bs) }
	if *balance {
		routes, err := c.Routes(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "gate lite status: %s%s: %v\n", c.URL, from, err)
			return 1
		}
		write = func() error { return admin.WriteBalance(stdout, routes, bs) }
	}
	fmt.Fprintf(stderr, "gate lite status: %s%s\n", c.URL, from)
	if err := write(); err != nil {
		fmt.Fprintln(stderr, "gate lite status:", err)
		return 1
	}
	return 0
}

// sessionRows is how many live sessions `gate lite status` lists without --sessions.
const sessionRows = 20

// writeExtras writes the tables that precede the backends' when there is
// something in them: the discovery sources (a file-only proxy's output stays
// the backend table alone), the wake targets (only when routes name some) and
// the live sessions with their players (all of them with allSessions).
func writeExtras(ctx context.Context, c *admin.Client, w io.Writer, allSessions bool) error {
	if ss, err := c.Sources(ctx); err == nil && len(ss) > 0 {
		if err := admin.WriteSources(w, ss, time.Now()); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if ws, err := c.Wake(ctx); err == nil && len(ws) > 0 {
		if err := admin.WriteWake(w, ws, time.Now()); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if ss, err := c.Sessions(ctx); err == nil && len(ss) > 0 {
		limit := sessionRows
		if allSessions {
			limit = 0
		}
		if err := admin.WriteSessions(w, ss, time.Now(), limit); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	return nil
}

// fromConfig fills what the flags left empty from the config's api section and
// says where the URL came from. Without --api the config must load and have
// the API on: guessing an address would read whatever else listens there.
func fromConfig(c *admin.Client, path string) (from string, err error) {
	if c.URL != "" && c.Token != "" {
		return " (--api)", nil
	}
	cfg, _, err := load(path)
	if err != nil {
		if c.URL != "" {
			return " (--api)", nil // the token is optional
		}
		return "", fmt.Errorf("no --api and no usable config: %w", err)
	}
	from = " (--api)"
	if c.URL == "" {
		if !cfg.API.Enabled {
			return "", fmt.Errorf("the admin API is off in %s (set api.enabled: true, or pass --api URL)", cfg.File)
		}
		c.URL = "http://" + dialable(cfg.API.Bind)
		from = " (api.bind in " + cfg.File + ")"
	}
	if c.Token == "" {
		t, err := apiToken(cfg.API)
		if err != nil {
			return "", err
		}
		c.Token = t
	}
	return from, nil
}

// dialable turns a listen address into one to connect to: an unspecified host
// (":8080", "0.0.0.0:8080", "[::]:8080") means this machine.
func dialable(bind string) string {
	host, port, err := net.SplitHostPort(bind)
	if err != nil {
		return bind
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}
