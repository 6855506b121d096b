package main

import (
	"strings"
	"testing"
)

func TestLoadExchange(t *testing.T) {
	const slice = `{"sessions":[{"session":"s1","requested":"2025-06-18","messages":[{"seq":3,"dir":"send","at":"2026-01-01T00:00:00Z","message":{"jsonrpc":"2.0","id":7,"method":"ping"}}]}]}`
	const check = `{"id":"PING-01","status":"fail","exchange":` + slice + `}`
	const report = `{"revisions":[
		{"revision":"2025-03-26","checks":[` + check + `]},
		{"revision":"2025-06-18","checks":[` + check + `,{"id":"TOOLS-LIST-01","status":"pass"}]}]}`
	tests := []struct {
		name, data, check, rev string
		wantErr                string
	}{
		{name: "slice", data: slice},
		{name: "one check", data: check},
		{name: "report with check and revision", data: report, check: "PING-01", rev: "2025-06-18"},
		{name: "report, check failed in two revisions", data: report, check: "PING-01", wantErr: "choose one with --revision"},
		{name: "report without --check", data: report, wantErr: "needs --check"},
		{name: "passing check has no exchange", data: report, check: "TOOLS-LIST-01", wantErr: "no exchange recorded"},
		{name: "not JSON", data: "garbage", wantErr: "not a JSON object"},
		{name: "unrelated JSON", data: `{"x":1}`, wantErr: "neither"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ex, err := loadExchange([]byte(tc.data), tc.check, tc.rev)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(ex.Sessions) != 1 || len(ex.Sessions[0].Messages) != 1 || ex.Sessions[0].Messages[0].Text() != `{"jsonrpc":"2.0","id":7,"method":"ping"}` {
				t.Fatalf("exchange %+v: want the one ping", ex)
			}
		})
	}
}
