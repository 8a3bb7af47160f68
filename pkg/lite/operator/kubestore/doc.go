// Package kubestore keeps the operator layer (package operator) in one
// ConfigMap that every replica of the proxy reads through an informer and
// writes with its resourceVersion: one data key per entry, so two replicas
// writing different entries at once never lose either (the loser of the
// conflict reads again and re-applies only its own key), and two writing the
// same entry leave the last writer's.
//
// It does not decide when the ConfigMap is used (cmd/gate: with Kubernetes
// discovery on) nor validate entries (package operator).
package kubestore
