package kubernetes

import (
	"fmt"

	"k8s.io/apimachinery/pkg/labels"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/engine/kube"
)

// Check loads the REST config and parses the label selector, as Run would,
// without talking to the API server (for `gate validate`).
func Check(cfg config.KubernetesDiscovery) error {
	if _, err := kube.RESTConfig(cfg); err != nil {
		return err
	}
	_, err := parseSelector(cfg.LabelSelector)
	return err
}

// parseSelector parses config.lite.discovery.kubernetes.labelSelector.
func parseSelector(s string) (labels.Selector, error) {
	sel, err := labels.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("config.lite.discovery.kubernetes.labelSelector %q: %w", s, err)
	}
	return sel, nil
}
