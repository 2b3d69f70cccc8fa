// Command pads is the Patient Assessment Data Service.
//
//	pads demo                                     the whole flow on this machine
//	pads serve [--config FILE] [--listen ADDR]   run the API
//	pads deliveries list|show|replay ...          inspect and replay deliveries
//	pads destinations list|test ...               list destinations, send a test event
//	pads records reseal [--config FILE]           rewrite records under the first encryption key
//	pads records erase|export --client ID ...     erase or export one patient's data
//	pads backup FILE [--config FILE]              copy the SQLite database while pads serves
//	pads audit [--limit N]                        print the audit log
//	pads tokens revoke --client ID                refuse every token of a client issued until now
//	pads tokens revoke --admin ID                 refuse every admin API token of an admin issued until now
//	pads keys api                                 make a client API key and its sha256
//	pads keys secret                              make a base64 key for secrets
//	pads keys whsec                               make a whsec_ webhook signing secret
//	pads listen [--listen ADDR] [--forward-to URL] receive, verify and print deliveries
//	pads reload [--config FILE]                   make the running pads read its config again
//	pads version
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// defaultGCPercent trades memory for CPU: pads' heap is small (tens of MB)
// and the save path allocates per request, so collecting half as often is a
// cheap win. GOGC in the environment still decides when set.
const defaultGCPercent = 200

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "pads:", err)
		if errors.Is(err, errUsage) {
			if err == errUsage {
				printHelp(os.Stderr)
			}
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// errUsage is pads used wrongly: main prints the commands and exits 2.
var errUsage = errors.New("unknown command or arguments; pads help lists the commands")

// run is the whole program; tests call it in-process. A command's --help
// is a success.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	err := dispatch(ctx, args, getenv, stdout, stderr)
	if errors.Is(err, errHelp) {
		return nil
	}
	return err
}

func dispatch(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errUsage
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], getenv, stdout, stderr)
	case "demo":
		return demo(ctx, args[1:], getenv, stdout, stderr)
	case "listen":
		return listen(ctx, args[1:], getenv, stdout, stderr)
	case "reload":
		return reloadCmd(ctx, args[1:], getenv, stdout, stderr)
	case "deliveries":
		return deliveries(ctx, args[1:], getenv, stdout, stderr)
	case "destinations":
		return destinationsCmd(ctx, args[1:], getenv, stdout, stderr)
	case "audit":
		return auditCmd(ctx, args[1:], getenv, stdout, stderr)
	case "records":
		return records(ctx, args[1:], getenv, stdout, stderr)
	case "backup":
		return backup(ctx, args[1:], getenv, stdout, stderr)
	case "tokens":
		return tokens(ctx, args[1:], getenv, stdout, stderr)
	case "keys":
		return keys(args[1:], stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "pads", version)
		return nil
	case "help", "-h", "--help":
		printHelp(stdout)
		return nil
	}
	return errUsage
}
