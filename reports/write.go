package reports

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// The report files WriteAll writes, in order.
const (
	JUnitFile  = "junit.xml"
	JSONFile   = "report.json"
	MatrixFile = "matrix.md"
)

// WriteAll writes the run's reports into dir, creating it if needed: junit.xml,
// report.json, matrix.md and report.html, then the badges (BadgeDir, emptied first:
// the summary badge, then one per column), then each attachment (a transcript, say)
// under its name, in name order. An attachment's name is a clean relative path, which
// may hold a subdirectory ("transcripts/2025-06-18-1.jsonl"); a name that is
// absolute, holds "..", is not clean or would replace one of the reports or badges
// is refused. Every file is
// written atomically (a temporary file in the same directory, then a rename), so a
// run that breaks off never leaves half a file. WriteAll keeps going after a file
// fails and returns the paths it wrote with all the errors joined.
func WriteAll(dir string, r *Report, attachments map[string][]byte) ([]string, error) {
	if r == nil {
		return nil, errors.New("reports: write all: nil report")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("reports: create report directory: %w", err)
	}
	var (
		paths []string
		errs  []error
	)
	renderers := []struct {
		name   string
		render func(io.Writer, *Report) error
	}{
		{JUnitFile, WriteJUnit},
		{JSONFile, WriteJSON},
		{MatrixFile, WriteMatrix},
		{HTMLFile, WriteHTML},
	}
	// The renderers only read the report: they run at once (the HTML page and
	// report.json take a few tens of milliseconds each), each straight into its file
	// (no whole file held in memory: at a run's end that was its peak), and the paths
	// and errors are listed in order after.
	writeErrs := make([]error, len(renderers))
	var wg sync.WaitGroup
	for i, f := range renderers {
		wg.Go(func() {
			path := filepath.Join(dir, f.name)
			writeErrs[i] = writeRendered(path, func(w io.Writer) error {
				bw := bufio.NewWriterSize(w, 64<<10)
				if err := f.render(bw, r); err != nil {
					return fmt.Errorf("reports: render %s: %w", f.name, err)
				}
				if err := bw.Flush(); err != nil {
					return fmt.Errorf("reports: write %s: %w", path, err)
				}
				return nil
			})
		})
	}
	// The badges and the attachments (transcripts, server logs) are files of
	// their own: they are written while the renderers run, not after them (the
	// end of a run waits for the last file).
	var badgePaths, attachmentPaths []string
	var badgeErrs, attachmentErrs []error
	wg.Go(func() { badgePaths, badgeErrs = writeBadges(dir, r) })
	wg.Go(func() { attachmentPaths, attachmentErrs = writeAttachments(dir, attachments) })
	wg.Wait()
	for i, f := range renderers {
		if err := writeErrs[i]; err != nil {
			errs = append(errs, err)
			continue
		}
		paths = append(paths, filepath.Join(dir, f.name))
	}
	paths = append(paths, badgePaths...)
	errs = append(errs, badgeErrs...)
	paths = append(paths, attachmentPaths...)
	errs = append(errs, attachmentErrs...)
	return paths, errors.Join(errs...)
}

// writeAttachments writes each attachment under its name (a relative slash path)
// in dir, in name order, after removing what an earlier run left where they go.
func writeAttachments(dir string, attachments map[string][]byte) (paths []string, errs []error) {
	names := make([]string, 0, len(attachments))
	for name := range attachments {
		names = append(names, name)
	}
	slices.Sort(names)
	// An earlier run's transcripts or logs in the same directory would pass for this
	// run's: remove the folders and files this run writes attachments into first.
	errs = append(errs, clearStale(dir, names)...)
	for _, name := range names {
		if err := checkAttachmentName(name); err != nil {
			errs = append(errs, err)
			continue
		}
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			errs = append(errs, fmt.Errorf("reports: create directory for attachment %q: %w", name, err))
			continue
		}
		if err := writeFileAtomic(path, attachments[name]); err != nil {
			errs = append(errs, err)
			continue
		}
		paths = append(paths, path)
	}
	return paths, errs
}

// writeBadges writes Badges(r) into dir's BadgeDir, after removing what an earlier
// run left there: a badge of a column this run does not have would pass for this
// run's. It returns the paths it wrote and the errors met.
func writeBadges(dir string, r *Report) ([]string, []error) {
	bdir := filepath.Join(dir, BadgeDir)
	if err := os.RemoveAll(bdir); err != nil {
		return nil, []error{fmt.Errorf("reports: clear the earlier %s: %w", BadgeDir, err)}
	}
	if err := os.MkdirAll(bdir, 0o755); err != nil {
		return nil, []error{fmt.Errorf("reports: create %s: %w", BadgeDir, err)}
	}
	var (
		paths []string
		errs  []error
	)
	for _, b := range Badges(r) {
		path := filepath.Join(bdir, b.File)
		if err := writeFileAtomic(path, b.SVG()); err != nil {
			errs = append(errs, err)
			continue
		}
		paths = append(paths, path)
	}
	return paths, errs
}

// CheckDir makes sure the reports can be written into dir before a run starts: it
// creates dir if needed and writes and removes a probe file in it.
func CheckDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create report directory: %w", err)
	}
	probe, err := os.CreateTemp(dir, ".mcp-conform-probe-*")
	if err != nil {
		return fmt.Errorf("report directory %s is not writable: %w", dir, err)
	}
	name := probe.Name()
	_ = probe.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("report directory %s: remove probe file: %w", dir, err)
	}
	return nil
}

// checkAttachmentName refuses a name that could land outside the report directory or
// over a report: it must be a clean, local, slash-separated relative path with no ".."
// element, not junit.xml, report.json, matrix.md or report.html, and not in BadgeDir.
func checkAttachmentName(name string) error {
	bad := func(why string) error {
		return fmt.Errorf("reports: attachment name %q refused: %s", name, why)
	}
	switch {
	case name == "":
		return bad("empty")
	case strings.HasPrefix(name, "/") || filepath.IsAbs(name) || filepath.VolumeName(name) != "":
		return bad("absolute path")
	case slices.Contains(strings.FieldsFunc(name, isSeparator), ".."):
		return bad(`contains ".."`)
	case strings.ContainsRune(name, '\\'):
		return bad("contains a backslash")
	case strings.ContainsRune(name, 0):
		return bad("contains a NUL byte")
	case filepath.ToSlash(filepath.Clean(name)) != name || name == ".":
		return bad("not a clean relative path")
	case !filepath.IsLocal(filepath.FromSlash(name)):
		return bad("not a local path")
	case name == JUnitFile || name == JSONFile || name == MatrixFile || name == HTMLFile:
		return bad("would replace a report")
	case name == BadgeDir || strings.HasPrefix(name, BadgeDir+"/"):
		return bad("would replace a badge")
	}
	return nil
}

func isSeparator(r rune) bool { return r == '/' || r == '\\' }

// writeFileAtomic writes data to path through a temporary file in the same directory
// and a rename, so path holds either its old content or all of data.
func writeFileAtomic(path string, data []byte) error {
	return writeRendered(path, func(w io.Writer) error {
		if _, err := w.Write(data); err != nil {
			return fmt.Errorf("reports: write %s: %w", path, err)
		}
		return nil
	})
}

// writeRendered is writeFileAtomic for content that render writes: an error of
// render's (returned as it is) leaves no file behind, as a failed write does.
func writeRendered(path string, render func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("reports: write %s: create temporary file: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err = render(tmp); err != nil {
		return err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("reports: write %s: set mode: %w", path, err)
	}
	// No fsync: the rename already keeps each file whole for its readers, and a report
	// that a power loss empties is rewritten by the next run; an fsync per file cost a
	// run more than its checks on a busy disk (issue 10).
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("reports: write %s: close: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("reports: write %s: rename into place: %w", path, err)
	}
	return nil
}

// clearStale removes, inside dir, every top-level folder and file that the new
// attachments write into, so that nothing of an earlier run is left beside them.
func clearStale(dir string, names []string) []error {
	tops := map[string]bool{}
	for _, name := range names {
		if checkAttachmentName(name) != nil {
			continue
		}
		top, _, _ := strings.Cut(name, "/")
		tops[top] = true
	}
	var errs []error
	for top := range tops {
		if err := os.RemoveAll(filepath.Join(dir, top)); err != nil {
			errs = append(errs, fmt.Errorf("reports: clear the earlier %s: %w", top, err))
		}
	}
	return errs
}
