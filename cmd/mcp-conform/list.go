package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
)

// listChecks writes one line per check: ID, revisions, level, its area: and needs:
// labels (what --label-filter selects by, with rev:, level: and id:) and title;
// verbose adds the spec text behind each check on the next line.
func listChecks(w io.Writer, verbose bool) error {
	if err := conform.RegistryErr(); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range conform.Checks() {
		revs := make([]string, len(c.Revisions))
		for i, r := range c.Revisions {
			revs[i] = r.Name
		}
		level := string(c.Level)
		if c.StricterFrom != nil {
			level = fmt.Sprintf("%s/%s≥%s", c.Level, c.StricterFrom.Level, c.StricterFrom.Revision)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\tarea:%s needs:%s\t%s\n", c.ID, strings.Join(revs, ","), level, c.Area, c.Needs, c.Title)
		if verbose && c.Source != "" {
			// A tab-free line, so the table's columns stay aligned.
			fmt.Fprintf(tw, "    spec: %s\n", strings.Join(strings.Fields(c.Source), " "))
		}
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("list checks: %w", err)
	}
	return nil
}

// writeVersion prints the version, the protocol revisions this build knows, and the
// module version and VCS revision it was built from, when the build recorded them.
func writeVersion(w io.Writer) {
	fmt.Fprintf(w, "mcp-conform %s\n", version)
	fmt.Fprintf(w, "protocol revisions: %s\n", strings.Join(revision.Names(), ", "))
	info, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Fprintln(w, "built from: unknown (no build information)")
		return
	}
	built := info.Main.Path + " " + info.Main.Version
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = " (modified)"
			}
		}
	}
	if rev != "" {
		built += ", commit " + rev + modified
	}
	fmt.Fprintf(w, "built from: %s with %s\n", built, info.GoVersion)
}
