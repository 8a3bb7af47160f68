package config

import (
	"slices"
	"strings"
	"testing"
)

func TestFallbackSample(t *testing.T) {
	cfg, warns, err := parse(t, minimal+`        fallback:
          players:
            online: 2
            sample:
              - {name: Notch, id: 069A79F4-44E9-4726-A5BE-FCA90E38AAF5}
              - name: "§aOpen soon"
`)
	if err != nil || len(warns) != 0 {
		t.Fatalf("Parse: %v, warnings %v", err, warns)
	}
	want := []SamplePlayer{
		{Name: "Notch", ID: "069a79f4-44e9-4726-a5be-fca90e38aaf5"},
		{Name: "§aOpen soon", ID: "00000000-0000-0000-0000-000000000000"},
	}
	if got := cfg.Lite.Routes[0].Fallback.Sample; !slices.Equal(got, want) {
		t.Fatalf("sample = %+v, want %+v", got, want)
	}
}

func TestFallbackSampleErrors(t *testing.T) {
	for _, tc := range []struct{ name, sample, want string }{
		{"bad uuid", "[{name: a, id: nope}]", `config.yml:10: config.lite.routes[0].fallback.players.sample[0].id: invalid UUID "nope"`},
		{"missing name", "[{id: 069a79f4-44e9-4726-a5be-fca90e38aaf5}]", `config.yml:10: config.lite.routes[0].fallback.players.sample[0].name: missing`},
		{"not a list", "Notch", `config.yml:10: config.lite.routes[0].fallback.players.sample: want a list`},
		{"unknown key", "[{name: a, uuid: x}]", `config.yml:10: config.lite.routes[0].fallback.players.sample[0].uuid: unknown key`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := parse(t, minimal+"        fallback:\n          players:\n            online: 1\n            sample: "+tc.sample+"\n")
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("err = %v, want prefix %q", err, tc.want)
			}
		})
	}
}
