// Package matchers holds Gomega matchers for the result of a library run
// (conform.Test, conform.RunLibrary), for server authors who write Ginkgo specs:
//
//	result := conform.Test(GinkgoT(), conform.Command("./bin/server"))
//	Expect(result).To(PassRevision("2025-11-25"))
//	Expect(result).To(HaveVerdict("PAG-INVALID-01", "warn"))
//
// They judge the report exactly as the CLI does: a quarantined check never fails a
// revision, an expected-fail is not a pass, and a revision in which nothing passed was
// not verified.
package matchers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/onsi/gomega/types"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/reports"
)

// reportOf accepts a *conform.Result or a *reports.Report.
func reportOf(actual any) (*reports.Report, error) {
	switch v := actual.(type) {
	case *conform.Result:
		if v != nil && v.Report != nil {
			return v.Report, nil
		}
	case *reports.Report:
		if v != nil {
			return v, nil
		}
	default:
		return nil, fmt.Errorf("want a *conform.Result or *reports.Report, got %T", actual)
	}
	return nil, fmt.Errorf("got a nil %T", actual)
}

// PassRevision succeeds when the server was tested at rev and passed there: the
// server negotiated rev, at least one check passed, and no check failed or errored
// (quarantined checks and expected failures aside). Warnings and skips do not fail a
// revision, as they do not fail a run.
func PassRevision(rev string) types.GomegaMatcher {
	return &passRevision{rev: rev}
}

type passRevision struct {
	rev    string
	reason string
}

func (m *passRevision) Match(actual any) (bool, error) {
	rep, err := reportOf(actual)
	if err != nil {
		return false, fmt.Errorf("PassRevision: %w", err)
	}
	i := slices.IndexFunc(rep.Revisions, func(r reports.RevisionReport) bool { return r.Revision == m.rev })
	if i < 0 {
		m.reason = fmt.Sprintf("revision %s was not tested (tested: %s)", m.rev, strings.Join(revisionNames(rep), ", "))
		return false, nil
	}
	col := &rep.Revisions[i]
	switch {
	case col.Negotiated == "":
		m.reason = fmt.Sprintf("no session could be opened at %s", m.rev)
		return false, nil
	case col.Negotiated != m.rev:
		m.reason = fmt.Sprintf("asked for %s, the server negotiated %s", m.rev, col.Negotiated)
		return false, nil
	}
	var bad []string
	passed := 0
	for j := range col.Checks {
		c := &col.Checks[j]
		if c.Gates() {
			bad = append(bad, fmt.Sprintf("  %s %s: %s", strings.ToUpper(string(c.Status)), c.ID, c.Message))
		}
		if c.Status == reports.Pass {
			passed++
		}
	}
	switch {
	case len(bad) > 0:
		m.reason = fmt.Sprintf("%d check(s) failed or errored at %s:\n%s", len(bad), m.rev, strings.Join(bad, "\n"))
		return false, nil
	case passed == 0:
		m.reason = fmt.Sprintf("no check passed at %s: nothing was verified", m.rev)
		return false, nil
	}
	m.reason = fmt.Sprintf("%d checks passed at %s and none failed", passed, m.rev)
	return true, nil
}

func (m *passRevision) FailureMessage(any) string {
	return fmt.Sprintf("Expected the server to pass revision %s, but %s", m.rev, m.reason)
}

func (m *passRevision) NegatedFailureMessage(any) string {
	return fmt.Sprintf("Expected the server not to pass revision %s, but %s", m.rev, m.reason)
}

// HaveVerdict succeeds when the check with the ID has the status (pass, warn, fail,
// skip, error or expected-fail) at every given revision, or — with no revisions — at
// every revision where it ran, of which there must be at least one.
func HaveVerdict(id, status string, revisions ...string) types.GomegaMatcher {
	return &haveVerdict{id: id, status: reports.Status(status), revisions: revisions}
}

type haveVerdict struct {
	id        string
	status    reports.Status
	revisions []string
	seen      string
}

func (m *haveVerdict) Match(actual any) (bool, error) {
	rep, err := reportOf(actual)
	if err != nil {
		return false, fmt.Errorf("HaveVerdict: %w", err)
	}
	if !m.status.Known() {
		return false, fmt.Errorf("HaveVerdict: unknown status %q (want pass, warn, fail, skip, error or expected-fail)", m.status)
	}
	var seen []string
	ok, found := true, 0
	for _, col := range rep.Revisions {
		if len(m.revisions) > 0 && !slices.Contains(m.revisions, col.Revision) {
			continue
		}
		for _, c := range col.Checks {
			if c.ID != m.id {
				continue
			}
			found++
			seen = append(seen, fmt.Sprintf("%s at %s (%s)", c.Status, col.Revision, c.Message))
			ok = ok && c.Status == m.status
		}
	}
	want := len(m.revisions)
	if want == 0 {
		want = 1
	}
	if found < want {
		ok = false
		seen = append(seen, fmt.Sprintf("ran at %d of the revisions asked for", found))
	}
	m.seen = strings.Join(seen, "; ")
	return ok, nil
}

func (m *haveVerdict) where() string {
	if len(m.revisions) == 0 {
		return "every revision it ran at"
	}
	return strings.Join(m.revisions, ", ")
}

func (m *haveVerdict) FailureMessage(any) string {
	return fmt.Sprintf("Expected %s to be %s at %s, but it was: %s", m.id, m.status, m.where(), m.seen)
}

func (m *haveVerdict) NegatedFailureMessage(any) string {
	return fmt.Sprintf("Expected %s not to be %s at %s, but it was: %s", m.id, m.status, m.where(), m.seen)
}

func revisionNames(rep *reports.Report) []string {
	out := make([]string, len(rep.Revisions))
	for i, r := range rep.Revisions {
		out[i] = r.Revision
	}
	return out
}
