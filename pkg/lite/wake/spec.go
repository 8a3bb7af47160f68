package wake

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// want lists the forms of a wake text, for error messages.
const want = "want deployment/<name>, statefulset/<name>, container, https://..., exec:..."

// ParseSpec parses a route's `wake` text (a file route's key, a discovered
// Service's gate.minekube.com/wake annotation or a container's gate.wake
// label). This is the one place its syntax is stated:
//
//	deployment/<name>               Kubernetes Deployment, through its scale subresource
//	statefulset/<name>              Kubernetes StatefulSet, likewise
//	<namespace>/deployment/<name>   either of the two in another namespace
//	container                       the Docker container the route was discovered from
//	container/<name>                the Docker container <name>
//	http://... or https://...       webhook: POST {"action":"wake"|"sleep",...} to the URL
//	exec:<argv words>               command run without a shell, words split at spaces
//	hook/<name>                     a target the config file defines (config.lite.wake.hooks)
//
// The resource word is case-insensitive. namespace is the Kubernetes
// namespace of a form without one (a discovered Service's own; "" means
// "default"); container is what a bare "container" names (a discovered
// container's name; "" makes it an error). Timeout, Secret and SleepCommand
// have no text form: the config's mapping form of `wake` sets them. A hook
// is resolved by the config, which knows the file's hooks: HookName
// recognises the form, and ParseSpec refuses it.
func ParseSpec(text string, namespace, container string) (Spec, error) {
	s, err := parseSpec(strings.TrimSpace(text), namespace, container)
	if err == nil {
		err = s.Validate()
	}
	if err != nil {
		return Spec{}, err
	}
	return s, nil
}

func parseSpec(text string, namespace, container string) (Spec, error) {
	lower := strings.ToLower(text)
	switch {
	case text == "":
		return Spec{}, fmt.Errorf("wake: empty (%s)", want)
	case strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://"):
		return Spec{Kind: KindWebhook, URL: text}, nil
	case strings.HasPrefix(lower, "exec:"):
		return Spec{Kind: KindExec, Command: strings.Fields(text[len("exec:"):])}, nil
	case lower == "container":
		if container == "" {
			return Spec{}, fmt.Errorf("wake: %q names no container here (write container/<name>)", text)
		}
		return Spec{Kind: KindDocker, Name: container}, nil
	case strings.HasPrefix(lower, "container/"):
		return Spec{Kind: KindDocker, Name: text[len("container/"):]}, nil
	case strings.HasPrefix(lower, HookPrefix):
		return Spec{}, fmt.Errorf("wake: %q names a hook, which only the config resolves", text)
	}
	if scheme, _, ok := strings.Cut(text, ":"); ok { // no object name holds a ':'
		return Spec{}, fmt.Errorf("wake: unknown kind %q (%s)", scheme, want)
	}
	parts := strings.Split(text, "/")
	var s Spec
	switch len(parts) {
	case 2:
		s = Spec{Kind: KindKubernetes, Namespace: namespace, Resource: parts[0], Name: parts[1]}
	case 3:
		s = Spec{Kind: KindKubernetes, Namespace: parts[0], Resource: parts[1], Name: parts[2]}
		if s.Namespace == "" {
			return Spec{}, fmt.Errorf("wake: %q: empty namespace (%s)", text, want)
		}
	default:
		kind, _, _ := strings.Cut(text, "/")
		return Spec{}, fmt.Errorf("wake: unknown kind %q (%s)", kind, want)
	}
	if s.Namespace == "" {
		s.Namespace = "default"
	}
	s.Resource = strings.ToLower(s.Resource)
	if s.Resource != "deployment" && s.Resource != "statefulset" {
		return Spec{}, fmt.Errorf("wake: unknown kind %q (%s)", s.Resource, want)
	}
	return s, nil
}

// HookPrefix starts a `wake` text that picks a hook of the file by name.
const HookPrefix = "hook/"

// HookName returns the name of a `hook/<name>` text.
func HookName(text string) (string, bool) {
	text = strings.TrimSpace(text)
	if len(text) < len(HookPrefix) || !strings.EqualFold(text[:len(HookPrefix)], HookPrefix) {
		return "", false
	}
	return text[len(HookPrefix):], true
}

// ErrNotOwn marks a discovered object's `wake` that asks for more than the
// object's own server.
var ErrNotOwn = errors.New("not the object's own server")

// Own reports whether s names only what a discovered object could do to
// itself: a Service of namespace, a Deployment or StatefulSet of that
// namespace; a container, that container. The other scope is "" (a
// container has no namespace; a route several containers share owns no
// container). Commands and webhooks run with the proxy's own powers, so no
// object owns one: only the file names them, as a route's `wake` or as a
// hook it grants.
func (s Spec) Own(namespace, container string) error {
	const grant = "define it under config.lite.wake.hooks and grant it to this object, which then writes hook/<name>"
	switch s.Kind {
	case KindKubernetes:
		if namespace == "" {
			return fmt.Errorf("wake: %s/%s/%s: %w (a container wakes no Kubernetes workload)", s.Namespace, s.Resource, s.Name, ErrNotOwn)
		}
		if s.Namespace != namespace {
			return fmt.Errorf("wake: %s/%s/%s is not in this object's namespace %q: %w (a Service wakes only its own namespace's workloads)",
				s.Namespace, s.Resource, s.Name, namespace, ErrNotOwn)
		}
	case KindDocker:
		if container == "" {
			return fmt.Errorf("wake: container %q: %w (this route owns no container: it is a Service's, or several containers share it)", s.Name, ErrNotOwn)
		}
		if s.Name != container {
			return fmt.Errorf("wake: container %q is not this route's own container %q: %w (a label wakes only the container it is on)",
				s.Name, container, ErrNotOwn)
		}
	case KindWebhook:
		return fmt.Errorf("wake: a webhook is called by the proxy, so only the config file names one: %w (%s)", ErrNotOwn, grant)
	case KindExec:
		return fmt.Errorf("wake: a command runs as the proxy, so only the config file names one: %w (%s)", ErrNotOwn, grant)
	default:
		return fmt.Errorf("wake: unknown kind %q: %w", s.Kind, ErrNotOwn)
	}
	return nil
}

// Validate reports what is wrong with a Spec in operator words; ParseSpec
// and ParseMapping end with it, and each engine's Check runs it.
func (s Spec) Validate() error {
	switch s.Kind {
	case KindKubernetes:
		if s.Resource != "deployment" && s.Resource != "statefulset" {
			return fmt.Errorf("wake: unknown Kubernetes resource %q (want deployment or statefulset)", s.Resource)
		}
		if !dnsName(s.Name, 253) {
			return fmt.Errorf("wake: %s name %q is not a Kubernetes object name (lowercase letters, digits, '-' and '.')", s.Resource, s.Name)
		}
		if !dnsName(s.Namespace, 63) || strings.Contains(s.Namespace, ".") {
			return fmt.Errorf("wake: namespace %q is not a Kubernetes namespace name (lowercase letters, digits and '-')", s.Namespace)
		}
	case KindDocker:
		if !containerName(s.Name) {
			return fmt.Errorf("wake: container name %q is not a Docker container name (letters, digits, '_', '.', '-')", s.Name)
		}
	case KindWebhook:
		if err := CheckWebhookURL(s.URL); err != nil {
			return fmt.Errorf("wake: %w", err)
		}
	case KindExec:
		if len(s.Command) == 0 {
			return fmt.Errorf("wake: exec names no command (write exec:<program> <args>)")
		}
	default:
		return fmt.Errorf("wake: unknown kind %q (want %s, %s, %s or %s)", s.Kind, KindKubernetes, KindDocker, KindWebhook, KindExec)
	}
	if s.Timeout < 0 {
		return fmt.Errorf("wake: negative timeout %v", s.Timeout)
	}
	return nil
}

// CheckWebhookURL is the one rule for a webhook's URL: absolute, http or
// https, with a host.
func CheckWebhookURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("webhook URL %q: %w", s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("webhook URL %q needs http:// or https:// and a host", s)
	}
	return nil
}

// dnsName reports whether s is a DNS-1123 subdomain of at most n characters
// (Kubernetes object names).
func dnsName(s string, n int) bool {
	if s == "" || len(s) > n {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
				return false
			}
		}
	}
	return true
}

// containerName reports whether s is a valid Docker container name
// ([a-zA-Z0-9][a-zA-Z0-9_.-]+, one character allowed).
func containerName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		alnum := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		if !alnum && (i == 0 || (r != '_' && r != '.' && r != '-')) {
			return false
		}
	}
	return true
}
