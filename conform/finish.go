package conform

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"strconv"
	"sync"
	"time"

	"github.com/mcp-conform/mcp-conform/conform/baseline"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

func (rs *runState) closeSessions(ctx context.Context) {
	var wg sync.WaitGroup
	rs.preMu.Lock()
	for _, p := range rs.preOpened {
		if p.claimed {
			continue
		}
		p.claimed = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !p.wait(ctx) {
				return
			}
			if p.s != nil {
				col := rs.columns[0] // kept for the transcripts
				if p.col != nil {
					col = p.col
				}
				col.mu.Lock()
				col.sessions = append(col.sessions, p.s)
				col.mu.Unlock()
				p.s.Close(ctx)
			}
		}()
	}
	rs.preMu.Unlock()
	wg.Wait()
	for _, col := range rs.columns {
		col.mu.Lock()
		sessions := append([]*Session(nil), col.sessions...)
		col.mu.Unlock()
		for _, s := range sessions {
			wg.Add(1)
			go func() { defer wg.Done(); s.Close(ctx) }()
		}
	}
	wg.Wait()
	for _, col := range rs.columns {
		col.awaitDrains() // their sessions are closed: what is left of a drain ends at once
	}
}

// finish assembles the report: every selected check of every column has a verdict,
// and a selected check that never ran is an error.
func (rs *runState) finish(ctx context.Context) *Result {
	rep := rs.report
	for _, col := range rs.columns {
		rr := reports.RevisionReport{Revision: col.rev.Name, Era: string(col.rev.Era), Transport: rs.kindOf(col), Checks: []reports.CheckResult{}}
		if col.main != nil {
			rr.Negotiated = col.main.Negotiated
			rr.ServerInfo = col.main.ServerInfo()
		}
		rr.Unsupported = col.state == colUnsupported
		planned := rs.checksFor(col.rev)
		for _, c := range planned {
			col.mu.Lock()
			res, ok := col.results[c.ID]
			col.mu.Unlock()
			if !ok {
				why := "the run ended before this check ran"
				if col.state == colBroken && col.err != nil {
					why = "no session: " + col.err.Error()
				} else if err := context.Cause(ctx); err != nil {
					why = "not run: " + err.Error()
				}
				res = reports.CheckResult{ID: c.ID, Title: c.Title, Level: string(c.LevelAt(col.rev)), Status: reports.Error, Message: why, Source: c.Source, Group: string(c.Group)}
				rs.attachRepro(col, Verdict{Status: reports.Error}, &res)
			}
			rr.Checks = append(rr.Checks, res)
		}
		if len(planned) > 0 || rs.planned == 0 {
			rep.Revisions = append(rep.Revisions, rr)
		}
	}
	if ht, ok := rs.tgt.(interface{ detectionNote() string }); ok && ht.detectionNote() != "" {
		rep.Notes = append(rep.Notes, ht.detectionNote())
	}
	rep.Summarize()
	if b := rs.cfg.Baseline; b != nil {
		rep.Baseline = b.Judge(rep, catalog{})
		for _, st := range rep.Baseline.Stale {
			rep.Notes = append(rep.Notes, baseline.StaleMessage(b.Path, st))
		}
	}
	rep.Cost = rs.cost()
	rep.DurationMs = time.Since(rs.started).Milliseconds()
	rep.ExitCode = rs.exitCode()
	for k, v := range rs.tgt.attachments() {
		rs.attachments[k] = v
	}
	// Every check has been judged: what they memoized (a listing of 10,000 tools per
	// revision) is let go before the transcripts are rendered, so the two never
	// weigh on memory together.
	rs.memoMu.Lock()
	rs.memo = map[string]*memoEntry{}
	rs.memoMu.Unlock()
	rs.addTranscripts()
	return &Result{Report: rep, Attachments: rs.attachments}
}

func (rs *runState) exitCode() int {
	if rs.exitOverride != 0 {
		return rs.exitOverride
	}
	s := rs.report.Summary
	// Every fail and error gates, but a quarantined one.
	gating := s.Fail + s.Error
	for _, rev := range rs.report.Revisions {
		for i := range rev.Checks {
			if c := &rev.Checks[i]; c.Quarantine != nil && (c.Status == reports.Fail || c.Status == reports.Error) {
				gating--
			}
		}
	}
	switch {
	case gating > 0 || (rs.report.Baseline != nil && len(rs.report.Baseline.Stale) > 0):
		return ExitFailed
	case s.Total == 0 || s.Skip == s.Total:
		return ExitIncomplete
	default:
		return ExitOK
	}
}

// addTranscripts writes every session's transcript as JSON lines: direction, time,
// source and the raw bytes as they crossed the wire. It comes after the last check,
// on every run's path to its reports: the sessions are rendered side by side.
func (rs *runState) addTranscripts() {
	var sessions []*Session
	for s := range rs.connectedSessions() {
		sessions = append(sessions, s)
	}
	rendered := make([][]byte, len(sessions))
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Go(func() {
			entries, dropped := s.Conn.Transcript()
			rendered[i] = transcriptJSONL(entries, dropped)
		})
	}
	wg.Wait()
	for i, s := range sessions {
		rs.attachments["transcripts/"+s.Label+".jsonl"] = rendered[i]
	}
}

// transcriptJSONL renders a transcript as JSON lines, one entry a line, and a last
// line counting the entries dropped (when any).
func transcriptJSONL(entries []wire.Entry, dropped int) []byte {
	// Sized once: grown by doubling, a buffer of megabytes is copied and cleared
	// several times and may end up twice its size.
	size := 64
	for _, e := range entries {
		size += len(e.Raw) + len(e.Err) + len(e.Source) + len(e.ForMethod) + 160
	}
	b := make([]byte, 0, size)
	for _, e := range entries {
		// Written by hand, not with json.Marshal: a raw message is copied as it is
		// (json.Valid checked it) instead of being compacted again.
		b = append(b, `{"seq":`...)
		b = strconv.AppendInt(b, int64(e.Seq), 10)
		b = append(b, `,"dir":`...)
		b = appendJSONString(b, string(e.Dir))
		b = append(b, `,"at":"`...)
		b = e.At.UTC().AppendFormat(b, time.RFC3339Nano)
		b = append(b, `","source":`...)
		b = appendJSONString(b, e.Source)
		// A decoded entry's bytes are valid JSON (wire.Decode checked them).
		if e.Msg != nil || json.Valid(e.Raw) {
			b = append(b, `,"message":`...)
			if bytes.ContainsAny(e.Raw, "\r\n") {
				var compact bytes.Buffer
				_ = json.Compact(&compact, e.Raw) // one message, one line
				b = append(b, compact.Bytes()...)
			} else {
				b = append(b, bytes.TrimSpace(e.Raw)...)
			}
		} else {
			b = append(b, `,"raw":`...)
			b = appendJSONString(b, string(e.Raw))
		}
		if e.Err != "" {
			b = append(b, `,"problem":`...)
			b = appendJSONString(b, e.Err)
		}
		if e.ForMethod != "" {
			b = append(b, `,"forMethod":`...)
			b = appendJSONString(b, e.ForMethod)
		}
		b = append(b, "}\n"...)
	}
	if dropped > 0 {
		b = append(b, `{"dropped":`...)
		b = strconv.AppendInt(b, int64(dropped), 10)
		b = append(b, "}\n"...)
	}
	return b
}

// appendJSONString appends s encoded as json.Marshal encodes a string: printable
// ASCII that needs no escape as it is, anything else through json.Marshal (which
// also escapes <, > and &).
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			enc, _ := json.Marshal(s)
			return append(b, enc...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// catalog answers the baseline's questions from the check registry.
type catalog struct{}

func (catalog) AppliesTo(id, rev string) (exists, applies bool) {
	c := Lookup(id)
	if c == nil {
		return false, false
	}
	r, ok := revision.Lookup(rev)
	return true, ok && c.AppliesTo(r)
}

// connectedSessions yields every session of every column that has a connection,
// column by column, each column's list read when its turn comes.
func (rs *runState) connectedSessions() iter.Seq[*Session] {
	return func(yield func(*Session) bool) {
		for _, col := range rs.columns {
			col.mu.Lock()
			sessions := append([]*Session(nil), col.sessions...)
			col.mu.Unlock()
			for _, s := range sessions {
				if s == nil || s.Conn == nil {
					continue
				}
				if !yield(s) {
					return
				}
			}
		}
	}
}

// cost counts what the run asked of the server: every session of every column (the
// negotiation probes' included, closeSessions having added them) and what each sent.
func (rs *runState) cost() *reports.RunCost {
	c := &reports.RunCost{}
	for s := range rs.connectedSessions() {
		c.Sessions++
		m, r := s.Conn.Sent()
		c.Messages += m
		c.Requests += r
	}
	return c
}
