package toolkit

import (
	"encoding/json"
	"testing"
)

func TestSynthesize(t *testing.T) {
	tests := []struct {
		name, schema, want string
		wantErr            bool
	}{
		{"no schema", ``, `{}`, false},
		{"no required", `{"type":"object","properties":{"a":{"type":"string"}}}`, `{}`, false},
		{"default first", `{"type":"object","properties":{"a":{"type":"string","default":"d","const":"c"}},"required":["a"]}`, `{"a":"d"}`, false},
		{"const", `{"type":"object","properties":{"a":{"const":3}},"required":["a"]}`, `{"a":3}`, false},
		{"examples", `{"type":"object","properties":{"a":{"type":"string","examples":["e1","e2"],"enum":["x"]}},"required":["a"]}`, `{"a":"e1"}`, false},
		{"enum", `{"type":"object","properties":{"a":{"type":"string","enum":["x","y"]}},"required":["a"]}`, `{"a":"x"}`, false},
		{"typed minimums", `{"type":"object","properties":{"s":{"type":"string","minLength":3},"i":{"type":"integer","minimum":2},"n":{"type":"number"},"b":{"type":"boolean"}},"required":["s","i","n","b"]}`, `{"b":false,"i":2,"n":0,"s":"xxx"}`, false},
		{"nested", `{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}},"required":["o"]}`, `{"o":{"x":0}}`, false},
		{"array", `{"type":"object","properties":{"a":{"type":"array","minItems":2,"items":{"type":"string"}}},"required":["a"]}`, `{"a":["x","x"]}`, false},
		{"untyped required", `{"type":"object","properties":{"a":{}},"required":["a"]}`, ``, true},
		{"missing property schema", `{"type":"object","required":["a"]}`, ``, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Synthesize(json.RawMessage(tc.schema))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			var g, w any
			_ = json.Unmarshal(got, &g)
			_ = json.Unmarshal([]byte(tc.want), &w)
			gb, _ := json.Marshal(g)
			wb, _ := json.Marshal(w)
			if string(gb) != string(wb) {
				t.Errorf("got %s, want %s", gb, wb)
			}
		})
	}
}

func TestTokensAlternateTypes(t *testing.T) {
	a, b := nextToken(), nextToken()
	_, aStr := a.(string)
	_, bStr := b.(string)
	if aStr == bStr {
		t.Errorf("tokens %v and %v have the same JSON type", a, b)
	}
}
