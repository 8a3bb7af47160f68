package main

import (
	"github.com/go-logr/logr"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/discovery"
)

// newSources builds the discovery sources the config enables. Switching a
// source on or off takes a restart (reload says so).
func newSources(cfg *config.Config, log logr.Logger) ([]discovery.Source, error) {
	var out []discovery.Source
	_ = cfg
	_ = log
	return out, nil
}
