package config

import (
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/lite/events"
)

const webhooksConfig = `
config:
  lite:
    enabled: true
    routes:
      - host: a.example.com
        backend: 127.0.0.1:25566
    webhooks:
%s
`

func TestWebhooksDecode(t *testing.T) {
	cfg, _, err := Parse([]byte(strings.Replace(webhooksConfig, "%s", `
      - url: https://panel.example.com/hook?key=abc
        events: [joined, ended]
        secret: s3cret
        timeout: 2s
      - url: http://127.0.0.1:9000/mc
        events: connect
        format: mc-router`, 1)), "config.yml")
	if err != nil {
		t.Fatal(err)
	}
	hs := cfg.Lite.Webhooks
	if len(hs) != 2 {
		t.Fatalf("webhooks = %+v", hs)
	}
	a, b := hs[0], hs[1]
	if a.URL != "https://panel.example.com/hook?key=abc" || a.Secret != "s3cret" || a.Timeout != 2*time.Second ||
		!a.Types.Has(events.Joined) || a.Types.Has(events.Refused) || a.Format != events.FormatGate {
		t.Fatalf("first = %+v", a)
	}
	if b.Timeout != events.DefaultWebhookTimeout || b.Format != events.FormatMCRouter || !b.Types.Has(events.Refused) || b.Types.Has(events.Ended) {
		t.Fatalf("second = %+v (want the default timeout, mc-router, connect = joined and refused)", b)
	}
}

func TestWebhooksErrors(t *testing.T) {
	cfg, _, err := Parse([]byte(strings.Replace(webhooksConfig, "%s", `
      - url: ftp://x
        events: [joined, left]
        format: discord
        timeout: 0s
      - secret: x`, 1)), "config.yml")
	wantErrors(t, cfg, err, []string{
		`config.yml:10: config.lite.webhooks[0].url: webhook URL "ftp://x" needs http:// or https:// and a host`,
		`config.yml:11: config.lite.webhooks[0].events: unknown event "left" (want joined, ended, refused, backend-up, backend-down, route-added, route-removed, wake, or mc-router's connect, disconnect)`,
		`config.yml:12: config.lite.webhooks[0].format: unknown "discord" (want gate, mc-router)`,
		`config.yml:13: config.lite.webhooks[0].timeout: must be greater than 0, got 0s`,
		`config.yml:14: config.lite.webhooks[1]: missing: a webhook needs a url`,
	}, ErrInvalid)
}
