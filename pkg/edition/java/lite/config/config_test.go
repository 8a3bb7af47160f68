package config

import (
	"testing"
)

// minimal is the smallest valid config; cases below replace or extend it.
const minimal = `config:
  lite:
    enabled: true
    routes:
      - host: play.example.com
        backend: 127.0.0.1:25566
`

// parse runs Parse with the file name every expected message uses.
func parse(t *testing.T, src string) (*Config, []Warning, error) {
	t.Helper()
	return Parse([]byte(src), "config.yml")
}

func warningStrings(ws []Warning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.String()
	}
	return out
}

// parseErrorCases are configs Parse must reject, with every error expected.
var parseErrorCases = []struct {
	name string
	src  string
	want []string // every error, in file order
	kind error    // a sentinel the error list wraps
}{
	{
		name: "api open to the network without a token",
		src:  minimal + "api:\n  enabled: true\n  bind: 0.0.0.0:8080\n",
		want: []string{`config.yml:8: api.bind: the API would listen on 0.0.0.0:8080 without a token: set api.token or api.tokenFile, or bind to loopback`},
		kind: ErrInvalid,
	},
	{
		name: "misspelled key strategey",
		src: minimal + `        strategey: random
`,
		want: []string{`config.yml:7: config.lite.routes[0].strategey: unknown key "strategey" (did you mean "strategy"?)`},
		kind: ErrUnknownKey,
	},
	{
		name: "unknown key far from any known one",
		src: `config:
  lite:
    enabled: true
    routes:
      - host: a
        backend: b
  wat: 1
`,
		want: []string{`config.yml:7: config.wat: unknown key "wat" (want one of "bind", "connectionTimeout", "debug", "lite", "proxyProtocol", "proxyProtocolTrustedProxies", "quota", "readTimeout")`},
		kind: ErrUnknownKey,
	},
	{
		name: "wrong type: bool given a number",
		src: minimal + `        proxyProtocol: 3
`,
		want: []string{`config.yml:7: config.lite.routes[0].proxyProtocol: want true or false, got 3`},
		kind: ErrInvalid,
	},
	{
		name: "wrong type: yes is not a YAML 1.2 bool",
		src: minimal + `        modifyVirtualHost: yes
`,
		want: []string{`config.yml:7: config.lite.routes[0].modifyVirtualHost: want true or false, got "yes"`},
		kind: ErrInvalid,
	},
	{
		name: "wrong type: list where a mapping belongs",
		src: minimal + `        fallback: [a]
`,
		want: []string{`config.yml:7: config.lite.routes[0].fallback: want a mapping, got a list`},
		kind: ErrInvalid,
	},
	{
		name: "wrong type: bind is a list",
		src:  "config:\n  bind: [a]\n" + minimal[len("config:\n"):],
		want: []string{`config.yml:2: config.bind: want host:port, got a list`},
		kind: ErrInvalid,
	},
	{
		name: "unknown strategy",
		src: minimal + `        strategy: round_robin
`,
		want: []string{`config.yml:7: config.lite.routes[0].strategy: unknown "round_robin" (want sequential, random, round-robin, least-connections, lowest-latency, p2c, least-loaded, weighted-random, sticky)`},
		kind: ErrInvalid,
	},
	{
		name: "bad duration",
		src:  "config:\n  connectionTimeout: 5x\n" + minimal[len("config:\n"):],
		want: []string{`config.yml:2: config.connectionTimeout: invalid duration "5x" (want e.g. "5s", "1m30s", or a number of milliseconds)`},
		kind: ErrInvalid,
	},
	{
		name: "zero timeout",
		src:  "config:\n  readTimeout: 0\n" + minimal[len("config:\n"):],
		want: []string{`config.yml:2: config.readTimeout: must be greater than 0, got 0s`},
		kind: ErrInvalid,
	},
	{
		name: "bad CIDR",
		src:  "config:\n  proxyProtocolTrustedProxies: [10.0.0.0/8, 10.0.0.0/33]\n" + minimal[len("config:\n"):],
		want: []string{`config.yml:2: config.proxyProtocolTrustedProxies[1]: invalid CIDR "10.0.0.0/33" (want an IP address or a prefix like 10.0.0.0/8)`},
		kind: ErrInvalid,
	},
	{
		name: "lite disabled",
		src: `config:
  lite:
    enabled: false
    routes:
      - host: a
        backend: b
`,
		want: []string{`config.yml:3: config.lite.enabled: false: this binary only runs Lite mode; set config.lite.enabled: true`},
		kind: ErrLiteDisabled,
	},
	{
		name: "lite enabled missing",
		src: `config:
  lite:
    routes:
      - host: a
        backend: b
`,
		want: []string{`config.yml:2: config.lite.enabled: missing: this binary only runs Lite mode; set config.lite.enabled: true`},
		kind: ErrLiteDisabled,
	},
	{
		name: "lite section missing",
		src: `config:
  bind: 0.0.0.0:25565
`,
		want: []string{`config.yml:1: config.lite.enabled: missing: this binary only runs Lite mode; set config.lite.enabled: true`},
		kind: ErrLiteDisabled,
	},
	{
		name: "config section missing",
		src:  "api:\n  enabled: false\n",
		want: []string{`config.yml:1: config: missing (want config.lite.enabled: true and config.lite.routes)`},
		kind: ErrMissing,
	},
	{
		name: "empty file",
		src:  "# nothing here\n",
		want: []string{`config.yml:1: config: missing: the file is empty (want config.lite.enabled: true and config.lite.routes)`},
		kind: ErrMissing,
	},
	{
		name: "missing backend",
		src: `config:
  lite:
    enabled: true
    routes:
      - host: a.example.com
        strategy: random
`,
		want: []string{`config.yml:5: config.lite.routes[0].backend: missing (want host[:port] or a list of them)`},
		kind: ErrMissing,
	},
	{
		name: "empty backend list",
		src: `config:
  lite:
    enabled: true
    routes:
      - host: a.example.com
        backend: []
`,
		want: []string{`config.yml:6: config.lite.routes[0].backend: empty list: want at least one backend`},
		kind: ErrInvalid,
	},
	{
		name: "missing routes",
		src:  "config:\n  lite:\n    enabled: true\n",
		want: []string{`config.yml:2: config.lite.routes: missing: configure at least one route, or enable a discovery source`},
		kind: ErrMissing,
	},
	{
		name: "favicon file missing",
		src: minimal + `        fallback:
          favicon: missing.png
`,
		want: []string{`config.yml:8: config.lite.routes[0].fallback.favicon: favicon file: stat missing.png: no such file or directory`},
		kind: ErrInvalid,
	},
	{
		name: "favicon data URI that is not a PNG",
		src: minimal + `        fallback:
          favicon: data:image/png;base64,aGVsbG8=
`,
		want: []string{`config.yml:8: config.lite.routes[0].fallback.favicon: favicon data URI is not a PNG image clients can show: unexpected EOF`},
		kind: ErrInvalid,
	},
	{
		name: "invalid JSON text component",
		src: minimal + `        fallback:
          motd: '{"text": }'
`,
		want: []string{`config.yml:8: config.lite.routes[0].fallback.motd: invalid JSON text component: invalid character '}' looking for beginning of value`},
		kind: ErrInvalid,
	},
	{
		name: "unknownHost per route",
		src: minimal + `        disconnect:
          unknownHost: nope
`,
		want: []string{`config.yml:8: config.lite.routes[0].disconnect.unknownHost: only valid under config.lite.disconnect: a route that matched knows the host`},
		kind: ErrInvalid,
	},
	{
		name: "health check timeout not below interval",
		src: minimal + `        healthCheck:
          interval: 2s
          timeout: 2s
`,
		want: []string{`config.yml:7: config.lite.routes[0].healthCheck.timeout: timeout 2s must be less than interval 2s`},
		kind: ErrInvalid,
	},
	{
		name: "health check rise below one",
		src: `config:
  lite:
    enabled: true
    healthCheck:
      rise: 0
    routes:
      - host: a
        backend: b
`,
		want: []string{`config.yml:5: config.lite.healthCheck.rise: must be at least 1, got 0`},
		kind: ErrInvalid,
	},
	{
		name: "quota ops zero when enabled",
		src:  "config:\n  quota:\n    logins:\n      ops: 0\n" + minimal[len("config:\n"):],
		want: []string{`config.yml:4: config.quota.logins.ops: must be greater than 0 when the quota is enabled, got 0`},
		kind: ErrInvalid,
	},
	{
		name: "negative shutdown grace",
		src: `config:
  lite:
    enabled: true
    shutdownGrace: -1s
    routes:
      - host: a
        backend: b
`,
		want: []string{`config.yml:4: config.lite.shutdownGrace: must not be negative, got -1s`},
		kind: ErrInvalid,
	},
	{
		name: "bad backend addresses",
		src: `config:
  lite:
    enabled: true
    routes:
      - host: '*.example.com'
        backend:
          - ::1:25565
          - host:0
          - host:70000
          - host:mc
          - '[127.0.0.1]:25565'
          - bad_host!:1
`,
		want: []string{
			`config.yml:7: config.lite.routes[0].backend[0]: invalid backend "::1:25565": IPv6 addresses need brackets, e.g. [::1]:25565`,
			`config.yml:8: config.lite.routes[0].backend[1]: invalid backend "host:0": port out of range (want 1..65535)`,
			`config.yml:9: config.lite.routes[0].backend[2]: invalid backend "host:70000": port out of range (want 1..65535)`,
			`config.yml:10: config.lite.routes[0].backend[3]: invalid backend "host:mc": port must be a number`,
			`config.yml:11: config.lite.routes[0].backend[4]: invalid backend "[127.0.0.1]:25565": only IPv6 addresses go in brackets`,
			`config.yml:12: config.lite.routes[0].backend[5]: invalid backend "bad_host!:1": invalid host name: character "!"`,
		},
		kind: ErrInvalid,
	},
	{
		name: "duplicate key",
		src: minimal + `        backend: 127.0.0.1:25567
`,
		want: []string{`config.yml:7: config.lite.routes[0].backend: duplicate key (first at line 6)`},
		kind: ErrInvalid,
	},
	{
		name: "api token and tokenFile both set",
		src:  minimal + "api:\n  token: abc\n  tokenFile: token.txt\n",
		want: []string{`config.yml:9: api.tokenFile: set either token or tokenFile, not both`},
		kind: ErrInvalid,
	},
	{
		name: "yaml syntax error",
		src:  "config:\n  lite: [\n",
		want: []string{`config.yml:2: yaml: line 2: did not find expected node content`},
		kind: ErrSyntax,
	},
	{
		name: "tab indenting a key names the tab's line, not the value's before it",
		src:  "config:\n  lite:\n    enabled: true\n\troutes: []\n",
		want: []string{`config.yml:4: yaml: line 4: found a tab character that violates indentation`},
		kind: ErrSyntax,
	},
	{
		name: "tab after spaces, blank lines between",
		src:  "config:\n  lite:\n    enabled: true\n\n  \troutes: []\n",
		want: []string{`config.yml:5: yaml: line 5: found a tab character that violates indentation`},
		kind: ErrSyntax,
	},
	{
		name: "tab in a block scalar's indentation",
		src:  "config:\n  lite:\n    motd: |\n      x\n\ty\n",
		want: []string{`config.yml:5: yaml: line 5: found a tab character where an indentation space is expected`},
		kind: ErrSyntax,
	},
	{
		name: "all errors at once",
		src: `config:
  bind: nope
  lite:
    enabled: false
    routes:
      - host: a
        backend: b
        strategy: fastest
      - host: c
`,
		want: []string{
			`config.yml:2: config.bind: invalid address "nope": want host:port`,
			`config.yml:4: config.lite.enabled: false: this binary only runs Lite mode; set config.lite.enabled: true`,
			`config.yml:8: config.lite.routes[0].strategy: unknown "fastest" (want sequential, random, round-robin, least-connections, lowest-latency, p2c, least-loaded, weighted-random, sticky)`,
			`config.yml:9: config.lite.routes[1].backend: missing (want host[:port] or a list of them)`,
		},
		kind: ErrInvalid,
	},
}

func TestParseErrors(t *testing.T) {
	for _, tc := range parseErrorCases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, _, err := parse(t, tc.src)
			wantErrors(t, cfg, err, tc.want, tc.kind)
		})
	}
}
