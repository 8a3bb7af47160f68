package reload

import (
	"slices"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

// api.probeBind is a listener: a change waits for a restart, and says so.
func TestProbeBindChangeNeedsARestart(t *testing.T) {
	parse := func(probeBind string) *config.Config {
		t.Helper()
		src := cfgYAML("localhost:25565", "a.example.com", "127.0.0.1:1") +
			"api:\n  enabled: true\n  probeBind: '" + probeBind + "'\n"
		cfg, _, err := config.Parse([]byte(src), "config.yml")
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	got := restartNeeded(parse(""), parse("0.0.0.0:8081"))
	if want := []string{`api.probeBind (running on "", file says "0.0.0.0:8081")`}; !slices.Equal(got, want) {
		t.Fatalf("restart needed for %q, want %q", got, want)
	}
}
