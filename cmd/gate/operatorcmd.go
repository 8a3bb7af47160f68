package main

import (
	"cmp"
	"context"
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/admin"
	"go.minekube.com/gate/pkg/lite/operator"
)

// operatorCommands are the `gate lite` commands that write the operator layer
// through a running proxy's admin API (docs/lite/operator.md).
var operatorCommands = map[string]bool{"maintenance": true, "drain": true, "undrain": true,
	"ban": true, "unban": true, "override": true}

// operatorCmd runs one of operatorCommands: parse its flags, send the write,
// print the entry as stored.
func operatorCmd(name string, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("gate lite "+name, stderr)
	conn := apiFlags(fs)
	w := writeFlags(name, fs)
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	kind, del, req, err := w.request(name, positional)
	if err != nil {
		fmt.Fprintf(stderr, "gate lite %s: %v\n", name, err)
		return 2
	}
	c, from, err := conn.client()
	if err != nil {
		fmt.Fprintf(stderr, "gate lite %s: %v\n", name, err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), conn.timeout)
	defer cancel()
	if del {
		err = c.DeleteOperator(ctx, kind, req.Target)
	} else {
		var e operator.Entry
		if e, err = c.SetOperator(ctx, kind, req); err == nil {
			fmt.Fprintf(stdout, "%s %s: set by %s at %s\n", e.Kind, e.Target, e.By, e.At.Format(time.RFC3339))
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "gate lite %s: %s%s: %v\n", name, c.URL, from, err)
		return 1
	}
	if del {
		fmt.Fprintf(stdout, "%s %s: removed\n", kind, cmp.Or(req.Target, operator.AllRoutes))
	}
	return 0
}

// parseInterspersed parses fs's flags wherever they stand among the arguments
// (`gate lite ban Griefer --for 1h`), returning the others in order.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		positional, args = append(positional, rest[0]), rest[1:]
	}
}

// apiConn is how a command reaches the admin API.
type apiConn struct {
	api, token, tokenFile, path, by *string
	timeout                         time.Duration
}

func apiFlags(fs *flag.FlagSet) *apiConn {
	c := &apiConn{
		api:       fs.String("api", "", "admin API base URL (default: api.bind from the config)"),
		token:     fs.String("token", "", "bearer token (default: $GATE_API_TOKEN, else from the config)"),
		tokenFile: fs.String("token-file", "", "file holding the bearer token"),
		by:        fs.String("by", os.Getenv("USER"), "who is writing, for the proxy's audit log (default: $USER)"),
		path:      configFlag(fs, ""),
	}
	fs.DurationVar(&c.timeout, "timeout", 10*time.Second, "request timeout")
	return c
}

// client builds the API client from the flags, the environment and the config.
func (a *apiConn) client() (*admin.Client, string, error) {
	c := &admin.Client{URL: *a.api, Token: *a.token, By: *a.by}
	if c.Token == "" {
		c.Token = os.Getenv("GATE_API_TOKEN")
	}
	if *a.tokenFile != "" {
		t, err := apiToken(config.API{TokenFile: *a.tokenFile})
		if err != nil {
			return nil, "", err
		}
		c.Token = t
	}
	from, err := fromConfig(c, *a.path)
	return c, from, err
}

// writeFlags are the fields of a write; each command registers the ones it uses.
type writeOpts struct {
	route, text, bypass, reason, dur, motd, favicon, version *string
	maxPlayers                                               *int
	off                                                      *bool
}

func writeFlags(name string, fs *flag.FlagSet) *writeOpts {
	w := &writeOpts{}
	switch name {
	case "maintenance", "override":
		w.route = fs.String("route", "", "the route (a host it serves, or its key); default every route")
		w.off = fs.Bool("off", false, "remove it instead")
	}
	switch name {
	case "maintenance":
		w.text = fs.String("text", "", "what players are told, and the MOTD (default: "+operator.DefaultMaintenanceText+")")
		w.bypass = fs.String("bypass", "", "names or UUIDs that may still join, comma-separated")
	case "ban":
		w.reason = fs.String("reason", "", "the reason the player is shown")
		w.dur = fs.String("for", "", "how long (e.g. 30m, 24h); default no end")
	case "override":
		w.motd = fs.String("motd", "", "the MOTD pings show")
		w.favicon = fs.String("favicon", "", "a 64x64 PNG file pings show")
		w.version = fs.String("version", "", "the version name pings show")
		w.maxPlayers = fs.Int("max-players", -1, "the players max pings show (online stays real)")
	}
	return w
}

// request turns the command, its flags and its arguments into a write.
func (w *writeOpts) request(name string, args []string) (operator.Kind, bool, admin.WriteRequest, error) {
	var req admin.WriteRequest
	switch name {
	case "drain", "undrain", "ban", "unban":
		if len(args) != 1 {
			return "", false, req, fmt.Errorf("want one %s, got %d arguments", map[bool]string{true: "backend (host:port)", false: "player (name, UUID or address range)"}[strings.Contains(name, "drain")], len(args))
		}
		req.Target = args[0]
	default:
		if len(args) != 0 {
			return "", false, req, fmt.Errorf("unexpected arguments %q (use --route)", args)
		}
		req.Target = *w.route
	}
	switch name {
	case "drain", "undrain":
		return operator.Drain, name == "undrain", req, nil
	case "ban", "unban":
		req.Text, req.For = deref(w.reason), deref(w.dur)
		return operator.Ban, name == "unban", req, nil
	case "maintenance":
		req.Text = *w.text
		if *w.bypass != "" {
			req.Bypass = strings.Split(*w.bypass, ",")
		}
		return operator.Maintenance, *w.off, req, nil
	}
	req.MOTD, req.Version = *w.motd, *w.version
	if *w.maxPlayers >= 0 {
		req.MaxPlayers = w.maxPlayers
	}
	if *w.favicon != "" {
		png, err := os.ReadFile(*w.favicon)
		if err != nil {
			return "", false, req, fmt.Errorf("--favicon: %w", err)
		}
		req.Favicon = "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
	}
	return operator.Override, *w.off, req, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
