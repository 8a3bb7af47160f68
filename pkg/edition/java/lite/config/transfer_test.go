package config_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

const transferConfig = `
config:
  lite:
    enabled: true
    routes:
      - host: old.example.com
        backend: 127.0.0.1:25566
        transfer: TRANSFER
`

func TestTransferDecodes(t *testing.T) {
	for _, tc := range []struct {
		name, addr string
		want       config.Transfer
		text       string
	}{
		{"name with port", "new.example.com:25570", config.Transfer{Host: "new.example.com", Port: 25570}, "new.example.com:25570"},
		{"default port", "new.example.com", config.Transfer{Host: "new.example.com", Port: 25565}, "new.example.com"},
		{"IPv6", `"[2001:db8::1]:25566"`, config.Transfer{Host: "2001:db8::1", Port: 25566}, "[2001:db8::1]:25566"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, _, err := config.Parse([]byte(strings.Replace(transferConfig, "TRANSFER", tc.addr, 1)), "config.yml")
			if err != nil {
				t.Fatal(err)
			}
			got := cfg.Lite.Routes[0].Transfer
			if got == nil || *got != tc.want || got.String() != tc.text {
				t.Fatalf("transfer = %+v, want %+v (%s)", got, tc.want, tc.text)
			}
		})
	}
}

func TestTransferRejectsBadAddresses(t *testing.T) {
	for _, addr := range []string{"new.example.com:0", "new.example.com:70000", "::1", "bad host", `""`} {
		t.Run(addr, func(t *testing.T) {
			_, _, err := config.Parse([]byte(strings.Replace(transferConfig, "TRANSFER", addr, 1)), "config.yml")
			var list config.ErrorList
			if !errors.As(err, &list) || len(list) != 1 || list[0].Path != "config.lite.routes[0].transfer" {
				t.Fatalf("err = %v, want one error at config.lite.routes[0].transfer", err)
			}
		})
	}
}

// A label that sends every player of its hosts elsewhere asks for more than its
// owner may do to itself: refused for that route (ErrNotGranted), which is served
// as an ordinary route.
func TestDiscoveredRouteMayNotTransfer(t *testing.T) {
	l := discoveryLite(t)
	r, _, err := l.DecodeDiscovered(config.Discovered{Origin: "kubernetes games/lobby", KeyPrefix: "gate.minekube.com/",
		Hosts: []string{"lobby.example.com"}, Backends: []string{"10.0.0.1:25565"},
		Settings: map[string]string{"transfer": "elsewhere.example.net:25565"}})
	var list config.ErrorList
	if !errors.As(err, &list) || len(list) != 1 || !errors.Is(list[0], config.ErrNotGranted) {
		t.Fatalf("err = %v, want transfer refused as not granted", err)
	}
	if r.Transfer != nil {
		t.Fatalf("route transfer = %+v, want none", r.Transfer)
	}
}

func TestTransferHoldDecodes(t *testing.T) {
	src := strings.Replace(transferConfig, "transfer: TRANSFER", "transferHoldFor: 5m\n        transferKeepIntent: true", 1)
	cfg, _, err := config.Parse([]byte(src), "config.yml")
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Lite.Routes[0].TransferHold; got != (config.TransferHold{For: 5 * time.Minute, KeepIntent: true}) {
		t.Fatalf("transfer hold = %+v", got)
	}
	for _, bad := range []string{"transferHoldFor: 2h", "transferHoldFor: 0", "transferKeepIntent: maybe"} {
		_, _, err := config.Parse([]byte(strings.Replace(transferConfig, "transfer: TRANSFER", bad, 1)), "config.yml")
		var list config.ErrorList
		if !errors.As(err, &list) || len(list) != 1 {
			t.Errorf("%s: err = %v, want one error", bad, err)
		}
	}
}
