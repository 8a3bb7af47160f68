// Package config owns the configuration of a Lite proxy: the YAML types with
// Gate-compatible keys (top-level `config:`, `api:` and `noAutoReload:`), their defaults, and
// validation that reports every problem at once with file, line and key path.
// Where a section is exactly what a runtime package takes, the type is that
// package's, aliased here (HealthCheck and P2CConfig are strategy's, Fallback
// is status's, Quota embeds admission.Config): the decoder maps each YAML key
// to its field explicitly, so keys do not follow the Go names, and the
// runtime package documents the fields.
//
// It reads the file by walking yaml.Node trees, so it knows the line of every
// key: unknown or misspelled keys and bad values are errors, keys that only
// matter to Gate's full proxy (servers, try, forwarding, ...) and Gate's other
// top-level sections (editions, connect, ...) are accepted with one warning
// each, and the route table is checked with route.Compile and route.Lint.
//
// Durations are YAML duration strings ("5s", "1m30s") or bare numbers of
// milliseconds, as in Gate. Defaults are applied once, at load; nothing in the
// returned Config needs a getter to be read correctly.
//
// Parsing is bounded on any input, because configs are reloaded while the
// proxy serves players: files over MaxFileSize are rejected, aliases and merge
// keys are charged at every use against limits on the nodes and bytes decoding
// may visit, favicon files are read only when regular and small, and at most
// 100 errors and 100 warnings are reported. Hitting a limit is an error
// wrapping ErrLimit that names the file, line and key path.
//
// The package does not watch files, reload, log, or start anything: it turns
// bytes into a validated *Config and leaves running it to package lite.
package config
