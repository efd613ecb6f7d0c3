package fakebroker

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/twmb/franz-go/pkg/kfake"
)

// slogLogger adapts a *slog.Logger to kfake.Logger.
type slogLogger struct{ l *slog.Logger }

func (s slogLogger) Logf(level kfake.LogLevel, msg string, args ...any) {
	var lv slog.Level
	switch level {
	case kfake.LogLevelError:
		lv = slog.LevelError
	case kfake.LogLevelWarn:
		lv = slog.LevelWarn
	case kfake.LogLevelInfo:
		lv = slog.LevelInfo
	case kfake.LogLevelDebug:
		lv = slog.LevelDebug
	default:
		return
	}
	ctx := context.Background()
	if !s.l.Enabled(ctx, lv) {
		return
	}
	s.l.Log(ctx, lv, fmt.Sprintf(msg, args...), "component", "kfake")
}
