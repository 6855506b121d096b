package wire

import (
	"slices"
	"testing"
	"time"
)

func TestMergeByTime(t *testing.T) {
	type item struct {
		at  int // ms
		seq int
		id  string
	}
	at := func(i item) time.Time { return time.UnixMilli(int64(i.at)) }
	seq := func(x *item, after item) { x.seq = after.seq }
	list := []item{{10, 1, "a"}, {20, 2, "b"}, {30, 3, "c"}}
	for _, tc := range []struct {
		name  string
		extra []item
		want  []item
	}{
		{"nothing extra", nil, list},
		{"between", []item{{25, 0, "x"}}, []item{{10, 1, "a"}, {20, 2, "b"}, {25, 2, "x"}, {30, 3, "c"}}},
		{"at the same time goes after", []item{{20, 0, "x"}}, []item{{10, 1, "a"}, {20, 2, "b"}, {20, 2, "x"}, {30, 3, "c"}}},
		{"first keeps its number", []item{{5, 0, "x"}}, []item{{5, 0, "x"}, {10, 1, "a"}, {20, 2, "b"}, {30, 3, "c"}}},
		{"two, the last after all", []item{{15, 0, "x"}, {40, 0, "y"}}, []item{{10, 1, "a"}, {15, 1, "x"}, {20, 2, "b"}, {30, 3, "c"}, {40, 3, "y"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MergeByTime(list, tc.extra, at, seq); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
