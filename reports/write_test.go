package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWriteAll(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out", "run1")
	transcript := []byte("{\"dir\":\"out\"}\n")
	paths, err := WriteAll(dir, fixture(), map[string][]byte{
		"transcripts/2025-06-18-1.jsonl": transcript,
		"../x":                           []byte("escape"),
	})
	if err == nil || !strings.Contains(err.Error(), `"../x"`) {
		t.Errorf("error = %v, want one naming the refused attachment", err)
	}
	want := []string{
		filepath.Join(dir, "junit.xml"),
		filepath.Join(dir, "report.json"),
		filepath.Join(dir, "matrix.md"),
		filepath.Join(dir, "report.html"),
		filepath.Join(dir, "badges", "conformance.svg"),
		filepath.Join(dir, "badges", "revision-2025-06-18.svg"),
		filepath.Join(dir, "badges", "revision-2024-11-05.svg"),
		filepath.Join(dir, "transcripts", "2025-06-18-1.jsonl"),
	}
	if !slices.Equal(paths, want) {
		t.Errorf("paths = %q, want %q", paths, want)
	}
	if got, err := os.ReadFile(want[7]); err != nil || !bytes.Equal(got, transcript) {
		t.Errorf("attachment = %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "..", "x")); !os.IsNotExist(err) {
		t.Errorf("../x was written outside the directory (stat err %v)", err)
	}
	f, err := os.Open(want[1])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if r, err := ReadJSON(f); err != nil || r.Target != fixture().Target {
		t.Errorf("report.json reads back as %+v, %v", r, err)
	}
	// No temporary files are left behind, and the files are world-readable.
	for _, sub := range []string{dir, filepath.Join(dir, "transcripts"), filepath.Join(dir, "badges")} {
		entries, err := os.ReadDir(sub)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if strings.Contains(e.Name(), ".tmp-") {
				t.Errorf("temporary file left: %s", e.Name())
			}
			if info, err := e.Info(); err == nil && !e.IsDir() && info.Mode().Perm() != 0o644 {
				t.Errorf("%s mode %v, want 0644", e.Name(), info.Mode().Perm())
			}
		}
	}
}

func TestWriteAllKeepsGoing(t *testing.T) {
	dir := t.TempDir()
	// A directory where matrix.md should go: that file cannot be renamed into place.
	if err := os.MkdirAll(filepath.Join(dir, "matrix.md", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	paths, err := WriteAll(dir, fixture(), map[string][]byte{"a.txt": []byte("a")})
	if err == nil || !strings.Contains(err.Error(), "matrix.md") {
		t.Errorf("error = %v, want one about matrix.md", err)
	}
	want := []string{filepath.Join(dir, "junit.xml"), filepath.Join(dir, "report.json"), filepath.Join(dir, "report.html"),
		filepath.Join(dir, "badges", "conformance.svg"), filepath.Join(dir, "badges", "revision-2025-06-18.svg"),
		filepath.Join(dir, "badges", "revision-2024-11-05.svg"), filepath.Join(dir, "a.txt")}
	if !slices.Equal(paths, want) {
		t.Errorf("paths = %q, want %q", paths, want)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left after a failure: %s", e.Name())
		}
	}
	if _, err := WriteAll(dir, nil, nil); err == nil {
		t.Error("WriteAll with a nil report succeeded")
	}
}

func TestCheckAttachmentName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"a.txt", true},
		{"transcripts/2025-06-18-1.jsonl", true},
		{"a/b/c.txt", true},
		{"..x", true},
		{"../x", false},
		{"..", false},
		{"a/../b", false},
		{"a/..", false},
		{"/etc/passwd", false},
		{"", false},
		{".", false},
		{"./a", false},
		{"a//b", false},
		{"a/", false},
		{`..\x`, false},
		{"a\x00b", false},
		{"junit.xml", false},
		{"report.json", false},
		{"matrix.md", false},
		{"report.html", false},
		{"badges", false},
		{"badges/conformance.svg", false},
		{"badges/sub/x.svg", false},
		{"badgesx/a.svg", true},
		{"transcripts/badges", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkAttachmentName(tt.name)
			if (err == nil) != tt.ok {
				t.Errorf("checkAttachmentName(%q) = %v, want ok=%v", tt.name, err, tt.ok)
			}
		})
	}
}

func TestWriteAllClearsAnEarlierRunsAttachments(t *testing.T) {
	dir := t.TempDir()
	r := &Report{Revisions: []RevisionReport{}}
	if _, err := WriteAll(dir, r, map[string][]byte{"transcripts/old-01.jsonl": []byte("old\n"), "ginkgo.log": []byte("old")}); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteAll(dir, r, map[string][]byte{"transcripts/new-01.jsonl": []byte("new\n"), "ginkgo.log": []byte("new")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "transcripts", "old-01.jsonl")); !os.IsNotExist(err) {
		t.Errorf("an earlier run's transcript survived: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "ginkgo.log")); string(b) != "new" {
		t.Errorf("ginkgo.log = %q", b)
	}
}
