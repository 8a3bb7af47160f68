package docker

import (
	"strconv"
	"strings"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

// Labels read on containers. gate's win over mc-router's of the same meaning.
const (
	KeyPrefix = "gate."

	LabelHosts   = KeyPrefix + "hosts"   // host patterns, separated by commas or newlines
	LabelPort    = KeyPrefix + "port"    // backend port; default wire.DefaultPort
	LabelNetwork = KeyPrefix + "network" // network (name or ID) whose address is the backend's

	// LabelWake names what wakes the route (`container`: this container). A
	// stopped or paused container with it keeps its route, without a
	// backend, so that a player can wake it. Its value is the route's `wake`
	// setting.
	LabelWake = KeyPrefix + "wake"

	LabelMCRouterHost    = "mc-router.host"
	LabelMCRouterPort    = "mc-router.port"
	LabelMCRouterNetwork = "mc-router.network"
	LabelMCRouterDefault = "mc-router.default" // "true": also the catch-all route

	// mc-router's auto-scale labels, each read (where no gate label says the
	// same) as the route setting named beside it.
	LabelMCRouterAutoScaleUp   = "mc-router.auto-scale-up"           // true: wake `container`
	LabelMCRouterAutoScaleDown = "mc-router.auto-scale-down"         // false: idleAfter `never`
	LabelMCRouterAsleepMOTD    = "mc-router.auto-scale-asleep-motd"  // asleepMotd
	LabelMCRouterLoadingMOTD   = "mc-router.auto-scale-loading-motd" // loadingMotd
	LabelMCRouterWaitTimeout   = "mc-router.auto-scale-wait-timeout" // holdFor, if under config.MaxHoldFor

	// LabelComposeProject is the label docker compose puts on every
	// container of a project: the containers of one project are one owner
	// of the hosts they claim (see owner).
	LabelComposeProject = "com.docker.compose.project"
)

// WakeSelf is the wake setting that a container names itself by.
const WakeSelf = "container"

// problem is a label the source cannot use, for a warning.
type problem struct {
	msg string
	kv  []any
}

// settings collects the `gate.<key>` labels that are route settings and the
// mc-router auto-scale labels where no gate label says the same. skip is set
// when an mc-router boolean does not parse: mc-router ignores such a
// container, and so does the source. warn is a label that is ignored.
func settings(labels map[string]string) (s map[string]string, skip, warn *problem) {
	s = map[string]string{}
	for k, v := range labels {
		if key, ok := strings.CutPrefix(k, KeyPrefix); ok && key != "" && k != LabelHosts && k != LabelPort && k != LabelNetwork {
			s[key] = v
		}
	}
	mine := func(key string) bool { _, ok := s[key]; return ok }
	up, skip := autoScaleUp(labels)
	if skip != nil {
		return nil, skip, nil
	}
	if up && !mine("wake") {
		s["wake"] = WakeSelf
	}
	down, set, err := boolLabel(labels, LabelMCRouterAutoScaleDown)
	if err != nil {
		return nil, notBoolean(LabelMCRouterAutoScaleDown, labels), nil
	}
	if set && !down && mine("wake") && !mine("idleAfter") {
		s["idleAfter"] = "never"
	}
	for label, key := range map[string]string{LabelMCRouterAsleepMOTD: "asleepMotd", LabelMCRouterLoadingMOTD: "loadingMotd"} {
		if v, ok := labels[label]; ok && !mine(key) {
			s[key] = v
		}
	}
	if v, ok := labels[LabelMCRouterWaitTimeout]; ok && !mine("holdFor") {
		warn = holdFor(s, v)
	}
	if len(s) == 0 {
		s = nil
	}
	return s, nil, warn
}

// holdFor maps mc-router's wait timeout (default 60s there) onto holdFor,
// which must stay under the client's own read timeout: a longer wait would
// end in the client's generic timeout instead of our text, so it keeps the
// default and says so.
func holdFor(s map[string]string, v string) *problem {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	switch {
	case err != nil || d <= 0:
		return &problem{"label ignored: not a positive duration", []any{"label", LabelMCRouterWaitTimeout, "value", v}}
	case d >= config.MaxHoldFor:
		return &problem{"label ignored: a login is held for less than the client's own timeout; the default holdFor applies",
			[]any{"label", LabelMCRouterWaitTimeout, "value", v, "max", config.MaxHoldFor.String()}}
	}
	s["holdFor"] = d.String()
	return nil
}

// autoScaleUp reads mc-router's auto-scale-up label, only when no gate.wake
// label says what wakes the container.
func autoScaleUp(labels map[string]string) (bool, *problem) {
	if _, ok := labels[LabelWake]; ok {
		return false, nil
	}
	up, _, err := boolLabel(labels, LabelMCRouterAutoScaleUp)
	if err != nil {
		return false, notBoolean(LabelMCRouterAutoScaleUp, labels)
	}
	return up, nil
}

// wakeable reports whether a stopped or paused container keeps its route: it
// names a wake target (any non-blank value; the wake parser judges the
// value).
func wakeable(labels map[string]string) bool {
	if v, ok := labels[LabelWake]; ok {
		return strings.TrimSpace(v) != ""
	}
	up, _ := autoScaleUp(labels)
	return up
}

// boolLabel reads a boolean label as mc-router reads its container labels
// (strconv.ParseBool of the trimmed value).
func boolLabel(labels map[string]string, key string) (v, set bool, err error) {
	text, ok := labels[key]
	if !ok {
		return false, false, nil
	}
	v, err = strconv.ParseBool(strings.TrimSpace(text))
	return v, true, err
}

func notBoolean(label string, labels map[string]string) *problem {
	return &problem{"container skipped: label is not a boolean", []any{"label", label, "value", labels[label]}}
}

// label returns the gate label's value if set, else mc-router's.
func label(labels map[string]string, gate, mcRouter string) (string, bool) {
	if v, ok := labels[gate]; ok {
		return v, true
	}
	v, ok := labels[mcRouter]
	return v, ok
}

func hostsLabelName(labels map[string]string) string {
	if _, ok := labels[LabelHosts]; ok {
		return LabelHosts
	}
	return LabelMCRouterHost
}
