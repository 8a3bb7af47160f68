package wake

import (
	"net/url"
	"path/filepath"
	"strings"
)

// Name is how metrics, log lines, errors and the admin API show the target of
// key (a Spec.Key): the key keeps what makes a target itself, and some of that
// is secret (a webhook's token in its query or userinfo, a password in an exec
// argument). /metrics may be served without a token, so nothing there may
// carry one. Name keeps the kind and:
//
//	webhook     scheme://host[:port], without userinfo, path, query or fragment
//	exec        the program's base name, without its arguments
//	kubernetes  namespace/resource/name (object names hold no secret)
//	docker      the container's name
//
// Two keys may share a Name (two webhooks on one host); the Coordinator tells
// them apart by a suffix. Name never fails: a key of no known form shows as
// "target", since nothing says which of its parts are safe.
func Name(key string) string {
	kind, rest, _ := strings.Cut(key, " ")
	switch Kind(kind) {
	case KindKubernetes, KindDocker:
		return key
	case KindWebhook:
		return kind + " " + webhookHost(rest)
	case KindExec:
		prog, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
		if prog == "" {
			return kind
		}
		return kind + " " + filepath.Base(prog)
	}
	return "target"
}

// webhookHost is scheme://host[:port] of a webhook URL. Text that is no
// absolute URL (a test's stand-in) keeps what precedes any path, query,
// fragment or userinfo.
func webhookHost(s string) string {
	if u, err := url.Parse(s); err == nil && u.Host != "" && u.Scheme != "" {
		return u.Scheme + "://" + u.Host
	}
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
