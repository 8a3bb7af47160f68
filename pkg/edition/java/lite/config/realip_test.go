package config

import "testing"

var realIPWarningCases = []warningCase{
	{
		name: "same backend, other spelling of the default port",
		src: `config:
  lite:
    enabled: true
    routes:
      - host: shield.example.com
        backend: ['10.0.0.1', 10.0.0.2:25565]
        tcpShieldRealIP: true
      - host: direct.example.com
        backend:
          - 10.0.0.3
          - 10.0.0.1:25565
`,
		want: []string{`config.yml:11: config.lite.routes[1].backend[1]: backend "10.0.0.1:25565" is also reached by route 0 (line 5) with tcpShieldRealIP, and this route has none: a player connecting here can forge the RealIP block that backend trusts (give both routes tcpShieldRealIP, or use separate backends)`},
	},
	{
		name: "deprecated realIP counts too",
		src: `config:
  lite:
    enabled: true
    routes:
      - host: direct.example.com
        backend: Mc.Example.Net
      - host: shield.example.com
        backend: mc.example.net:25565
        realIP: true
`,
		want: []string{
			`config.yml:6: config.lite.routes[0].backend: backend "Mc.Example.Net" is also reached by route 1 (line 7) with tcpShieldRealIP, and this route has none: a player connecting here can forge the RealIP block that backend trusts (give both routes tcpShieldRealIP, or use separate backends)`,
			`config.yml:9: config.lite.routes[1].realIP: deprecated: use tcpShieldRealIP`,
		},
	},
	{
		name: "both routes shielded",
		src: `config:
  lite:
    enabled: true
    routes:
      - host: a.example.com
        backend: 10.0.0.1
        tcpShieldRealIP: true
      - host: b.example.com
        backend: 10.0.0.1
        tcpShieldRealIP: true
`,
	},
	{
		name: "different ports are different backends",
		src: `config:
  lite:
    enabled: true
    routes:
      - host: a.example.com
        backend: 10.0.0.1:25566
        tcpShieldRealIP: true
      - host: b.example.com
        backend: 10.0.0.1
`,
	},
	{
		name: "templates are not compared",
		src: `config:
  lite:
    enabled: true
    routes:
      - host: '*.a.example.com'
        backend: $1.internal:25565
        tcpShieldRealIP: true
      - host: '*.b.example.com'
        backend: $1.internal:25565
`,
	},
}

// Regression: a backend on a tcpShieldRealIP route and on a route without it trusts a
// RealIP block that players can forge through the second route; nothing said so.
func TestBackendOnRealIPAndPlainRoutesWarns(t *testing.T) {
	runWarningCases(t, realIPWarningCases)
}
