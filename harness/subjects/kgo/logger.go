package kgo

import (
	"context"
	"log/slog"

	franz "github.com/twmb/franz-go/pkg/kgo"
)

// slogLogger passes kgo's log lines to a *slog.Logger (component=kgo). With
// no logger (nil) kgo logs nothing: LogLevelNone skips the formatting too.
type slogLogger struct{ l *slog.Logger }

func newLogger(l *slog.Logger) franz.Logger {
	if l == nil {
		return nopLogger{}
	}
	return slogLogger{l.With("component", "kgo")}
}

func (s slogLogger) Level() franz.LogLevel {
	ctx := context.Background()
	switch {
	case s.l.Enabled(ctx, slog.LevelDebug):
		return franz.LogLevelDebug
	case s.l.Enabled(ctx, slog.LevelInfo):
		return franz.LogLevelInfo
	case s.l.Enabled(ctx, slog.LevelWarn):
		return franz.LogLevelWarn
	case s.l.Enabled(ctx, slog.LevelError):
		return franz.LogLevelError
	}
	return franz.LogLevelNone
}

func (s slogLogger) Log(level franz.LogLevel, msg string, keyvals ...any) {
	l := slog.LevelDebug
	switch level {
	case franz.LogLevelError:
		l = slog.LevelError
	case franz.LogLevelWarn:
		l = slog.LevelWarn
	case franz.LogLevelInfo:
		l = slog.LevelInfo
	}
	s.l.Log(context.Background(), l, msg, keyvals...)
}

// nopLogger logs nothing; kgo checks Level before formatting a line.
type nopLogger struct{}

func (nopLogger) Level() franz.LogLevel              { return franz.LogLevelNone }
func (nopLogger) Log(franz.LogLevel, string, ...any) {}
