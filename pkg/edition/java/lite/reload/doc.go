// Package reload keeps a running proxy's config in step with its file.
//
// A Reloader watches the config file's directory with fsnotify (so that it
// survives editors that write a new file and rename it over the old one, and
// Kubernetes ConfigMap volumes that swap a "..data" symlink), and reloads on
// SIGHUP too. Every reload is transactional: the file is read, parsed and
// validated in full first; an invalid file is logged with all its errors and
// the running config stays in force. Only a valid config reaches Apply.
//
// Everything reloads except what needs a new listener: a changed config.bind
// (or api.bind, api.enabled) is logged as needing a restart and otherwise
// ignored. Unchanged content is not reloaded (file events come in bursts); a
// SIGHUP always is, so that files the config points at (tokenFile, favicons)
// can be picked up.
//
// It owns watching, triggering and the load-validate-apply sequence. What a
// reload changes in the proxy is Apply's business (lite.Lite.Reload keeps live
// sessions and strategy state); parsing and validation belong to package config.
package reload
