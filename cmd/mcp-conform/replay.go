package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/reports"
)

const replayUsage = `mcp-conform replay: re-send a failing check's exchange to a server and print what comes back.

Usage:
  mcp-conform replay FILE --target CMD|URL [flags]

FILE is one of:
  - a transcript slice (the "exchange" object of a check in report.json),
  - one check of report.json (an object with an "exchange" field),
  - report.json itself, with --check ID (and --revision R when the check failed in
    more than one revision).

Flags:
`

// runReplay is `mcp-conform replay`.
func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o := &options{revisions: "all", maxPages: 1000, reportDir: "-"}
	var check, rev string
	fs := flag.NewFlagSet("mcp-conform replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, replayUsage)
		fs.PrintDefaults()
	}
	serverFlags(fs, o, "server to replay to: a command line (stdio) or an http(s) URL; empty replays to the bundled reference server")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Second, "deadline for each reply")
	fs.DurationVar(&o.startTimeout, "start-timeout", 15*time.Second, "how long the server may take to start")
	fs.DurationVar(&o.killGrace, "kill-grace", 2*time.Second, "how long the server may take to exit once its stdin is closed, before SIGTERM")
	fs.StringVar(&check, "check", "", "with a report.json FILE: the check ID whose exchange to replay")
	fs.StringVar(&rev, "revision", "", "with a report.json FILE: the revision whose exchange to replay")
	// FILE may come before or after the flags.
	var file string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		file, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return conform.ExitOK
		}
		return conform.ExitUsage
	}
	rest := fs.Args()
	if file == "" && len(rest) > 0 {
		file, rest = rest[0], rest[1:]
	}
	if file == "" || len(rest) > 0 {
		fmt.Fprintln(stderr, "mcp-conform replay: want exactly one FILE (see --help)")
		return conform.ExitUsage
	}
	o.runTimeout = 10 * time.Minute
	cfg, err := o.config(io.Discard)
	if err != nil {
		fmt.Fprintf(stderr, "mcp-conform replay: %v\n", err)
		return conform.ExitUsage
	}
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "mcp-conform replay: %v\n", err)
		return conform.ExitUsage
	}
	ex, err := loadExchange(data, check, rev)
	if err != nil {
		fmt.Fprintf(stderr, "mcp-conform replay: %s: %v\n", file, err)
		return conform.ExitUsage
	}
	if _, err := conform.Replay(ctx, cfg, ex, stdout); err != nil {
		fmt.Fprintf(stderr, "mcp-conform replay: %v\n", err)
		var ce *conform.ConfigError
		switch {
		case errors.As(err, &ce):
			return conform.ExitUsage
		case errors.Is(err, conform.ErrUnreachable):
			return conform.ExitUnreachable
		}
		return conform.ExitFailed
	}
	return conform.ExitOK
}

// loadExchange reads a slice from a slice file, a check object or a report.json.
func loadExchange(data []byte, check, rev string) (*reports.Exchange, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	switch {
	case probe["revisions"] != nil:
		if check == "" {
			return nil, errors.New("a report.json needs --check ID")
		}
		r, err := reports.ReadJSON(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		var found []*reports.Exchange
		var where []string
		for _, rr := range r.Revisions {
			if rev != "" && rr.Revision != rev {
				continue
			}
			for _, c := range rr.Checks {
				if c.ID == check && c.Exchange != nil {
					found = append(found, c.Exchange)
					where = append(where, rr.Revision)
				}
			}
		}
		switch len(found) {
		case 0:
			return nil, fmt.Errorf("no exchange recorded for %s%s (only failing, warning and erroring checks have one)", check, atRevision(rev))
		case 1:
			return found[0], nil
		}
		return nil, fmt.Errorf("%s has an exchange in %s: choose one with --revision", check, strings.Join(where, ", "))
	case probe["exchange"] != nil:
		var c reports.CheckResult
		if err := json.Unmarshal(data, &c); err != nil {
			return nil, fmt.Errorf("decode the check: %w", err)
		}
		return c.Exchange, nil
	case probe["sessions"] != nil:
		var ex reports.Exchange
		if err := json.Unmarshal(data, &ex); err != nil {
			return nil, fmt.Errorf("decode the slice: %w", err)
		}
		return &ex, nil
	}
	return nil, errors.New("neither a transcript slice, a check with an exchange, nor a report.json")
}

func atRevision(rev string) string {
	if rev == "" {
		return ""
	}
	return " at " + rev
}
