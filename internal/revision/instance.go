package revision

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/mcp-conform/mcp-conform/internal/rawjson"
)

// normalizeInstance turns instance into the shapes the validator accepts: nil, bool,
// string, json.Number (or a Go number), []any and map[string]any. Raw JSON is decoded
// with UseNumber so that big and precise numbers survive exactly; other values are
// used as they are when already in those shapes, and round-tripped through
// encoding/json otherwise.
func normalizeInstance(instance any) (any, error) {
	switch v := instance.(type) {
	case json.RawMessage:
		return decodeJSON(v)
	case []byte:
		return decodeJSON(v)
	}
	if validatorReady(instance) {
		return instance, nil
	}
	raw, err := json.Marshal(instance)
	if err != nil {
		return nil, fmt.Errorf("encode instance of type %T: %w", instance, err)
	}
	return decodeJSON(raw)
}

// decodeJSON decodes exactly one JSON value, keeping numbers as json.Number. Valid
// input is decoded in one pass (rawjson, which decodes what json.Decoder with
// UseNumber decodes); only input that fails goes through json.Decoder, for its
// error message.
func decodeJSON(raw []byte) (any, error) {
	if v, err := rawjson.Decode(raw); err == nil {
		return v, nil
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, errors.New("decode instance: empty JSON text")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("decode instance: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("decode instance: trailing data after the JSON value at offset %d", dec.InputOffset())
	}
	return v, nil
}

// validatorReady reports whether v consists only of types the validator accepts.
func validatorReady(v any) bool {
	switch v := v.(type) {
	case nil, bool, string, json.Number,
		int, int8, int32, int64, uint, uint8, uint32, uint64:
		return true
	case float64:
		return !math.IsNaN(v) && !math.IsInf(v, 0)
	case float32:
		return validatorReady(float64(v))
	case []any:
		for _, x := range v {
			if !validatorReady(x) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, x := range v {
			if !validatorReady(x) {
				return false
			}
		}
		return true
	}
	return false
}
