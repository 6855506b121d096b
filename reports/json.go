package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/mcp-conform/mcp-conform/internal/revision"
)

// WriteJSON writes r as report.json: indented, fields in the struct's order, startedAt
// in RFC 3339, serverInfo null when absent, and revisions and checks as [] (never
// null) when empty. The summary is recounted from the checks (an unknown status
// counting as an error, as in every other format), so it always matches them; r
// itself is not modified. Invalid UTF-8 becomes U+FFFD, one per bad byte, written as
// the character itself, so writing a report read back gives the same bytes. A
// serverInfo that is not valid JSON is written as a JSON string holding its text, so
// one server's garbage cannot spoil the report.
func WriteJSON(w io.Writer, r *Report) error {
	if r == nil {
		return errors.New("reports: write report.json: nil report")
	}
	out := *r
	out.Summary = r.tallyAll()
	out.Target, out.Tool = validUTF8(r.Target), validUTF8(r.Tool)
	out.Version = validUTF8(r.Version)
	if r.Notes != nil {
		out.Notes = make([]string, len(r.Notes))
		for i, n := range r.Notes {
			out.Notes[i] = validUTF8(n)
		}
	}
	out.Revisions = make([]RevisionReport, len(r.Revisions))
	for i, rev := range r.Revisions {
		rev.Revision, rev.Negotiated, rev.Transport = validUTF8(rev.Revision), validUTF8(rev.Negotiated), validUTF8(rev.Transport)
		rev.ServerInfo = jsonServerInfo(rev.ServerInfo)
		if rev.Era == "" {
			// A report built without the runner (a replay, a test) still names
			// its era: the registry knows every revision's.
			rev.Era = string(revision.Legacy)
			if r, ok := revision.Lookup(rev.Revision); ok {
				rev.Era = string(r.Era)
			}
		}
		checks := make([]CheckResult, len(rev.Checks))
		for j, c := range rev.Checks {
			c.ID, c.Title, c.Level, c.Message = validUTF8(c.ID), validUTF8(c.Title), validUTF8(c.Level), validUTF8(c.Message)
			c.Status = Status(validUTF8(string(c.Status)))
			if c.Status == Skip {
				c.Reason = skipReason(&rev, &c)
				if c.Reason == "" {
					c.Reason = NotApplicable // a skip always says why
				}
			}
			c.Reason = SkipReason(validUTF8(string(c.Reason)))
			c.Source, c.Expected, c.Actual = validUTF8(c.Source), validUTF8(c.Expected), validUTF8(c.Actual)
			c.Group, c.Repro = validUTF8(c.Group), validUTF8(c.Repro)
			checks[j] = c
		}
		rev.Checks = checks
		out.Revisions[i] = rev
	}
	// Encoded compact, then indented here: encoding/json's indentation re-scans
	// its own output with the full JSON state machine, and was half of the file's
	// cost. The bytes are the same (TestIndentMatchesEncodingJSON).
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&out); err != nil {
		return fmt.Errorf("reports: encode report.json: %w", err)
	}
	// Indented in pieces straight to w: the whole indented file (twice the compact
	// one's size reserved, 2.6 MB for five revisions against server-everything) was
	// allocated, zeroed and faulted in at the run's end.
	write := func(b []byte) error {
		_, err := w.Write(b)
		return err
	}
	rest, err := indentTo(make([]byte, 0, indentChunk+64), bytes.TrimSuffix(compact.Bytes(), []byte("\n")), write)
	if err == nil {
		err = write(append(rest, '\n'))
	}
	if err != nil {
		return fmt.Errorf("reports: write report.json: %w", err)
	}
	return nil
}

// indentChunk is how much indented JSON indentTo holds before it hands it on.
const indentChunk = 32 << 10

// indentTo appends src, compact JSON as encoding/json writes it, indented as
// json.Indent(dst, src, "", "  ") would: a member or element per line, two spaces a
// level, ": " after a name, empty objects and arrays kept as {} and []. Given flush, it
// hands dst to it (and empties it) each time it holds indentChunk bytes or more; it
// returns what is left.
func indentTo(dst, src []byte, flush func([]byte) error) ([]byte, error) {
	depth := 0
	newline := func() {
		dst = append(dst, '\n')
		for range depth {
			dst = append(dst, ' ', ' ')
		}
	}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if k := bytes.IndexAny(src[j:], "\"\\"); k < 0 {
					j = len(src)
				} else if j += k; src[j] == '\\' {
					j += 2
				}
			}
			dst = append(dst, src[i:min(j+1, len(src))]...)
			i = j
		case '{', '[':
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				dst = append(dst, c, src[i+1])
				i++
				continue
			}
			dst = append(dst, c)
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, ':', ' ')
		default:
			dst = append(dst, c)
		}
		if flush != nil && len(dst) >= indentChunk {
			if err := flush(dst); err != nil {
				return dst, err
			}
			dst = dst[:0]
		}
	}
	return dst, nil
}

// jsonServerInfo returns raw ready to encode: nil (null) when absent, a JSON string
// of its text when it is not valid JSON, raw itself otherwise.
func jsonServerInfo(raw json.RawMessage) json.RawMessage {
	switch {
	case len(bytes.TrimSpace(raw)) == 0:
		return nil
	case json.Valid(raw):
		return raw
	}
	quoted, err := json.Marshal(string(raw))
	if err != nil { // cannot happen: strings always marshal
		return nil
	}
	return quoted
}

// ReadJSON reads a report.json written by WriteJSON. Only the JSON contract is
// restored; of the fields outside it, Unsupported is inferred for a column whose
// server answered another version and whose checks all skip (revision-unsupported), and
// those skips get the revision-unsupported reason. serverInfo is compacted, and nil
// when null or absent.
func ReadJSON(rd io.Reader) (*Report, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("reports: read report.json: %w", err)
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("reports: decode report.json: %w", err)
	}
	for i := range r.Revisions {
		rev := &r.Revisions[i]
		rev.ServerInfo = readServerInfo(rev.ServerInfo)
		if rev.Checks == nil {
			rev.Checks = []CheckResult{}
		}
		allSkip := !slices.ContainsFunc(rev.Checks, func(c CheckResult) bool { return c.Status != Skip })
		otherEra := len(rev.Checks) > 0 && !slices.ContainsFunc(rev.Checks, func(c CheckResult) bool { return c.Status != Skip || c.Reason != RevisionUnsupported })
		if rev.Negotiated == "" && otherEra {
			// Era detection found the server speaks the other era: no version was
			// negotiated, and every check is revision-unsupported (ColumnState's
			// "unsupported", as the run itself said).
			rev.Unsupported = true
		}
		if rev.Negotiated != "" && rev.Negotiated != rev.Revision && allSkip {
			rev.Unsupported = true
			for j := range rev.Checks {
				if rev.Checks[j].Reason == "" {
					rev.Checks[j].Reason = RevisionUnsupported
				}
			}
		}
	}
	return &r, nil
}

// readServerInfo compacts raw, mapping null to nil.
func readServerInfo(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw // cannot happen: Unmarshal already validated it
	}
	return json.RawMessage(b.Bytes())
}
