package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/internal/catalogue"
)

func TestCoverageFlag(t *testing.T) {
	for _, args := range [][]string{{"--coverage"}, {"--list", "--coverage"}} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d, stderr %s", args, code, errb.String())
		}
		text := out.String()
		for _, g := range catalogue.Groups {
			if !regexp.MustCompile(`(?m)^  ` + string(g) + ` +\d+ of +\d+ covered`).MatchString(text) {
				t.Errorf("%v: no coverage line for group %s:\n%s", args, g, text)
			}
		}
		if !regexp.MustCompile(`(?m)^  total +\d+ of 302 covered$`).MatchString(text) {
			t.Errorf("%v: no total over the 302 rows:\n%s", args, text)
		}
		// A row no black-box check can cover, with its reason.
		if !regexp.MustCompile(`(?m)^  LIFE-SHUTDOWN-HTTP-01 +R1–R4 +not-black-box `).MatchString(text) {
			t.Errorf("%v: LIFE-SHUTDOWN-HTTP-01 is not listed as uncovered with its reason:\n%s", args, text)
		}
		// A covered row that stops short of some of its revisions says where.
		rows, err := catalogue.Requirements()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if r.NotIn != nil && r.Uncovered == nil && !regexp.MustCompile(`(?m)^  `+regexp.QuoteMeta(r.ID)+` +not in `).MatchString(text) {
				t.Errorf("%v: %s (notIn %v) is not listed with the revisions it leaves out", args, r.ID, r.NotIn.Revisions)
			}
		}
		// A covered row is not listed as uncovered.
		if _, cov, _ := strings.Cut(text, "Coverage of"); strings.Contains(cov, "\n  PING-01 ") {
			t.Errorf("%v: PING-01 has a check but is listed as uncovered", args)
		}
		if i, j := strings.Index(text, "PING-01"), strings.Index(text, "Coverage of"); args[0] == "--list" && (i < 0 || i > j) {
			t.Errorf("--list --coverage: the list does not come first:\n%.300s", text)
		}
	}
}
