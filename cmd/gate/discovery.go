package main

import (
	"errors"
	"fmt"

	"github.com/go-logr/logr"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
	"go.minekube.com/gate/pkg/lite/discovery"
	"go.minekube.com/gate/pkg/lite/discovery/docker"
	"go.minekube.com/gate/pkg/lite/discovery/kubernetes"
)

// newSources builds the discovery sources the config enables. Switching a
// source on or off takes a restart (reload says so).
func newSources(cfg *config.Config, log logr.Logger) ([]discovery.Source, error) {
	if err := checkSources(cfg); err != nil {
		return nil, err
	}
	d := cfg.Lite.Discovery
	var out []discovery.Source
	if d.Kubernetes.Enabled {
		out = append(out, kubernetes.New(d.Kubernetes, log.WithName("kubernetes"), kubernetes.Options{}))
	}
	if d.Docker.Enabled {
		s, err := docker.New(docker.Options{Config: d.Docker, Log: log.WithName("docker")})
		if err != nil {
			return nil, fmt.Errorf("config.lite.discovery.docker: %w", err)
		}
		out = append(out, s)
	}
	return out, nil
}

// checkSources checks what of the enabled sources can be checked without
// contacting their engine (gate validate and start-up).
func checkSources(cfg *config.Config) error {
	d := cfg.Lite.Discovery
	var errs []error
	if d.Kubernetes.Enabled {
		if err := kubernetes.Check(d.Kubernetes); err != nil {
			errs = append(errs, fmt.Errorf("%s: config.lite.discovery.kubernetes: %w", cfg.File, err))
		}
	}
	if d.Docker.Enabled {
		if err := docker.Check(d.Docker); err != nil {
			errs = append(errs, fmt.Errorf("%s: config.lite.discovery.docker: %w", cfg.File, err))
		}
	}
	return errors.Join(errs...)
}
