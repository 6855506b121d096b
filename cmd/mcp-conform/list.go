package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/catalogue"
	"github.com/mcp-conform/mcp-conform/internal/revision"
)

// listChecks writes the checks by catalogue group: a heading per group (its name,
// what it covers, the package that holds its checks), then one line per check: ID,
// revisions, level, its group:, phase: and needs: labels (what --label-filter
// selects by, with rev:, level: and id:) and title; verbose adds the spec text
// behind each check and the file that holds it on the next lines.
func listChecks(w io.Writer, verbose bool) error {
	if err := conform.RegistryErr(); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var group conform.Group
	for _, c := range conform.Checks() {
		if c.Group != group {
			group = c.Group
			if err := tw.Flush(); err != nil {
				return fmt.Errorf("list checks: %w", err)
			}
			fmt.Fprintf(w, "\n%s — %s (%s)\n", group, group.Title(), strings.Join(groupDirs(group), ", "))
		}
		revs := make([]string, len(c.Revisions))
		for i, r := range c.Revisions {
			revs[i] = r.Name
		}
		level := string(c.Level)
		if c.StricterFrom != nil {
			level = fmt.Sprintf("%s/%s≥%s", c.Level, c.StricterFrom.Level, c.StricterFrom.Revision)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\tgroup:%s phase:%s needs:%s\t%s\n", c.ID, strings.Join(revs, ","), level, c.Group, c.Phase, c.Needs, c.Title)
		if verbose {
			// Tab-free lines, so the table's columns stay aligned.
			fmt.Fprintf(tw, "      spec: %s\n", strings.Join(strings.Fields(c.Source), " "))
			if h, ok := catalogue.HomeOf(c.ID); ok {
				fmt.Fprintf(tw, "      file: %s\n", h.Path())
			}
			if len(c.Transports) > 0 {
				fmt.Fprintf(tw, "      transports: %s\n", strings.Join(c.Transports, ", "))
			}
			if opts := c.OptionNames(); len(opts) > 0 {
				fmt.Fprintf(tw, "      options: %s\n", strings.Join(opts, ", "))
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("list checks: %w", err)
	}
	return nil
}

// groupDirs lists the suite packages that hold a group's checks.
func groupDirs(g conform.Group) []string {
	var out []string
	for _, h := range catalogue.Homes {
		if h.Group == g && !slices.Contains(out, h.Dir) {
			out = append(out, h.Dir)
		}
	}
	return out
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
