package engines_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"go.minekube.com/gate/internal/enginetest"
	"go.minekube.com/gate/internal/mctest"
	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/discovery"
	dockersource "go.minekube.com/gate/pkg/lite/discovery/docker"
)

// Regression (issue 30): a container labelled gate.wake made the proxy run a
// command, call a webhook, and start or stop another container. Now each is
// refused like a bad value, while a container still wakes itself and a hook
// the file grants a container runs.
func TestTenantContainerLabelsWakeOnlyTheirOwnContainer(t *testing.T) {
	e := enginetest.NeedDocker(t)
	b := newBait(t)
	since := time.Now()
	victimName, ownName, hookedName := enginetest.Uniq("victim-db"), enginetest.Uniq("own"), enginetest.Uniq("hooked")
	victim := e.Create(t, enginetest.Container{Name: victimName})
	p := startTrustProxy(t, fmt.Sprintf(trustYAML, fmt.Sprintf("docker: {enabled: true, host: %q}", e.Host), b.hookFile, "containers: ["+hookedName+"]"),
		func(cfg *config.Config, log logr.Logger) (discovery.Source, error) {
			return dockersource.New(dockersource.Options{Config: cfg.Lite.Discovery.Docker, Log: log, MinBackoff: 20 * time.Millisecond})
		})

	refused := map[string]string{} // container -> its gate.wake; all stopped, so a login asks for a wake
	for kind, w := range b.wakes("container/" + victimName) {
		refused[enginetest.Uniq(kind)] = w
	}
	for name, w := range refused {
		e.Create(t, enginetest.Container{Name: name, Labels: wakeLabels(name, w)})
	}
	own := e.Create(t, enginetest.Container{Name: ownName, Labels: wakeLabels(ownName, "container")})
	e.Create(t, enginetest.Container{Name: hookedName, Labels: wakeLabels(hookedName, "hook/granted")})
	mctest.WaitFor(t, "the containers' own routes served, the others refused", 15*time.Second, func() bool {
		for name := range refused {
			if p.rejected("docker "+name) == "" {
				return false
			}
		}
		return p.serves(host(ownName)) && p.serves(host(hookedName))
	})
	for name := range refused {
		p.refusal(t, "docker "+name, "gate.wake")
		p.login(t, host(name))
	}

	p.send(t, host(ownName))
	mctest.WaitFor(t, "the labelled container started by a login", 20*time.Second, func() bool {
		return e.Events(t, own, "start", since, time.Now()) == 1
	})
	p.send(t, host(hookedName))
	mctest.WaitFor(t, "the hook granted to the container run", 10*time.Second, func() bool { return touched(b.hookFile) == 1 })

	victimCalls := 0
	for _, action := range []string{"start", "stop", "kill"} {
		victimCalls += e.Events(t, victim, action, since, time.Now())
	}
	if b.commands() != 0 || b.requests.Load() != 0 || victimCalls != 0 {
		t.Fatalf("a tenant's labels caused %d commands, %d webhook requests, %d start/stop/kill of another container",
			b.commands(), b.requests.Load(), victimCalls)
	}
	t.Logf("figure: %d tenant containers (exec mapping, exec text, webhook, foreign container, a hook not granted), each with a login: %d commands, %d requests, %d container calls; own container started, granted hook run",
		len(refused), b.commands(), b.requests.Load(), victimCalls)
}

// wakeLabels route host(name) to the container and name w as its wake.
func wakeLabels(name, w string) map[string]string {
	return map[string]string{"gate.hosts": host(name), "gate.wake": w, "gate.idleAfter": "2s", "gate.holdFor": "1s"}
}
