package lite_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/lite/wake"
	"go.minekube.com/gate/pkg/lite/wake/execwake"
)

// TestExecTargetOfStoppedServerStartsAsleep: regression (issue 31): on every
// start of the proxy an exec target whose server was down was taken as awake,
// so for idleAfter its pings got no answer ("Can't connect to server" in the
// server list) instead of the asleep status. Its backend, a closed port, does
// not answer: the real exec target starts asleep, and a ping shows the asleep
// MOTD without running the command.
func TestExecTargetOfStoppedServerStartsAsleep(t *testing.T) {
	woken := filepath.Join(t.TempDir(), "woken")
	yaml := oneRoute("sleepy.example.com", refusedAddr(t)).with(`wake: {exec: [touch, "`+woken+`"]}`,
		`asleepMotd: "Asleep: join to wake"`).String()
	factory := func(s wake.Spec) (wake.Target, error) { return execwake.New(s, execwake.Options{}) }
	p := startProxy(t, yaml, proxyOpts{wakeTargets: factory})
	waitFor(t, "the exec target found asleep", 10*time.Second, func() bool {
		s := p.Wake().States()
		return len(s) == 1 && s[0].Phase == wake.PhaseAsleep
	})
	body, err := mctest.Ping(p.addr, 765, "sleepy.example.com")
	if err != nil {
		t.Fatalf("ping: %v", err)
	}
	if desc, _, _, online, _ := decodeStatus(t, body); desc != asleepMOTD || online != 0 {
		t.Fatalf("status = %s, want the asleep MOTD", body)
	}
	if _, err := os.Stat(woken); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the ping ran the wake command (stat: %v)", err)
	}
}
