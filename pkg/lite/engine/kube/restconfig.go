package kube

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

// ErrNoKubeconfig is what a proxy outside a cluster without any kubeconfig
// gets.
var ErrNoKubeconfig = errors.New("no Kubernetes API server to watch: config.lite.discovery.kubernetes.kubeconfig is empty, " +
	"the proxy is not running in a cluster (KUBERNETES_SERVICE_HOST is unset), and $KUBECONFIG is unset")

// RESTConfig resolves where the API server is: the configured kubeconfig
// file, else the in-cluster service account, else $KUBECONFIG. It reads
// files but contacts nothing.
func RESTConfig(cfg config.KubernetesDiscovery) (*rest.Config, error) {
	if cfg.Kubeconfig != "" {
		rc, err := kubeconfigFile([]string{cfg.Kubeconfig})
		if err != nil {
			return nil, fmt.Errorf("load kubeconfig %s: %w", cfg.Kubeconfig, err)
		}
		return rc, nil
	}
	rc, err := rest.InClusterConfig()
	if err == nil {
		return rc, nil
	}
	if !errors.Is(err, rest.ErrNotInCluster) {
		return nil, fmt.Errorf("load in-cluster config: %w", err)
	}
	env := os.Getenv("KUBECONFIG")
	if env == "" {
		return nil, ErrNoKubeconfig
	}
	rc, err = kubeconfigFile(filepath.SplitList(env))
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig from $KUBECONFIG (%s): %w", env, err)
	}
	return rc, nil
}

// kubeconfigFile loads the current context of the given files (merged in
// order, as kubectl merges $KUBECONFIG). A missing file is an error, not an
// empty config.
func kubeconfigFile(paths []string) (*rest.Config, error) {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return nil, err
		}
	}
	rules := &clientcmd.ClientConfigLoadingRules{Precedence: paths}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{})
	return cc.ClientConfig()
}
