package transport

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string
		wantErr string
	}{
		{"simple", "npx -y server", []string{"npx", "-y", "server"}, ""},
		{"extra whitespace", "  a \t b\n c  ", []string{"a", "b", "c"}, ""},
		{"single quotes literal", `echo 'a "b" $HOME \n'`, []string{"echo", `a "b" $HOME \n`}, ""},
		{"double quotes", `echo "a b" "c"`, []string{"echo", "a b", "c"}, ""},
		{"double quote escapes", `x "q\"q \\ \$ \` + "`" + ` \n"`, []string{"x", `q"q \ $ ` + "`" + ` \n`}, ""},
		{"joined parts", `a"b c"d`, []string{"ab cd"}, ""},
		{"joined mixed quotes", `'a'"b"c\ d`, []string{"abc d"}, ""},
		{"empty single", `cmd '' x`, []string{"cmd", "", "x"}, ""},
		{"empty double", `cmd ""`, []string{"cmd", ""}, ""},
		{"backslash outside", `a\ b c\\d \'`, []string{"a b", `c\d`, "'"}, ""},
		{"line continuation", "a\\\nb", []string{"ab"}, ""},
		{"no expansion", `$HOME ~ *.go`, []string{"$HOME", "~", "*.go"}, ""},
		{"operators literal", `a | b; c`, []string{"a", "|", "b;", "c"}, ""},
		{"unicode", `écho "héllo ✓"`, []string{"écho", "héllo ✓"}, ""},
		{"unterminated single", `a 'b`, nil, "unterminated single quote"},
		{"unterminated double", `a "b\"`, nil, "unterminated double quote"},
		{"trailing backslash", `a b\`, nil, "trailing backslash"},
		{"empty", ``, nil, "empty command"},
		{"blank", " \t\n ", nil, "empty command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SplitCommand(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("SplitCommand(%q) = %q, %v; want error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("SplitCommand(%q): %v", tt.in, err)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("SplitCommand(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
