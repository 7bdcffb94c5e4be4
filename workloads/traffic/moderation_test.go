package traffic

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// moderationWarned lists the point warnings about interrupt moderation.
func moderationWarned(t *testing.T, src string, sets ...string) []string {
	t.Helper()
	var out []string
	for _, p := range runSrc(t, src, sets...).Points {
		for _, w := range p.Warnings {
			if strings.Contains(w, "moderation_cqes") {
				out = append(out, w)
			}
		}
	}
	return out
}

// Interrupt moderation set away from the preset in a workload where
// nothing arms a CQ is warned about: no kind raises an interrupt, so the
// settings change nothing. The preset's own values are not.
func TestInterruptModerationThatNothingUsesIsWarned(t *testing.T) {
	const src = "run: {warmup_us: 5, duration_us: 20}\n" +
		"generators: [{name: b, kind: bind_invalidate, streams: 2, outstanding: 1, mr_pages: 16, window_bytes: 4096}]\n"
	require.Empty(t, moderationWarned(t, src))
	require.Empty(t, moderationWarned(t, src, "adapter.nic.moderation_cqes=1", "adapter.nic.moderation_time_ns=0"))
	for _, set := range []string{"adapter.nic.moderation_cqes=64", "adapter.nic.moderation_time_ns=5000"} {
		w := moderationWarned(t, src, set)
		require.Len(t, w, 1, set)
		require.Contains(t, w[0], "change nothing")
		require.Contains(t, w[0], "preset generic: 1 and 0")
	}
}
