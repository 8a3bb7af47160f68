package config

import (
	"path/filepath"
	"regexp"

	"go.minekube.com/gate/pkg/lite/operator"
)

// Operator configures where the operator layer lives (`config.lite.operator`,
// docs/lite/operator.md): the maintenance, drains, bans and status overrides
// written through the admin API, kept above this file so a reload leaves them in
// force.
type Operator struct {
	// ConfigMap is the ConfigMap every replica shares the layer through when
	// Kubernetes discovery is on (`discovery.kubernetes.enabled`). Default
	// DefaultOperatorConfigMap.
	ConfigMap string
	// Namespace is the ConfigMap's namespace. Default "": the discovery's
	// namespace when it watches one, else the proxy's own (in a cluster), else
	// "default".
	Namespace string
	// StateFile is where the layer lives without Kubernetes: a JSON file,
	// written atomically, resolved against the config file's directory.
	// Default DefaultOperatorStateFile beside the config file.
	StateFile string
	// Layer is the layer in force. The program sets it (package operator); a
	// file never does. nil is the empty layer.
	Layer *operator.Layer
}

// The defaults of Operator.
const (
	DefaultOperatorConfigMap = "gate-lite-operator"
	DefaultOperatorStateFile = "gate-lite-operator.json"
)

// dns1123 is a Kubernetes object name or namespace.
var dns1123 = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)

// decodeOperator decodes `config.lite.operator`.
func (d *decoder) decodeOperator(e entry, o *Operator) {
	name := func(f entry, dst *string) {
		d.str(f, dst)
		if *dst != "" && !dns1123.MatchString(*dst) {
			d.invalid(f, "%q is not a Kubernetes object name (lower-case letters, digits, '-' and '.')", truncate(*dst))
		}
	}
	d.mapping(e, map[string]handler{
		"configMap": func(f entry) {
			if name(f, &o.ConfigMap); o.ConfigMap == "" {
				o.ConfigMap = DefaultOperatorConfigMap
			}
		},
		"namespace": func(f entry) { name(f, &o.Namespace) },
		"stateFile": func(f entry) { d.path(f, &o.StateFile) },
	}, nil)
}

func defaultOperator() Operator {
	return Operator{ConfigMap: DefaultOperatorConfigMap, StateFile: DefaultOperatorStateFile}
}

// operatorDefaults puts the default state file beside the config file, once the
// file's directory is known (a path the file gives is resolved when decoded).
func (d *decoder) operatorDefaults(o *Operator) {
	if o.StateFile == DefaultOperatorStateFile {
		o.StateFile = filepath.Join(d.dir, o.StateFile)
	}
}
