package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// command is one pads command as help shows it.
type command struct {
	name    string // with its subcommand: "deliveries show"
	args    string // what follows the name and flags
	purpose string // one line
}

// commands are every command, in the order pads help lists them.
var commands = []command{
	{"demo", "", "the whole flow on this machine: save, score, deliver, verify"},
	{"serve", "", "run the API (first start: writes a starter config and its secrets)"},
	{"listen", "", "receive, verify and print deliveries on this machine, or relay them"},
	{"reload", "", "make the running pads read its config again, and say whether it took it"},
	{"deliveries list", "", "list deliveries, newest first"},
	{"deliveries show", "ID", "show a delivery and each of its attempts"},
	{"deliveries replay", "ID | --failed --since T | --client ID --patient UUID --destination ID", "deliver again: one delivery, every failed one, or a patient's results a destination never had"},
	{"destinations list", "", "list the destinations: where each sends, what it gets, how fast"},
	{"destinations test", "CLIENT/DESTINATION", "send a signed test event (no patient data) and print the answer"},
	{"destinations pause", "CLIENT/DESTINATION", "send a destination nothing; its deliveries wait until it is resumed"},
	{"destinations resume", "CLIENT/DESTINATION", "send a paused destination its waiting deliveries, in order"},
	{"records reseal", "", "rewrite records under the first encryption key"},
	{"records erase", "", "erase one patient's records, deliveries and attempts (--client, --patient or --email)"},
	{"records export", "", "write one patient's records and results to a file (--client, --patient or --email, --out)"},
	{"backup", "FILE", "copy the SQLite database while pads serves"},
	{"audit", "", "print the audit log"},
	{"tokens revoke", "", "refuse every token of a client (--client) or admin (--admin) issued until now"},
	{"keys api", "", "make a client API key and its sha256 for the config"},
	{"keys secret", "", "make a base64 key for secrets.jwtKeys or secrets.encryptionKeys"},
	{"keys whsec", "", "make a whsec_ signing secret for a destination's auth.hmac.secret"},
	{"version", "", "print the version"},
	{"help", "", "this list"},
}

func commandNamed(name string) command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return command{name: name}
}

// printHelp lists the commands with their purpose.
func printHelp(w io.Writer) {
	fmt.Fprintln(w, "pads: the Patient Assessment Data Service\n\nusage: pads COMMAND [flags]\n\ncommands:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range commands {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.purpose)
	}
	tw.Flush()
	fmt.Fprintln(w, "\npads COMMAND --help shows a command's flags.")
}

// errHelp ends a command that printed its help: pads exits 0.
var errHelp = errors.New("help shown")

// usageError is a command used wrongly: pads exits 2 naming its usage.
type usageError struct{ fs *flag.FlagSet }

func (e usageError) Error() string {
	return fmt.Sprintf("usage: %s (pads %s --help for its flags)", usageLine(e.fs.Name()), e.fs.Name())
}

// Is makes a usage error an errUsage: main exits 2 on both.
func (e usageError) Is(target error) bool { return target == errUsage }

func usageOf(fs *flag.FlagSet) error { return usageError{fs} }

func usageLine(name string) string {
	c := commandNamed(name)
	return strings.TrimSpace(fmt.Sprintf("pads %s [flags] %s", c.name, c.args))
}

// flags is a command's flag set: errors go to stderr, --help to stdout.
type flags struct {
	*flag.FlagSet
	stdout io.Writer
}

func newFlags(name string, stdout, stderr io.Writer) *flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	// A wrong flag is named by the flag package and then by usageError's
	// one line; the whole list is for --help.
	fs.Usage = func() {}
	return &flags{FlagSet: fs, stdout: stdout}
}

// help prints the command's usage, purpose and flags to stdout.
func (fs *flags) help() {
	fmt.Fprintf(fs.stdout, "usage: %s\n%s\n", usageLine(fs.Name()), commandNamed(fs.Name()).purpose)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(fs.stdout, "\nflags:")
		fs.SetOutput(fs.stdout)
		fs.PrintDefaults()
	}
}

// parse parses a command's flags: --help prints them and ends the command
// (errHelp), a wrong flag ends it with its usage.
func (fs *flags) parse(args []string) error {
	if wantsHelp(args) {
		fs.help()
		return errHelp
	}
	if err := fs.Parse(args); err != nil {
		return usageOf(fs.FlagSet)
	}
	return nil
}

// parseMixed is parse for commands whose flags and positional arguments
// may come in any order; it returns the positional ones.
func (fs *flags) parseMixed(args []string) ([]string, error) {
	if wantsHelp(args) {
		return nil, fs.parse(args)
	}
	pos, err := parseInterspersed(fs.FlagSet, args)
	if err != nil {
		return nil, usageOf(fs.FlagSet)
	}
	return pos, nil
}

func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}
