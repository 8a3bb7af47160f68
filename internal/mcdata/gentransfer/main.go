// Command gentransfer writes package wire's Transfer packet table from
// minecraft-data: go run ./internal/mcdata/gentransfer -data DIR -out FILE,
// where DIR is the minecraft-data npm package (the directory holding its
// package.json). wire's go:generate line runs it.
package main

import (
	"flag"
	"fmt"
	"os"

	"go.minekube.com/gate/internal/mcdata"
)

func main() {
	data := flag.String("data", "", "the minecraft-data npm package directory")
	out := flag.String("out", "", "the Go file to write")
	flag.Parse()
	if *data == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: gentransfer -data DIR -out FILE")
		os.Exit(2)
	}
	if err := run(*data, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gentransfer:", err)
		os.Exit(1)
	}
}

func run(data, out string) error {
	t, err := mcdata.Load(data)
	if err != nil {
		return err
	}
	src, err := t.Render()
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, src, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	return nil
}
