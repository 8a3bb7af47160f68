package config

import (
	"cmp"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// Config is a loaded, defaulted and validated Lite proxy configuration.
// Fields are read as they are: every default is already applied.
type Config struct {
	// Bind is the address players connect to. Default "0.0.0.0:25565";
	// port 0 picks a free port.
	Bind string
	// ConnectionTimeout bounds each backend dial. Default 5s; always > 0.
	ConnectionTimeout time.Duration
	// ReadTimeout bounds reading the client's handshake. Default 30s; always > 0.
	ReadTimeout time.Duration
	// Debug enables debug logging. Default false.
	Debug bool
	// ProxyProtocol accepts inbound PROXY protocol headers, only from
	// ProxyProtocolTrustedProxies. Default false.
	ProxyProtocol bool
	// ProxyProtocolTrustedProxies are the peers whose PROXY header is
	// believed. Default (also when configured empty): Gate's list of
	// loopback, private and link-local networks, see DefaultTrustedProxies.
	ProxyProtocolTrustedProxies []netip.Prefix
	// Quota rate-limits per client IP block.
	Quota Quota
	// Lite is the routing configuration; Lite.Enabled is always true.
	Lite Lite
	// API is the admin API configuration (top-level `api:`).
	API API
	// NoAutoReload turns off watching the config file (top-level
	// `noAutoReload:`, as in Gate), like --no-auto-reload; SIGHUP still
	// reloads. Read at start. Default false.
	NoAutoReload bool
	// File is the path the config was loaded from ("" for Parse without a name).
	File string
}

// DefaultTrustedProxies returns Gate's default trusted PROXY protocol
// senders: loopback, RFC 1918 private, link-local and IPv6 unique-local
// networks, never the public internet. A new slice is returned on every call.
func DefaultTrustedProxies() []netip.Prefix {
	return []netip.Prefix{
		netip.MustParsePrefix("127.0.0.0/8"),
		netip.MustParsePrefix("::1/128"),
		netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("172.16.0.0/12"),
		netip.MustParsePrefix("192.168.0.0/16"),
		netip.MustParsePrefix("169.254.0.0/16"),
		netip.MustParsePrefix("fc00::/7"),
		netip.MustParsePrefix("fe80::/10"),
	}
}

// Default returns a Config with every default applied and no routes. It is
// not valid on its own: Lite mode needs enabling and at least one route.
func Default() *Config {
	return &Config{
		Bind:                        net.JoinHostPort("0.0.0.0", strconv.Itoa(int(wire.DefaultPort))),
		ConnectionTimeout:           5 * time.Second,
		ReadTimeout:                 30 * time.Second,
		ProxyProtocolTrustedProxies: DefaultTrustedProxies(),
		Quota:                       defaultQuota(),
		Lite:                        defaultLite(),
		API:                         defaultAPI(),
	}
}

// Load reads and parses the config file at path. File errors are returned
// wrapped; config problems, a file over MaxFileSize included, are returned as
// an ErrorList.
func Load(path string) (*Config, []Warning, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("load config: %w", err)
	}
	defer f.Close()
	// One byte over the limit is enough for Parse to reject the file, and
	// reading no further keeps a path like /dev/zero from hanging the load.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, nil, fmt.Errorf("load config: %w", err)
	}
	return Parse(data, path)
}

// Parse parses a config. file names the source in messages and is the base
// for relative paths in the config (favicon, tokenFile); "" means the current
// directory. When the config is unusable the error is an ErrorList holding
// the problems found (see ErrorList for its cap), and the Config is nil.
// Warnings are returned either way, at most 100 of them and a last one saying
// how many more there were. Parse is bounded on any input: a file over
// MaxFileSize, or one whose aliases expand beyond the decoding limits, is
// rejected with an error wrapping ErrLimit.
//
// Environment variables starting with EnvPrefix override the file's keys, as
// in Gate (see EnvPrefix); Parse reads the process environment, so a reload
// keeps the overrides. Use ParseEnv to choose the variables.
func Parse(data []byte, file string) (*Config, []Warning, error) {
	return ParseEnv(data, file, os.Environ())
}

// ParseEnv is Parse with environ ("NAME=value" items, as from os.Environ) in
// place of the process environment; nil applies no overrides. Findings about
// a key set from the environment name the variable instead of a file line.
func ParseEnv(data []byte, file string, environ []string) (*Config, []Warning, error) {
	d := &decoder{file: file, dir: filepath.Dir(file), budget: newBudget(), env: newEnvOverrides(environ)}
	if file == "" {
		d.dir = "."
	}
	cfg := Default()
	cfg.File = file
	if len(data) > MaxFileSize {
		d.sizeError()
		return nil, nil, d.errs
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		line, msg := syntaxError(data, err)
		d.errorf(line, "", ErrSyntax, "%s", msg)
		return nil, d.warns, d.errs
	}
	d.decodeRoot(&root, cfg)
	d.unusedEnv()
	d.finish()
	if len(d.errs) > 0 {
		return nil, d.warns, d.errs
	}
	return cfg, d.warns, nil
}

// finish puts the findings in file order (sections are decoded in dependency
// order) and appends the count of those over the caps.
func (d *decoder) finish() {
	slices.SortStableFunc(d.warns, func(a, b Warning) int { return cmp.Compare(a.Line, b.Line) })
	slices.SortStableFunc(d.errs, func(a, b *Error) int { return cmp.Compare(a.Line, b.Line) })
	if d.droppedErrs > 0 {
		d.errs = append(d.errs, &Error{File: d.file, Err: ErrLimit,
			Msg: fmt.Sprintf("%d more errors not shown (the limit is %d)", d.droppedErrs, maxErrors)})
	}
	if d.droppedWarns > 0 {
		d.warns = append(d.warns, Warning{File: d.file,
			Msg: fmt.Sprintf("%d more warnings not shown (the limit is %d)", d.droppedWarns, maxWarnings)})
	}
}

// decodeRoot walks the document: `config:` and `api:` are ours, Gate's other
// sections are warned about.
func (d *decoder) decodeRoot(root *yaml.Node, cfg *Config) {
	empty := root.Kind != yaml.DocumentNode || len(root.Content) == 0 || isNull(root.Content[0])
	if empty && len(d.env.vars) == 0 {
		d.errorf(1, "config", ErrMissing, "missing: the file is empty (want config.lite.enabled: true and config.lite.routes)")
		return
	}
	if empty { // the environment may configure it all
		root = &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	doc := entry{key: root, val: root.Content[0], path: ""}
	var proxy *entry
	ok := d.mapping(doc, map[string]handler{
		"config":       func(e entry) { proxy = &e },
		"api":          func(e entry) { d.decodeAPI(e, &cfg.API) },
		"noAutoReload": func(e entry) { d.boolean(e, &cfg.NoAutoReload) },
	}, ignoredSet(topLevelKeys, topLevelIgnored))
	if !ok {
		return
	}
	if proxy == nil {
		d.errorf(resolve(doc.val).Line, "config", ErrMissing,
			"missing (want config.lite.enabled: true and config.lite.routes)")
		return
	}
	d.decodeProxy(*proxy, cfg)
}
