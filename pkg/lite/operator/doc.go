// Package operator owns the operator layer: the intent an operator writes at run
// time through the admin API (maintenance, drained backends, bans, status
// overrides), kept above the config file so that a file reload leaves it in force.
//
// It holds the layer's types and their bounds (Entry, Validate), the State every
// replica shares and how two states merge (last writer per key, ties broken the
// same way everywhere), the immutable Layer the connection path reads (who is
// refused, what a ping shows, which backends are drained), and the two stores the
// state lives in: a JSON file beside the config, written atomically (FileStore),
// and one ConfigMap read through an informer and written with its
// resourceVersion (KubeStore).
//
// It does not serve HTTP or authenticate anyone (package admin), decide which
// store a proxy uses (cmd/gate), order backends (package strategy) or talk to
// players (package lite).
package operator
