package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"time"

	"go.minekube.com/gate/pkg/lite/admin"
)

// healthcheckCmd is the container's HEALTHCHECK (distroless images have no curl):
// exit 0 when the proxy answers. With --url it fetches that URL. Otherwise it
// reads the config: with the API on it fetches /healthz from api.bind, else it
// opens (and closes) a TCP connection to the player port.
func healthcheckCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("gate healthcheck", stderr)
	url := fs.String("url", "", "URL to fetch, e.g. http://127.0.0.1:8080/healthz (default: from --config)")
	path := fs.String("config", "", "config file (default: config.yml in the working directory)")
	timeout := fs.Duration("timeout", 3*time.Second, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := check(ctx, *url, *path); err != nil {
		fmt.Fprintln(stderr, "unhealthy:", err)
		return 1
	}
	fmt.Fprintln(stdout, "ok")
	return 0
}

func check(ctx context.Context, url, path string) error {
	if url != "" {
		return (&admin.Client{URL: url}).Check(ctx, "")
	}
	cfg, _, err := load(path)
	if err != nil {
		return err
	}
	if cfg.API.Enabled {
		return (&admin.Client{URL: "http://" + dialable(cfg.API.Bind)}).Check(ctx, admin.PathHealthz)
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", dialable(cfg.Bind))
	if err != nil {
		return err
	}
	return c.Close()
}
