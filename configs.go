// Package gate holds the example configs shipped at the root of this
// repository, so that `gate config` prints exactly the files the docs point
// to. The proxy itself lives under pkg/edition/java/lite.
package gate

import _ "embed"

// FullConfig is config.yml: every key with its default and what it does.
//
//go:embed config.yml
var FullConfig []byte

// LiteConfig is config-lite.yml: a small config to try the proxy with.
//
//go:embed config-lite.yml
var LiteConfig []byte
