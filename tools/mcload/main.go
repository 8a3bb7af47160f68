package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "mcload:", err)
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

var errUsage = errors.New("usage: mcload backend|status|setup|throughput|hold|active [flags] (-h for flags)")

// run dispatches one subcommand; results go to out as one JSON object, flag help and
// progress to errOut.
func run(ctx context.Context, args []string, out, errOut io.Writer) error {
	if len(args) == 0 {
		return errUsage
	}
	fs := flag.NewFlagSet("mcload "+args[0], flag.ContinueOnError)
	fs.SetOutput(errOut)
	var res any
	var err error
	switch args[0] {
	case "backend":
		return runBackend(ctx, fs, args[1:], errOut)
	case "status":
		res, err = runStatus(ctx, fs, args[1:])
	case "setup":
		res, err = runSetup(ctx, fs, args[1:])
	case "throughput":
		res, err = runThroughput(ctx, fs, args[1:])
	case "hold":
		res, err = runHold(ctx, fs, args[1:])
	case "active":
		res, err = runActive(ctx, fs, args[1:])
	default:
		return errUsage
	}
	if err != nil {
		return err
	}
	return json.NewEncoder(out).Encode(res)
}
