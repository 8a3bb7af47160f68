package config

import "testing"

var parseWarningCases = []warningCase{
	{
		name: "full-proxy keys warn once each",
		src: `config:
  onlineMode: true
  servers:
    server1: localhost:25566
  try: [server1]
  forwarding:
    mode: velocity
` + minimal[len("config:\n"):],
		want: []string{
			`config.yml:2: config.onlineMode: ignored: Gate full-proxy setting, no effect in Lite mode`,
			`config.yml:3: config.servers: ignored: Gate full-proxy setting, no effect in Lite mode`,
			`config.yml:5: config.try: ignored: Gate full-proxy setting, no effect in Lite mode`,
			`config.yml:6: config.forwarding: ignored: Gate full-proxy setting, no effect in Lite mode`,
		},
	},
	{
		name: "Gate top-level sections",
		src:  minimal + "connect:\n  enabled: false\neditions:\n  java:\n    enabled: true\n",
		want: []string{
			`config.yml:7: connect: ignored: Gate section not supported by this Lite-only proxy`,
			`config.yml:9: editions: ignored: Gate section not supported by this Lite-only proxy`,
		},
	},
	{
		name: "realIP deprecated",
		src: minimal + `        realIP: true
`,
		want: []string{`config.yml:7: config.lite.routes[0].realIP: deprecated: use tcpShieldRealIP`},
	},
	{
		name: "exact host after a wildcard that matches it",
		src: `config:
  lite:
    enabled: true
    routes:
      - host: '*.example.com'
        backend: a
      - host:
          - example.com
          - play.example.com
        backend: b
`,
		want: []string{`config.yml:9: config.lite.routes[1].host[1]: host "play.example.com" never matches: route 0 host 0 ("*.example.com") matches it first`},
	},
	{
		name: "template reference beyond the wildcards",
		src: `config:
  lite:
    enabled: true
    routes:
      - host: '*.example.com'
        backend: $2.svc:25565
`,
		want: []string{`config.yml:6: config.lite.routes[0].backend: backend "$2.svc:25565" uses $2 but host "*.example.com" has 1 capture(s); the reference stays literal, so that backend cannot be dialled`},
	},
	{
		name: "trusting every peer",
		src:  "config:\n  proxyProtocol: true\n  proxyProtocolTrustedProxies: 0.0.0.0/0\n" + minimal[len("config:\n"):],
		want: []string{`config.yml:3: config.proxyProtocolTrustedProxies: 0.0.0.0/0 trusts every peer: anyone who can connect can claim any IP address`},
	},
	{
		name: "fallback keys Gate has and this proxy ignores",
		src: minimal + `        fallback:
          modInfo:
            type: FML
`,
		want: []string{
			`config.yml:8: config.lite.routes[0].fallback.modInfo: ignored: not supported by this proxy's fallback status`,
		},
	},
}

func TestParseWarnings(t *testing.T) {
	runWarningCases(t, parseWarningCases)
}
