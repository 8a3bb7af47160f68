package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"go.minekube.com/gate/pkg/lite/admin"
)

// healthcheckCmd is the container's HEALTHCHECK (distroless images have no curl):
// exit 0 when the proxy answers. With --url it fetches that URL. Otherwise it
// reads the config: with the API on it fetches /healthz from api.probeBind (or
// api.bind when that is empty), else it does a server-list ping (status
// exchange) with the player listener. Either way the answer must be this
// proxy's: another program on the port fails.
func healthcheckCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("gate healthcheck", stderr)
	url := fs.String("url", "", "URL to fetch, e.g. http://127.0.0.1:8080/healthz (default: from --config)")
	path := configFlag(fs, "")
	timeout := fs.Duration("timeout", 3*time.Second, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	asked, err := check(ctx, *url, *path)
	if err != nil {
		fmt.Fprintf(stderr, "unhealthy: %s: %v\n", asked, err)
		return 1
	}
	fmt.Fprintf(stdout, "ok: %s\n", asked)
	return 0
}

// check probes the proxy and returns what it asked, for the one line printed.
func check(ctx context.Context, url, path string) (asked string, err error) {
	if url != "" {
		return url, (&admin.Client{URL: url}).Check(ctx, "")
	}
	cfg, _, err := load(path)
	if err != nil {
		return configPath(path), err
	}
	if cfg.API.Enabled {
		bind, key := cfg.API.Bind, "api.bind"
		if cfg.API.ProbeBind != "" { // what the orchestrator's probes ask too
			bind, key = cfg.API.ProbeBind, "api.probeBind"
		}
		base := "http://" + dialable(bind)
		return base + admin.PathHealthz + " (" + key + " in " + cfg.File + ")",
			(&admin.Client{URL: base}).Check(ctx, admin.PathHealthz)
	}
	addr := dialable(cfg.Bind)
	host, err := probeHost(cfg)
	asked = "status ping to " + addr + " (config.bind in " + cfg.File + "; the admin API is off)"
	if err != nil {
		return asked, err
	}
	return asked, statusExchange(ctx, addr, host)
}
