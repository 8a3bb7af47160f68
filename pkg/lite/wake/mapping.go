package wake

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Mapping is the mapping form of `wake` as the config file decoded it: one
// engine key with its options.
//
//	{kubernetes: deployment/<name>, namespace: <ns>, timeout: 30s}
//	{docker: <container>, timeout: 30s}
//	{webhook: https://..., secret: <key>, timeout: 10s}
//	{exec: [argv...], sleep: [argv...], timeout: 30s}
type Mapping struct {
	// Keys are the keys written, whatever their values.
	Keys                        []string
	Kubernetes, Docker, Webhook string
	Exec, Sleep                 []string
	Namespace, Secret           string
	Timeout                     time.Duration
}

// mappingEngines are the keys of the mapping form that name an engine.
var mappingEngines = []string{"kubernetes", "docker", "webhook", "exec"}

// optionOf is the engine each option key belongs to.
var optionOf = []struct{ key, engine string }{
	{"secret", "webhook"}, {"sleep", "exec"}, {"namespace", "kubernetes"},
}

// KeyError is one mistake in the mapping form: Key is the key it is about,
// "" for the mapping as a whole.
type KeyError struct {
	Key string
	Err error
}

func (e *KeyError) Error() string {
	if e.Key == "" {
		return e.Err.Error()
	}
	return e.Key + ": " + e.Err.Error()
}

func (e *KeyError) Unwrap() error { return e.Err }

// ParseMapping turns the mapping form into a Spec and validates it as
// ParseSpec does the text; namespace and container are the scope, as there.
// Its error joins one *KeyError per mistake (errors.Join).
func ParseMapping(m Mapping, namespace, container string) (Spec, error) {
	var errs []error
	bad := func(key string, err error) { errs = append(errs, &KeyError{Key: key, Err: err}) }
	var engines []string
	for _, k := range m.Keys {
		if slices.Contains(mappingEngines, k) {
			engines = append(engines, k)
		}
	}
	if len(engines) != 1 {
		bad("", fmt.Errorf("want exactly one of %s, got %d", strings.Join(mappingEngines, ", "), len(engines)))
		return Spec{}, errors.Join(errs...)
	}
	engine := engines[0]
	for _, o := range optionOf {
		if o.engine != engine && slices.Contains(m.Keys, o.key) {
			bad(o.key, fmt.Errorf("only valid with %s", o.engine))
		}
	}
	s, err := m.spec(engine, namespace, container)
	if err != nil {
		bad(engine, err)
	}
	if len(errs) > 0 {
		return Spec{}, errors.Join(errs...)
	}
	s.Timeout = m.Timeout
	if err := s.Validate(); err != nil {
		return Spec{}, errors.Join(&KeyError{Key: engine, Err: err})
	}
	return s, nil
}

// spec reads the engine's own key.
func (m Mapping) spec(engine, namespace, container string) (Spec, error) {
	switch engine {
	case "kubernetes":
		if slices.Contains(m.Keys, "namespace") {
			namespace = m.Namespace
		}
		s, err := parseSpec(strings.TrimSpace(m.Kubernetes), namespace, container)
		if err != nil || s.Kind != KindKubernetes {
			return Spec{}, fmt.Errorf("want deployment/<name> or statefulset/<name>, got %q", m.Kubernetes)
		}
		return s, nil
	case "docker":
		name := cmp.Or(m.Docker, container)
		if name == "" {
			return Spec{}, errors.New("want a container name")
		}
		return Spec{Kind: KindDocker, Name: name}, nil
	case "webhook":
		if err := CheckWebhookURL(m.Webhook); err != nil {
			return Spec{}, err
		}
		return Spec{Kind: KindWebhook, URL: m.Webhook, Secret: m.Secret}, nil
	}
	if len(m.Exec) == 0 || m.Exec[0] == "" {
		return Spec{}, errors.New("want a command as a non-empty list of arguments")
	}
	return Spec{Kind: KindExec, Command: m.Exec, SleepCommand: m.Sleep}, nil
}
