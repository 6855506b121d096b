package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// makeDist runs `make dist` for one platform into dir with VERSION=version and extra
// environment, bounded by buildTimeout, and returns the binary's path.
func makeDist(t *testing.T, dir, platform, version string, env ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "make", "dist", "DIST_DIR="+dir, "DIST_PLATFORMS="+platform, "VERSION="+version)
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = waitDelay
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make dist %s: %v\n%s", platform, err, out)
	}
	name := "mcp-conform-" + strings.ReplaceAll(platform, "/", "-")
	if strings.HasPrefix(platform, "windows/") {
		name += ".exe"
	}
	return filepath.Join(dir, name)
}

// TestDistReproducible builds this machine's platform with `make dist` twice — the
// second time with an empty build cache, so that nothing is reused — and checks that
// both give the same bytes, binary and SHA256SUMS alike; that SHA256SUMS is the
// binary's sum; that the binary is static, holds no path of this machine, and
// prints the VERSION it was stamped with.
func TestDistReproducible(t *testing.T) {
	t.Parallel() // long: it overlaps the other long tests (make test-e2e: -parallel)
	if testing.Short() {
		t.Skip("builds the binary twice, once from an empty build cache (~40 s)")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make on PATH")
	}
	const version = "9.8.7-repro"
	platform := runtime.GOOS + "/" + runtime.GOARCH
	dirA, dirB := t.TempDir(), t.TempDir()
	binA := makeDist(t, dirA, platform, version)
	binB := makeDist(t, dirB, platform, version, "GOCACHE="+t.TempDir())

	a, err := os.ReadFile(binA)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(binB)
	if err != nil {
		t.Fatal(err)
	}
	sumA, sumB := sha256.Sum256(a), sha256.Sum256(b)
	if sumA != sumB {
		t.Fatalf("two builds of %s differ: sha256 %x (%d bytes) and %x (%d bytes)", platform, sumA, len(a), sumB, len(b))
	}
	t.Logf("%s: %d bytes, sha256 %x, twice", filepath.Base(binA), len(a), sumA)
	sumsA, errA := os.ReadFile(filepath.Join(dirA, "SHA256SUMS"))
	sumsB, errB := os.ReadFile(filepath.Join(dirB, "SHA256SUMS"))
	if errA != nil || errB != nil {
		t.Fatalf("SHA256SUMS: %v, %v", errA, errB)
	}
	if want := hex.EncodeToString(sumA[:]) + "  " + filepath.Base(binA) + "\n"; string(sumsA) != want || !bytes.Equal(sumsA, sumsB) {
		t.Errorf("SHA256SUMS = %q and %q, want %q", sumsA, sumsB, want)
	}

	// -trimpath: neither the checkout nor the module cache appears, as the source
	// paths of a plain build do.
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOMODCACHE: %v", err)
	}
	for _, path := range []string{repoRoot(t), strings.TrimSpace(string(modcache))} {
		if bytes.Contains(a, []byte(path)) {
			t.Errorf("the binary holds the path %s of this machine", path)
		}
	}
	if runtime.GOOS == "linux" {
		f, err := elf.NewFile(bytes.NewReader(a))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Error("the binary asks for a dynamic loader (PT_INTERP): not static")
			}
		}
		if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
			t.Errorf("the binary needs shared libraries %q: not static", libs)
		}
	}
	out, code := runIn(t, t.TempDir(), nil, binA, "--version")
	if first, _, _ := strings.Cut(out, "\n"); code != 0 || first != "mcp-conform "+version {
		t.Errorf("--version: exit %d, first line %q, want %q\n%s", code, first, "mcp-conform "+version, out)
	}
}
