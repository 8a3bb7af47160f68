package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	gate "go.minekube.com/gate"
)

// exampleConfigs are what `gate config --type T` prints. Gate's full-proxy
// types minimal and simple print the Lite example here: this proxy only runs
// Lite mode.
var exampleConfigs = map[string][]byte{
	"full":    gate.FullConfig,
	"lite":    gate.LiteConfig,
	"minimal": gate.LiteConfig,
	"simple":  gate.LiteConfig,
}

// configCmd prints an example config, like Gate's `gate config`.
func configCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("gate config", stderr)
	typ := fs.String("type", "full", "config type: full (every key, commented) or lite (a small example); minimal and simple print lite")
	fs.StringVar(typ, "t", "full", "short for --type")
	write := fs.Bool("write", false, "write to "+defaultConfig+" instead of stdout (never overwrites)")
	fs.BoolVar(write, "w", false, "short for --write")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	data, ok := exampleConfigs[*typ]
	if !ok {
		fmt.Fprintf(stderr, "gate config: unknown type %q (want full, lite, minimal or simple; bedrock is not supported by this Lite-only proxy)\n", *typ)
		return 2
	}
	if !*write {
		_, _ = stdout.Write(data)
		return 0
	}
	// Unlike Gate, an existing file is kept: it is someone's config.
	f, err := os.OpenFile(defaultConfig, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		fmt.Fprintf(stderr, "gate config: %s exists; not overwriting it (remove it or redirect stdout)\n", defaultConfig)
		return 1
	}
	if err == nil {
		_, err = f.Write(data)
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		fmt.Fprintln(stderr, "gate config:", err)
		return 1
	}
	fmt.Fprintf(stdout, "Configuration written to %s\n", defaultConfig)
	return 0
}
