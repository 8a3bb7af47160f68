package config

import (
	"cmp"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"
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
		Bind:                        "0.0.0.0:25565",
		ConnectionTimeout:           5 * time.Second,
		ReadTimeout:                 30 * time.Second,
		ProxyProtocolTrustedProxies: DefaultTrustedProxies(),
		Quota:                       defaultQuota(),
		Lite:                        defaultLite(),
		API:                         defaultAPI(),
	}
}

// Load reads and parses the config file at path. File errors are returned
// wrapped; config problems are returned as an ErrorList.
func Load(path string) (*Config, []Warning, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("load config: %w", err)
	}
	return Parse(data, path)
}

// Parse parses a config. file names the source in messages and is the base
// for relative paths in the config (favicon, tokenFile); "" means the current
// directory. When the config is unusable the error is an ErrorList holding
// every problem found, and the Config is nil. Warnings are returned either way.
func Parse(data []byte, file string) (*Config, []Warning, error) {
	d := &decoder{file: file, dir: filepath.Dir(file), budget: nodeBudget}
	if file == "" {
		d.dir = "."
	}
	cfg := Default()
	cfg.File = file
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		d.errorf(syntaxLine(err), "", ErrSyntax, "%s", err.Error())
		return nil, d.warns, d.errs
	}
	d.decodeRoot(&root, cfg)
	// Sections are decoded in dependency order; report in file order.
	slices.SortStableFunc(d.warns, func(a, b Warning) int { return cmp.Compare(a.Line, b.Line) })
	slices.SortStableFunc(d.errs, func(a, b *Error) int { return cmp.Compare(a.Line, b.Line) })
	if len(d.errs) > 0 {
		return nil, d.warns, d.errs
	}
	return cfg, d.warns, nil
}

var syntaxLineRE = regexp.MustCompile(`line (\d+)`)

// syntaxLine extracts the line from a yaml syntax error message.
func syntaxLine(err error) int {
	m := syntaxLineRE.FindStringSubmatch(err.Error())
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// decodeRoot walks the document: `config:` and `api:` are ours, Gate's other
// sections are warned about.
func (d *decoder) decodeRoot(root *yaml.Node, cfg *Config) {
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 || isNull(root.Content[0]) {
		d.errorf(1, "config", ErrMissing, "missing: the file is empty (want config.lite.enabled: true and config.lite.routes)")
		return
	}
	doc := entry{key: root, val: root.Content[0], path: ""}
	var proxy *entry
	ok := d.mapping(doc, map[string]handler{
		"config": func(e entry) { proxy = &e },
		"api":    func(e entry) { d.decodeAPI(e, &cfg.API) },
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
