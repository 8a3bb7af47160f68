package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/admin"
)

// statusCmd prints the table of every backend from a running proxy's admin API.
// Without --api it reads the API's address and token from the config file when
// there is one, else uses http://localhost:8080.
func statusCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("gate lite status", stderr)
	api := fs.String("api", "", "admin API base URL (default: from --config, else "+admin.DefaultURL+")")
	token := fs.String("token", "", "bearer token (default: $GATE_API_TOKEN, else from --config)")
	tokenFile := fs.String("token-file", "", "file holding the bearer token")
	path := fs.String("config", "", "config file to take the API address and token from (default: config.yml if present)")
	timeout := fs.Duration("timeout", 10*time.Second, "request timeout")
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
	if err := fromConfig(c, *path); err != nil {
		fmt.Fprintln(stderr, "gate lite status:", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	bs, err := c.Backends(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "gate lite status:", err)
		return 1
	}
	write := func() error { return admin.WriteTable(stdout, bs) }
	if *balance {
		routes, err := c.Routes(ctx)
		if err != nil {
			fmt.Fprintln(stderr, "gate lite status:", err)
			return 1
		}
		write = func() error { return admin.WriteBalance(stdout, routes, bs) }
	}
	if err := write(); err != nil {
		fmt.Fprintln(stderr, "gate lite status:", err)
		return 1
	}
	return 0
}

// fromConfig fills what the flags left empty from the config's api section. An
// explicit --config must load; the default config.yml is used only if it exists.
func fromConfig(c *admin.Client, path string) error {
	if c.URL != "" && c.Token != "" {
		return nil
	}
	if path == "" {
		if _, err := os.Stat(defaultConfig); errors.Is(err, os.ErrNotExist) {
			return nil
		}
	}
	cfg, _, err := load(path)
	if err != nil {
		return err
	}
	if c.URL == "" {
		c.URL = "http://" + dialable(cfg.API.Bind)
	}
	if c.Token == "" {
		t, err := apiToken(cfg.API)
		if err != nil {
			return err
		}
		c.Token = t
	}
	return nil
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
